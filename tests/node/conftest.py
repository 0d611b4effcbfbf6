"""Fixtures of the TypeScript client's tests: the package built as a user builds it."""

from __future__ import annotations

import pytest

from tests.npm import built_package


@pytest.fixture(scope="session")
def node() -> str:
    """The node binary, with the package built (generated code, then tsc) into dist/."""
    return built_package()
