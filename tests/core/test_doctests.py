"""The runnable examples in the plugin API and the card module's docstrings are true."""

from __future__ import annotations

import doctest
from types import ModuleType

import pytest

from bezique.variants import api, cards, host


@pytest.mark.parametrize("module", [api, cards, host], ids=lambda module: module.__name__)
def test_the_examples_in_the_docstrings_run(module: ModuleType) -> None:
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0, f"{module.__name__} has no examples"
    assert result.failed == 0
