# mypy: disable-error-code="empty-body"
"""The hooks a plugin may implement. Every hook is prefixed ``bezique_``, typed and documented;
``tests/test_docs.py`` checks that docs/plugins.md describes each one.

A plugin is any module or object with ``@hookimpl``-decorated functions, advertised in its
package's entry points under the group ``bezique``::

    [project.entry-points.bezique]
    highcard = "bezique_highcard.plugin"
"""

from __future__ import annotations

from collections.abc import Sequence

import pluggy

from bezique.variants.api import BotPolicy, Event, Variant

PROJECT = "bezique"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@hookspec
def bezique_variants() -> Sequence[Variant]:
    """Return the variants this plugin provides.

    Called once when the registry is built. Variant ids must be unique across all plugins: one
    that another plugin also returns stops the server (unless the operator prefers one).
    """


@hookspec
def bezique_bot_policies(variant_id: str) -> Sequence[BotPolicy]:
    """Return the bot policies this plugin offers for the variant ``variant_id`` (or none).

    Every variant also gets the built-in ``random`` policy. Policy names must be unique per
    variant, across plugins too (as variant ids); a bot is given only its seat's redacted view.
    """


@hookspec
def bezique_table_events(
    table_id: str, variant_id: str, version: int, events: Sequence[Event]
) -> None:
    """Observe the events of every accepted move, after it is durable.

    Called with the unredacted events: an observer that forwards them anywhere is responsible for
    redaction. It must be quick and must not raise; errors are logged and ignored.
    """
