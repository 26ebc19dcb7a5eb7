"""The lookups ``aiwrapper.models`` exports, kept in the knowledge layer so the run can ask them.

``model_info`` merges the models.dev catalogue (``_catalogue``), aiwrapper's per-model rules
(``_modelrules``, gathered from the provider packages by ``_tables``) and the entries added
with ``register_model``, each overriding the one before; ``models_with`` lists the models of a
provider that have a capability. The public module's docstring says what each answer means.
"""

from __future__ import annotations

import dataclasses
import re
import threading
from typing import Any

from . import _catalogue as catalogue
from ._modelchecks import check_capability, check_limit, check_names, checked_facts
from ._modelinfo import ModelCost, ModelInfo
from ._tables import catalogue_ids, example_models, rules_for

__all__ = [
    "CapabilityWarning",
    "ModelCost",
    "ModelInfo",
    "model_info",
    "models_with",
    "register_model",
]

_FIELDS = (
    "tool_call",
    "reasoning",
    "structured_output",
    "temperature",
    "context_window",
    "max_output_tokens",
    "input_modalities",
    "cost",
)


class CapabilityWarning(UserWarning):
    """A request asks a known model for something it cannot do (tools, thinking, output)."""


class _Registry:
    """Entries added with ``register_model``: process-wide by contract, so one lock guards it."""

    def __init__(self) -> None:
        self.entries: dict[tuple[str, str], dict[str, Any]] = {}
        self.lock = threading.Lock()
        self.changes = 0  # counted by register_model: answers kept elsewhere compare it


_REGISTRY = _Registry()
# "gpt-4o-mini-2024-07-18", "o1-mini-20240912": a snapshot of the undated alias.
_DATE_SUFFIX = re.compile(r"-(?:\d{4}-\d{2}-\d{2}|20\d{6})$")


def _keys(provider: str) -> tuple[str, ...]:
    """The provider's own name and, when it differs, the catalogue's, whichever was given."""
    reverse = [name for name, id_ in catalogue_ids().items() if id_ == provider]
    return tuple(dict.fromkeys([provider, _catalogue_id(provider), *reverse]))


def _catalogue_id(provider: str) -> str:
    """The catalogue's id for one of aiwrapper's provider names (most are the same)."""
    return catalogue_ids().get(provider, provider)


def model_info(provider: str, model: str) -> ModelInfo | None:
    """What is known about ``model`` at ``provider``, or None when nothing is.

    Args:
        provider: aiwrapper's provider name (a ``Lang`` factory's, or a preset's such as
            ``groq``) or the catalogue's own for the same service.
        model: The model id, as sent to the provider (``models/`` prefixes are ignored).

    Returns:
        The catalogue's entry overlaid by aiwrapper's rules and registered entries.

    Raises:
        ConfigError: ``provider`` or ``model`` is not a string.
    """
    check_names("model_info", provider, model, empty=True)  # "" is a model nothing knows
    model = model.removeprefix("models/")
    names = _keys(provider)
    base = _catalogue_entry(names, model)
    facts: dict[str, Any] = {}
    for name in names:
        facts.update(rules_for(name, model))
    with _REGISTRY.lock:
        for name in names:
            facts.update(_REGISTRY.entries.get((name, model), {}))
    if base is None and not facts:
        return None
    known = {key: value for key, value in facts.items() if key in _FIELDS}
    entry = base or ModelInfo(provider, model)
    return dataclasses.replace(entry, provider=provider, model=model, **known)


def _catalogue_entry(names: tuple[str, ...], model: str) -> ModelInfo | None:
    """The catalogue's entry; a dated snapshot the catalogue does not list has its alias's."""
    found = catalogue.get()
    if found is None:
        return None
    undated = _DATE_SUFFIX.sub("", model)
    for candidate in dict.fromkeys([model, undated]):
        for name in names:
            entry = found.lookup(_catalogue_id(name), candidate)
            if entry is not None:
                return entry
    return None


def register_model(provider: str, model: str, **facts: Any) -> ModelInfo:
    """Add a model, or override what is known about one, for the rest of the process.

    Only the fields given change; the rest still come from the catalogue and the rules.

    Args:
        provider: The provider's name (as for ``model_info``).
        model: The model id.
        **facts: ``ModelInfo`` fields (``tool_call=False``, ``max_output_tokens=8192``,
            ``cost=ModelCost(input=0.1, output=0.4)``...).

    Returns:
        The model's information with the new facts.

    Raises:
        TypeError: A keyword that is not a ``ModelInfo`` field.
        ConfigError: A name that is not a string, or a fact of the wrong kind (a negative,
            NaN or infinite price, a token count that is not a positive int...).
    """
    check_names("register_model", provider, model)
    unknown = sorted(set(facts) - set(_FIELDS))
    if unknown:
        raise TypeError(f"unknown ModelInfo fields {unknown}; valid: {', '.join(_FIELDS)}")
    facts = checked_facts(facts)
    with _REGISTRY.lock:
        _REGISTRY.entries.setdefault((provider, model), {}).update(facts)
        _REGISTRY.changes += 1
    info = model_info(provider, model)
    assert info is not None  # just registered
    return info


def models_with(provider: str, capability: str, *, limit: int = 5) -> list[str]:
    """Ids of ``provider``'s models known to have ``capability`` (a boolean field).

    Registered models come first, then the catalogue's (the most recently updated first), then
    the current models aiwrapper's rules describe.

    Raises:
        ConfigError: ``capability`` is not one of ``tool_call``, ``reasoning``,
            ``structured_output``, ``temperature``, or ``limit`` is not a positive int.
    """
    check_names("models_with", provider)
    check_capability(capability)
    check_limit(limit)
    with _REGISTRY.lock:
        registered = [m for (p, m) in _REGISTRY.entries if p in _keys(provider)]
    found = catalogue.get()
    listed = [i.model for name in _keys(provider) for i in _listed(found, name)] if found else []
    examples = [m for name in _keys(provider) for m in example_models(name)]
    names: list[str] = []
    for model in dict.fromkeys([*registered, *listed, *examples]):
        info = model_info(provider, model)
        if info is not None and getattr(info, capability) is True:
            names.append(model)
        if len(names) == limit:
            break
    return names


def _listed(found: catalogue.Catalogue, provider: str) -> list[ModelInfo]:
    return found.models(_catalogue_id(provider))
