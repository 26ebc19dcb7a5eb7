"""Shared test configuration: every async test runs on asyncio and on trio."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from aiwrapper._knowledge import _catalogue as catalogue
from aiwrapper._knowledge import _models as models
from aiwrapper._run import _capabilities as capabilities


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
