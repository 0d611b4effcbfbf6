"""The distribution as a user gets it: ``make dist``'s wheel and sdist, the wheel installed
into a clean virtual environment (no checkout on the path), its ``bezique-server`` serving on a
free port and its ``bezique`` CLI playing a whole game against it."""

from __future__ import annotations

import re
import tarfile
import urllib.request
import zipfile
from collections.abc import Iterator

import pytest

from tests.packaged.helpers import CleanEnv, EngineDist, InstalledServer, spawn_installed

LEGAL = re.compile(r"^\W*(\d+)\. (\S.*?)\s*│?$")


@pytest.fixture(scope="module")
def installed(engine_dist: EngineDist, tmp_path_factory: pytest.TempPathFactory
              ) -> Iterator[CleanEnv]:
    """A clean environment holding the engine's wheel with its runtime dependencies only."""
    env = CleanEnv(tmp_path_factory.mktemp("clean-engine"))
    env.install(str(engine_dist.wheel))
    yield env


def test_the_wheel_and_sdist_hold_the_engine_and_declare_runtime_needs_only(
        engine_dist: EngineDist) -> None:
    wheel = zipfile.ZipFile(engine_dist.wheel)
    names = wheel.namelist()
    assert {name.split("/")[0] for name in names if ".dist-info/" not in name} == {"bezique"}
    for needed in ("bezique/py.typed", "bezique/v1/table_service_pb2.py",
                   "bezique/variants/api.py", "bezique/clients/cli.py",
                   "bezique/clients/web/dist/index.html", "bezique/clients/web/dist/app.js"):
        assert needed in names, needed
    # The web table's bundle only: neither its sources nor its source map.
    web = [name for name in names if "/web/" in name]
    assert all(name.startswith("bezique/clients/web/dist/") for name in web), web
    assert not [name for name in web if name.endswith(".map")], web
    info = f"bezique_engine-{engine_dist.version}.dist-info"
    metadata = wheel.read(f"{info}/METADATA").decode()
    requires = re.findall(r"^Requires-Dist: (.+)$", metadata, re.MULTILINE)
    runtime = [line for line in requires if "extra ==" not in line]
    assert runtime and not [line for line in runtime if "asyncpg" in line or "pytest" in line]
    assert 'asyncpg>=0.30; extra == "postgres"' in requires
    assert re.search(r"^Provides-Extra: dev$", metadata, re.MULTILINE)
    assert re.search(r"^License-Expression: MIT$", metadata, re.MULTILINE)
    assert f"{info}/licenses/LICENSE" in names
    assert "Typing :: Typed" in metadata and "A gRPC card-table engine" in metadata
    # The sdist builds on its own (setup.py generates bezique.v1 from proto/) and ships no
    # tests, examples or node modules.
    with tarfile.open(engine_dist.sdist) as sdist:
        members = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    for needed in ("proto/bezique/v1/table_service.proto", "tools/gen_proto.py", "setup.py",
                   "LICENSE", "CHANGELOG.md", "README.md",
                   "bezique/clients/web/dist/index.html"):
        assert needed in members, needed
    assert not [m for m in members if m.startswith(("tests/", "examples/")) or "node" in m]


def test_the_installed_engine_comes_from_the_wheel_and_says_its_version(
        installed: CleanEnv, engine_dist: EngineDist) -> None:
    where = installed.run("python", "-c", "import bezique; print(bezique.__file__)").stdout
    assert where.strip().startswith(str(installed.venv)), where
    assert installed.run("bezique-server", "--version").stdout.strip() == (
        f"bezique-server {engine_dist.version}")
    # asyncpg is the postgres extra's, not a runtime dependency.
    missing = installed.run("python", "-c", "import asyncpg", check=False)
    assert missing.returncode == 1 and "No module named 'asyncpg'" in missing.stderr


def test_postgres_without_the_extra_is_one_line_saying_what_to_install(
        installed: CleanEnv) -> None:
    done = installed.run("bezique-server", "--address", "127.0.0.1:0", "--store",
                         "postgresql://player:s3cret@127.0.0.1:9/tables", check=False)
    assert done.returncode == 1, done
    assert done.stderr.count("\n") == 1, done.stderr
    assert "pip install 'bezique-engine[postgres]'" in done.stderr
    assert "s3cret" not in done.stderr and "Traceback" not in done.stderr


def choose(view_text: str) -> int | None:
    """The number of the move to make from ``bezique view``'s list: show or call rather than
    fold, so the game goes to its showdowns; None when the seat has no legal move."""
    moves = {int(m.group(1)): m.group(2) for line in view_text.splitlines()
             if (m := LEGAL.match(line))}
    if not moves:
        return None
    for number, text in sorted(moves.items()):
        if not text.startswith(("fold", "raise")):
            return number
    return min(moves)


def test_the_installed_cli_plays_a_whole_game_on_the_installed_server(
        installed: CleanEnv, start_installed: list[InstalledServer]) -> None:
    server = spawn_installed(installed, start_installed)

    def cli(*args: str) -> str:
        return installed.run("bezique", "--server", server.address, *args).stdout

    listed = cli("variants")
    assert "quart-bezique" in listed and "bezique-2p" in listed
    # a raise of at most 100 against a stack of 1000: no seat can be busted in the first deal
    # (the bot raises once a deal at most, as this seat shows), so both deals are played
    created = cli("create", "quart-bezique", "-o", "players=2", "-o", "deals=2",
                  "-o", "max_bet=100", "--bot", "1=random")
    table = re.search(r"^table: (\w+)$", created, re.MULTILINE)
    assert table, created
    joined = cli("join", table.group(1), "--name", "wheel")
    token = re.search(r"^token: (\w+)$", joined, re.MULTILINE)
    proof = re.search(r"^export BEZIQUE_PROOF=(\S+)$", joined, re.MULTILINE)
    assert token and proof, joined
    moves = 0
    for _ in range(400):
        view = cli("view", table.group(1), "--token", token.group(1))
        if "Game over" in view:
            break
        number = choose(view)
        if number is None:  # the bot's turn: it moves at once (--bot-delay 0)
            continue
        done = installed.run("bezique", "--server", server.address, "move", table.group(1),
                             str(number), "--token", token.group(1), check=False)
        assert done.returncode in (0, 2), done.stderr  # 2: the table moved on meanwhile
        moves += done.returncode == 0
    else:
        pytest.fail(f"the game did not end; last view:\n{view}")
    assert moves >= 1, view  # a random bot may fold at once: a deal can take one move
    verified = cli("verify", table.group(1), "--proof", proof.group(1))
    assert "verified: 2 deals" in verified, verified


def test_the_installed_server_serves_the_web_table(
        installed: CleanEnv, start_installed: list[InstalledServer]) -> None:
    """The wheel's bundle, at / of the HTTP port, with no --http-static-dir and no checkout."""
    server = spawn_installed(installed, start_installed, http=True)
    with urllib.request.urlopen(f"{server.http_url}/", timeout=10) as answer:
        assert answer.status == 200
        assert answer.headers["content-type"].startswith("text/html")
        page = answer.read().decode()
    assert "<title>Card tables</title>" in page
    script = re.search(r'src="([\w./-]+\.js)[?"]', page)
    assert script, page
    with urllib.request.urlopen(f"{server.http_url}/{script.group(1)}", timeout=10) as answer:
        assert answer.status == 200
        assert b"application/connect" in answer.read()  # the page's Connect client
