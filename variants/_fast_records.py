"""Faster constructors for the records a view is derived from, kept out of the plugin API.

:class:`~bezique.variants.api.Pile`, :class:`~bezique.variants.api.Census`,
:class:`~bezique.variants.api.Zone` and :class:`~bezique.variants.api.View` are built once or
more per derived view (a game's census, then the view of it: highcard makes six piles, five
zones, a census and a view for one), and :class:`~bezique.variants.api.Move` by every plugin
whose ``legal_moves`` builds its moves anew. As for Event (``_fast_event``), a frozen
dataclass's generated ``__init__`` pays an ``object.__setattr__`` per field; these write the
slots through their descriptors (figures in docs/architecture.md, "Speed tweaks"). The records
stay frozen: only assignment after construction is refused, as before. ``bezique.variants``
installs them when it is imported; a field added to one of these records without changing
this module fails at import.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from typing import Any

from bezique.variants.api import EMPTY, AmountRange, Census, Detail, Move, Pile, View, Zone
from bezique.variants.cards import Shoe

Setter = Callable[[Any, Any], None]


def _setters(record: type, names: tuple[str, ...]) -> tuple[Setter, ...]:
    """The slot setters of ``record``'s fields, which must be exactly ``names``, in order."""
    if tuple(field.name for field in fields(record)) != names:
        raise RuntimeError(f"{record.__name__}'s fields changed; update {__name__} to build them")
    return tuple(record.__dict__[name].__set__ for name in names)


_MOVE = ("kind", "cards", "amount", "label", "amount_range")
(_M_KIND, _M_CARDS, _M_AMOUNT, _M_LABEL, _M_RANGE) = _setters(Move, _MOVE)


def move_init(self: Move, kind: str, cards: tuple[int, ...] = (), amount: int = 0,
              label: str = "", amount_range: AmountRange | None = None) -> None:
    """Move's constructor: the dataclass's fields and defaults, each slot written directly."""
    _M_KIND(self, kind)
    _M_CARDS(self, cards)
    _M_AMOUNT(self, amount)
    _M_LABEL(self, label)
    _M_RANGE(self, amount_range)


_PILE = ("name", "cards", "visible_to", "owner")
(_P_NAME, _P_CARDS, _P_VISIBLE_TO, _P_OWNER) = _setters(Pile, _PILE)


def pile_init(self: Pile, name: str, cards: tuple[int, ...],
              visible_to: frozenset[int] | None = None, owner: int | None = None) -> None:
    """Pile's constructor: the dataclass's fields and defaults, each slot written directly."""
    _P_NAME(self, name)
    _P_CARDS(self, cards)
    _P_VISIBLE_TO(self, visible_to)
    _P_OWNER(self, owner)


_CENSUS = ("piles", "chips", "scores", "stacks", "pot", "detail")
(_C_PILES, _C_CHIPS, _C_SCORES, _C_STACKS, _C_POT, _C_DETAIL) = _setters(Census, _CENSUS)


def census_init(self: Census, piles: tuple[Pile, ...], chips: int | None = None,
                scores: tuple[int, ...] = (), stacks: tuple[int, ...] = (), pot: int = 0,
                detail: Detail = EMPTY) -> None:
    """Census's constructor: the dataclass's fields and defaults, each slot written directly."""
    _C_PILES(self, piles)
    _C_CHIPS(self, chips)
    _C_SCORES(self, scores)
    _C_STACKS(self, stacks)
    _C_POT(self, pot)
    _C_DETAIL(self, detail)


_ZONE = ("name", "owner", "cards", "hidden")
(_Z_NAME, _Z_OWNER, _Z_CARDS, _Z_HIDDEN) = _setters(Zone, _ZONE)


def zone_init(self: Zone, name: str, owner: int | None = None, cards: tuple[int, ...] = (),
              hidden: int = 0) -> None:
    """Zone's constructor: the dataclass's fields and defaults, each slot written directly."""
    _Z_NAME(self, name)
    _Z_OWNER(self, owner)
    _Z_CARDS(self, cards)
    _Z_HIDDEN(self, hidden)


_VIEW = ("viewer", "phase", "to_move", "hand", "zones", "scores", "stacks", "pot", "detail",
         "shoe")
(_V_VIEWER, _V_PHASE, _V_TO_MOVE, _V_HAND, _V_ZONES, _V_SCORES, _V_STACKS, _V_POT, _V_DETAIL,
 _V_SHOE) = _setters(View, _VIEW)


def view_init(self: View, viewer: int | None, phase: str, to_move: tuple[int, ...],
              hand: tuple[int, ...], zones: tuple[Zone, ...] = (), scores: tuple[int, ...] = (),
              stacks: tuple[int, ...] = (), pot: int = 0, detail: Detail = EMPTY,
              shoe: Shoe | None = None) -> None:
    """View's constructor: the dataclass's fields and defaults, each slot written directly."""
    _V_VIEWER(self, viewer)
    _V_PHASE(self, phase)
    _V_TO_MOVE(self, to_move)
    _V_HAND(self, hand)
    _V_ZONES(self, zones)
    _V_SCORES(self, scores)
    _V_STACKS(self, stacks)
    _V_POT(self, pot)
    _V_DETAIL(self, detail)
    _V_SHOE(self, shoe)


INITS: dict[type, Callable[..., None]] = {Move: move_init, Pile: pile_init,
                                          Census: census_init, Zone: zone_init, View: view_init}
"""Each record and its constructor (the tests check every one against its dataclass)."""

Move.__init__ = move_init  # type: ignore[assignment,method-assign]
Pile.__init__ = pile_init  # type: ignore[assignment,method-assign]
Census.__init__ = census_init  # type: ignore[assignment,method-assign]
Zone.__init__ = zone_init  # type: ignore[assignment,method-assign]
View.__init__ = view_init  # type: ignore[assignment,method-assign]
