"""Shared test configuration: every async test runs on asyncio and on trio."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator

import pytest

from aiwrapper._knowledge import _catalogue as catalogue
from aiwrapper._knowledge import _models as models
from aiwrapper._run import _capabilities as capabilities

# The suite compiles and caches bytecode even where the environment asks Python not to (as
# container images often do with PYTHONDONTWRITEBYTECODE): it starts about 70 interpreters
# (the command line, the examples, import checks) and a worker per CPU and one, each of which
# would otherwise compile the package again, and each worker would rewrite every test module's
# assertions again. Workers and subprocesses inherit the environment without the variable.
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def fresh_model_facts() -> Iterator[None]:
    """No registered models and no warnings given yet; the catalogue is loaded anew."""
    models._REGISTRY.entries.clear()
    capabilities._WARNED.seen.clear()
    catalogue.get.cache_clear()
    yield
    models._REGISTRY.entries.clear()
    capabilities._WARNED.seen.clear()
    catalogue.get.cache_clear()


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """Workers for ``-n logical`` (and ``auto``): one more than the CPUs.

    A good share of the suite waits rather than computes (local servers, subprocesses,
    timeouts that must pass), so a worker more than the CPUs keeps them busy: on 2 cores, 3
    workers run the README's command in about 55 s against 62 s for 2.
    """
    return (os.cpu_count() or 1) + 1
