"""A private, throw-away PostgreSQL cluster for tests and the soak run.

Uses the server binaries of Debian's ``postgresql`` package (``.ci/run`` installs it). As root,
the cluster runs as the ``postgres`` user, since PostgreSQL refuses to run as root. It listens on
127.0.0.1 only, on a free port, with its socket in the data folder.

    python tools/pgcluster.py start DIR   # prints the URL
    python tools/pgcluster.py stop DIR    # keeps the data; rm -rf DIR removes it

The ``formation`` mode starts, with pg_auto_failover (``pg_autoctl``, Debian's
``postgresql-15-auto-failover`` and ``pg-auto-failover-cli``), a monitor, a primary and a
synchronous standby, each a ``pg_autoctl ... --run`` process of its own, and prints the
multi-host URL that always reaches the primary (docs/operations.md, "Surviving the loss of the
primary"):

    python tools/pgcluster.py formation start DIR   # prints postgresql://h1:p1,h2:p2/...
    python tools/pgcluster.py formation stop DIR    # stops all three, keeps their data
    python tools/pgcluster.py formation remove DIR  # stops them and deletes DIR
"""

from __future__ import annotations

import contextlib
import glob
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

AUTOCTL = "pg_autoctl"
PORT_ATTEMPTS = 3
"""How many ports a first start tries: another free one each time the last was taken."""


def binaries() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if not found:
        raise RuntimeError("PostgreSQL server binaries not found: apt-get install postgresql "
                           "(.ci/run does this)")
    return Path(found[-1]).parent


def autofailover_binaries() -> Path:
    """The server binaries of the PostgreSQL version pg_auto_failover's extension is built for
    (the monitor loads it; the nodes must be the same version)."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/lib/pgautofailover.so"))
    if not found or shutil.which(AUTOCTL) is None:
        raise RuntimeError("pg_auto_failover not found: apt-get install pg-auto-failover-cli "
                           "postgresql-15-auto-failover (.ci/run does this)")
    return Path(found[-1]).parent.parent / "bin"


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
        self._may_move = port is None
        """The port is ours to choose until the cluster first listens: a free port found
        here can be taken by another process before PostgreSQL binds it (tests run on two
        workers), and then the start tries another. Once it listens, its URL is fixed."""
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
        for attempt in range(1, PORT_ATTEMPTS + 1):
            try:
                self._start_server()
                break
            except RuntimeError:
                if not self._may_move or attempt == PORT_ATTEMPTS or not self._port_was_taken():
                    raise
                self.port = _free_port()
        self._may_move = False
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", self.port)) == 0:
                    return self.url
            time.sleep(0.1)
        raise RuntimeError(f"PostgreSQL did not listen on {self.port}")

    def _start_server(self) -> None:
        options = (f"-p {self.port} -k {self.data} -c listen_addresses=127.0.0.1 "
                   "-c fsync=on -c max_connections=200 -c shared_buffers=64MB")
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.data / "server.log"),
                  "-o", options, "-w", "-t", "60", "start")

    def _port_was_taken(self) -> bool:
        """Whether the last start failed because its port was in use (the server's log)."""
        with contextlib.suppress(OSError):
            log = (self.data / "server.log").read_text(errors="replace")
            return "Address already in use" in log[-2000:]
        return False

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


FAST_FAILOVER = {
    "health_check_period": 1000, "health_check_timeout": 1000, "health_check_max_retries": 1,
    "health_check_retry_delay": 500, "node_considered_unhealthy_timeout": 3000,
    "primary_demote_timeout": 5000}
"""The monitor's timings (milliseconds) for a failover in about ten seconds rather than the
defaults' forty (5 s health checks, 20 s before a node is unhealthy, 30 s to demote)."""


class Formation:
    """A pg_auto_failover formation in ``root``: a monitor and two nodes (the first becomes the
    primary, the second its synchronous standby). Every process is a ``pg_autoctl ... --run``
    in a session of its own, so ``kill_node`` can take one node down whole (its keeper, its
    postmaster and every backend) the way a lost machine would."""

    NODES = ("node1", "node2")

    def __init__(self, root: Path, fast: bool = True) -> None:
        self.root = root
        self.bin = autofailover_binaries()
        self.fast = fast
        state = root / "formation.json"
        ports = (json.loads(state.read_text()) if state.exists() else
                 {name: _free_port() for name in ("monitor", *self.NODES)})
        self.ports: dict[str, int] = ports
        self.processes: dict[str, subprocess.Popen[bytes]] = {}

    @property
    def url(self) -> str:
        """The multi-host URL: a client tries each node and keeps the one that takes writes."""
        hosts = ",".join(f"127.0.0.1:{self.ports[name]}" for name in self.NODES)
        return f"postgresql://postgres@{hosts}/postgres?target_session_attrs=read-write"

    @property
    def monitor_url(self) -> str:
        return (f"postgresql://autoctl_node@127.0.0.1:{self.ports['monitor']}/pg_auto_failover"
                "?sslmode=disable")

    def _environment(self) -> dict[str, str]:
        """pg_autoctl keeps its configuration, state and pid files under the XDG folders:
        these point into ``root`` so that nothing is left in the postgres user's home."""
        return {**os.environ, "PG_CONFIG": str(self.bin / "pg_config"),
                **{f"XDG_{kind}": str(self.root / "xdg" / kind.lower())
                   for kind in ("CONFIG_HOME", "DATA_HOME", "RUNTIME_DIR")}}

    def _autoctl(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(_as_owner([AUTOCTL, *args]), capture_output=True, text=True,
                              env=self._environment(), cwd=self.root)
        if check and done.returncode:
            raise RuntimeError(f"pg_autoctl {args[0]} failed: {done.stderr.strip()[-2000:]}")
        return done

    def _spawn(self, name: str, *create: str) -> None:
        log = (self.root / f"{name}.log").open("ab")
        command = [AUTOCTL, "create", *create, "--pgdata", str(self.root / name),
                   "--pgport", str(self.ports[name]), "--hostname", "127.0.0.1",
                   "--listen", "127.0.0.1", "--auth", "trust", "--no-ssl",
                   "--pgctl", str(self.bin / "pg_ctl"), "--run"]
        self.processes[name] = subprocess.Popen(
            _as_owner(command), stdout=log, stderr=subprocess.STDOUT, env=self._environment(),
            cwd=self.root, start_new_session=True)
        log.close()

    def _sql(self, url: str, query: str) -> str:
        done = subprocess.run([str(self.bin / "psql"), url, "-XAtqc", query],
                              capture_output=True, text=True)
        if done.returncode:
            raise RuntimeError(f"psql failed: {done.stderr.strip()}")
        return done.stdout.strip()

    def states(self) -> dict[str, tuple[str, str]]:
        """Each node's (reported, assigned) state, as the monitor has them."""
        try:
            rows = self._sql(self.monitor_url, "SELECT nodename, reportedstate, goalstate "
                                               "FROM pgautofailover.node")
        except RuntimeError:
            return {}
        return {name: (reported, goal) for name, reported, goal
                in (line.split("|") for line in rows.splitlines())}

    def primary(self) -> str | None:
        """The node that is primary now (reported and assigned), if any."""
        for name, (reported, goal) in self.states().items():
            if reported == goal and reported in ("primary", "wait_primary"):
                return name
        return None

    def wait_for(self, ready: dict[str, str], seconds: float = 120) -> None:
        """Wait until each named node reports, and is assigned, the state given."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            states = self.states()
            if all(states.get(name) == (state, state) for name, state in ready.items()):
                return
            for name, process in self.processes.items():
                if process.poll() is not None and name in ready:
                    raise RuntimeError(f"pg_autoctl {name} exited: see {self.root / name}.log")
            time.sleep(0.3)
        raise RuntimeError(f"formation not ready in {seconds} s: {self.states()}")

    def start(self) -> str:
        """Start the monitor, then the primary, then the standby; return the URL once the
        standby replicates synchronously (the formation is ready)."""
        self.root.mkdir(parents=True, exist_ok=True)
        (self.root / "formation.json").write_text(json.dumps(self.ports))
        if os.geteuid() == 0:
            shutil.chown(self.root, "postgres", "postgres")
            shutil.chown(self.root / "formation.json", "postgres", "postgres")
            self.root.chmod(0o700)
        for folder in self._environment().values():
            if folder.startswith(str(self.root / "xdg")):
                Path(folder).mkdir(parents=True, exist_ok=True, mode=0o700)
                if os.geteuid() == 0:
                    shutil.chown(folder, "postgres", "postgres")
                    shutil.chown(Path(folder).parent, "postgres", "postgres")
        self._spawn("monitor", "monitor")
        deadline = time.monotonic() + 60
        while not self._monitor_ready():
            if time.monotonic() > deadline or self.processes["monitor"].poll() is not None:
                raise RuntimeError(f"the monitor did not start: see {self.root}/monitor.log")
            time.sleep(0.3)
        if self.fast:
            for name, value in FAST_FAILOVER.items():
                self._sql(self._superuser("monitor", "pg_auto_failover"),
                          f"ALTER SYSTEM SET pgautofailover.{name} = {value}")
            self._sql(self._superuser("monitor", "pg_auto_failover"), "SELECT pg_reload_conf()")
        for name in self.NODES:
            self._spawn(name, "postgres", "--name", name, "--monitor", self.monitor_url)
            self.wait_for({name: "single" if name == self.NODES[0] else "secondary"})
        self.wait_for({self.NODES[0]: "primary", self.NODES[1]: "secondary"})
        return self.url

    def _superuser(self, name: str, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.ports[name]}/{database}"

    def _monitor_ready(self) -> bool:
        try:
            return self._sql(self.monitor_url, "SELECT 1 FROM pg_extension "
                                               "WHERE extname = 'pgautofailover'") == "1"
        except RuntimeError:
            return False

    def setting(self, node: str, name: str) -> str:
        """A server setting as ``node`` has it (``SHOW name``)."""
        return self._sql(self._superuser(node), f"SHOW {name}")

    def kill_node(self, name: str) -> None:
        """SIGKILL a node whole, its keeper too: the machine is gone, nothing restarts it."""
        process = self.processes[name]
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)
        # the postmaster's backends are in the same session; any straggler dies with it
        pid_file = self.root / name / "postmaster.pid"
        if pid_file.exists():
            with contextlib.suppress(ValueError, ProcessLookupError, PermissionError):
                os.kill(int(pid_file.read_text().split()[0]), signal.SIGKILL)

    def stop(self) -> None:
        """Stop the nodes, then the monitor (``pg_autoctl stop``: works from another process
        too, through the pid files under ``root``)."""
        for name in (*self.NODES, "monitor"):
            if (self.root / name).exists():
                self._autoctl("stop", "--pgdata", str(self.root / name), check=False)
                deadline = time.monotonic() + 30  # a clean shutdown removes the pid file
                while ((self.root / name / "postmaster.pid").exists()
                       and time.monotonic() < deadline):
                    time.sleep(0.2)
        for process in self.processes.values():
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=30)

    def remove(self) -> None:
        """Kill every process of the formation and delete its files (and the scratch folder
        around them, when it came from ``scratch_folder``). From another process (the CLI),
        which has no handles on them, the formation is stopped first."""
        if not self.processes:
            self.stop()
        for process in self.processes.values():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=10)
        for name in (*self.NODES, "monitor"):
            pid_file = self.root / name / "postmaster.pid"
            if pid_file.exists():
                with contextlib.suppress(ValueError, ProcessLookupError, PermissionError):
                    os.kill(int(pid_file.read_text().split()[0]), signal.SIGKILL)
        parent = self.root.parent
        shutil.rmtree(parent if parent.name.startswith("bezique-pg-") else self.root,
                      ignore_errors=True)


USAGE = ("usage: python tools/pgcluster.py start|stop DIR\n"
         "       python tools/pgcluster.py formation start|stop|remove DIR\n"
         "start prints the URL; stop keeps the data (rm -rf DIR removes it); formation starts a "
         "pg_auto_failover monitor, primary and synchronous standby and prints the multi-host "
         "URL")


def main(argv: list[str]) -> int:
    if argv[:1] == ["formation"] and len(argv) == 3 and argv[1] in ("start", "stop", "remove"):
        formation = Formation(Path(argv[2]))
        if argv[1] == "start":
            print(formation.start())
        elif argv[1] == "stop":
            formation.stop()
        else:
            formation.remove()
        return 0
    if len(argv) != 2 or argv[0] not in ("start", "stop"):
        print(USAGE, file=sys.stderr)
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
