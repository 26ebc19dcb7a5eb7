"""A call's merged options and tools, kept while a ``Lang``'s calls repeat what they pass.

Programs call ``ask`` with the same arguments again and again: the same ``functions`` list,
``stream=False``. Merging the option layers and wrapping the functions is most of what
starting a run costs, so a ``Lang`` keeps its last call's ``CallSetup`` and reuses it while
the next call passes the same things. "The same" is checked, never assumed: every layer
(``Lang.options`` included) sets the same options to the same objects, and a ``functions``
list holds the same functions. A container that an option check reads (a ``stop`` list)
could have been edited in place since, so a call that passes one is merged, and checked,
afresh every time.

The functions are wrapped apart from the options (``Wrapped``): a call that passes the same
functions with another option, most often a new ``on_result`` callback made for each call,
merges its options afresh but reuses the tools, whose making (a dict definition's schema
compiled, then rendered for the wire) costs far more than the merge.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._tools import Tool
from .._tools.sources import ToolSource
from ._options import CHECKED_OPTIONS, LangOptions, OptionsLike, set_fields

__all__ = ["CallSetup", "SetupKey", "Wrapped", "setup_key"]

# What a setup is made from: what each layer sets, then the functions it lists, each part
# closed by ``_END``; compared object by object (``is``). User values are never compared with
# ``==``, which may compare elementwise or raise. The setup holds these objects, so no id is
# reused while it lives.
SetupKey = tuple[Any, ...]

_END = object()  # no layer holds it: parts can only line up with parts
_EDITABLE = (list, dict, set)


def setup_key(
    base: OptionsLike, layer: OptionsLike, overrides: Mapping[str, Any]
) -> SetupKey | None:
    """The key of the setup of ``merge_options(base, layer, **overrides)`` and its
    functions; None when it must be made afresh."""
    try:
        layers = [set_fields(options) for options in (base, layer, overrides)]
    except TypeError:  # not options, or an unknown name: merge_options says which
        return None
    key: list[Any] = []
    for items in layers:
        set_here: list[Any] = []
        functions: Sequence[Any] = ()
        for name, value in items:
            if value is None:  # not set here
                continue
            if name == "functions" and isinstance(value, Sequence):
                set_here.append(name)  # the list is compared by what it holds
                functions = value
            elif name in CHECKED_OPTIONS and isinstance(value, _EDITABLE):
                return None
            else:
                set_here += (name, value)
        key += (*set_here, _END, *functions, _END)
    return tuple(key)


@dataclass(frozen=True, slots=True)
class CallSetup:
    """A call's merged options, its tools and its tool sources, and the key they came from.

    Attributes:
        options: The option layers merged (``merge_options``).
        tools: The ``functions`` that are tools, wrapped.
        sources: The ``functions`` that are tool sources (MCP servers).
        key: What they were made from (``setup_key``).
    """

    options: LangOptions
    tools: Sequence[Tool]
    sources: Sequence[ToolSource]
    key: SetupKey

    def fits(self, key: SetupKey | None) -> bool:
        """Whether a call whose setup would be made from ``key`` may reuse this one."""
        mine = self.key
        return key is not None and len(key) == len(mine) and all(map(operator.is_, key, mine))


@dataclass(frozen=True, slots=True)
class Wrapped:
    """A call's ``functions`` made tools and tool sources, and the objects they were made of.

    Attributes:
        given: The ``functions`` entries, in order.
        tools: The entries that are tools, wrapped.
        sources: The entries that are tool sources (MCP servers).
    """

    given: tuple[Any, ...]
    tools: Sequence[Tool]
    sources: Sequence[ToolSource]

    def fits(self, functions: tuple[Any, ...]) -> bool:
        """Whether ``functions`` are the same objects, in the same order (``is``, never
        ``==``): the setup key's rule for functions."""
        given = self.given
        return len(functions) == len(given) and all(map(operator.is_, functions, given))
