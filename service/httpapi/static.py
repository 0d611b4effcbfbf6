"""The web table's files, served at ``/`` from one folder (read-only, nothing outside it)."""

from __future__ import annotations

import asyncio
import mimetypes
from pathlib import Path

DEFAULT_DIR = Path(__file__).resolve().parents[2] / "clients" / "web" / "dist"
"""The web table's bundle as ``clients/web`` builds it (``npm run build``): beside the
``service`` folder in a checkout, and in the ``bezique`` package when installed."""

MISSING = (b"No web table is installed here: build it (cd clients/web && npm run build) or "
           b"start the server with --http-static-dir pointing at a built bundle.\n")

NOT_FRAMED = [(b"x-frame-options", b"DENY"),
              (b"content-security-policy", b"frame-ancestors 'none'")]
"""Headers that forbid any page, of any origin, to show the web table in a frame: a framing
page could lay its own controls over the table's and have a player click moves unseen."""


class StaticFiles:
    """Files of ``root``; a path that leaves it, a hidden name or a missing file is 404."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root).resolve() if str(root) else DEFAULT_DIR

    def find(self, url_path: str) -> Path | None:
        parts = [p for p in url_path.split("/") if p]
        if any(p.startswith(".") or "\\" in p or "\0" in p for p in parts):
            return None
        candidate = self.root.joinpath(*parts)
        try:
            resolved = candidate.resolve()
        except (OSError, RuntimeError):
            return None
        if not resolved.is_relative_to(self.root):
            return None
        if resolved.is_dir():
            resolved = resolved / "index.html"
        return resolved if resolved.is_file() else None

    async def read(self, url_path: str) -> tuple[bytes, str] | None:
        """The file's bytes and content type, or None when there is no such file."""
        path = self.find(url_path)
        if path is None:
            return None
        try:
            data = await asyncio.to_thread(path.read_bytes)
        except OSError:
            return None
        kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        if kind.startswith("text/") or kind in ("application/javascript", "application/json"):
            kind += "; charset=utf-8"
        return data, kind

    @property
    def present(self) -> bool:
        return self.root.is_dir()
