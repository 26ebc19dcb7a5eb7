"""The run: one ``ask`` or ``chat``, from the first request to the final answer.

Owns the loop's rounds (``_loop``), running the calls a turn makes (``_execution``, with
``_early`` starting them while the turn still streams, ``_repeats`` answering a call made again
and ``_cancellation``), approval that waits (``_decisions``: ``DEFER``, the calls left pending
and the decisions ``resume`` is given), the watchers and events a caller sees (``_watch``,
``_stream``), the options and their per-call merge (``_options``, ``_overrides``,
``_callsetup``), structured output (``_structured``, ``_output``), the checks of a model's
capabilities before a request (``_capabilities``) and of the images and documents a request
carries (``_media_checks``), the sync facade's thread (``_syncrun``), the tool-call log lines
(``_toollog``), heavy work off the event loop (``_offload``: a big conversation's copy,
checks, encoding and JSON, written in short steps by ``_bodybytes``), ``_contract``: what a
round asks of a model, which every provider implements, and ``_steps``: the seam through
which a durable engine checkpoints each request and call (``aiwrapper.durable``, a face, plugs
into it; the run knows no engine).

May import: the tools (``_tools``, ``mcp``), ``_knowledge``, ``_conversation``, ``_wire`` and
``_errors``. Never a provider package, the gateway or a face: a provider is reached only through
the contract's ``Model``, handed in by ``Lang``.
"""
