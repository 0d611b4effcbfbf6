"""Plugins written before the optional abilities were declared, completed so the host can call
every ability directly.

:class:`~bezique.variants.api.BaseVariant` and :class:`~bezique.variants.api.BaseGame` declare
each optional ability with its default. A variant that does not derive from ``BaseVariant``
(every plugin written before it) may still have some of them as plain attributes:
``vocabulary``, ``check_options``, ``buy_in_range`` (with ``start(..., buy_ins=...)``), a
``start`` that takes the keyword ``log_version``, a game's ``abort()``. This module is the one
place that looks for them, once per variant it completes, so those plugins keep working
unchanged (the compatibility promise of CHANGELOG.md); nothing else in the host probes a
plugin object. Pure: no I/O.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

from bezique.variants.api import (
    NO_VOCABULARY,
    BaseVariant,
    Event,
    Game,
    Options,
    Variant,
    Vocabulary,
)
from bezique.variants.cards import Shoe
from bezique.variants.chance import Chance


def _start_takes_log_version(start: Callable[..., object]) -> bool:
    try:
        return "log_version" in inspect.signature(start).parameters
    except (TypeError, ValueError):  # a builtin or C callable: no keywords of ours
        return False


class Undeclared(BaseVariant):
    """A plugin's variant that does not derive from :class:`BaseVariant`, with the abilities
    it has found once, here, and the declared defaults for the rest."""

    def __init__(self, plugin: Variant) -> None:
        self.plugin = plugin
        self.id, self.version, self.title = plugin.id, plugin.version, plugin.title
        self.description, self.options = plugin.description, plugin.options
        self.min_seats, self.max_seats = plugin.min_seats, plugin.max_seats
        found = getattr(plugin, "vocabulary", None)
        self.vocabulary = found if isinstance(found, Vocabulary) else NO_VOCABULARY
        self._check: Callable[[Options], object] | None = getattr(plugin, "check_options", None)
        self._bounds: Callable[[Options], tuple[int, int]] | None = getattr(
            plugin, "buy_in_range", None)
        self.start_takes_log_version = _start_takes_log_version(plugin.start)

    def seat_count(self, options: Options) -> int:
        return self.plugin.seat_count(options)

    def shoe(self, options: Options) -> Shoe:
        return self.plugin.shoe(options)

    def start(self, options: Options, chance: Chance, first_dealer: int | None = None,
              **keywords: Any) -> tuple[Game, tuple[Event, ...]]:
        """The plugin's ``start``, given only the keywords the host passes when it declares
        the ability (``buy_ins``, ``log_version``)."""
        start: Callable[..., tuple[Game, tuple[Event, ...]]] = self.plugin.start
        return start(options, chance, first_dealer, **keywords)

    def accepts_log_version(self, version: int) -> bool:
        return self.plugin.accepts_log_version(version)

    def check_options(self, options: Options) -> None:
        if self._check is not None:
            self._check(options)

    def buy_in_range(self, options: Options) -> tuple[int, int] | None:
        if self._bounds is None:
            return None
        low, high = self._bounds(options)
        return int(low), int(high)


def abort_settled(game: Game) -> Sequence[Event] | None:
    """The settlement of a game that does not derive from
    :class:`~bezique.variants.api.BaseGame`: its own ``abort()`` if it has one, else
    ``None`` (it does not settle an abort)."""
    abort = getattr(game, "abort", None)
    return None if abort is None else tuple(abort())
