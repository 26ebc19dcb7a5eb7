"""The conversation: plain data with no I/O, shared by every layer above.

Owns function calls (``_call``) and message parts (``_parts``; images and documents in
``_media``), messages and conversations (``_messages``, with the message dicts of two vendors'
shapes read in ``_message_dicts`` and ``_media_dicts``, and prompts of text, images and
documents read in ``_content``), the conversation as a versioned JSON document that keeps
everything (``_document``, the values in it ``_document_values``), a run's result and usage
(``_result``), the neutral stream events a provider emits (``_events``), the run events a caller
watches (``_runevents``), how a tool's return value is written as text (``_serialize``), and the
assembler (``_assembler``) that folds stream events into the assistant message: one for every
provider and the gateway alike, so it stands here, below both.

May import: ``_wire`` (JSON text and partial JSON) and ``_errors``. Nothing above.
"""
