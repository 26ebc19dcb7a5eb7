"""The vendors' official SDKs (``anthropic``, ``openai``), imported on first use.

Some tests check our wire formats against the vendors' own SDKs, and importing those is slow:
``anthropic`` takes about 2 s of CPU and ``openai`` about 1 s. Each pytest-xdist worker
imports every test module to collect it, so a module-level ``import anthropic`` cost every
worker those seconds before any test ran. Test modules take the SDKs from here instead:
``anthropic`` and ``openai`` below stand in for the modules and import them on the first
attribute read (``openai.OpenAI``, ``openai.types.responses.Response``), so collecting costs
nothing, and conftest's scheduler sends every file in ``USERS`` to one worker, the only one
that then imports them. ``tests/test_vendor_sdks.py`` checks that ``USERS`` is exactly the
set of test files that use an SDK and that no test module imports one at its top.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# The test files that use a vendor SDK (directly or through a helper module), as in pytest's
# node ids: conftest's scheduler runs them all on one worker.
USERS = frozenset(
    {
        "tests/gateway/test_anthropic_cache.py",
        "tests/gateway/test_anthropic_front.py",
        "tests/gateway/test_anthropic_media_front.py",
        "tests/gateway/test_cache_usage.py",
        "tests/gateway/test_chat_logprobs.py",
        "tests/gateway/test_cross_wire.py",
        "tests/gateway/test_media_across_wires.py",
        "tests/gateway/test_nested_fields.py",
        "tests/gateway/test_openai_front.py",
        "tests/gateway/test_openai_media.py",
        "tests/gateway/test_option_keys.py",
        "tests/gateway/test_responses_cross_wire.py",
        "tests/gateway/test_responses_front.py",
        "tests/gateway/test_responses_logprobs.py",
        "tests/gateway/test_responses_media.py",
        "tests/providers/test_anthropic_media.py",
        "tests/providers/test_anthropic_vertex.py",
        "tests/providers/test_bedrock.py",
        "tests/providers/test_openai_cache.py",
        "tests/providers/test_openai_logprobs.py",
        "tests/providers/test_openai_media.py",
        "tests/providers/test_openai_responses_encode.py",
        "tests/providers/test_openai_responses_loop.py",
        "tests/providers/test_openai_responses_media.py",
        "tests/providers/test_responses_logprobs.py",
    }
)


class _OnFirstUse:
    """Stands in for module ``name``, which is imported when an attribute is first read."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attribute: str) -> Any:
        if attribute.startswith("_"):  # pytest and copy probe objects for such names: no import
            raise AttributeError(attribute)
        module = importlib.import_module(self._name)
        try:
            return getattr(module, attribute)
        except AttributeError:  # a submodule the package itself does not import
            return importlib.import_module(f"{self._name}.{attribute}")

    def __repr__(self) -> str:
        return f"<{self._name}, imported on first use>"


if TYPE_CHECKING:  # type checkers and editors see the real modules
    import anthropic as anthropic
    import openai as openai
else:
    anthropic = _OnFirstUse("anthropic")
    openai = _OnFirstUse("openai")

__all__ = ["USERS", "anthropic", "openai"]
