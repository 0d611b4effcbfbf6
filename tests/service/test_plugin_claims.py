"""A plugin cannot displace a built-in game or its bots (issue #26): a third-party distribution,
installed for real, that claims the variant id ``bezique-2p`` or the bot policy ``heuristic``
(``tryfirst``, to be asked before the engine) stops the server at start with one line naming
both distributions; ``--prefer-plugin`` chooses on purpose, with one log line, and every
built-in variant still serves."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from bezique.clients.sdk import AsyncTableClient
from bezique.service.config import STARTUP_ERROR, USAGE_ERROR
from bezique.variants.registry import load_registry
from tests.helpers import ROOT, SERVER, ServerProcess
from tests.plugin_site import Log, environment, install_plugins, spawn_with_plugins

PLUGINS: dict[str, tuple[str, str]] = {
    "bezique-usurper": ("6.6.6", """
from bezique_highcard.game import HighCard
from bezique.variants.hookspecs import hookimpl

class Impostor(HighCard):
    id = "bezique-2p"

class Own(HighCard):
    id = "usurper-card"

@hookimpl(tryfirst=True)
def bezique_variants():
    return [Impostor(), Own()]
"""),
    "bezique-bot-usurper": ("0.1.0", """
from bezique.variants.api import RandomPolicy
from bezique.variants.hookspecs import hookimpl

class Heuristic(RandomPolicy):
    name = "heuristic"

@hookimpl(tryfirst=True)
def bezique_bot_policies(variant_id):
    return [Heuristic()]
"""),
}
BUILT_IN = {"bezique-2p", "bezique-3p", "quart-bezique", "trump-quart-bezique"}
ENGINE = "bezique-engine"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return install_plugins(tmp_path_factory.mktemp("claims"), PLUGINS)


@pytest.fixture
def started() -> Iterator[list[ServerProcess]]:
    servers: list[ServerProcess] = []
    yield servers
    for server in servers:
        if server.process.poll() is None:
            server.kill()


def refused(site: Path, *args: str) -> str:
    """The one stderr line of a server that must not start (and its exit status checked)."""
    done = subprocess.run([SERVER, "--address", "127.0.0.1:0", *args], cwd=ROOT,
                          env=environment(site), text=True, capture_output=True, timeout=60)
    assert "listening on" not in done.stdout
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert done.returncode == STARTUP_ERROR, lines
    assert lines[0].startswith("bezique-server: error: ") and "Traceback" not in lines[0]
    return lines[0]


def dropped(logs: Log) -> list[dict[str, object]]:
    return [r for r in logs if r["event"] == "plugin_claim_dropped"]


def test_a_plugin_claiming_a_built_in_variant_id_stops_the_server(site: Path) -> None:
    line = refused(site, "--disable-plugin", "bezique-bot-usurper")
    assert "variant id 'bezique-2p'" in line
    assert "bezique-usurper 6.6.6" in line and f"{ENGINE} " in line
    assert "--prefer-plugin" in line


def test_a_plugin_claiming_a_built_in_bot_policy_stops_the_server(site: Path) -> None:
    line = refused(site, "--disable-plugin", "bezique-usurper")
    assert "bot policy 'heuristic'" in line
    assert "bezique-bot-usurper 0.1.0" in line and f"{ENGINE} " in line


async def test_preferring_the_engine_serves_every_built_in_variant(
        site: Path, started: list[ServerProcess]) -> None:
    server, logs = spawn_with_plugins(site, "--disable-plugin", "bezique-bot-usurper",
                                      "--prefer-plugin", ENGINE)
    started.append(server)
    assert [r for r in logs if r["event"] == "plugin_excluded"] == []
    (line,) = dropped(logs)
    assert (line["kind"], line["name"], line["level"]) == ("variant id", "bezique-2p", "warning")
    assert str(line["kept"]).startswith(f"{ENGINE} ") and line["dropped"] == "bezique-usurper 6.6.6"
    async with AsyncTableClient(server.address, retries=0) as client:
        variants = {v.id: v for v in await client.list_variants()}
        assert BUILT_IN | {"usurper-card"} <= set(variants)
        assert {variants[v].distribution for v in BUILT_IN} == {ENGINE}
        assert variants["bezique-2p"].max_seats == 2 and "heuristic" in (
            variants["bezique-2p"].bot_policies)
        assert variants["usurper-card"].distribution == "bezique-usurper"
        assert (await client.create_table("bezique-3p")).table_id
    assert server.terminate() == 0


def test_preferring_the_engine_by_variable_keeps_its_bots(
        site: Path, started: list[ServerProcess]) -> None:
    server, logs = spawn_with_plugins(site, env={"BEZIQUE_PREFER_PLUGIN": f"bezique-x,{ENGINE}"})
    started.append(server)
    by_kind = {r["kind"]: r for r in dropped(logs)}
    assert len(dropped(logs)) == 2, dropped(logs)  # one line for each name, not each variant
    policy = by_kind["bot policy"]
    assert policy["name"] == "heuristic" and policy["dropped"] == "bezique-bot-usurper 0.1.0"
    assert isinstance(policy["variants"], list) and set(policy["variants"]) == BUILT_IN
    assert by_kind["variant id"]["name"] == "bezique-2p"
    assert server.terminate() == 0


def test_the_preferred_claim_is_the_one_served(site: Path, monkeypatch: pytest.MonkeyPatch
                                               ) -> None:
    """In process, the registry itself: whose object serves each name, either way round."""
    monkeypatch.syspath_prepend(str(site))
    registry = load_registry(prefer=[ENGINE])
    assert type(registry.bot_policies("bezique-2p")["heuristic"]).__module__ == (
        "bezique.variants.bezique.bots")
    assert type(registry.bot_policies("highcard")["heuristic"]).__module__ == (
        "bezique_bot_usurper_plugin")  # nobody else claims it there
    assert type(registry.variant("bezique-2p")).__module__ == "bezique.variants.bezique.variant"
    usurped = load_registry(prefer=["Bezique_Usurper"], deny=["bezique-bot-usurper"])
    assert type(usurped.variant("bezique-2p")).__name__ == "Impostor"
    assert "bezique-3p" in usurped.variants and usurped.excluded == []  # the engine stays
    (displaced,) = usurped.displaced
    assert (displaced.kept.name, displaced.dropped.name) == ("bezique-usurper", ENGINE)


def test_preferring_a_disabled_plugin_is_a_usage_error(site: Path) -> None:
    done = subprocess.run([SERVER, "--prefer-plugin", "bezique-usurper", "--disable-plugin",
                           "bezique-usurper"], cwd=ROOT, env=environment(site), text=True,
                          capture_output=True, timeout=60)
    assert done.returncode == USAGE_ERROR
    assert "--prefer-plugin and --disable-plugin both name bezique-usurper" in done.stderr


def test_play_says_in_one_line_why_its_server_cannot_start(site: Path) -> None:
    """``bezique play`` runs its own server: the same refusal is its one line, exit 2, and
    BEZIQUE_PREFER_PLUGIN chooses there too (no input: the player leaves at once)."""
    play = [str(Path(SERVER).with_name("bezique")), "play", "bezique-2p", "--bot-delay", "0"]
    env = environment(site)
    done = subprocess.run(play, cwd=ROOT, env=env, text=True, capture_output=True, timeout=60,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 2, done.stderr
    assert "variant id 'bezique-2p' is claimed by both" in done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
    env["BEZIQUE_PREFER_PLUGIN"] = ENGINE
    done = subprocess.run(play, cwd=ROOT, env=env, text=True, capture_output=True, timeout=60,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    assert "You left table" in done.stdout


def test_preferring_a_distribution_not_installed_says_so_in_one_line(
        site: Path, started: list[ServerProcess]) -> None:
    """A --prefer-plugin name no installed distribution has (a typo, a plugin not installed
    here) settles nothing: the server says so once at start, naming it; an installed one
    (spelled as the operator likes) draws no such line."""
    server, logs = spawn_with_plugins(site, "--disable-plugin", "bezique-usurper",
                                      "--disable-plugin", "bezique-bot-usurper",
                                      "--prefer-plugin", "no-such-dist",
                                      "--prefer-plugin", "Bezique_Engine")
    started.append(server)
    (line,) = [r for r in logs if r["event"] == "preferred_plugin_not_installed"]
    assert (line["distribution"], line["level"]) == ("no-such-dist", "warning")
    assert "--prefer-plugin" in str(line["error"])
    assert server.terminate() == 0
