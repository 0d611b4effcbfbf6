"""The servicer's shape, kept by a test because a reader relies on it: responses are built in
``translate.py`` only, every context is typed, and no ``assert`` steers the server or clients
(``python -O`` strips them, so a check made with one would vanish)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from tests.helpers import ROOT

CODE_FOLDERS = ("service", "clients")


def _modules(*folders: str) -> Iterator[tuple[Path, ast.Module]]:
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "node_modules" not in path.parts:
                yield path, ast.parse(path.read_text(), filename=str(path))


def test_no_assert_steers_the_server_or_the_clients() -> None:
    found = [f"{path.relative_to(ROOT)}:{node.lineno}"
             for path, module in _modules(*CODE_FOLDERS)
             for node in ast.walk(module) if isinstance(node, ast.Assert)]
    assert found == []


def test_the_servicer_builds_no_message() -> None:
    """Every ``pb.Something(...)`` of the servicer lives in translate.py."""
    tree = ast.parse((ROOT / "service" / "servicer.py").read_text())
    built = [f"pb.{node.func.attr} at line {node.lineno}" for node in ast.walk(tree)
             if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
             and isinstance(node.func.value, ast.Name) and node.func.value.id == "pb"]
    assert built == []


def test_every_context_is_typed_as_grpc_s() -> None:
    """A parameter named ``context`` in the server is annotated, never ``Any``: grpc.aio's
    ServicerContext, an alias of it, or the HTTP port's subclass, so a handler cannot call
    what grpc's context lacks."""
    untyped = []
    for path, module in _modules("service", "bench"):
        for node in ast.walk(module):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for arg in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs):
                if arg.arg != "context":
                    continue
                text = "" if arg.annotation is None else ast.unparse(arg.annotation)
                if not text.startswith(("ServicerContext[", "grpc.aio.ServicerContext[",
                                        "Context", "HttpContext")) or "Any" in text:
                    untyped.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}: "
                                   f"{text or 'no annotation'}")
    assert untyped == []
