"""Running a small ES module beside the built TypeScript client, as its tests do."""

from __future__ import annotations

import json
import subprocess
from typing import Any

from tests.npm import NODE_DIR


def run_script(node: str, name: str, source: str, address: str, *more: str) -> Any:
    """Run an ES module beside the built package against ``address``; its last line, as JSON
    (it must exit by itself within the timeout: nothing may keep Node.js running)."""
    script = NODE_DIR / name
    script.write_text(source)
    try:
        completed = subprocess.run([node, script.name, address, *more], cwd=NODE_DIR,
                                   capture_output=True, text=True, timeout=60, check=False)
    finally:
        script.unlink()
    assert completed.returncode == 0, completed.stderr
    return json.loads(completed.stdout.strip().splitlines()[-1])
