"""Models with no network: the scripted model for tests and the offline demo model."""

from ._model import OfflineModel, ScriptedModel, ScriptedRequest, Turn, TurnSource, turn_events

__all__ = ["OfflineModel", "ScriptedModel", "ScriptedRequest", "Turn", "TurnSource", "turn_events"]
