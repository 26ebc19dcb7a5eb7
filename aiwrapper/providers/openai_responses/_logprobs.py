"""Token log probabilities on the Responses wire, read from answers and written by the front.

They are asked for with ``include: ["message.output_text.logprobs"]`` (and ``top_logprobs``,
0 to 20 alternatives per token). Each ``output_text`` part then holds ``logprobs``: a list of
``{"token", "logprob", "bytes", "top_logprobs": [{"token", "logprob", "bytes"}]}``; a streamed
``response.output_text.delta`` carries the entries of its own tokens (OpenAI leaves ``bytes``
out there), and ``response.output_text.done`` repeats the whole list. The entries are those of
Chat Completions, read and written by that package's ``_logprobs``; a malformed one raises
``TypeError``/``ValueError``/``KeyError``, which the decoder reports as a ``StreamError``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..._conversation._logprobs import TokenLogprob
from ..openai._logprobs import read_tokens
from ..openai._logprobs import wire_tokens as chat_tokens

__all__ = ["INCLUDE", "read_tokens", "split_tokens", "wire_tokens"]

INCLUDE = "message.output_text.logprobs"  # the ``include`` entry that asks for them


def wire_tokens(tokens: Sequence[TokenLogprob]) -> list[dict[str, Any]]:
    """Tokens as the wire's entries, every field present as the SDK's types require."""
    return chat_tokens(tokens, utf8_bytes=True)


def split_tokens(texts: Sequence[str], tokens: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """The entries for each of several texts the tokens were written as, in order.

    A turn's text runs (before and after a call, say) become separate message items; each
    takes the tokens whose text adds up to its length, the last one whatever is left.
    """
    lists: list[list[dict[str, Any]]] = []
    at = 0
    for index, text in enumerate(texts):
        if index == len(texts) - 1:
            lists.append(tokens[at:])
            break
        start, length = at, 0
        while at < len(tokens) and length < len(text):
            length += len(tokens[at]["token"])
            at += 1
        lists.append(tokens[start:at])
    return lists
