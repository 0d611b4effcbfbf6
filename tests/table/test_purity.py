"""The decider stays pure and the service's classes small: a client (the verifier) imports the
table package without the server, and no class of the service grows past 300 lines."""

from __future__ import annotations

import ast
import subprocess
import sys

from tests.helpers import ROOT

FORBIDDEN = ("grpc", "google.protobuf", "asyncio", "structlog", "bezique.service.store",
             "bezique.service.live", "bezique.service.commands")


def test_the_table_package_imports_no_server_machinery() -> None:
    probe = ("import sys\n"
             "import bezique.service.decide, bezique.table.entries\n"
             "import bezique.table.state\n"
             f"bad = [m for m in sys.modules if m.startswith({FORBIDDEN!r})]\n"
             "print(','.join(sorted(bad)))\n")
    found = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                           check=True, cwd=ROOT)
    assert found.stdout.strip() == ""


def test_no_class_of_the_service_is_over_300_lines() -> None:
    sizes = {}
    for path in sorted((ROOT / "service").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and node.end_lineno is not None:
                sizes[f"{path.relative_to(ROOT)}:{node.name}"] = node.end_lineno - node.lineno + 1
    assert {name: size for name, size in sizes.items() if size > 300} == {}
