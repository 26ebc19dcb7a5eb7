"""Durable runs: tool loops that survive a crash, on DBOS (the optional extra ``aiwrapper[dbos]``).

``DurableLang`` wraps a ``Lang``: each run is a DBOS workflow, each model request and each tool
call a step checkpointed in the conversation's JSON form. After a crash, the worker that
restarts with the same executor id recovers the run: finished requests are not sent again and
finished tools do not run again. SQLite (a file, nothing to start) by default; a Postgres URL
lets many workers on many machines share runs through a queue. A run whose ``approve`` answers
``DEFER`` waits durably for decisions, which ``send_decisions`` gives from any process.

A face of the package: it stands with ``Lang`` above the providers and may import every layer.
``import aiwrapper`` never imports it; it imports ``dbos`` only when a ``DurableLang`` is built.
"""

from ._decisions import send_decisions
from ._durable import DurableLang

__all__ = ["DurableLang", "send_decisions"]
