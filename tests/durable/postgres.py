"""A throwaway PostgreSQL cluster on 127.0.0.1, started by the tests themselves and removed.

The server's binaries come from the machine: ``initdb`` and ``pg_ctl`` on PATH, or Debian's
``/usr/lib/postgresql/<version>/bin`` (``.ci/run`` installs Debian's ``postgresql`` package on a
machine without them). The cluster lives in a temporary directory, listens on a free port of
127.0.0.1 only, trusts local connections, and is stopped and deleted at the end. PostgreSQL
refuses to run as root, so under root it runs as the ``postgres`` user (which the package
creates), or as a system user made for it.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Cluster", "binaries"]

_SERVICE_USER = "aiwrapper-pg"  # made only when running as root on a machine without postgres


def binaries() -> tuple[str, str] | None:
    """``initdb`` and ``pg_ctl``, or None when the machine has no PostgreSQL server."""
    initdb, pg_ctl = shutil.which("initdb"), shutil.which("pg_ctl")
    if initdb and pg_ctl:
        return initdb, pg_ctl
    found = glob.glob("/usr/lib/postgresql/*/bin/initdb")
    for path in sorted(found, key=lambda p: int(Path(p).parts[-3]), reverse=True):
        bin_dir = Path(path).parent
        if (bin_dir / "pg_ctl").exists():
            return str(bin_dir / "initdb"), str(bin_dir / "pg_ctl")
    return None


@dataclass
class Cluster:
    """A running cluster; ``url(database)`` is a connection URL for one database of it."""

    root: Path
    port: int
    pg_ctl: str
    user: dict[str, Any]

    @classmethod
    def start(cls, initdb: str, pg_ctl: str) -> Cluster:
        user = _server_user()
        # The server's user must reach the cluster: under root, a directory of /tmp's (a
        # TMPDIR of root's own would be closed to it).
        base = "/tmp" if user and os.path.isdir("/tmp") else None
        root = Path(tempfile.mkdtemp(prefix="aiwrapper-pg-", dir=base))
        if user:
            os.chown(root, user["user"], user["group"])
        cluster = cls(root, _free_port(), pg_ctl, user)
        try:
            cluster._run(
                initdb,
                "-D",
                str(root / "data"),
                "-U",
                "postgres",
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--no-sync",
            )
            options = (
                f"-c listen_addresses=127.0.0.1 -p {cluster.port} -k {root} "
                "-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
            )
            cluster._run(
                pg_ctl,
                "-D",
                str(root / "data"),
                "-l",
                str(root / "log"),
                "-w",
                "-t",
                "30",
                "-o",
                options,
                "start",
            )
        except BaseException:
            shutil.rmtree(root, ignore_errors=True)
            raise
        return cluster

    def url(self, database: str) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def stop(self) -> None:
        """Stop the server at once and delete the cluster."""
        try:
            self._run(self.pg_ctl, "-D", str(self.root / "data"), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)

    def _run(self, *command: str) -> None:
        done = subprocess.run(command, capture_output=True, text=True, timeout=60, **self.user)
        if done.returncode != 0:
            log = self.root / "log"
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise RuntimeError(f"{command[0]} failed: {done.stderr[-2000:]}{tail}")


def _server_user() -> dict[str, Any]:
    """``subprocess`` arguments to run the server as a user who is not root (none if not root)."""
    if os.geteuid() != 0:
        return {}
    try:
        entry = pwd.getpwnam("postgres")
    except KeyError:
        entry = _service_user()
    return {
        "user": entry.pw_uid,
        "group": entry.pw_gid,
        "extra_groups": [],
        "env": {"PATH": os.environ.get("PATH", ""), "HOME": "/"},
    }


def _service_user() -> pwd.struct_passwd:
    try:
        return pwd.getpwnam(_SERVICE_USER)
    except KeyError:
        subprocess.run(
            [
                "useradd",
                "--system",
                "--no-create-home",
                "--shell",
                "/usr/sbin/nologin",
                _SERVICE_USER,
            ],
            check=True,
            capture_output=True,
            timeout=30,
        )
        return pwd.getpwnam(_SERVICE_USER)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
