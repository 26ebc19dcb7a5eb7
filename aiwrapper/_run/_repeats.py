"""Spotting a model that repeats itself: the same function, the same arguments, in a row.

The executor signs every call of a run once, in call order (``sign``), and asks
``Repeats.seen`` whether the call is the ``REPEAT_LIMIT``-th identical one in a row; such a
call is not run but answered with ``Repeats.message``, which quotes the result the model
already has. Running calls, and answering them, is left to the executor.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .._conversation._call import FunctionCall
from .._wire._jsontext import json_writer

__all__ = ["REPEAT_LIMIT", "Repeats", "Signature", "sign"]

REPEAT_LIMIT = 3  # identical calls in a row before the model is told it already has the result

Signature = tuple[str, str]  # the function's name and its arguments as sorted JSON


@dataclass(slots=True)
class Repeats:
    """The run's latest signature, how many calls in a row had it, and each signature's result.

    Attributes:
        signature: The signature of the latest call signed.
        count: How many calls in a row, up to the latest, had that signature.
        results: The latest result text of each signature, as it went to the model.
    """

    signature: Signature | None = None
    count: int = 0
    results: dict[Signature, str] = field(default_factory=dict)

    def seen(self, signature: Signature) -> bool:
        """Count the next call's ``signature``: whether it is a repeat not to run."""
        if signature == self.signature:
            self.count += 1
        else:
            self.signature, self.count = signature, 1
        return self.count >= REPEAT_LIMIT

    def message(self, call: FunctionCall, signature: Signature) -> str:
        """What a repeated ``call`` is answered with: run it no more, the result it had."""
        previous = self.results.get(signature)
        tail = f" The result was: {previous}" if previous is not None else ""
        return (
            f"You already called {call.name!r} with these same arguments "
            f"{self.count - 1} times in a row and have its result; do not call it "
            f"again, use the result you have.{tail}"
        )


# ``json.dumps(sort_keys=True, default=str)``, set up once: every call of a run is signed.
_SORTED = json_writer(
    separators=(", ", ": "), ensure_ascii=True, allow_nan=True, sort_keys=True, default=str
)


def sign(call: FunctionCall) -> Signature:
    """``call``'s signature: its name and its arguments as JSON, keys sorted."""
    return call.name, _SORTED(call.arguments)
