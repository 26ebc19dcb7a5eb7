"""Provider packages: one per wire format, pure data translation with no I/O.

Each package (``openai``, ``anthropic``, ``gemini``, ``ollama``, ``openai_responses``,
``scripted``) turns a neutral ``ProviderRequest`` into an ``HttpCall`` and the provider's answer
(framed stream chunks or a whole body) into neutral events, to the contract in
``aiwrapper._run._contract``. Its parts are private modules of the same names in every package where
they apply: ``_encode`` (the request body), ``_decode`` (the answer), ``_errors`` (error bodies)
and ``_dialect`` (the tool declaration, exposed as ``SCHEMA_DIALECTS`` and found by name from
``Tool.schema_for``). A package whose wire the gateway serves to clients has ``_front`` parts
too (request reading, whole replies, stream encoding, the wire's error body, on the contract in
``aiwrapper.providers._serving``), exported as ``FRONTENDS`` by POST path. The package exports its
provider, its defaults (``DEFAULT_BASE_URL``, ``API_KEY_ENV_VARS``, ``DEFAULT_MODEL``), its model
rules and a builder that the ``Lang`` factory of its provider calls. Only the light tables
(defaults, model rules, dialects) load with a package; its provider, wire code and front-ends
load when first read, so ``import aiwrapper`` loads no provider and choosing one loads no other
vendor's wire code. ``_base.py`` holds the helpers the packages share, ``_registry.py``
finds the packages by name, and ``_serving.py`` with ``_callstate.py`` is the front-ends'
contract with the gateway. In the house of layers this is the providers' room: it may import
the run, the tools, the knowledge, the conversation and the wire, never a face.
"""
