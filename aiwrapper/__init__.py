"""aiwrapper: function calling with language models.

Decorate functions with ``@tool``, hand them to a ``Lang`` and ``ask``: the SDK derives each
JSON Schema, sends it in the provider's dialect, validates and runs the calls the model makes,
feeds the results back and continues until the model answers, streaming to ``on_result``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from ._conversation._logprobs import TokenLogprob
from ._conversation._media import Document, Image
from ._conversation._messages import LangMessage, LangMessages
from ._conversation._result import FunctionCall, LangResult, RequestUsage, Usage
from ._conversation._runevents import (
    CallArgumentsDelta,
    CallFinished,
    CallReady,
    CallStarted,
    LogprobsDelta,
    RunEvent,
    RunFinished,
    TextDelta,
    ThinkingDelta,
    TurnFinished,
    TurnStarted,
)
from ._errors import (
    AIWrapperError,
    AuthenticationError,
    BadRequestError,
    ConfigError,
    ConnectionError,
    MaxIterationsError,
    NotFoundError,
    OutputValidationError,
    OverloadedError,
    PermissionDeniedError,
    ProviderError,
    RateLimitError,
    RequestTimeoutError,
    RunTimeoutError,
    ServerError,
    StreamError,
    ToolArgumentsError,
    ToolDefinitionError,
)
from ._lang import Lang
from ._run._decisions import DEFER
from ._run._options import LangOptions
from ._run._overrides import LangOptionsDict
from ._run._stream import RunStream
from ._tools import Context, Param, Tool, tool
from ._wire._sizelimits import SizeLimits
from .models import CapabilityWarning

if TYPE_CHECKING:  # so type checkers see the lazily imported submodule
    from . import notebook as notebook

__version__ = "0.1.0"

# Sorted as sorted() sorts (tests/test_public_api.py), which puts the one constant, DEFER,
# among the names rather than first as ruff's isort-style order would.
__all__ = [  # noqa: RUF022
    "AIWrapperError",
    "AuthenticationError",
    "BadRequestError",
    "CallArgumentsDelta",
    "CallFinished",
    "CallReady",
    "CallStarted",
    "CapabilityWarning",
    "ConfigError",
    "ConnectionError",
    "Context",
    "DEFER",
    "Document",
    "FunctionCall",
    "Image",
    "Lang",
    "LangMessage",
    "LangMessages",
    "LangOptions",
    "LangOptionsDict",
    "LangResult",
    "LogprobsDelta",
    "MaxIterationsError",
    "NotFoundError",
    "OutputValidationError",
    "OverloadedError",
    "Param",
    "PermissionDeniedError",
    "ProviderError",
    "RateLimitError",
    "RequestTimeoutError",
    "RequestUsage",
    "RunEvent",
    "RunFinished",
    "RunStream",
    "RunTimeoutError",
    "ServerError",
    "SizeLimits",
    "StreamError",
    "TextDelta",
    "ThinkingDelta",
    "TokenLogprob",
    "Tool",
    "ToolArgumentsError",
    "ToolDefinitionError",
    "TurnFinished",
    "TurnStarted",
    "Usage",
    "VertexConfig",
    "tool",
]


def __getattr__(name: str) -> object:
    # Provider modules load lazily, so ``import aiwrapper`` stays fast; their public
    # configuration types are still reachable from the top, and so is ``aiwrapper.notebook``
    # (``on_result=aiwrapper.notebook.live()`` after a bare ``import aiwrapper``).
    if name == "notebook":
        return importlib.import_module(".notebook", __name__)
    if name == "VertexConfig":
        from .providers._vertex import VertexConfig

        return VertexConfig
    raise AttributeError(f"module 'aiwrapper' has no attribute {name!r}")
