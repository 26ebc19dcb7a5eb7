"""Standard JSON for what is read from a model and sent back on the wire.

Python's ``json`` reads and writes ``NaN`` and ``Infinity``, which are not JSON: a server that
receives them refuses the whole request body. It also raises ``RecursionError`` on absurdly
deep nesting. These helpers refuse both as ordinary ``ValueError``s, so arguments a model sent
that way count as invalid JSON (answered with an error result, replayed as ``{}``).
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["is_json_object", "loads_standard"]


def _refuse(constant: str) -> Any:
    raise ValueError(f"{constant} is not JSON")


# ``json.loads`` with any keyword builds a new decoder (and its scanner) on every call; each
# streamed call's arguments are parsed a few times, so the decoder is built once.
_STANDARD = json.JSONDecoder(parse_constant=_refuse)


def loads_standard(text: str | bytes) -> Any:
    """Parse standard JSON only.

    Raises:
        ValueError: The text is not JSON, holds NaN or an infinity, or nests too deeply.
    """
    try:
        if isinstance(text, str) and not text.startswith("\ufeff"):
            return _STANDARD.decode(text)
        # Bytes (their encoding detected) and a leading BOM (refused) as json.loads does.
        return json.loads(text, parse_constant=_refuse)
    except RecursionError as exc:
        raise ValueError("JSON nested too deeply") from exc


def is_json_object(text: str) -> bool:
    """Whether ``text`` is a standard JSON object (what a call's arguments must be)."""
    try:
        return isinstance(loads_standard(text), dict)
    except ValueError:
        return False
