"""What CreateTable is asked for, checked before anything is stored: the variant, its options,
the turn clock, the bots and the test settings; and the start, tried once aside, so a table
that creation accepts always starts."""

from __future__ import annotations

import secrets
import time
from collections.abc import Mapping, Sequence
from typing import Any

from bezique.service.errors import InvalidArgument, PermissionDenied, quoted
from bezique.service.live import LiveTable
from bezique.service.settings import Limits, Settings
from bezique.service.store import TableRecord
from bezique.terms import OPEN_JOINS, PLATFORM_JOINS
from bezique.variants.api import OptionError, Variant
from bezique.variants.chance import commitment
from bezique.variants.host import buy_in_range, check_options, resolve_options
from bezique.variants.registry import Registry, UnknownVariantError


def new_record(registry: Registry, settings: Settings, variant_id: str,
               options: Mapping[str, str], bots: Sequence[tuple[int, str]], turn_seconds: int,
               test: Mapping[str, Any] | None, table_id: str = ""
               ) -> tuple[TableRecord, Variant, int]:
    """The record of a new table (with a fresh seed, unless test mode fixes it), its variant
    and its seat count; InvalidArgument naming the field for anything it cannot hold.
    ``table_id``: the id to give it (a rematch's); none: a fresh random one."""
    try:
        variant = registry.variant(variant_id)
    except UnknownVariantError:
        known = ", ".join(sorted(registry.variants))
        raise InvalidArgument(f"unknown variant {quoted(variant_id)} (known: {known})",
                              field="variant_id") from None
    try:
        resolved = resolve_options(variant.options, options)
        check_options(variant, resolved)
    except OptionError as exc:
        raise InvalidArgument(str(exc), field=f"options[{exc.option}]") from exc
    limits = settings.limits
    if not 0 <= turn_seconds <= limits.max_turn_seconds:
        raise InvalidArgument(f"turn_seconds must be 0..{limits.max_turn_seconds}",
                              field="turn_seconds")
    test_settings = dict(test or {})
    if test_settings and not settings.test_mode:
        raise PermissionDenied("seed, stacked_shoe and first_dealer need a server started "
                               "with --test-mode", field="test")
    seed = test_settings.pop("seed", b"")
    if seed:
        if len(seed) < Limits.min_test_seed:
            raise InvalidArgument(f"test.seed needs at least {Limits.min_test_seed} bytes",
                                  field="test.seed")
        test_settings["seed_fixed"] = True  # verify then says the seed was chosen
    else:
        seed = secrets.token_bytes(32)
    seats = variant.seat_count(resolved)
    _check_test_settings(variant, resolved, seats, test_settings)
    _check_bots(registry, variant, seats, bots)
    record = TableRecord(table_id or secrets.token_hex(8), variant.id, variant.version,
                         resolved, seed, commitment(seed), time.time(), turn_seconds,
                         test_settings)
    return record, variant, seats


def joins(settings: Settings, variant: Variant, options: Mapping[str, Any],
          open_seats: bool) -> str:
    """Who may take the new table's seats (its ``created`` entry records it, so every replica
    and every reload agree): on a server with an API key, only the platform (its key or its
    grants) at a table that takes buy-ins, and at every table of a server that takes grants
    unless its creator opened the seats on purpose."""
    try:
        buy_ins = buy_in_range(variant, options) is not None
    except OptionError as exc:
        raise InvalidArgument(str(exc), field=f"options[{exc.option}]") from exc
    if not settings.platform:
        return OPEN_JOINS if open_seats else ""
    if buy_ins and open_seats:
        raise InvalidArgument(f"{variant.id} takes buy-ins: its seats are taken only with a "
                              "join grant or the API key, never opened to anyone",
                              field="open_seats")
    if buy_ins or (settings.grants and not open_seats):
        return PLATFORM_JOINS
    return OPEN_JOINS if open_seats else ""


def _check_bots(registry: Registry, variant: Variant, seats: int,
                bots: Sequence[tuple[int, str]]) -> None:
    taken = set()
    for seat, policy in bots:
        if not 0 <= seat < seats or seat in taken:
            raise InvalidArgument(f"bot seat {seat} is not a free seat 0..{seats - 1}",
                                  field="bots.seat")
        if policy not in registry.bot_policies(variant.id):
            known = ", ".join(registry.bot_policies(variant.id))
            raise InvalidArgument(f"no bot policy {quoted(policy)} for {variant.id} "
                                  f"({known})", field="bots.policy")
        taken.add(seat)


def check_start(live: LiveTable) -> None:
    """Start the game once, aside, so a table that creation accepts always starts (a variant
    whose options clash must say so now, not when the last seat is taken)."""
    first = live.record.test.get("first_dealer")
    try:
        live.variant.start(live.record.options, live.chance(),
                           None if first is None else int(first))
    except OptionError as exc:
        raise InvalidArgument(str(exc), field=f"options[{exc.option}]") from exc
    except ValueError as exc:
        raise InvalidArgument(f"{live.variant.id} cannot start with these options: {exc}",
                              field="options") from exc


def _check_test_settings(variant: Variant, options: Mapping[str, Any], seats: int,
                         test: Mapping[str, Any]) -> None:
    stacked = test.get("stacked_shoe")
    if stacked:
        try:
            variant.shoe(options).order_from_codes(stacked)
        except ValueError as exc:
            raise InvalidArgument(f"test.stacked_shoe: {exc}",
                                  field="test.stacked_shoe") from exc
    first = test.get("first_dealer")
    if first is not None and not 0 <= int(first) < seats:
        raise InvalidArgument(f"test.first_dealer must be a seat 0..{seats - 1}",
                              field="test.first_dealer")
