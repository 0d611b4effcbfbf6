"""Fixtures of the TypeScript client's tests: the package built as a user builds it."""

from __future__ import annotations

import pytest

from tests.npm import node_modules, npm_run, tool


@pytest.fixture(scope="session")
def node() -> str:
    """The node binary, with the package built (generated code, then tsc) into dist/."""
    node_modules()
    built = npm_run("build")
    if built.returncode != 0:
        pytest.fail(f"npm run build failed:\n{built.stdout}\n{built.stderr}", pytrace=False)
    return tool("node")
