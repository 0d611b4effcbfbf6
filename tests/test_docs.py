"""Docs as a tested contract: every hook is documented, the README's commands exist."""

from __future__ import annotations

import re
from pathlib import Path

from bezique.variants import hookspecs

ROOT = Path(__file__).resolve().parent.parent


def hook_names() -> list[str]:
    return [name for name in dir(hookspecs) if name.startswith("bezique_")]


def test_every_hook_is_documented_in_plugins_md() -> None:
    text = (ROOT / "docs" / "plugins.md").read_text()
    documented = set(re.findall(r"^### `(bezique_\w+)`", text, re.MULTILINE))
    assert documented == set(hook_names())


def test_every_hook_has_a_docstring_and_types() -> None:
    for name in hook_names():
        hook = getattr(hookspecs, name)
        assert hook.__doc__ and len(hook.__doc__.strip()) > 40, name
        assert "return" in hook.__annotations__, name


def test_the_readme_names_the_two_commands_and_they_exist() -> None:
    readme = (ROOT / "README.md").read_text()
    makefile = (ROOT / "Makefile").read_text()
    for target in ("run", "test", "play", "bench"):
        assert f"make {target}" in readme
        assert re.search(rf"^{target}:", makefile, re.MULTILINE), target
    ci = (ROOT / ".ci" / "run").read_text()
    assert "make test" in ci


def test_every_rpc_is_in_the_protocol_doc() -> None:
    proto = (ROOT / "proto" / "bezique" / "v1" / "table_service.proto").read_text()
    doc = (ROOT / "docs" / "protocol.md").read_text()
    for rpc in re.findall(r"^\s*rpc (\w+)\(", proto, re.MULTILINE):
        assert f"`{rpc}`" in doc, rpc
