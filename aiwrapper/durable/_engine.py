"""DBOS, the engine under durable runs: importing it, choosing its database, launching it.

DBOS is one instance per process. Unless the application configured it itself (``DBOS(config=
...)`` before the first durable run), the first ``DurableLang`` to need it configures it with
its ``database_url`` (a SQLite file in the working directory by default) and launches it;
launching recovers the runs this process's executor left unfinished. Nothing is kept here:
what is configured and launched is DBOS's own state, read back each time.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Callable
from contextlib import closing
from typing import TYPE_CHECKING, Any, TypeVar

from .._errors import ConfigError

if TYPE_CHECKING:
    from types import ModuleType

__all__ = [
    "DEFAULT_FILE",
    "checked_url",
    "ensure_launched",
    "in_thread",
    "require_dbos",
    "system_url",
]

DEFAULT_FILE = "aiwrapper_durable.sqlite"
_APP_NAME = "aiwrapper"  # DBOS's application name when aiwrapper configures it
_SCHEMES = ("sqlite://", "postgresql://", "postgres://", "postgresql+psycopg://")

T = TypeVar("T")


def require_dbos() -> ModuleType:
    """The ``dbos`` package.

    Raises:
        ConfigError: It is not installed; the message names the extra to install.
    """
    try:
        import dbos
    except ImportError as exc:
        raise ConfigError(
            "durable runs need DBOS, the optional extra: pip install 'aiwrapper[dbos]'"
        ) from exc
    return dbos


def checked_url(given: object) -> str | None:
    """``database_url`` checked: a SQLite or Postgres URL, or None (the default).

    Raises:
        ConfigError: Not a string, or of another kind of database.
    """
    if given is None:
        return None
    if not isinstance(given, str) or not given.startswith(_SCHEMES) or len(given) > 4096:
        shown = given if isinstance(given, str) and len(given) < 200 else type(given).__name__
        raise ConfigError(f"database_url must be a sqlite:/// or postgresql:// URL, not {shown!r}")
    return given


def system_url(given: str | None) -> str:
    """The system database a process without a launched DBOS should use: ``given``, else
    the one the application configured DBOS with, else the default file."""
    if given is not None:
        return given
    instance = _instance()
    configured = None if instance is None else _configured_url(instance)
    return configured or default_url()


def default_url() -> str:
    """The SQLite file in the working directory: embedded, nothing to start."""
    return "sqlite:///" + os.path.abspath(DEFAULT_FILE)


def ensure_launched(url: str | None) -> None:
    """Configure DBOS unless the application did, and launch it unless launched.

    Call it in a thread without a running event loop (``in_thread``): DBOS adopts a loop it
    finds running at launch, and a blocking wait on that loop would then never end.

    Raises:
        ConfigError: DBOS is configured with another system database than ``url``.
    """
    from dbos import DBOS

    instance, created = _instance(), False
    if instance is None:
        url = url or default_url()
        if url.startswith("sqlite:"):
            _write_ahead(url)
        # DBOS's own lines only from warnings up: an application wanting more configures it.
        config: Any = {"name": _APP_NAME, "system_database_url": url, "log_level": "WARNING"}
        instance, created = DBOS(config=config), True
    elif url is not None and _configured_url(instance) != url:
        raise ConfigError(
            f"DBOS is configured with the system database {_configured_url(instance)!r}; a "
            f"durable run cannot use {url!r} beside it (one database per process)"
        )
    if getattr(instance, "_launched", False):
        return
    try:
        DBOS.launch()
    except BaseException:
        if created:  # ours: gone, so that a later run may try again
            DBOS.destroy()
        raise


def _write_ahead(url: str) -> None:
    """Put a SQLite file in write-ahead-log mode (it stays so), before DBOS opens it.

    Each checkpoint is a commit. In SQLite's default mode a commit syncs the journal and the
    database file; in WAL mode it syncs the log alone, once: several times faster, as safe
    (a commit is on disk when it returns), and readers never wait for the writer.
    """
    from sqlalchemy import make_url

    path = make_url(url).database
    if not path or path == ":memory:":
        return
    with closing(sqlite3.connect(path)) as connection:
        connection.execute("PRAGMA journal_mode=WAL")


def in_thread(function: Callable[[], T]) -> T:
    """Call ``function`` in a thread of its own, and return what it returned or raise."""
    outcome: list[Any] = []

    def call() -> None:
        try:
            outcome.append((True, function()))
        except BaseException as exc:  # handed to the caller's thread as is
            outcome.append((False, exc))

    thread = threading.Thread(target=call, name="aiwrapper-durable-launch")
    thread.start()
    thread.join()
    succeeded, value = outcome[0]
    if not succeeded:
        raise value
    return value  # type: ignore[no-any-return]


def _instance() -> Any:
    """The process's DBOS instance, or None (DBOS keeps it private; read, never changed)."""
    from dbos import _dbos

    return _dbos._dbos_global_instance


def _configured_url(instance: Any) -> str | None:
    config: dict[str, Any] = getattr(instance, "_config", None) or {}
    url = config.get("system_database_url")
    return url if isinstance(url, str) else None
