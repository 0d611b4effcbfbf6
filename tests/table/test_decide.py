"""The table's rules as a pure function: seats, tokens, grants, churn, the reveal round, the
log's limit and the end; each refusal with the reason the wire carries."""

from __future__ import annotations

import pytest

from bezique.service.decide import (
    Abandon,
    Abort,
    EndReveal,
    Join,
    Leave,
    Reissue,
    Reveal,
    decide,
    holder,
)
from bezique.service.errors import (
    FailedPrecondition,
    InvalidArgument,
    PermissionDenied,
    ResourceExhausted,
    ServiceError,
    StaleVersion,
    Unauthenticated,
)
from bezique.service.settings import Settings
from bezique.table.entries import Aborted, Created, Ended, Joined, Moved, Started
from bezique.table.state import GameFacts, Table, evolve
from bezique.terms import PLATFORM_JOINS
from bezique.variants.api import Move
from tests.table.helpers import SETTINGS, commitment, entropy, run, token


def refused(table: Table, command: object, reason: str,
            kind: type[ServiceError] = FailedPrecondition, now: float = 1000.0) -> None:
    with pytest.raises(kind) as caught:
        decide(table, command, now, SETTINGS)  # type: ignore[arg-type]
    assert caught.value.reason == reason, caught.value


def test_a_join_takes_the_first_free_seat_and_the_last_one_starts_the_game() -> None:
    table, first = run(Table.empty(2), Join(None, "ann", token(0)))
    assert first == [Joined(0, "ann", token(0))]
    table, last = run(table, Join(None, "", token(1)))
    assert last == [Joined(1, "seat 1", token(1)), Started()]
    assert table.started and table.version == 3 and table.free_seats == 0


def test_seat_choice_is_refused_with_its_reason() -> None:
    table, _ = run(Table.empty(2), Join(1, "bob", token(1)))
    refused(table, Join(1, "eve", token(5)), "SEAT_TAKEN")
    refused(table, Join(2, "eve", token(5)), "INVALID_ARGUMENT", InvalidArgument)
    full, _ = run(table, Join(0, "ann", token(0)))
    refused(full, Join(None, "eve", token(5)), "TABLE_FULL")


def test_a_full_table_that_waits_for_reveals_has_no_free_seat() -> None:
    table, _ = run(Table.empty(2), Join(0, "ann", token(0), entropy_commitment=commitment(0)))
    table, entries = run(table, Join(1, "bob", token(1)))
    assert entries == [Joined(1, "bob", token(1), deadline=1060.0)]  # the round's deadline
    assert table.awaiting_reveal == (0,) and not table.started
    refused(table, Join(None, "eve", token(5)), "TABLE_FULL")
    refused(table, Leave(1), "REVEAL_ROUND")


def test_a_caller_whose_churn_budget_is_spent_joins_nothing_and_a_platform_table_needs_its_word(
        ) -> None:
    refused(Table.empty(2), Join(0, "ann", token(0), churned="198.51.100.0/24"), "SEAT_CHURN",
            ResourceExhausted)
    with pytest.raises(ResourceExhausted, match="this player"):
        decide(Table.empty(2), Join(0, "ann", token(0), churned="player:p-1"), 0.0, SETTINGS)
    table = evolve(Table.empty(2), Created("highcard", 1, {}, "c", 2, PLATFORM_JOINS))
    refused(table, Join(0, "ann", token(0)), "GRANT_REQUIRED", Unauthenticated)
    assert run(table, Join(0, "ann", token(0), vouched=True))[0].seats[0].name == "ann"
    assert run(table, Join(0, "", bot="random"))[0].seats[0].bot == "random"


def test_a_name_is_the_servers_or_a_seated_players_is_refused() -> None:
    table, _ = run(Table.empty(3), Join(0, "Ann", token(0)))
    refused(table, Join(1, "ann", token(1)), "NAME_TAKEN")
    refused(table, Join(1, "seat 2", token(1)), "INVALID_ARGUMENT", InvalidArgument)
    refused(table, Join(1, "random bot", token(1), bot_policies=("random",)),
            "INVALID_ARGUMENT", InvalidArgument)
    assert run(table, Join(1, "", token(1)))[0].seats[1].name == "seat 1"


def test_a_grant_is_used_once_and_a_buy_in_must_be_in_range() -> None:
    table, _ = run(Table.empty(3), Join(0, "ann", token(0), grant_jti="g-1"))
    assert table.grant_jtis == {"g-1"}
    refused(table, Join(1, "eve", token(1), grant_jti="g-1"), "GRANT_REPLAYED",
            PermissionDenied)
    refused(table, Join(1, "bob", token(1), buy_in=5, buy_in_range=(10, 100)),
            "INVALID_ARGUMENT", InvalidArgument)
    refused(table, Join(1, "bob", token(1), buy_in=5), "INVALID_ARGUMENT", InvalidArgument)
    table, _ = run(table, Join(1, "bob", token(1), buy_in=50, buy_in_range=(10, 100)))
    assert table.buy_ins() == {1: 50}


def test_tokens_are_revoked_by_leaving_and_by_reissue_and_refused_as_such() -> None:
    table, _ = run(Table.empty(3), Join(0, "ann", token(0)))
    table, _ = run(table, Join(1, "bob", token(1)))
    table, _ = run(table, Reissue(0, token(0, 1)))
    table, _ = run(table, Leave(1))
    assert holder(table, token(0, 1), 0.0) == 0
    for old, why in ((token(0), "replaced"), (token(1), "given up")):
        with pytest.raises(PermissionDenied, match=why) as caught:
            holder(table, old, 0.0)
        assert caught.value.reason == "SEAT_TOKEN_REVOKED"
    with pytest.raises(PermissionDenied):
        holder(table, token(7), 0.0)
    refused(table, Reissue(1, token(1, 1)), "FAILED_PRECONDITION")  # free: nothing to reissue


def test_a_token_expires_as_its_entry_says() -> None:
    settings = Settings(seat_token_ttl=30.0)
    table, (joined,) = run(Table.empty(2), Join(0, "ann", token(0)), settings=settings)
    assert isinstance(joined, Joined) and joined.token_expires == 1030.0
    assert holder(table, token(0), 1029.0) == 0
    with pytest.raises(Unauthenticated):
        holder(table, token(0), 1030.0)


def test_the_reveal_round_opens_when_every_seat_is_taken_and_the_last_reveal_deals() -> None:
    table, _ = run(Table.empty(2), Join(0, "ann", token(0), entropy_commitment=commitment(0)))
    refused(table, Reveal(0, entropy(0).hex()), "REVEAL_NOT_OPEN")
    table, _ = run(table, Join(1, "bob", token(1), entropy_commitment=commitment(1)))
    refused(table, Reveal(0, entropy(1).hex()), "REVEAL_MISMATCH", InvalidArgument)
    table, first = run(table, Reveal(0, entropy(0).hex()))
    assert [entry.kind for entry in first] == ["revealed"]
    assert run(table, Reveal(0, entropy(0).hex()))[1] == []  # a repeat changes nothing
    table, last = run(table, Reveal(1, entropy(1).hex()))
    assert [entry.kind for entry in last] == ["revealed", "started"]
    assert table.contributions() == [] and table.started  # chance version 0: no entropy


def test_a_reveal_round_that_times_out_ends_the_table_naming_who_withheld() -> None:
    table, _ = run(Table.empty(2), Join(0, "ann", token(0), entropy_commitment=commitment(0)))
    assert run(table, EndReveal(table.version))[1] == []  # no round yet: nothing to end
    table, _ = run(table, Join(1, "bob", token(1), entropy_commitment=commitment(1)))
    table, _ = run(table, Reveal(1, entropy(1).hex()))
    with pytest.raises(StaleVersion):
        decide(table, EndReveal(table.version - 1), 0.0, SETTINGS)
    table, (ended,) = run(table, EndReveal(table.version))
    assert isinstance(ended, Ended) and ended.withheld == (0,)
    assert table.finished and table.phase == "over"
    refused(table, Join(None, "eve", token(5)), "REVEAL_TIMED_OUT")
    refused(table, Reveal(0, entropy(0).hex()), "REVEAL_TIMED_OUT")


def test_only_an_abort_goes_past_the_logs_limit_and_nothing_follows_it() -> None:
    table = Table.empty(2)
    for n in range(SETTINGS.limits.max_log_entries // 2):
        table, _ = run(table, Join(0, "ann", token(0, n)), now=float(n * 1000))
        table, _ = run(table, Leave(0), now=float(n * 1000))
    refused(table, Join(0, "ann", token(0, 99)), "LOG_FULL", ResourceExhausted, now=1e6)
    table, aborted = run(table, Abort("full"))
    assert aborted == [Aborted("full")] and table.finished and table.phase == "aborted"
    refused(table, Abort(), "TABLE_FINISHED")


def test_an_abandoned_table_ends_only_at_the_version_found_idle() -> None:
    table, _ = run(Table.empty(2), Join(0, "ann", token(0, 1)))
    refused(table, Abandon(table.version - 1), "STALE_VERSION", StaleVersion)
    table, entries = run(table, Abandon(table.version))
    assert entries == [Aborted(reason="abandoned")]
    assert table.finished and table.abort_reason == "abandoned"
    refused(table, Abandon(table.version), "TABLE_FINISHED")


def test_after_the_start_no_seat_is_given_up_and_a_finished_game_refuses_changes() -> None:
    table, _ = run(Table.empty(2), Join(0, "ann", token(0)))
    table, _ = run(table, Join(1, "bob", token(1)))
    refused(table, Leave(0), "GAME_STARTED")
    over = evolve(table, Moved("move", 0, Move("play")), GameFacts(over=True))
    assert over.finished
    refused(over, Leave(0), "TABLE_FINISHED")
    refused(over, Abort(), "TABLE_FINISHED")
