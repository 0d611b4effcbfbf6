"""Broken plugins, installed for real (built by pip into a private site folder on the server's
PYTHONPATH), cannot take the server down: each is left out with one log line naming its
distribution, version and error; the others serve; allow and deny lists; ``bezique play``
of a built-in variant still works."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

import grpc
import pexpect
import pytest

from bezique.clients.sdk import AsyncTableClient
from tests.core import plain
from tests.helpers import ROOT, ServerProcess
from tests.plugin_site import Log, environment, install_plugins, spawn_with_plugins

GOOD = """
from bezique_highcard.game import HighCard
from bezique.variants.hookspecs import hookimpl

class LowCard(HighCard):
    id = "lowcard"

@hookimpl
def bezique_variants():
    return [LowCard()]
"""

PLAIN = Path(plain.__file__).read_text() + """
from bezique.variants.hookspecs import hookimpl

@hookimpl
def bezique_variants():
    return [PlainCard()]
"""
"""PlainCard (no ``BaseVariant``, no optional ability, a game that is no ``BaseGame`` and has no
``abort``) as an installed plugin."""

PLUGINS: dict[str, tuple[str, str]] = {
    # distribution: (version, the plugin module's source)
    "bezique-lowcard": ("0.3.0", GOOD),
    "bezique-plaincard": ("0.1.0", PLAIN),
    "bezique-broken-import": ("1.0.0", "import bezique_no_such_module\n"),
    "bezique-exits": ("0.0.9", "raise SystemExit(3)\n"),
    "bezique-misspelled": ("2.1.0", """
from bezique.variants.hookspecs import hookimpl

@hookimpl
def bezique_variant():
    return []
"""),
    "bezique-raising": ("0.0.1", """
from bezique.variants.hookspecs import hookimpl

@hookimpl
def bezique_variants():
    raise RuntimeError("the dealer dropped the deck")
"""),
    "bezique-bad-facts": ("0.2.0", """
from bezique_highcard.game import HighCard
from bezique.variants.hookspecs import hookimpl

class Shouting(HighCard):
    id = "SHOUTING CARD"

@hookimpl
def bezique_variants():
    return [Shouting()]
"""),
    "bezique-bad-policies": ("0.4.0", """
from bezique_highcard.game import HighCard
from bezique.variants.hookspecs import hookimpl

class SourCard(HighCard):
    id = "sourcard"

@hookimpl
def bezique_variants():
    return [SourCard()]

@hookimpl
def bezique_bot_policies(variant_id):
    raise KeyError(variant_id)
"""),
}

BROKEN = {
    "bezique-broken-import": "import of bezique_broken_import_plugin failed: "
                             "ModuleNotFoundError: No module named 'bezique_no_such_module'",
    "bezique-exits": "import of bezique_exits_plugin failed: SystemExit: 3",
    "bezique-misspelled": "unknown hook bezique_variant",
    "bezique-raising": "bezique_variants raised RuntimeError: the dealer dropped the deck",
    "bezique-bad-facts": "variant 'SHOUTING CARD' failed the start-up check: ConformanceError: "
                         "variant id 'SHOUTING CARD' must be lower-case",
    "bezique-bad-policies": "bezique_bot_policies raised KeyError: ",
}
BUILT_IN = {"bezique-2p", "bezique-3p", "quart-bezique", "trump-quart-bezique"}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The plugins above, installed by pip into one folder."""
    return install_plugins(tmp_path_factory.mktemp("plugins"), PLUGINS)


class Start(Protocol):
    def __call__(self, *args: str, env: dict[str, str] | None = None
                 ) -> tuple[ServerProcess, Log]: ...


@pytest.fixture
def start(site: Path) -> Iterator[Start]:
    started: list[ServerProcess] = []

    def spawn(*args: str, env: dict[str, str] | None = None) -> tuple[ServerProcess, Log]:
        """A server with the plugins installed; it and its start-up log lines."""
        server, logs = spawn_with_plugins(site, *args, env=env)
        started.append(server)
        return server, logs

    yield spawn
    for server in started:
        if server.process.poll() is None:
            server.kill()


def excluded_lines(logs: Log) -> dict[object, dict[str, object]]:
    return {r["distribution"]: r for r in logs if r["event"] == "plugin_excluded"}


async def test_broken_plugins_are_left_out_and_the_others_serve(start: Start) -> None:
    server, logs = start()
    excluded = excluded_lines(logs)
    assert set(excluded) == set(BROKEN)  # one line each, no more
    assert len([r for r in logs if r["event"] == "plugin_excluded"]) == len(BROKEN)
    for dist, error in BROKEN.items():
        assert excluded[dist]["distribution_version"] == PLUGINS[dist][0]
        assert error in str(excluded[dist]["error"]), excluded[dist]
        assert excluded[dist]["level"] == "warning"
    loaded = {r["variant"]: (r["distribution"], r["distribution_version"])
              for r in logs if r["event"] == "variant_loaded"}
    assert loaded["lowcard"] == ("bezique-lowcard", "0.3.0")
    assert loaded["quart-bezique"][0] == "bezique-engine"
    assert "sourcard" not in loaded and "SHOUTING CARD" not in loaded
    async with AsyncTableClient(server.address, retries=0) as client:
        variants = {v.id: v for v in await client.list_variants()}
        # at least these: a plugin the developer installed into the venv (README step 4) serves
        # too; the broken ones never do
        assert BUILT_IN | {"highcard", "lowcard"} <= set(variants)
        assert not {"sourcard", "SHOUTING CARD"} & set(variants)
        assert (variants["lowcard"].distribution,
                variants["lowcard"].distribution_version) == ("bezique-lowcard", "0.3.0")
        assert variants["bezique-2p"].distribution == "bezique-engine"
        assert variants["highcard"].distribution == "bezique-highcard"
        assert (await client.create_table("lowcard")).table_id
        assert (await client.create_table("quart-bezique")).table_id
    assert server.terminate() == 0


async def test_a_plugin_that_declares_no_optional_ability_serves(start: Start) -> None:
    """A variant that is no ``BaseVariant`` and has no vocabulary, no ``check_options``, no
    buy-ins, and a game that is no ``BaseGame`` and has no ``abort``, is served with the
    declared defaults: listed with an empty vocabulary, its tables created, a buy-in refused,
    an abort ended with no winner."""
    server, logs = start("--api-key", "plain-key")
    assert "bezique-plaincard" not in excluded_lines(logs)
    async with AsyncTableClient(server.address, api_key="plain-key", retries=0) as admin:
        variants = {v.id: v for v in await admin.list_variants()}
        vocabulary = variants["plaincard"].vocabulary
        assert not (vocabulary.phases or vocabulary.events or vocabulary.moves)
        table = await admin.create_table("plaincard", {"players": 2}, bots={1: "random"})
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await admin.join(table.table_id, buy_in=100)
        assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "takes no buy-ins" in str(caught.value.details())
        seat = await admin.join(table.table_id)
        assert (await admin.view(table.table_id, seat.token)).phase == "play"
        await admin.abort_table(table.table_id)
        view = await admin.view(table.table_id, seat.token)
        assert (view.phase, list(view.to_move), view.outcome.reason) == ("over", [], "aborted")
        assert list(view.outcome.winners) == [] and len(view.outcome.scores) == 2
    assert server.terminate() == 0


def test_disabled_and_unlisted_plugins_are_not_even_loaded(start: Start) -> None:
    _, logs = start("--disable-plugin", "bezique-raising",
                    "--disable-plugin", "bezique_Misspelled,bezique-bad-facts")
    assert set(excluded_lines(logs)) == {"bezique-broken-import", "bezique-exits",
                                         "bezique-bad-policies"}
    _, logs = start("--plugins", "bezique-engine,bezique-lowcard")
    assert excluded_lines(logs) == {}
    loaded = {r["variant"] for r in logs if r["event"] == "variant_loaded"}
    assert loaded == BUILT_IN | {"lowcard"}


def test_the_plugin_variables_work_as_the_flags(start: Start) -> None:
    _, logs = start(env={"BEZIQUE_DISABLE_PLUGIN": "bezique-raising,bezique-misspelled,"
                                                   "bezique-bad-facts"})
    assert set(excluded_lines(logs)) == {"bezique-broken-import", "bezique-exits",
                                         "bezique-bad-policies"}
    _, logs = start(env={"BEZIQUE_PLUGINS": "bezique-engine"})
    assert excluded_lines(logs) == {}
    assert {r["variant"] for r in logs if r["event"] == "variant_loaded"} == BUILT_IN


def test_play_of_a_built_in_variant_works_with_broken_plugins_installed(site: Path) -> None:
    env = environment(site)
    env["TERM"] = "xterm-256color"
    child = pexpect.spawn(str(Path(sys.executable).with_name("bezique")),
                          ["play", "bezique-2p", "--bot-delay", "0"], cwd=str(ROOT),
                          encoding="utf-8", timeout=60, dimensions=(50, 120), env=env)
    child.expect(r"Your move \(1-(\d+)(, p or Enter to pass)?, h for help, q to quit\): ")
    assert "Traceback" not in child.before
    child.sendline("q")
    child.expect(r"You left table \w+")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
