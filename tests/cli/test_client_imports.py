"""The clients import without the server: the protocol's terms live in ``bezique/terms.py``, not
in ``bezique.service``, so a platform that installs the SDK to talk to a table service does not
load (or need the dependencies of) the server itself."""

from __future__ import annotations

import subprocess
import sys

CLIENT_MODULES = ("sdk", "cli", "render", "verify", "replay", "contributions", "play", "safe",
                  "i18n")


def test_client_modules_do_not_import_the_server() -> None:
    imports = "; ".join(f"import bezique.clients.{name}" for name in CLIENT_MODULES)
    check = ("import sys; server = sorted(m for m in sys.modules if m == 'bezique.service' "
             "or m.startswith('bezique.service.')); print(' '.join(server))")
    ran = subprocess.run([sys.executable, "-c", f"{imports}; {check}"], capture_output=True,
                         text=True, timeout=60, check=True)
    assert ran.stdout.strip() == "", f"the clients import the server: {ran.stdout.strip()}"
