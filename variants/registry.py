"""Discovery: a plugin manager built per registry (no module-global state), plugins loaded
from the ``bezique`` entry points, hooks checked, variants and bot policies collected."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import pluggy

from variants import hookspecs
from variants.api import BotPolicy, Event, RandomPolicy, Variant, VariantError


class UnknownVariantError(VariantError):
    def __init__(self, variant_id: str, known: Iterable[str]) -> None:
        super().__init__(f"unknown variant {variant_id!r} (known: {', '.join(sorted(known))})")
        self.variant_id = variant_id


def make_plugin_manager(
    *, entry_points: bool = True, plugins: Iterable[object] = ()
) -> pluggy.PluginManager:
    """A fresh plugin manager with the hookspecs, the installed plugins and ``plugins``.

    ``check_pending()`` makes a misspelled hook implementation an error at start-up.
    """
    manager = pluggy.PluginManager(hookspecs.PROJECT)
    manager.add_hookspecs(hookspecs)
    if entry_points:
        manager.load_setuptools_entrypoints(hookspecs.PROJECT)
    for plugin in plugins:
        manager.register(plugin)
    manager.check_pending()
    return manager


class Registry:
    """The variants and bot policies of one plugin manager."""

    def __init__(self, manager: pluggy.PluginManager) -> None:
        self.manager = manager
        variants: dict[str, Variant] = {}
        for batch in manager.hook.bezique_variants():
            for variant in batch:
                if not isinstance(variant, Variant):
                    raise TypeError(f"{variant!r} does not implement the Variant protocol")
                if variant.id in variants:
                    raise ValueError(f"two plugins register the variant id {variant.id!r}")
                variants[variant.id] = variant
        self._variants = dict(sorted(variants.items()))
        self._policies: dict[str, dict[str, BotPolicy]] = {}

    @property
    def variants(self) -> Mapping[str, Variant]:
        return self._variants

    def variant(self, variant_id: str) -> Variant:
        try:
            return self._variants[variant_id]
        except KeyError:
            raise UnknownVariantError(variant_id, self._variants) from None

    def bot_policies(self, variant_id: str) -> Mapping[str, BotPolicy]:
        """Every policy for the variant, ``random`` first."""
        self.variant(variant_id)
        cached = self._policies.get(variant_id)
        if cached is None:
            cached = {RandomPolicy.name: RandomPolicy()}
            for batch in self.manager.hook.bezique_bot_policies(variant_id=variant_id):
                for policy in batch or ():
                    cached[policy.name] = policy
            self._policies[variant_id] = cached
        return cached

    @property
    def observed(self) -> bool:
        """Whether any plugin implements ``bezique_table_events`` (else nothing to notify)."""
        return bool(self.manager.hook.bezique_table_events.get_hookimpls())

    def notify_events(self, table_id: str, variant_id: str, version: int,
                      events: Sequence[Event]) -> None:
        self.manager.hook.bezique_table_events(
            table_id=table_id, variant_id=variant_id, version=version, events=events)


def load_registry(*, entry_points: bool = True, plugins: Iterable[object] = ()) -> Registry:
    """The registry of every installed variant (plus ``plugins``, e.g. in tests)."""
    return Registry(make_plugin_manager(entry_points=entry_points, plugins=plugins))
