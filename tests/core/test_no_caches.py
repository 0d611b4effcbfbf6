"""The rules core keeps no process-wide state: no module of ``bezique.variants`` holds a
mutable container or a ``functools`` cache at module level, and no record class has its
constructor replaced (issue #27). A position's views are kept by the service, per table
version and viewer (tests/service/test_view_cache.py)."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
from types import ModuleType

import bezique.variants
from bezique.variants import api

MUTABLE = (dict, list, set, bytearray)


def _modules() -> list[ModuleType]:
    found = [bezique.variants]
    for info in pkgutil.walk_packages(bezique.variants.__path__, "bezique.variants."):
        found.append(importlib.import_module(info.name))
    return found


def test_no_module_of_the_rules_core_holds_a_mutable_container_or_a_cache() -> None:
    held = []
    for module in _modules():
        for name, value in vars(module).items():
            if name.startswith("__"):
                continue
            if isinstance(value, MUTABLE) or hasattr(value, "cache_clear"):
                held.append(f"{module.__name__}.{name}")
    assert len(_modules()) > 20 and held == []


def test_the_records_keep_their_dataclass_constructors() -> None:
    """The records a game hands to the server are built by the constructors their
    dataclasses generate (main replaced five of them at import, for speed)."""
    records = [value for value in vars(api).values()
               if inspect.isclass(value) and dataclasses.is_dataclass(value)
               and value.__module__ == api.__name__]
    assert {record.__name__ for record in records} >= {
        "Move", "Event", "Pile", "Census", "Zone", "View", "Public"}
    for record in records:
        assert record.__init__.__qualname__ == f"{record.__name__}.__init__", record
        assert record.__init__.__module__ == api.__name__, record
