"""What a ``Lang`` knows of the models it asks: ``model_info`` looked up once per model.

``model_info`` merges the catalogue, aiwrapper's rules and the registry anew on every call,
which costs several microseconds; a run needs the answer to check its options and to price each
request. ``ModelFacts`` keeps each answer while its sources stand: the rules are fixed, the
registry counts its changes (and its size, for entries removed directly), and the catalogue is
compared by identity, since it can be swapped (tests do).
"""

from __future__ import annotations

from . import _catalogue as catalogue
from . import _models as models
from ._modelinfo import ModelInfo

__all__ = ["ModelFacts"]

# A Lang asks a handful of models; past this many, forgetting them all keeps memory bounded.
_MOST_KEPT = 64


class ModelFacts:
    """``model_info`` answers, each kept until the catalogue or the registry changes."""

    __slots__ = ("_known",)

    def __init__(self) -> None:
        self._known: dict[tuple[str, str], tuple[object, int, int, ModelInfo | None]] = {}

    def info(self, provider: str, model: str) -> ModelInfo | None:
        """What ``models.model_info(provider, model)`` answers now; None for a name that is
        not a string (a custom ``Model`` without one): nothing is known of it."""
        if provider.__class__ is not str or model.__class__ is not str:
            return None
        registry = models._REGISTRY
        found, changes, size = catalogue.get(), registry.changes, len(registry.entries)
        kept = self._known.get((provider, model))
        if kept is not None and kept[0] is found and kept[1:3] == (changes, size):
            return kept[3]
        if len(self._known) >= _MOST_KEPT:
            self._known.clear()
        # The sources are read before the lookup: a change made meanwhile only costs a miss.
        info = models.model_info(provider, model)
        self._known[(provider, model)] = (found, changes, size, info)
        return info
