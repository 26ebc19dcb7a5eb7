"""The wire: bytes in and out, and nothing of what they mean to a conversation.

Owns the HTTP transport, the only httpx user (``_http``: send, retry, stream; ``_httpcall``: the
request a provider builds; ``_outgoing`` and ``_bodies``: request bodies out and error bodies
in, ``_splice`` writing bodies that carry large strings without copies; ``_direct``: a request
handed to the client's transport when the client's layers would do nothing; ``_asyncionet``:
the own client's network backend on asyncio, without anyio's wrappers; ``_settings``: the
transport keywords; ``_sizelimits``: the caps on what is read; ``_logs``: one line per attempt),
the framing of streams (``_framing``: SSE and NDJSON) and the JSON helpers the decoders share
(``_jsontext``, ``_jsonscan``, ``_jsonenvelope``, ``_partial_json``).

May import: ``_errors`` only. Every other layer stands on this one.
"""
