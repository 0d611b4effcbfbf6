"""The conformance kit: the checks every variant must pass, built-in or third-party.

Run it from a test::

    from bezique.variants.conformance import check_variant
    def test_my_variant_conforms():
        check_variant(MyVariant())

Each check is also a public function, so a test can run them one by one. A failed check raises
:class:`ConformanceError` saying which rule broke, after which move, for which viewer.
"""

from __future__ import annotations

import hashlib
import pickle
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from bezique.variants.api import (
    BotPolicy,
    Census,
    Event,
    Game,
    IllegalMoveError,
    Move,
    OptionError,
    Options,
    OptionSpec,
    OptionType,
    RandomPolicy,
    SeatRecord,
    Variant,
    VariantError,
    Vocabulary,
)
from bezique.variants.chance import SeededChance
from bezique.variants.host import (
    abort_game,
    bot_choice,
    buy_in_range,
    declared,
    game_events,
    match_move,
    resolve_options,
    start_game,
)


class ConformanceError(AssertionError):
    """A variant broke one of the rules every variant must keep."""


def seed_bytes(n: int) -> bytes:
    """A deterministic 32-byte shuffle seed for test game ``n``."""
    return hashlib.sha256(f"conformance-{n}".encode()).digest()


@dataclass
class PlayedGame:
    """A finished (or stopped) game and how it got there."""

    variant: Variant
    options: dict[str, Any]
    seed: bytes
    game: Game
    opening: tuple[Event, ...]
    moves: list[tuple[int, Move]] = field(default_factory=list)
    events: list[tuple[Event, ...]] = field(default_factory=list)
    buy_ins: dict[int, int] = field(default_factory=dict)
    log_version: int | None = None
    """The older version the game was played as (None: the variant's own)."""

    def record(self, seat: int) -> SeatRecord:
        """What ``seat`` has seen of the game so far (what a search bot is given)."""
        return SeatRecord.of(seat, self.options, game_events((self.opening, *self.events)))


Observer = Callable[[Game, int, Move, tuple[Event, ...], Census], None]


def random_game(
    variant: Variant,
    options: Mapping[str, object] | None = None,
    *,
    game_no: int = 0,
    policies: Sequence[BotPolicy] | None = None,
    max_moves: int = 100_000,
    observe: Observer | None = None,
    buy_ins: Mapping[int, int] | None = None,
    log_version: int | None = None,
) -> PlayedGame:
    """Play one game to its end, each seat choosing with its policy (random by default) from its
    own redacted view. ``observe`` is called after each move with the census taken before it.
    ``buy_ins`` gives seats their own starting stacks (variants that take buy-ins);
    ``log_version`` plays the game as that older version (one the variant accepts)."""
    resolved = resolve_options(variant.options, options or {})
    seed = seed_bytes(game_no)
    game, opening = start_game(variant, resolved, SeededChance(seed), None, buy_ins, log_version)
    played = PlayedGame(variant, resolved, seed, game, opening, buy_ins=dict(buy_ins or {}),
                        log_version=log_version)
    rng = random.Random(game_no)
    seats = variant.seat_count(resolved)
    chosen = list(policies) if policies else [RandomPolicy()] * seats
    for _ in range(max_moves):
        if game.outcome() is not None:
            return played
        to_move = game.to_move
        if not to_move:
            raise ConformanceError(f"{variant.id}: no seat to move, yet no outcome")
        seat = to_move[0]
        legal = game.legal_moves(seat)
        if not legal:
            raise ConformanceError(f"{variant.id}: seat {seat} is to move with no legal move")
        move = bot_choice(chosen[seat], game.view(seat), legal, rng,
                          partial(played.record, seat))
        before = game.census() if observe else None
        try:
            events = game.apply(seat, move)
        except VariantError as exc:
            offer = match_move(move, legal)
            if offer is None:
                raise ConformanceError(f"{variant.id}: the {chosen[seat].name} policy chose "
                                       f"{move}, which is not among the legal moves") from exc
            raise ConformanceError(f"{variant.id} game {game_no}: legal {move} (offered as "
                                   f"{offer}) refused: {exc}") from exc
        played.moves.append((seat, move))
        played.events.append(events)
        if observe and before is not None:
            observe(game, seat, move, events, before)
    raise ConformanceError(f"{variant.id}: game {game_no} did not end in {max_moves} moves")


def _restart(played: PlayedGame) -> tuple[Game, tuple[Event, ...]]:
    """The game of ``played`` started again from its seed, buy-ins and log version."""
    return start_game(played.variant, played.options, SeededChance(played.seed), None,
                      played.buy_ins, played.log_version)


def replay(played: PlayedGame) -> tuple[Game, list[tuple[Event, ...]]]:
    """Rebuild a game from its seed and its moves."""
    game, _ = _restart(played)
    return game, [game.apply(seat, move) for seat, move in played.moves]


# ------------------------------------------------------------------------ individual checks


def check_facts(variant: Variant) -> None:
    """Declared facts are coherent and the defaults are valid options."""
    if not variant.id or variant.id != variant.id.strip().lower() or " " in variant.id:
        raise ConformanceError(f"variant id {variant.id!r} must be lower-case without spaces")
    if not 1 <= variant.min_seats <= variant.max_seats:
        raise ConformanceError(f"{variant.id}: seat range {variant.min_seats}..{variant.max_seats}")
    names = [spec.name for spec in variant.options]
    if len(names) != len(set(names)):
        raise ConformanceError(f"{variant.id}: an option is declared twice: {names}")
    for spec in variant.options:
        if not spec.description:
            raise ConformanceError(f"{variant.id}: option {spec.name!r} has no description")
        try:
            spec.parse(spec.default)
        except OptionError as exc:
            raise ConformanceError(f"{variant.id}: option {spec.name!r} has a default its own "
                                   f"declaration refuses ({exc})") from exc
    defaults = resolve_options(variant.options, {})
    seats = variant.seat_count(defaults)
    if not variant.min_seats <= seats <= variant.max_seats:
        raise ConformanceError(f"{variant.id}: default seat count {seats} outside its range")
    if not variant.accepts_log_version(variant.version):
        raise ConformanceError(f"{variant.id}: refuses logs of its own version")
    if not isinstance(declared(variant).vocabulary, Vocabulary):
        raise ConformanceError(f"{variant.id}: its vocabulary is no Vocabulary")


def _bad_values(spec: OptionSpec) -> list[object]:
    if spec.type is OptionType.BOOL:
        return ["maybe", 2]
    if spec.type is OptionType.CHOICE:
        return ["no-such-choice", 3]
    bad: list[object] = ["not-a-number", True]
    if spec.minimum is not None:
        bad.append(spec.minimum - 1)
    if spec.maximum is not None:
        bad.append(spec.maximum + 1)
    return bad


def check_options_refused(variant: Variant) -> None:
    """Unknown options and values of the wrong type or out of range raise OptionError."""
    probes: list[tuple[str, dict[str, object]]] = [("no_such_option", {"no_such_option": 1})]
    for spec in variant.options:
        probes += [(spec.name, {spec.name: value}) for value in _bad_values(spec)]
    for name, given in probes:
        try:
            resolve_options(variant.options, given)
        except OptionError as exc:
            if exc.option != name:
                raise ConformanceError(f"{variant.id}: {given} blamed {exc.option!r}") from exc
        else:
            raise ConformanceError(f"{variant.id}: accepted the bad option {given}")


def _some_value(spec: OptionSpec, rng: random.Random) -> object:
    """A value in the declared range, often at its edges, where options clash."""
    if spec.nullable and rng.random() < 0.2:
        return "none"
    if spec.type is OptionType.BOOL:
        return rng.choice([True, False])
    if spec.type is OptionType.CHOICE:
        return rng.choice(spec.choices)
    default = spec.default if isinstance(spec.default, int) else 1
    low = spec.minimum if spec.minimum is not None else default - 1000
    high = spec.maximum if spec.maximum is not None else default + 1000
    return rng.choice([low, high, default, rng.randint(low, high), rng.randint(low, high)])


def _checked_options(variant: Variant, given: Mapping[str, object]) -> Options | None:
    """The options creation makes of ``given`` (each in range, then the set as a whole by the
    variant's ``check_options``), or None when it refuses them, as it must: with an
    :class:`OptionError` that names a declared option."""
    names = {spec.name for spec in variant.options}
    try:
        options = resolve_options(variant.options, given)
        declared(variant).check_options(options)
    except OptionError as exc:
        if exc.option not in names:
            raise ConformanceError(f"{variant.id}: check_options blames {exc.option!r}, which "
                                   f"is no declared option") from exc
        return None
    except Exception as exc:
        raise ConformanceError(f"{variant.id}: check_options raised {exc!r} for {given}, not "
                               f"an OptionError naming the option") from exc
    return options


def _check_buy_in_range(variant: Variant, options: Options, given: Mapping[str, object]
                        ) -> None:
    """Options creation accepts have a buy-in range the seats can start with (or none)."""
    try:
        bounds = buy_in_range(variant, options)
    except Exception as exc:
        raise ConformanceError(f"{variant.id}: options {given} were accepted but "
                               f"buy_in_range raised {exc!r}") from exc
    if bounds is not None and not 0 < bounds[0] <= bounds[1]:
        raise ConformanceError(f"{variant.id}: options {given} give the empty buy-in range "
                               f"{bounds[0]}..{bounds[1]}")


def check_accepted_options_start(variant: Variant, samples: int = 200, seed: int = 0) -> None:
    """Whatever option set creation accepts (each option in range, and the set as a whole
    by the variant's ``check_options``) the game starts with: a table is never accepted
    that could not start when its last seat is taken. ``check_options`` agrees with the
    declared ranges: it accepts the defaults, and refuses only with an :class:`OptionError`
    naming a declared option; a variant that takes buy-ins has a range for every option set
    it accepts."""
    if _checked_options(variant, {}) is None:
        raise ConformanceError(f"{variant.id}: check_options refuses the default options")
    rng = random.Random(seed)
    for number in range(samples):
        given = {spec.name: _some_value(spec, rng) for spec in variant.options
                 if rng.random() < 0.7}
        options = _checked_options(variant, given)
        if options is None:
            continue  # refused at creation: that is the promise kept
        seats = variant.seat_count(options)
        if not variant.min_seats <= seats <= variant.max_seats:
            raise ConformanceError(f"{variant.id}: options {given} give {seats} seats")
        _check_buy_in_range(variant, options, given)
        try:
            variant.start(options, SeededChance(seed_bytes(number)))
        except Exception as exc:
            raise ConformanceError(f"{variant.id}: options {given} were accepted but the game "
                                   f"does not start: {exc!r}") from exc


def _visible_ids(census: Census, viewer: int | None) -> set[int]:
    ids: set[int] = set()
    for pile in census.piles:
        if pile.visible_to is None or (viewer is not None and viewer in pile.visible_to):
            ids.update(pile.cards)
    return ids


def check_census(variant: Variant, game: Game, chips: int | None, where: str) -> None:
    """Every card of the shoe is in exactly one pile; the chips in play never change."""
    census = game.census()
    seen: list[int] = [card for pile in census.piles for card in pile.cards]
    if sorted(seen) != list(game.shoe.ids):
        missing = set(game.shoe.ids) - set(seen)
        doubled = {c for c in seen if seen.count(c) > 1}
        raise ConformanceError(
            f"{variant.id} {where}: cards not conserved (missing {sorted(missing)[:8]}, "
            f"in two places {sorted(doubled)[:8]})")
    if census.chips != chips:
        raise ConformanceError(f"{variant.id} {where}: chips {chips} became {census.chips}")


def check_views(variant: Variant, game: Game, seats: int, where: str) -> None:
    """No view shows a card its viewer may not see; turn facts agree with the legal moves."""
    census = game.census()
    over = game.outcome() is not None
    if over == bool(game.to_move):
        raise ConformanceError(f"{variant.id} {where}: to_move={game.to_move} but over={over}")
    for viewer in [None, *range(seats)]:
        view = game.view(viewer)
        leaked = view.card_ids() - _visible_ids(census, viewer)
        if leaked:
            raise ConformanceError(
                f"{variant.id} {where}: the view of {viewer} shows hidden cards "
                f"{game.shoe.codes(sorted(leaked))}")
        if view.to_move != game.to_move:
            raise ConformanceError(f"{variant.id} {where}: view.to_move differs for {viewer}")
    for seat in range(seats):
        legal = game.legal_moves(seat)
        if (seat in game.to_move) != bool(legal):
            raise ConformanceError(f"{variant.id} {where}: seat {seat} legal={len(legal)} "
                                   f"but to_move={game.to_move}")
        if legal and match_move(game.default_move(seat), legal) is None:
            raise ConformanceError(f"{variant.id} {where}: default move of {seat} is not legal")


def check_event_redaction(variant: Variant, before: Census, game: Game, events: Sequence[Event],
                          seats: int, where: str) -> None:
    """An event shows a viewer only cards that viewer could see before or after the move."""
    after = game.census()
    for viewer in [None, *range(seats)]:
        allowed = _visible_ids(before, viewer) | _visible_ids(after, viewer)
        for event in events:
            shown = set(event.redacted_for(viewer).cards) - allowed
            if shown:
                raise ConformanceError(
                    f"{variant.id} {where}: event {event.kind!r} shows {viewer} hidden cards "
                    f"{game.shoe.codes(sorted(shown))}")


def _state_of(game: Game, seats: int) -> tuple[object, ...]:
    return (game.census(), game.outcome(), game.to_move,
            tuple(game.view(v) for v in [None, *range(seats)]),
            tuple(game.legal_moves(s) for s in range(seats)))


def _illegal_probes(game: Game, seat: int, seats: int,
                    rng: random.Random) -> list[tuple[int, Move]]:
    offered = game.legal_moves(seat)
    legal = set(offered)
    probes: list[tuple[int, Move]] = [(seat, Move("no-such-move")),
                                      (seat, Move("play", (len(game.shoe) + 5,)))]
    for move in legal:
        if move.cards:
            other = (rng.randrange(len(game.shoe)), *move.cards[1:])
            if Move(move.kind, other, move.amount, move.label) not in legal:
                probes.append((seat, Move(move.kind, other, move.amount, move.label)))
                break
    for move in offered:
        huge = move.with_amount(move.amount + 10**9)
        if match_move(huge, offered) is None:
            probes.append((seat, huge))
            break
    for move in offered:  # a range's edges from outside, and an amount between its steps
        span = move.amount_range
        if span is None:
            continue
        outside = [span.minimum - 1, span.maximum + 1]
        if span.step > 1:
            outside.append(span.minimum + 1)
        probes += [(seat, move.with_amount(amount)) for amount in outside
                   if match_move(move.with_amount(amount), offered) is None]
    others = [s for s in range(seats) if s not in game.to_move]
    if others and legal:
        probes.append((rng.choice(others), next(iter(legal))))
    return probes


def check_illegal_refused(variant: Variant, game: Game, seats: int, rng: random.Random,
                          where: str) -> None:
    """Moves outside the legal moves raise IllegalMoveError and change nothing."""
    if not game.to_move:
        return
    seat = game.to_move[0]
    before = _state_of(game, seats)
    for who, move in _illegal_probes(game, seat, seats, rng):
        try:
            game.apply(who, move)
        except IllegalMoveError:
            pass
        except VariantError as exc:
            raise ConformanceError(f"{variant.id} {where}: {move} by {who} raised "
                                   f"{type(exc).__name__}, not IllegalMoveError") from exc
        else:
            raise ConformanceError(f"{variant.id} {where}: accepted the illegal {move} by {who}")
        if _state_of(game, seats) != before:
            raise ConformanceError(f"{variant.id} {where}: the refused {move} changed the state")


def _amounts_to_try(move: Move) -> list[Move]:
    """The concrete moves a legal move stands for, as far as a check tries them: itself, or
    for a range its minimum, its maximum, one step above the minimum and one in the middle."""
    span = move.amount_range
    if span is None:
        return [move]
    middle = span.nearest((span.minimum + span.maximum) // 2)
    amounts = dict.fromkeys((span.minimum, span.maximum, span.nearest(span.minimum + span.step),
                             middle, move.amount))
    return [move.with_amount(amount) for amount in amounts]


def check_every_legal_move_applies(variant: Variant, game: Game, where: str) -> None:
    """Each legal move of the seat to move applies (on a copy) without error; a move offered
    with an amount range applies at its edges and between them."""
    if not game.to_move:
        return
    seat = game.to_move[0]
    for offered in game.legal_moves(seat):
        span = offered.amount_range
        if span is not None and offered.amount not in span:
            raise ConformanceError(f"{variant.id} {where}: {offered} suggests the amount "
                                   f"{offered.amount}, outside its own range")
        for move in _amounts_to_try(offered):
            copy: Game = pickle.loads(pickle.dumps(game))
            try:
                copy.apply(seat, move)
            except VariantError as exc:
                raise ConformanceError(f"{variant.id} {where}: legal {move} (offered as "
                                       f"{offered}) refused: {exc}") from exc


LIKELY_CAUSE = ("likely randomness outside the chance source (random, time, uuid, id(), "
                "set or dict iteration order) or state shared between games: take every random "
                "step from the Chance you are given, with a purpose label")


def _short(event: Event) -> str:
    parts = [event.kind, f"seat={event.seat}", f"cards={list(event.cards)}"]
    parts += [f"amount={event.amount}"] if event.amount else []
    parts += [f"label={event.label!r}"] if event.label else []
    parts += [f"detail={dict(event.detail)}"] if event.detail else []
    return " ".join(parts)


def _first_difference(got: Sequence[Event], had: Sequence[Event]) -> str:
    for index, (new, old) in enumerate(zip(got, had, strict=False)):
        if new != old:
            return f"event {index + 1}: replayed [{_short(new)}], logged [{_short(old)}]"
    return f"replayed {len(got)} events, logged {len(had)}"


def check_replay(played: PlayedGame, seats: int, where: str = "") -> None:
    """Replaying the moves from the same seed rebuilds the same game, event for event: what
    lets the server rebuild a table from its log. A divergence names the first move (or the
    opening) that replays differently, and its likely cause."""
    variant = played.variant
    label = f"{variant.id} {where}".rstrip()
    game, opening = _restart(played)
    if tuple(opening) != tuple(played.opening):
        raise ConformanceError(
            f"{label}: the replay of the log produced a different opening "
            f"({_first_difference(opening, played.opening)}): {LIKELY_CAUSE}")
    for number, ((seat, move), logged) in enumerate(zip(played.moves, played.events,
                                                        strict=True), start=1):
        try:
            events = game.apply(seat, move)
        except VariantError as exc:
            raise ConformanceError(
                f"{label}: the replay of the log refused move {number} ({move} by seat "
                f"{seat}: {exc}): {LIKELY_CAUSE}") from exc
        if tuple(events) != tuple(logged):
            raise ConformanceError(
                f"{label}: the replay of the log produced different events at move {number} "
                f"({move} by seat {seat}; {_first_difference(events, logged)}): "
                f"{LIKELY_CAUSE}")
    if _state_of(game, seats) != _state_of(played.game, seats):
        raise ConformanceError(
            f"{label}: the replay of the log produced the same events but a different state "
            f"after all {len(played.moves)} moves: {LIKELY_CAUSE}")
def check_abort(variant: Variant, game: Game, seats: int, chips: int | None, where: str
                ) -> None:
    """Aborting (on a copy) ends the game: no seat to move, no legal move, an outcome with the
    reason ``aborted`` and one score per seat; cards and chips are conserved, the settlement's
    events hide what they must, and a second abort of a replayed copy gives the same events."""
    if game.outcome() is not None:
        return
    copy: Game = pickle.loads(pickle.dumps(game))
    twin: Game = pickle.loads(pickle.dumps(game))
    before = copy.census()
    ended, events = abort_game(copy)
    outcome = ended.outcome()
    if outcome is None or outcome.reason != "aborted" or len(outcome.scores) != seats:
        raise ConformanceError(f"{variant.id} {where}: an aborted game's outcome is {outcome}")
    if ended.to_move or any(ended.legal_moves(seat) for seat in range(seats)):
        raise ConformanceError(f"{variant.id} {where}: an aborted game still has moves")
    check_census(variant, ended, chips, f"{where} (aborted)")
    check_event_redaction(variant, before, ended, events, seats, f"{where} (aborted)")
    check_views(variant, ended, seats, f"{where} (aborted)")
    if abort_game(twin)[1] != events:
        raise ConformanceError(f"{variant.id} {where}: aborting twice gives different events")


def check_random_games(variant: Variant, options: Mapping[str, object] | None = None, *,
                       games: int = 3, first_game: int = 0, probe_every: int = 7) -> None:
    """Random games end, keep every invariant after every move, and replay identically."""
    for game_no in range(first_game, first_game + games):
        check_one_game(variant, options, game_no, probe_every)


def check_one_game(variant: Variant, options: Mapping[str, object] | None, game_no: int,
                   probe_every: int = 7, log_version: int | None = None) -> PlayedGame:
    """One random game, checked after every move; then its replay and its pickle.
    ``log_version``: played as that older version of the variant."""
    rng = random.Random(1000 + game_no)
    resolved = resolve_options(variant.options, options or {})
    seats = variant.seat_count(resolved)
    moves = 0
    start_chips: list[int | None] = []

    def observe(game: Game, seat: int, move: Move, events: tuple[Event, ...],
                before: Census) -> None:
        nonlocal moves
        moves += 1
        where = f"game {game_no} move {moves} ({move} by {seat})"
        if not start_chips:
            start_chips.append(before.chips)
        check_census(variant, game, start_chips[0], where)
        check_event_redaction(variant, before, game, events, seats, where)
        check_views(variant, game, seats, where)
        if moves % probe_every == 1:
            check_illegal_refused(variant, game, seats, rng, where)
            check_every_legal_move_applies(variant, game, where)
            check_abort(variant, game, seats, start_chips[0], where)

    played = random_game(variant, options, game_no=game_no, observe=observe,
                         log_version=log_version)
    fresh, opening = _restart(played)
    start = fresh.census()
    check_event_redaction(variant, start, fresh, opening, seats, f"game {game_no} opening")
    check_census(variant, played.game, fresh.census().chips, f"game {game_no} end")
    check_views(variant, played.game, seats, f"game {game_no} end")
    check_replay(played, seats, f"game {game_no}")
    copy: Game = pickle.loads(pickle.dumps(played.game))
    if _state_of(copy, seats) != _state_of(played.game, seats):
        raise ConformanceError(f"{variant.id}: a pickled game differs from the original")
    check_illegal_refused(variant, played.game, seats, rng, f"game {game_no} end")
    return played


def check_log_versions(variant: Variant, options: Mapping[str, object] | None = None, *,
                       game_no: int = 0) -> None:
    """Every older version whose logs the variant accepts (``accepts_log_version``) plays a
    game that keeps every invariant and replays: as that version played, when the variant
    declares ``start_takes_log_version``, else as the variant plays now. A variant that
    accepts only its own version passes untouched."""
    complete = declared(variant)
    for version in range(complete.version):
        if not complete.accepts_log_version(version):
            continue
        try:
            start_game(complete, resolve_options(complete.options, options or {}),
                       SeededChance(seed_bytes(game_no)), None, None, version)
        except Exception as exc:
            raise ConformanceError(
                f"{variant.id}: accepts logs of version {version} but cannot start a game as "
                f"it (start_takes_log_version={complete.start_takes_log_version}): "
                f"{exc!r}") from exc
        check_one_game(complete, options, game_no, log_version=version)


def check_buy_ins(variant: Variant, options: Mapping[str, object] | None = None, *,
                  games: int = 2, first_game: int = 0) -> None:
    """For a variant that takes buy-ins (``buy_in_range``): seats given their own starting
    stacks in range start with exactly those chips in play, keep them conserved through a
    random game, and the same seed and buy-ins replay the same game; a table without buy-ins
    starts as it did without the keyword. A variant without buy-ins passes untouched."""
    resolved = resolve_options(variant.options, options or {})
    bounds = buy_in_range(variant, resolved)
    if bounds is None:
        return
    low, high = bounds
    if not 0 < low <= high:
        raise ConformanceError(f"{variant.id}: buy-in range {low}..{high} is empty")
    seats = variant.seat_count(resolved)
    for game_no in range(first_game, first_game + games):
        rng = random.Random(2000 + game_no)
        buy_ins = {seat: rng.choice((low, high, rng.randint(low, high)))
                   for seat in range(seats) if seat or game_no % 2}  # some seats default
        seed = seed_bytes(game_no)
        game, _ = start_game(variant, resolved, SeededChance(seed), None, buy_ins)
        plain, _ = start_game(variant, resolved, SeededChance(seed), None, {})
        chips, default = game.census().chips, plain.census().chips
        if chips is not None and default is not None:
            per_seat = default // seats
            expected = sum(buy_ins.get(seat, per_seat) for seat in range(seats))
            if chips != expected:
                raise ConformanceError(f"{variant.id}: buy-ins {buy_ins} put {chips} chips in "
                                       f"play, not {expected}")
        played = random_game(variant, resolved, game_no=game_no, buy_ins=buy_ins)
        check_census(variant, played.game, chips, f"buy-in game {game_no} end")
        rebuilt, events = replay(played)
        if _state_of(rebuilt, seats) != _state_of(played.game, seats) or events != played.events:
            raise ConformanceError(f"{variant.id}: buy-in game {game_no} replays differently")


# --------------------------------------------------------------------------- words


def check_vocabulary(variant: Variant) -> None:
    """Every translation (:attr:`~bezique.variants.api.BaseVariant.translations`) says it is
    in the language it is filed under, names the game (``title``), and has exactly the keys of
    the variant's own vocabulary in every map: no word a player meets is left in one language."""
    ready = declared(variant)
    own = ready.vocabulary
    for language, words in ready.translations.items():
        where = f"{variant.id}: translation {language!r}"
        if not isinstance(words, Vocabulary):
            raise ConformanceError(f"{where} is no Vocabulary")
        if words.language != language or language == own.language or not language.islower():
            raise ConformanceError(f"{where} says its language is {words.language!r} (the "
                                   f"variant's own is {own.language!r}); file it under its "
                                   "own lower-case tag")
        if not words.title:
            raise ConformanceError(f"{where} has no title (the game's name in it)")
        for name, mine in own.maps().items():
            theirs = words.maps()[name]
            missing, extra = sorted(set(mine) - set(theirs)), sorted(set(theirs) - set(mine))
            if missing or extra:
                raise ConformanceError(f"{where}: {name} lacks {missing}, or has {extra} that "
                                       f"the variant's own words ({own.language}) lack")


def _detail_keys(detail: Mapping[str, Any]) -> set[str]:
    """The keys of a detail, and of the mappings nested in its values (a combination's)."""
    keys: set[str] = set()
    for key, value in detail.items():
        keys.add(key)
        items = value if isinstance(value, (list, tuple)) else [value]
        for item in items:
            if isinstance(item, Mapping):
                keys |= _detail_keys(item)
    return keys


def outcome_key(outcomes: Mapping[str, str], reason: str, detail: Mapping[str, Any]) -> str:
    """The key of an outcome in ``Vocabulary.outcomes``: the reason itself, or a key naming
    detail keys in braces that gives the reason once they are filled in (``"{deals} deals
    played"`` for ``"2 deals played"``: a reason that varies); the reason when none does."""
    if reason in outcomes:
        return reason
    for key in outcomes:
        try:
            if "{" in key and key.format(**detail) == reason:
                return key
        except (KeyError, IndexError, ValueError):
            continue
    return reason


def check_vocabulary_covers(variant: Variant, options: Mapping[str, object] | None = None, *,
                            games: int = 2, first_game: int = 0) -> None:
    """Every word random games show a player has an entry in the variant's vocabulary (and so,
    by :func:`check_vocabulary`, in each translation): phases, event kinds, zones, detail keys
    (nested ones too), move kinds, labels of moves and events, the outcome, option names and
    choice values. The kit runs it for a variant that has translations (a variant that claims
    more than one language must speak each of them whole)."""
    own = declared(variant).vocabulary
    used: dict[str, set[str]] = {name: set() for name in own.maps()}
    used["options"] |= {spec.name for spec in variant.options}
    used["labels"] |= {str(c) for spec in variant.options for c in spec.choices}

    def seen(game: Game, events: Sequence[Event], seats: int) -> None:
        used["phases"].add(game.phase)
        for event in events:
            used["events"].add(event.kind)
            used["details"] |= _detail_keys(event.detail)
            if event.label:
                used["labels"].add(event.label)
        for viewer in (None, *range(seats)):
            view = game.view(viewer)
            used["zones"] |= {zone.name for zone in view.zones}
            used["details"] |= _detail_keys(view.detail)
        for seat in game.to_move:
            for move in game.legal_moves(seat):
                used["moves"].add(move.kind)
                if move.label:
                    used["labels"].add(move.label)

    seats = variant.seat_count(resolve_options(variant.options, options or {}))
    for game_no in range(first_game, first_game + games):
        played = random_game(variant, options, game_no=game_no,
                             observe=lambda game, _s, _m, events, _c: seen(game, events, seats))
        fresh, opening = _restart(played)
        seen(fresh, opening, seats)
        outcome = played.game.outcome()
        if outcome is not None:
            used["outcomes"].add(outcome_key(own.outcomes, outcome.reason, outcome.detail))
            used["details"] |= _detail_keys(outcome.detail)
    missing = {name: sorted(keys - set(own.maps()[name])) for name, keys in used.items()}
    lacking = "; ".join(f"{name} {keys}" for name, keys in missing.items() if keys)
    if lacking:
        raise ConformanceError(f"{variant.id}: its vocabulary lacks words its games show a "
                               f"player: {lacking}")


def check_variant(variant: Variant, *, options: Sequence[Options] = ({},), games: int = 3) -> None:
    """Every check of the kit, for each of the given option sets."""
    check_facts(variant)
    check_vocabulary(variant)
    if declared(variant).translations:
        for number, given in enumerate(options):
            check_vocabulary_covers(variant, given, first_game=number * games)
    check_options_refused(variant)
    check_accepted_options_start(variant)
    for number, given in enumerate(options):
        check_random_games(variant, given, games=games, first_game=number * games)
        check_buy_ins(variant, given, first_game=number * games)
    check_log_versions(variant, options[0] if options else None)
