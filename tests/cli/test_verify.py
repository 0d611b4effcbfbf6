"""Shuffle verification: real finished games verify; any tampering is caught and named."""

from __future__ import annotations

import asyncio

import pytest

from bezique.clients.play import seat_count
from bezique.clients.sdk import AsyncTableClient
from bezique.clients.verify import NotFinishedError, VerificationError, verify_history
from bezique.v1 import table_service_pb2 as pb
from bezique.variants.cards import piquet_shoe
from tests.cli.helpers import Run, finish, require_variant, wait_finished
from tests.quart.helpers import check_session_end

SEED = bytes(range(32))


async def finished_history(address: str, variant: str, options: dict[str, str],
                           *, bots_only: bool = False, **test: object) -> pb.GetHistoryResponse:
    """A game played to its end: by bots alone, or seat 0 by 'first legal move'."""
    async with AsyncTableClient(address) as client:
        infos = {info.id: info for info in await client.list_variants()}
        seats = seat_count(infos[variant], options)
        policy = [p for p in infos[variant].bot_policies if p != "random"][:1] or ["random"]
        first = 0 if bots_only else 1
        bots = {seat: policy[0] if seat % 2 else "random" for seat in range(first, seats)}
        created = await client.create_table(variant, options, bots=bots, **test)  # type: ignore[arg-type]
        if bots_only:
            await wait_finished(address, created.table_id)
        else:
            seat = await client.join(created.table_id, 0)
            await finish(address, created.table_id, seat.token)
        return await client.history(created.table_id)


@pytest.fixture(scope="module")
def highcard(server: str) -> pb.GetHistoryResponse:
    return asyncio.run(finished_history(server, "highcard", {"hand_size": "4"}))


def test_a_finished_game_verifies(highcard: pb.GetHistoryResponse) -> None:
    result = verify_history(highcard)
    assert (result.deals, result.moves) == (1, 8)


def copy(history: pb.GetHistoryResponse) -> pb.GetHistoryResponse:
    tampered = pb.GetHistoryResponse()
    tampered.CopyFrom(history)
    return tampered


def entry_with_cards(history: pb.GetHistoryResponse, kind: str) -> pb.HistoryEntry:
    return next(e for e in history.entries if e.entry_kind == kind and e.events[0].cards)


def test_a_changed_dealt_card_is_caught(highcard: pb.GetHistoryResponse) -> None:
    tampered = copy(highcard)
    started = entry_with_cards(tampered, "started")
    card = started.events[0].cards[0]
    card.id = (card.id + 1) % 32
    card.code = piquet_shoe(1).code(card.id)
    with pytest.raises(VerificationError, match=rf"version {started.version}: event 1 "
                       r"\(deal\): cards differ") as caught:
        verify_history(tampered)
    assert caught.value.version == started.version


def test_a_changed_played_card_is_caught(highcard: pb.GetHistoryResponse) -> None:
    tampered = copy(highcard)
    moved = next(e for e in tampered.entries if e.entry_kind in ("move", "bot_move"))
    moved.events[0].cards[0].id = 31 - moved.events[0].cards[0].id
    with pytest.raises(VerificationError, match=f"version {moved.version}: .*cards differ"):
        verify_history(tampered)


def test_a_changed_move_is_caught(highcard: pb.GetHistoryResponse) -> None:
    tampered = copy(highcard)
    moved = next(e for e in tampered.entries if e.entry_kind in ("move", "bot_move"))
    moved.move.cards[0].id = 31 - moved.move.cards[0].id
    with pytest.raises(VerificationError, match=f"version {moved.version}: "):
        verify_history(tampered)


def test_a_wrong_seed_a_missing_entry_and_a_changed_outcome_are_caught(
        highcard: pb.GetHistoryResponse) -> None:
    wrong_seed = copy(highcard)
    wrong_seed.revealed_seed = b"\x00" * 32
    with pytest.raises(VerificationError, match="not the published commitment"):
        verify_history(wrong_seed)
    missing = copy(highcard)
    del missing.entries[5]
    with pytest.raises(VerificationError, match="jumps from version 5 to 7"):
        verify_history(missing)
    outcome = copy(highcard)
    outcome.outcome.winners[:] = [7]
    with pytest.raises(VerificationError, match="outcome differs"):
        verify_history(outcome)


def test_an_unfinished_game_cannot_be_verified(highcard: pb.GetHistoryResponse) -> None:
    going = copy(highcard)
    going.finished = False
    with pytest.raises(NotFinishedError, match="has not finished"):
        verify_history(going)


def test_the_cli_fails_loudly_on_a_tampered_history(
        run: Run, highcard: pb.GetHistoryResponse, monkeypatch: pytest.MonkeyPatch) -> None:
    tampered = copy(highcard)
    entry_with_cards(tampered, "started").events[1].cards[0].id ^= 1

    async def fake_history(self: object, table_id: str, token: str | None = None
                           ) -> pb.GetHistoryResponse:
        return tampered

    monkeypatch.setattr(AsyncTableClient, "history", fake_history)
    result = run("verify", highcard.table_id)
    assert result.code == 1
    assert "VERIFICATION FAILED" in result.out and "version 5: event 2 (deal)" in result.out


def test_stacked_shoe_and_first_dealer_verify(server: str) -> None:
    shoe = piquet_shoe(1)
    stacked = [shoe.code(i) for i in reversed(shoe.ids)]
    history = asyncio.run(finished_history(server, "highcard", {}, seed=SEED,
                                           stacked_shoe=stacked, first_dealer=1))
    assert list(history.test.stacked_shoe) == stacked and history.test.first_dealer == 1
    with pytest.raises(VerificationError, match="test settings"):
        verify_history(history)  # chosen deals are never "verified" silently
    result = verify_history(history, allow_test_settings=True)
    assert result.moves == 6
    assert result.test_settings == ("seed", "stacked_shoe", "first_dealer")
    unstacked = copy(history)
    del unstacked.test.stacked_shoe[:]
    with pytest.raises(VerificationError, match=r"version 5: event 1 .*cards differ"):
        verify_history(unstacked, allow_test_settings=True)


def test_a_bezique_match_verifies(server: str) -> None:
    require_variant(server, "bezique-2p", "variants/bezique")
    history = asyncio.run(finished_history(server, "bezique-2p", {"target": "10"},
                                           bots_only=True))
    result = verify_history(history)
    assert result.deals >= 1 and result.moves > 32


def test_quart_bezique_deals_verify(server: str) -> None:
    require_variant(server, "quart-bezique", "variants/quart")
    history = asyncio.run(finished_history(server, "quart-bezique", {"deals": "3"},
                                           bots_only=True))
    deals = verify_history(history).deals
    # bots choose at random: a session may end early, when all but one seat are broke
    check_session_end(history.outcome.reason, list(history.outcome.scores),
                      dict(history.options), deals)


def test_verify_holds_the_server_to_what_join_printed(run: Run, server: str) -> None:
    import re

    created = run("create", "highcard", "--bot", "1=highest")
    table = re.search(r"table[: ]+([0-9a-f]{16})", created.out)
    assert table is not None, created.out
    joined = run("join", table.group(1))
    proof = re.search(r"export BEZIQUE_PROOF=(\S+)", joined.out)
    token = re.search(r"export BEZIQUE_TOKEN=(\S+)", joined.out)
    assert proof is not None and token is not None, joined.out
    asyncio.run(finish(server, table.group(1), token.group(1)))
    result = run("verify", table.group(1), "--proof", proof.group(1))
    assert result.code == 0, result.out + result.err
    assert "your seat 0" in result.out and "fair against the operator: seat 0 " in result.out
    seat, _, commitment, *_ = proof.group(1).split(":")
    forged = f"{seat}:{'00' * 32}:{commitment}"
    result = run("verify", table.group(1), "--proof", forged)
    assert result.code == 1 and "not the one it sent" in result.out


def test_a_card_code_that_is_not_its_id_is_caught(highcard: pb.GetHistoryResponse) -> None:
    """verify compared cards by id only, while `bezique history`, `replay` and the web table
    show each card by its code: a history that named other cards (a dealt card's or a played
    card's code changed, its id kept) still printed 'verified'."""
    shoe = piquet_shoe(1)
    dealt = copy(highcard)
    card = entry_with_cards(dealt, "started").events[0].cards[0]
    card.code = shoe.code((card.id + 1) % 32)
    with pytest.raises(VerificationError, match="code"):
        verify_history(dealt)
    played = copy(highcard)
    moved = next(e for e in played.entries if e.entry_kind in ("move", "bot_move"))
    moved.events[0].cards[0].code = shoe.code((moved.events[0].cards[0].id + 1) % 32)
    with pytest.raises(VerificationError, match=f"version {moved.version}: .*code"):
        verify_history(played)
    chosen = copy(highcard)
    moved = next(e for e in chosen.entries if e.entry_kind in ("move", "bot_move"))
    moved.move.cards[0].code = shoe.code((moved.move.cards[0].id + 1) % 32)
    with pytest.raises(VerificationError, match=f"version {moved.version}: .*code"):
        verify_history(chosen)


def test_a_changed_outcome_reason_or_detail_is_caught(highcard: pb.GetHistoryResponse) -> None:
    """verify compared only the winners and scores (and the reason only for an abort): a
    history whose end said another reason or other details (shown by the clients) still
    printed 'verified'."""
    reason = copy(highcard)
    reason.outcome.reason = "forfeit"
    with pytest.raises(VerificationError, match="outcome differs"):
        verify_history(reason)
    detail = copy(highcard)
    detail.outcome.detail["claimed"] = "seat 1 conceded"
    with pytest.raises(VerificationError, match="outcome differs"):
        verify_history(detail)
