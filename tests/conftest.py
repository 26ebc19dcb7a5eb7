"""Shared test configuration: every async test runs on asyncio and on trio.

Under pytest-xdist, the test files that use a vendor SDK all run on one worker (the SDKs are
slow to import).
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Iterator

import pytest
from xdist.remote import Producer
from xdist.scheduler import LoadFileScheduling

from aiwrapper._knowledge import _catalogue as catalogue
from aiwrapper._knowledge import _models as models
from aiwrapper._run import _capabilities as capabilities

from .vendor_sdks import USERS as VENDOR_SDK_USERS

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
    workers run the README's command in about 45 s against 50 s for 2.
    """
    return (os.cpu_count() or 1) + 1


class VendorSdkScheduling(LoadFileScheduling):
    """``--dist loadfile``, but the test files in ``tests/vendor_sdks.py``'s ``USERS`` share
    one scope (so they run on one worker); every other file is its own scope, as before."""

    def _split_scope(self, nodeid: str) -> str:
        path = super()._split_scope(nodeid)
        return "vendor SDK tests" if path in VENDOR_SDK_USERS else path


def pytest_xdist_make_scheduler(config: pytest.Config, log: Producer) -> LoadFileScheduling | None:
    """Under ``--dist loadfile`` (pyproject's default), the vendor SDKs' users go to one worker.

    Importing ``anthropic`` costs about 2 s of CPU and ``openai`` about 1 s. The tests import
    them on first use only (``tests/vendor_sdks.py``), so collecting costs nothing; but with
    their users spread over the workers file by file, every worker would still import both
    (3 s of CPU each on a 2-core machine). As one scope, one worker imports them, once. Any
    other ``--dist`` is left to xdist.
    """
    if config.getvalue("dist") != "loadfile":
        return None
    return VendorSdkScheduling(config, log)


def pytest_unconfigure(config: pytest.Config) -> None:
    """The run is over and the process exits: nothing it holds needs collecting any more.

    Python's exit collects every object the run left, which on an xdist worker (a few hundred
    thousand objects) takes seconds that the controller waits for at the end of every run.
    Frozen objects are left to the exit's plain reference counting instead.
    """
    gc.freeze()
