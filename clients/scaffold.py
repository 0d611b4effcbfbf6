"""``bezique new-variant NAME``: write a plugin package a variant author can install and test.

The package depends on the engine within the range its plugin API promise covers (the same
major version; while the engine is 0.y, the same minor), advertises its variant through the
entry-point group ``bezique``, and holds a game skeleton that passes the conformance kit, its
test, a README and ``py.typed``.
"""

from __future__ import annotations

import keyword
import re
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from string import Template

from bezique.clients.scaffold_files import FILES

DISTRIBUTION = "bezique-engine"

NAME = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*")


class ScaffoldError(Exception):
    """The package cannot be written; the message says why in one line."""


@dataclass(frozen=True)
class Names:
    """Every name the package uses, from the variant id."""

    variant_id: str
    dist: str
    module: str
    class_name: str
    title: str


def names_of(name: str) -> Names:
    """``spades`` gives the variant ``spades`` in ``bezique_spades`` of ``bezique-spades``."""
    if not NAME.fullmatch(name):
        raise ScaffoldError(f"{name!r} is not a variant name: lower-case letters and digits, "
                            "words joined by '-', starting with a letter (e.g. 'spades')")
    dist = name if name.startswith("bezique-") else f"bezique-{name}"
    words = name.split("-")
    class_name = "".join(word.capitalize() for word in words)
    if keyword.iskeyword(class_name):  # none, true, false
        class_name += "Variant"
    return Names(variant_id=name, dist=dist, module=dist.replace("-", "_"),
                 class_name=class_name, title=" ".join(words).capitalize())


def engine_requirement(version: str) -> str:
    """The engine requirement a plugin should declare: at least this version, below the next
    release that may break the plugin API (CHANGELOG: the next major, or the next minor while
    the major is 0)."""
    match = re.match(r"(\d+)\.(\d+)(?:\.(\d+))?$", version)
    if match is None:  # a development build with no clean version: no bound to promise
        return DISTRIBUTION
    major, minor = int(match.group(1)), int(match.group(2))
    ceiling = f"0.{minor + 1}" if major == 0 else f"{major + 1}"
    return f"{DISTRIBUTION}>={version},<{ceiling}"


def write_package(name: str, target: Path | None = None, version: str | None = None
                  ) -> tuple[Path, list[Path]]:
    """Write the package for variant ``name`` into ``target`` (default ``./<distribution>``),
    which must not exist or be empty. Returns the folder and the files written."""
    names = names_of(name)
    folder = target if target is not None else Path(names.dist)
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise ScaffoldError(f"{folder} already exists and is not empty; choose another "
                            "--directory")
    values = {"dist": names.dist, "module": names.module, "variant_id": names.variant_id,
              "class_name": names.class_name, "title": names.title,
              "engine": engine_requirement(version or metadata.version(DISTRIBUTION))}
    written = []
    try:
        for relative, text in FILES.items():
            path = folder / Template(relative).substitute(values)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(Template(text).substitute(values))
            written.append(path)
    except OSError as exc:
        raise ScaffoldError(f"cannot write {exc.filename or folder}: {exc.strerror}") from None
    return folder, written
