"""The checks on what users hand the model facts API (``aiwrapper.models``).

Names must be strings and facts must be of the kind ``ModelInfo`` declares: a registered
entry feeds the warnings given before a request and the price of every run, so a negative,
NaN or infinite price, or a ``None`` where a name belongs, is a ``ConfigError`` naming what
is taken, at the call that brought it, never an ``AttributeError`` later.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._errors import ConfigError
from .._wire._numbers import finite_number
from ._modelinfo import ModelCost

__all__ = ["CAPABILITIES", "check_capability", "check_limit", "check_names", "checked_facts"]

CAPABILITIES = ("tool_call", "reasoning", "structured_output", "temperature")
_COUNTS = ("context_window", "max_output_tokens")
_PRICES = ("input", "output", "cache_read", "cache_write")


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def check_names(api: str, provider: Any, model: Any = "m", *, empty: bool = False) -> None:
    """Refuse a provider or model name that is not a string (nor empty, unless ``empty``)."""
    if not isinstance(provider, str) or not (provider or empty):
        raise ConfigError(
            f"{api}: provider must be a provider's name as a string (a Lang factory's), "
            f"not {_shown(provider)}"
        )
    if not isinstance(model, str) or not (model or empty):
        raise ConfigError(f"{api}: model must be a model id as a string, not {_shown(model)}")


def check_capability(capability: Any) -> None:
    """Refuse anything but the name of one of ``ModelInfo``'s boolean fields."""
    if capability not in CAPABILITIES or not isinstance(capability, str):
        names = ", ".join(CAPABILITIES)
        raise ConfigError(
            f"models_with: capability must be one of {names}, not {_shown(capability)}"
        )


def check_limit(limit: Any) -> None:
    """Refuse a ``limit`` that is not a positive ``int``."""
    if type(limit) is not int or limit < 1:
        raise ConfigError(f"models_with: limit must be a positive int, not {_shown(limit)}")


def checked_facts(facts: Mapping[str, Any]) -> dict[str, Any]:
    """``register_model``'s facts, each checked; a list of modalities becomes a tuple."""
    checked = dict(facts)
    for name, value in facts.items():
        if name in CAPABILITIES and value not in (True, False, None):
            _refuse(name, "True, False or None", value)
        elif name in _COUNTS and value is not None and (type(value) is not int or value < 1):
            _refuse(name, "a positive int or None", value)
        elif name == "input_modalities":
            checked[name] = _modalities(value)
        elif name == "cost":
            _check_cost(value)
    return checked


def _modalities(value: Any) -> tuple[str, ...]:
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        _refuse("input_modalities", "a tuple of strings (such as ('text', 'image'))", value)
    return tuple(value)


def _check_cost(cost: Any) -> None:
    if cost is None:
        return
    if not isinstance(cost, ModelCost):
        _refuse("cost", "a ModelCost or None", cost)
    for name in _PRICES:
        price = getattr(cost, name)
        if price is None:
            continue
        if not finite_number(price) or price < 0:
            _refuse(f"cost.{name}", "a finite price >= 0 (USD per million tokens) or None", price)


def _refuse(name: str, wanted: str, value: Any) -> None:
    raise ConfigError(f"register_model: {name} must be {wanted}, not {_shown(value)}")
