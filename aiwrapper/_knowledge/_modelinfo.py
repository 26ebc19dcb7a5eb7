"""What is known about one model, as plain records: ``ModelInfo`` and its ``ModelCost``.

The records stand below both of their sources, the models.dev catalogue adapter
(``aiwrapper._knowledge._catalogue``) that builds them and ``aiwrapper.models`` that
merges and exports them; how they are filled in is those modules' business.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ModelCost", "ModelInfo"]


@dataclass(frozen=True, slots=True)
class ModelCost:
    """Prices in USD per million tokens; ``None`` where the price is not known.

    Attributes:
        input: Uncached input tokens.
        output: Output tokens (reasoning included).
        cache_read: Input tokens read from the provider's cache.
        cache_write: Input tokens written to the provider's cache.
    """

    input: float | None = None
    output: float | None = None
    cache_read: float | None = None
    cache_write: float | None = None


@dataclass(frozen=True, slots=True)
class ModelInfo:
    """What is known about one model; ``None`` (or empty) where it is not known.

    Attributes:
        provider: The provider's name as given to ``model_info``.
        model: The model id.
        tool_call: Whether the model can call functions.
        reasoning: Whether the model thinks (the ``thinking`` option).
        structured_output: Whether the provider has a native structured-output mode for it.
        temperature: Whether the model accepts sampling parameters.
        context_window: Tokens the model reads at most (input and output together).
        max_output_tokens: Tokens the model writes at most in one answer.
        input_modalities: ``"text"``, ``"image"``, ``"audio"``, ``"video"``, ``"pdf"``.
        cost: Prices per million tokens.
    """

    provider: str
    model: str
    tool_call: bool | None = None
    reasoning: bool | None = None
    structured_output: bool | None = None
    temperature: bool | None = None
    context_window: int | None = None
    max_output_tokens: int | None = None
    input_modalities: tuple[str, ...] = ()
    cost: ModelCost | None = None
