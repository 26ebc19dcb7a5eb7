"""What a tool receives besides the model's arguments, and how a parameter is described.

This module owns two small records: :class:`Context`, injected at call time into the parameter
annotated with it (left out of the schema the model sees), and :class:`Param`, the metadata
marker read from ``Annotated[T, Param(...)]``. Building schemas from them is left to
:mod:`aiwrapper._tools.schema`; filling a context during a run is left to the loop.
"""

from __future__ import annotations

import types
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Generic, Union, get_args, get_origin

from typing_extensions import TypeVar

if TYPE_CHECKING:
    from .._conversation._result import FunctionCall, LangResult

__all__ = ["Context", "Param", "is_context_annotation"]

DepsT = TypeVar("DepsT", default=Any)


@dataclass(frozen=True, slots=True)
class Context(Generic[DepsT]):
    """What a tool sees of the run that called it.

    Annotate one parameter with ``Context`` (or ``Context[MyDeps]``) to receive it; the parameter
    is left out of the schema sent to the model.

    Attributes:
        deps: The ``deps`` option of the run: any object the application hands to its tools.
        call: The ``FunctionCall`` being executed (``None`` when the tool is invoked directly).
        result: The run's ``LangResult`` so far (``None`` when the tool is invoked directly).
    """

    deps: DepsT
    call: FunctionCall | None = None
    result: LangResult | None = None


@dataclass(frozen=True, slots=True)
class Param:
    """Describes and constrains one parameter: ``Annotated[int, Param(ge=1, le=10)]``.

    Attributes:
        description: Text shown to the model for this parameter.
        ge: Smallest allowed number (inclusive), JSON Schema ``minimum``.
        le: Largest allowed number (inclusive), JSON Schema ``maximum``.
        gt: Lower bound (exclusive), JSON Schema ``exclusiveMinimum``.
        lt: Upper bound (exclusive), JSON Schema ``exclusiveMaximum``.
        min_length: Smallest length of a string, list or mapping.
        max_length: Largest length of a string, list or mapping.
        pattern: Regular expression a string must match (``re.search`` semantics).
        examples: Example values shown to the model.
    """

    description: str | None = None
    ge: float | None = None
    le: float | None = None
    gt: float | None = None
    lt: float | None = None
    min_length: int | None = None
    max_length: int | None = None
    pattern: str | None = None
    examples: list[Any] | None = None

    def __hash__(self) -> int:
        # Python 3.10's get_type_hints hashes Annotated metadata; ``examples`` is a list, so
        # the hash leaves it out (equal Params still hash alike).
        return hash(
            (
                self.description,
                self.ge,
                self.le,
                self.gt,
                self.lt,
                self.min_length,
                self.max_length,
                self.pattern,
            )
        )


def is_context_annotation(annotation: Any) -> bool:
    """Tell whether an annotation asks for the injected :class:`Context`.

    Accepts ``Context``, ``Context[Deps]``, either of them made optional (``Context | None``)
    or wrapped in ``Annotated``.

    Args:
        annotation: A resolved type annotation.

    Returns:
        True when the parameter should receive the context instead of a model argument.
    """
    if annotation is Context or get_origin(annotation) is Context:
        return True
    if get_origin(annotation) is Annotated:
        return is_context_annotation(get_args(annotation)[0])
    if get_origin(annotation) in (Union, types.UnionType):
        arms = [a for a in get_args(annotation) if a is not type(None)]
        return len(arms) == 1 and is_context_annotation(arms[0])
    return False
