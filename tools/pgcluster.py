"""A private, throw-away PostgreSQL cluster for tests and the soak run.

Uses the server binaries of Debian's ``postgresql`` package (``.ci/run`` installs it). As root,
the cluster runs as the ``postgres`` user, since PostgreSQL refuses to run as root. It listens on
127.0.0.1 only, on a free port, with its socket in the data folder.

    python tools/pgcluster.py start DIR   # prints the URL
    python tools/pgcluster.py stop DIR    # keeps the data; rm -rf DIR removes it
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def binaries() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if not found:
        raise RuntimeError("PostgreSQL server binaries not found: apt-get install postgresql "
                           "(.ci/run does this)")
    return Path(found[-1]).parent


def _as_owner(command: list[str]) -> list[str]:
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--", *command]
    return command


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def scratch_folder() -> Path:
    """A fresh folder the ``postgres`` user can reach (pytest's tmp_path is root-only)."""
    folder = Path(tempfile.mkdtemp(prefix="bezique-pg-"))
    folder.chmod(0o755)
    return folder / "cluster"


class Cluster:
    """One cluster in ``root``: ``start()`` returns its URL, ``stop()``/``restart()``."""

    def __init__(self, root: Path, port: int | None = None) -> None:
        self.root = root
        self.data = root / "data"
        self.port = port or _free_port()
        self.bin = binaries()

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, *command: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(_as_owner([str(self.bin / command[0]), *command[1:]]),
                              capture_output=True, text=True)
        if check and done.returncode:
            raise RuntimeError(f"{command[0]} failed: {done.stderr.strip() or done.stdout}")
        return done

    def init(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:
            shutil.chown(self.root, "postgres", "postgres")
            self.root.chmod(0o700)
        if not (self.data / "PG_VERSION").exists():
            self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust",
                      "--no-sync", "-E", "UTF8")

    def start(self) -> str:
        self.init()
        options = (f"-p {self.port} -k {self.data} -c listen_addresses=127.0.0.1 "
                   "-c fsync=on -c max_connections=200 -c shared_buffers=64MB")
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.data / "server.log"),
                  "-o", options, "-w", "-t", "60", "start")
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", self.port)) == 0:
                    return self.url
            time.sleep(0.1)
        raise RuntimeError(f"PostgreSQL did not listen on {self.port}")

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop", check=False)

    def restart(self) -> None:
        self.stop("immediate")
        self.start()

    def remove(self) -> None:
        """Stop the cluster for good and delete its files (and the scratch folder around
        them, when it came from ``scratch_folder``): a test run leaves nothing in /tmp."""
        self.stop("immediate")
        parent = self.root.parent
        shutil.rmtree(parent if parent.name.startswith("bezique-pg-") else self.root,
                      ignore_errors=True)


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] not in ("start", "stop"):
        print("usage: python tools/pgcluster.py start|stop DIR\n"
              "start prints the cluster's URL; stop keeps the data (rm -rf DIR removes it)",
              file=sys.stderr)
        return 2
    action, folder = argv[0], Path(argv[1])
    port_file = folder / "port"
    if action == "start":
        cluster = Cluster(folder)
        print(cluster.start())
        port_file.write_text(str(cluster.port))
    elif action == "stop":
        Cluster(folder, int(port_file.read_text())).stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
