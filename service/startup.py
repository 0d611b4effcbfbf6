"""What can stop a valid configuration from starting, each as one readable line.

``bezique-server`` prints a :class:`StartupError` as one line and exits with
``config.STARTUP_ERROR``; anything that is the operator's to fix (port in use, store
unreachable, path not writable, sqlite file held by another server) becomes one.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import socket
from pathlib import Path


class StartupError(Exception):
    """The server cannot start; the message says why, in one line, with no secret in it."""


def check_port_free(address: str) -> None:
    """Bind ``HOST:PORT`` for a moment to learn whether it is taken.

    gRPC would find out too, but it writes its own multi-line log to stderr first; this way
    the operator reads one line. (A port taken between this check and gRPC's bind still fails
    cleanly, only less quietly.)
    """
    host, _, port_text = address.rpartition(":")
    port = int(port_text)
    if port == 0:
        return
    try:
        infos = socket.getaddrinfo(host.strip("[]"), port, type=socket.SOCK_STREAM,
                                   flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise StartupError(f"cannot listen on {address}: unknown host ({exc.strerror})") from None
    for family, kind, proto, _, where in infos:
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(where)
            except OSError as exc:
                reason = ("the port is in use (another server?)" if exc.errno == errno.EADDRINUSE
                          else exc.strerror or str(exc))
                raise StartupError(f"cannot listen on {address}: {reason}") from None


class StoreLock:
    """An exclusive OS lock (``flock``) on ``<database>.lock``, held while the server runs.

    SQLite here is one process only: the server keeps its own summary of every table it wrote.
    The kernel drops the lock when the process ends, however it ends (SIGKILL included), so a
    crashed server never leaves a stale lock behind.
    """

    def __init__(self, database: str) -> None:
        self.database = database
        self.path = Path(database + ".lock")
        self._fd: int | None = None

    def acquire(self) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise StartupError(f"cannot open the sqlite store {self.database}: cannot create "
                               f"{self.path}: {exc.strerror or exc}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.read(fd, 32).decode(errors="replace").strip() or "?"
            os.close(fd)
            raise StartupError(f"the sqlite store {self.database} is in use by "
                               f"another server (pid {holder}); sqlite serves one process "
                               "only (use postgresql:// for replicas)") from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.ftruncate(self._fd, 0)
            os.close(self._fd)  # closing the descriptor releases the flock
            self._fd = None
