"""Every code example in docs/ runs: Python with the SDK, TypeScript with the package in
clients/node, shell commands with the tools the repository pins, all against a real server.

A fenced block must say its language. ``text`` blocks are not code (directory trees). A few
blocks cannot run on one machine (deployments to other hosts, configuration of other
programs): they are listed in NOT_RUN with the reason, so a new example cannot slip in unrun.
"""

from __future__ import annotations

import asyncio
import os
import re
import shlex
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bezique.clients.sdk import AsyncTableClient
from tests.helpers import ServerProcess, spawn_server
from tests.npm import NODE_DIR, built_package, node_modules, tool

ROOT = Path(__file__).resolve().parent.parent
ADDRESS = "127.0.0.1:50051"
HTTP_URL = "http://127.0.0.1:8080"
PYTHON = sys.executable
FENCE = re.compile(r"^```(\S*)\n(.*?)^```$", re.MULTILINE | re.DOTALL)

NOT_RUN = {
    ("operations.md", "bezique-server --address 0.0.0.0:50051 --store postgresql://"):
        "replicas on other hosts sharing one PostgreSQL (tests/replicas runs the same locally)",
    ("operations.md", "upstream bezique {"): "nginx configuration, not code",
    ("operations.md", "SELECT create_distributed_table"): "needs a Citus cluster",
    ("fairness.md", "node dist/verify.js --server HOST:PORT TABLE_ID"):
        "runs in clients/node once built, on a server's table or a saved history; "
        "tests/node/test_node_verifier.py runs both forms on finished tables of every game",
    ("plugins.md", "pip install ./my-variant"):
        "installs a placeholder project into the server's environment",
    ("embedding.md", "# The platform's side (examples/platform"):
        "needs a server started with --api-key and --grant-public-key of the platform's key; "
        "tests/platform runs the same calls through examples/platform",
    ("protocol.md", 'import { createClient } from "@connectrpc/connect";\nimport { createConnectT'):
        "runs in a page (connect-web); tests/node plays the same calls with connect-node's "
        "Connect and gRPC-Web transports, and clients/web's tests in Chromium",
}
# Blocks quoted from a file of the repository, which its own tests run: each must be a run of
# that file's lines, character for character (test_quoted_code_is_the_file_line_for_line).
QUOTED = {
    ("plugins.md", "class HighCard(BaseVariant):"): "examples/highcard/bezique_highcard/game.py",
    ("plugins.md", "    def why_illegal(self"): "examples/highcard/bezique_highcard/game.py",
    ("plugins.md", "    def census(self) -> Census:"): "examples/highcard/bezique_highcard/game.py",
}
NOT_RUN.update({key: f"quoted from {path}, whose tests run it" for key, path in QUOTED.items()})
# The plugins page's conformance example names a placeholder plugin; it runs with the example
# plugin in examples/highcard instead.
PLACEHOLDERS = {"my_variant.game": "bezique_highcard.game", "MyVariant": "HighCard"}


@dataclass(frozen=True)
class Example:
    page: str
    language: str
    code: str

    @property
    def name(self) -> str:
        return f"{self.page}:{self.code.splitlines()[0][:40]}"


def examples() -> list[Example]:
    found = []
    for path in sorted((ROOT / "docs").rglob("*.md")):
        for match in FENCE.finditer(path.read_text()):
            found.append(Example(str(path.relative_to(ROOT / "docs")), match.group(1),
                                 match.group(2)))
    return found


def not_run(example: Example) -> str | None:
    for (page, start), reason in NOT_RUN.items():
        if example.page == page and example.code.startswith(start):
            return reason
    return None


def of(language: str) -> list[Example]:
    return [e for e in examples() if e.language == language and not_run(e) is None]


def test_every_block_is_tagged_and_runs_or_says_why_not() -> None:
    runnable = {"python", "ts", "sh", "toml"}
    for example in examples():
        assert example.language, f"{example.name}: a fenced block must name its language"
        if example.language == "text":
            continue
        assert example.language in runnable or not_run(example), example.name
    listed = {(e.page, start) for e in examples() for page, start in NOT_RUN
              if e.page == page and e.code.startswith(start)}
    assert listed == set(NOT_RUN), "NOT_RUN names a block that no longer exists"
    assert len(of("python")) >= 2 and len(of("ts")) >= 1 and len(of("sh")) >= 3


def test_quoted_code_is_the_file_line_for_line() -> None:
    for (page, start), path in QUOTED.items():
        [quote] = [e.code for e in examples() if e.page == page and e.code.startswith(start)]
        text = "\n" + (ROOT / path).read_text()
        assert "\n" + quote in text, f"{page}: the quote differs from {path}"


def test_toml_examples_parse() -> None:
    for example in of("toml"):
        tomllib.loads(example.code)


SERVED_URLS: dict[str, str] = {}
"""The HTTP port's URL of the examples' server (its second line), replacing HTTP_URL."""


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProcess]:
    process = spawn_server("--store", "memory:", "--bot-delay", "0",
                           "--http-address", "127.0.0.1:0")
    assert process.process.stdout is not None
    found = re.search(r"(http://[\d.]+:\d+)/", process.process.stdout.readline())
    assert found, "no HTTP port"
    SERVED_URLS[HTTP_URL] = found.group(1)
    yield process
    process.terminate()


PLATFORM_KEY = "platform-secret-key"
"""The API key the platform examples pass: they run on a server started with it (AbortTable
is refused by a server without one)."""


@pytest.fixture(scope="module")
def keyed_server() -> Iterator[ServerProcess]:
    process = spawn_server("--store", "memory:", "--bot-delay", "0", "--api-key", PLATFORM_KEY)
    yield process
    process.terminate()


def environment() -> dict[str, str]:
    """The examples' PATH: the venv's programs (bezique) and the pinned npm tools (buf)."""
    path = os.pathsep.join([str(Path(PYTHON).parent), str(node_modules()),
                            os.environ.get("PATH", "")])
    return {**os.environ, "PATH": path}


def run(command: list[str], cwd: Path, timeout: float = 240,
        env: dict[str, str] | None = None) -> str:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          check=False, env=env or environment())
    assert done.returncode == 0, f"{shlex.join(command)}\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.mark.parametrize("example", of("python"), ids=lambda e: e.name)
def test_python_examples_run(example: Example, server: ServerProcess,
                             keyed_server: ServerProcess) -> None:
    keyed = f'api_key="{PLATFORM_KEY}"' in example.code
    code = example.code.replace(ADDRESS, (keyed_server if keyed else server).address)
    for placeholder, real in PLACEHOLDERS.items():
        code = code.replace(placeholder, real)
    if "def test_" in code:  # a pytest example: call its tests
        code += "".join(f"\n{name}()" for name in re.findall(r"^def (test_\w+)\(", code,
                                                               re.MULTILINE))
    output = run([PYTHON, "-c", code], ROOT)
    if "print(" in code:
        assert output.strip(), "the example printed nothing"


def test_the_python_sdk_example_plays_a_game_to_its_end(server: ServerProcess) -> None:
    """The protocol page's example waits for its turn, so it finishes whoever moves first."""
    [example] = [e for e in of("python") if e.page == "protocol.md"]
    code = example.code.replace(ADDRESS, server.address)
    for _ in range(3):  # the bot moves first in about half of the games
        reason, *scores = run([PYTHON, "-c", code], ROOT).split(maxsplit=1)
        assert reason in {"target", "target_last_trick", "target_highest", "triple_bezique",
                          "claim", "wrong_claim"}, reason
        assert scores and scores[0].startswith("[")


def test_typescript_examples_run(server: ServerProcess, tmp_path: Path) -> None:
    built_package()
    folder = NODE_DIR / ".doc-examples"  # inside the package: imports resolve to it by name
    folder.mkdir(exist_ok=True)
    try:
        (folder / "tsconfig.json").write_text(
            '{"extends": "../tsconfig.json", "compilerOptions": {"rootDir": ".", '
            '"outDir": "out", "declaration": false, "sourceMap": false}, "include": ["*.ts"]}')
        names = []
        for number, example in enumerate(of("ts")):
            names.append(f"example{number}")
            (folder / f"{names[-1]}.ts").write_text(example.code.replace(ADDRESS,
                                                                         server.address))
        run([str(node_modules() / "tsc"), "-p", str(folder)], NODE_DIR)
        for name in names:
            output = run([tool("node"), str(folder / "out" / f"{name}.js")], NODE_DIR)
            assert output.strip(), f"{name} printed nothing"
    finally:
        subprocess.run(["rm", "-rf", str(folder)], check=False)


async def finished_table(address: str) -> str:
    """A highcard table played to its end by two bots."""
    async with AsyncTableClient(address, retries=0) as client:
        created = await client.create_table("highcard", {"players": 2},
                                            bots={0: "random", 1: "random"})
        for _ in range(200):
            if (await client.view(created.table_id)).HasField("outcome"):
                return created.table_id
            await asyncio.sleep(0.05)
    raise AssertionError("the bots did not finish")


@pytest.mark.parametrize("example", of("sh"), ids=lambda e: e.name)
def test_shell_examples_run(example: Example, server: ServerProcess, tmp_path: Path) -> None:
    """Each line (joined at trailing backslashes) runs in a folder holding proto/ and gen/."""
    (tmp_path / "proto").symlink_to(ROOT / "proto")
    (tmp_path / "gen").mkdir()
    table_id = asyncio.run(finished_table(server.address))
    env = {**environment(), "BEZIQUE_SERVER": server.address}
    script = example.code.replace("\\\n", " ")
    for line in script.splitlines():
        command = line.split("  #")[0].strip()
        if not command:
            continue
        command = command.replace(ADDRESS, server.address).replace("TABLE_ID", table_id)
        command = command.replace(HTTP_URL, SERVED_URLS[HTTP_URL])
        output = run(["bash", "-c", command], tmp_path, env=env)
        if command.startswith("buf curl") and "--list-methods" in command:
            assert "bezique.v1.TableService/SubmitMove" in output
        if command.startswith("buf curl") and "CreateTable" in command:
            assert '"tableId"' in output
    if example.code.startswith("protoc"):
        assert list((tmp_path / "gen").rglob("*.go")) and list((tmp_path / "gen").rglob("*.cs"))
