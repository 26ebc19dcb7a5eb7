"""Which OpenAI wire a model goes to: the choice ``api=`` makes, kept light.

``Lang.openai`` asks it for every model, so it must not load the Responses wire code.
"""

from __future__ import annotations

from typing import Literal

from ... import _errors as errors
from ..openai._profiles import OPENAI_PROFILE
from ..openai._rules import rules_for

__all__ = ["API_CHOICES", "NAME", "Api", "uses_responses"]

NAME = "openai-responses"
Api = Literal["chat", "responses", "auto"]
API_CHOICES: tuple[Api, ...] = ("chat", "responses", "auto")


def uses_responses(api: str, model: str) -> bool:
    """Whether ``api`` means the Responses API for ``model``.

    ``"auto"`` means it only for the models that only the Responses API serves (``o3-pro``,
    ``gpt-5-codex``...), so that no call that worked on Chat Completions changes.

    Raises:
        ConfigError: ``api`` is not ``"chat"``, ``"responses"`` or ``"auto"``.
    """
    if api not in API_CHOICES:
        raise errors.ConfigError(f"api={api!r} is not one of {', '.join(API_CHOICES)}")
    if api == "auto":
        return bool(rules_for(OPENAI_PROFILE.name, model).get("responses_only"))
    return api == "responses"
