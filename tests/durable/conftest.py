"""The durable runs' fixtures: the fake model server, and the throwaway PostgreSQL cluster."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from .fakeopenai import FakeOpenAI
from .postgres import Cluster, binaries


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    """The fake OpenAI server the workers' model talks to, counting requests by stage."""
    fake = FakeOpenAI().start()
    yield fake
    fake.stop()


@pytest.fixture(scope="module")
def dbos_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """DBOS in this process, configured by the application (as an application may) on a
    SQLite file of the module's, and not launched: the first durable run launches it."""
    from dbos import DBOS

    url = f"sqlite:///{tmp_path_factory.mktemp('durable') / 'runs.sqlite'}"
    DBOS(config={"name": "durable-tests", "system_database_url": url, "log_level": "WARNING"})
    yield url
    DBOS.destroy(destroy_registry=True)


@pytest.fixture(scope="session")
def postgres() -> Iterator[Cluster]:
    """A PostgreSQL cluster on 127.0.0.1, stopped and deleted at the end of the session.

    Without the server's binaries the test is skipped, except in CI (``CI`` set), where
    ``.ci/run`` installs them, so their absence is a failure.
    """
    found = binaries()
    if found is None:
        reason = (
            "no PostgreSQL server binaries (initdb, pg_ctl) on PATH or under "
            "/usr/lib/postgresql/*/bin; .ci/run installs Debian's postgresql package"
        )
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    cluster = Cluster.start(*found)
    yield cluster
    cluster.stop()
