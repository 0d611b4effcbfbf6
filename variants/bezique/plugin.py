"""Registers the built-in variants of this package through the ``bezique`` entry points."""

from __future__ import annotations

from collections.abc import Sequence

from variants.api import Variant
from variants.hookspecs import hookimpl


@hookimpl
def bezique_variants() -> Sequence[Variant]:
    return []
