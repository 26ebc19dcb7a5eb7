"""``Lang``: the facade a user holds — factories, ``ask``/``chat``, their blocking twins.

A ``Lang`` pairs one ``Model`` (an HTTP provider or an offline model) with default options.
Each ``ask``/``chat`` merges options, turns ``functions`` into tools, and hands a fresh ``Run``
(``_loop.py``) the conversation. Each factory hands its keywords to the builder its provider
package exports; a package is imported only when its factory is called, so ``import aiwrapper``
stays light.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload

import anyio.to_thread
from typing_extensions import Unpack

from ._conversation._content import PromptLike
from ._conversation._messages import LangMessage, opening
from ._conversation._result import LangResult
from ._conversation._runevents import RunEvent
from ._knowledge._modelfacts import ModelFacts
from ._run._callsetup import CallSetup, Wrapped, setup_key
from ._run._decisions import decision_map, saved
from ._run._loop import Run
from ._run._offload import is_heavy_input, off_loop
from ._run._options import EventCallback, OptionsLike, merge_options
from ._run._overrides import CallOverrides, LangOptionsDict
from ._run._stream import RunStream
from ._run._syncrun import LoopThread
from ._run._watch import chain
from ._tools import Tool, to_tool, to_tools
from ._tools.sources import ToolSource

if TYPE_CHECKING:
    from ._run._contract import Model
    from ._run._steps import Steps
    from ._wire._http import HttpSettings
    from .providers.anthropic import AnthropicSettings
    from .providers.bedrock import BedrockSettings
    from .providers.gemini import GeminiSettings, VertexConfig
    from .providers.ollama import OllamaSettings
    from .providers.openai import OpenAISettings
    from .providers.scripted import ScriptedRequest, TurnSource

__all__ = ["Lang"]

MessagesLike = Iterable["LangMessage | Mapping[str, Any]"]
OutputT = TypeVar("OutputT")


class Lang:
    """A language model with default options; ask it things, with tools.

    Build one with a factory (``Lang.openai``, ``Lang.anthropic``, ``Lang.gemini``,
    ``Lang.ollama``, ``Lang.openai_compatible``, ``Lang.scripted``, ``Lang.offline``,
    ``Lang.from_env``), then ``await lang.ask(...)`` or ``lang.ask_sync(...)``.
    """

    def __init__(self, model: Model, *, options: OptionsLike = None) -> None:
        merge_options(options)  # a bad default option fails here, not at the first call
        self.model: Model = model
        self.options: OptionsLike = options
        self._sync = LoopThread()
        # Plain functions passed in ``functions`` are wrapped once, not on every call.
        self._wrapped: weakref.WeakKeyDictionary[Any, Tool] = weakref.WeakKeyDictionary()
        self._facts = ModelFacts()  # model_info of the models asked, kept across runs
        self._last_setup: CallSetup | None = None
        self._last_wrapped: Wrapped | None = None  # the last call's functions, as tools

    # The factories: each hands its keywords to its provider package's builder. Every HTTP
    # factory also takes ``timeout``, ``max_retries``, ``http_client``, ``max_connections``,
    # ``retry_base_delay`` and ``retry_max_delay`` (``HttpSettings``).
    @classmethod
    def openai(
        cls,
        model: str | None = None,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        api: Literal["chat", "responses", "auto"] = "auto",
        options: OptionsLike = None,
        **settings: Unpack[OpenAISettings],
    ) -> Lang:
        """OpenAI (key from ``OPENAI_API_KEY``; model ``gpt-4o-mini``).

        ``api`` picks the wire: ``"chat"`` Chat Completions, ``"responses"`` the Responses
        API, ``"auto"`` Chat Completions but for the models only the Responses API serves.
        """
        from .providers import openai

        model_ = openai.build(model, api_key=api_key, base_url=base_url, api=api, **settings)
        return cls(model_, options=options)

    @classmethod
    def openai_compatible(
        cls,
        base_url: str | None = None,
        *,
        model: str,
        preset: str | None = None,
        api_key: str | None = None,
        api: Literal["chat", "responses", "auto"] = "auto",
        options: OptionsLike = None,
        **settings: Unpack[HttpSettings],
    ) -> Lang:
        """Any OpenAI-compatible server, by base URL or by ``preset`` name.

        Presets: openrouter, groq, deepseek, mistral, together, xai, vllm, llamacpp,
        lmstudio, ollama. A preset supplies the base URL, the key's environment variable and
        the server's wire quirks; ``base_url`` overrides its URL. ``api="responses"`` speaks
        the server's ``/responses`` endpoint instead of ``/chat/completions``.
        """
        from .providers import openai

        model_ = openai.build_compatible(
            base_url, model=model, preset=preset, api_key=api_key, api=api, **settings
        )
        return cls(model_, options=options)

    @classmethod
    def anthropic(
        cls,
        model: str | None = None,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        vertex: VertexConfig | None = None,
        options: OptionsLike = None,
        **settings: Unpack[AnthropicSettings],
    ) -> Lang:
        """Anthropic Messages (key from ``ANTHROPIC_API_KEY``; model ``claude-sonnet-4-5``).

        Claude on Vertex AI: pass ``vertex=VertexConfig(project=..., location=...)``; Google
        credentials (Application Default Credentials unless given) replace the key.
        """
        from .providers import anthropic

        model_ = anthropic.build(
            model, api_key=api_key, base_url=base_url, vertex=vertex, **settings
        )
        return cls(model_, options=options)

    @classmethod
    def gemini(
        cls,
        model: str | None = None,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        vertex: VertexConfig | None = None,
        options: OptionsLike = None,
        **settings: Unpack[GeminiSettings],
    ) -> Lang:
        """Google Gemini (key from ``GEMINI_API_KEY``, then ``GOOGLE_API_KEY``).

        Vertex AI: pass ``vertex=VertexConfig(project=..., location=...)``, with an
        ``access_token``, ``credentials``, or Application Default Credentials.
        The default model is ``gemini-2.5-flash``.
        """
        from .providers import gemini

        model_ = gemini.build(model, api_key=api_key, base_url=base_url, vertex=vertex, **settings)
        return cls(model_, options=options)

    @classmethod
    def bedrock(
        cls,
        model: str | None = None,
        *,
        region: str | None = None,
        api_key: str | None = None,
        base_url: str | None = None,
        options: OptionsLike = None,
        **settings: Unpack[BedrockSettings],
    ) -> Lang:
        """Amazon Bedrock's Converse API (region from ``AWS_REGION``).

        A Bedrock API key (``api_key`` or ``AWS_BEARER_TOKEN_BEDROCK``) is sent as a bearer
        token; without one, requests are SigV4-signed with ``credentials`` or botocore's
        credential chain (the optional extra ``aiwrapper[bedrock]``).
        """
        from .providers import bedrock

        model_ = bedrock.build(model, region=region, api_key=api_key, base_url=base_url, **settings)
        return cls(model_, options=options)

    @classmethod
    def ollama(
        cls,
        model: str | None = None,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        options: OptionsLike = None,
        **settings: Unpack[OllamaSettings],
    ) -> Lang:
        """Ollama's native API (``OLLAMA_HOST`` honoured; no key for a local server).

        The default model is ``qwen3`` and the default ``timeout`` 300 s.
        """
        from .providers import ollama

        model_ = ollama.build(model, api_key=api_key, base_url=base_url, **settings)
        return cls(model_, options=options)

    @classmethod
    def scripted(cls, turns: TurnSource, *, options: OptionsLike = None) -> Lang:
        """A model that replays ``turns`` and records each request (for tests)."""
        from .providers.scripted import ScriptedModel

        return cls(ScriptedModel(turns), options=options)

    @classmethod
    def offline(cls, *, options: OptionsLike = None) -> Lang:
        """A model with no network: calls each tool once, then answers from the results."""
        from .providers.scripted import OfflineModel

        return cls(OfflineModel(), options=options)

    @classmethod
    def from_env(cls, *, options: OptionsLike = None) -> Lang:
        """The first provider whose key is set, else the offline model.

        ``AIWRAPPER_PROVIDER`` (openai, anthropic, gemini, ollama, offline) picks one
        explicitly and ``AIWRAPPER_MODEL`` names the model; otherwise the keys are tried in
        the order OpenAI, Anthropic, Gemini.
        """
        from .providers._registry import from_env

        return cls(from_env(), options=options)

    @property
    def provider(self) -> str:
        """The provider's name (``openai``, ``anthropic``, ``scripted``...)."""
        return self.model.name

    @property
    def requests(self) -> list[ScriptedRequest]:
        """Requests a scripted model received (``Lang.scripted`` only)."""
        requests = getattr(self.model, "requests", None)
        if requests is None:
            raise AttributeError("only Lang.scripted(...) records its requests")
        return requests  # type: ignore[no-any-return]

    # Each entry point is overloaded so that ``output_type=Weather`` types the result as
    # ``LangResult[Weather]`` (``result.output: Weather``) for mypy and pyright; without it, or
    # with a type form that is not a class (a ``Literal``), ``output`` is ``Any``.
    @overload
    async def ask(
        self,
        prompt: PromptLike,
        options: OptionsLike = None,
        *,
        output_type: type[OutputT],
        **overrides: Unpack[CallOverrides],
    ) -> LangResult[OutputT]: ...

    @overload
    async def ask(
        self, prompt: PromptLike, options: OptionsLike = None, **overrides: Unpack[LangOptionsDict]
    ) -> LangResult[Any]: ...

    async def ask(
        self, prompt: PromptLike, options: OptionsLike = None, **overrides: Any
    ) -> LangResult[Any]:
        """Ask ``prompt`` as a new conversation; tools run until the model answers.

        ``prompt`` is a ``str``, or a list of ``str``, ``Image`` and ``Document``:
        ``await lang.ask(["What is in this picture?", Image.from_path("cat.png")])``.
        """
        return await self._start(prompt, options, overrides).run()

    @overload
    async def chat(
        self,
        messages: MessagesLike,
        options: OptionsLike = None,
        *,
        output_type: type[OutputT],
        **overrides: Unpack[CallOverrides],
    ) -> LangResult[OutputT]: ...

    @overload
    async def chat(
        self,
        messages: MessagesLike,
        options: OptionsLike = None,
        **overrides: Unpack[LangOptionsDict],
    ) -> LangResult[Any]: ...

    async def chat(
        self, messages: MessagesLike, options: OptionsLike = None, **overrides: Any
    ) -> LangResult[Any]:
        """Continue a conversation (``result.messages`` or a list of message dicts)."""
        if is_heavy_input(messages):  # a big conversation is read and checked off the loop
            run = await off_loop(partial(self._start, messages, options, overrides))
            return await run.run()
        return await self._start(messages, options, overrides).run()

    @overload
    def ask_sync(
        self,
        prompt: PromptLike,
        options: OptionsLike = None,
        *,
        output_type: type[OutputT],
        **overrides: Unpack[CallOverrides],
    ) -> LangResult[OutputT]: ...

    @overload
    def ask_sync(
        self, prompt: PromptLike, options: OptionsLike = None, **overrides: Unpack[LangOptionsDict]
    ) -> LangResult[Any]: ...

    def ask_sync(
        self, prompt: PromptLike, options: OptionsLike = None, **overrides: Any
    ) -> LangResult[Any]:
        """``ask`` for scripts and notebooks; works inside a running event loop too."""
        return self._sync.run(self.ask(prompt, options, **overrides))

    @overload
    def chat_sync(
        self,
        messages: MessagesLike,
        options: OptionsLike = None,
        *,
        output_type: type[OutputT],
        **overrides: Unpack[CallOverrides],
    ) -> LangResult[OutputT]: ...

    @overload
    def chat_sync(
        self,
        messages: MessagesLike,
        options: OptionsLike = None,
        **overrides: Unpack[LangOptionsDict],
    ) -> LangResult[Any]: ...

    def chat_sync(
        self, messages: MessagesLike, options: OptionsLike = None, **overrides: Any
    ) -> LangResult[Any]:
        """``chat`` for scripts and notebooks; works inside a running event loop too."""
        return self._sync.run(self.chat(messages, options, **overrides))

    async def resume(
        self,
        messages: MessagesLike | str | bytes | Mapping[str, Any],
        decisions: Mapping[str, bool | str],
        options: OptionsLike = None,
        **overrides: Unpack[LangOptionsDict],
    ) -> LangResult[Any]:
        """Continue a run that stopped for decisions (``finish_reason == "deferred"``).

        ``messages`` is that run's ``result.messages``, or its ``to_json`` text (or
        ``to_jsonable`` data), here or in any other process; ``decisions`` maps the id of
        each call in ``result.pending`` to True (run it), or False or a reason (deny it, as
        ``approve`` would). Approved calls run without asking ``approve`` again, and the run
        goes on as ``chat`` would; ``on_result`` and ``on_event`` see it as they see any run.

        Raises:
            ConfigError: Nothing is pending, or a decision is missing for a pending call,
                names no pending call, or is not True, False or a reason string.
        """
        decided = decision_map(decisions)  # None would read as "not resuming"
        run = self._start(saved(messages), options, overrides, decisions=decided)
        return await run.run()

    def resume_sync(
        self,
        messages: MessagesLike | str | bytes | Mapping[str, Any],
        decisions: Mapping[str, bool | str],
        options: OptionsLike = None,
        **overrides: Unpack[LangOptionsDict],
    ) -> LangResult[Any]:
        """``resume`` for scripts and notebooks; works inside a running event loop too."""
        return self._sync.run(self.resume(messages, decisions, options, **overrides))

    @overload
    def stream(
        self,
        prompt: PromptLike | MessagesLike,
        options: OptionsLike = None,
        *,
        output_type: type[OutputT],
        **overrides: Unpack[CallOverrides],
    ) -> RunStream[OutputT]: ...

    @overload
    def stream(
        self,
        prompt: PromptLike | MessagesLike,
        options: OptionsLike = None,
        **overrides: Unpack[LangOptionsDict],
    ) -> RunStream[Any]: ...

    def stream(
        self, prompt: PromptLike | MessagesLike, options: OptionsLike = None, **overrides: Any
    ) -> RunStream[Any]:
        """A run whose events are read as they happen (``TextDelta``, ``CallFinished``...).

        ``prompt`` is a prompt (as for ``ask``) or a conversation (as for ``chat``). Use it as
        ``async with lang.stream(...) as run: async for event in run: ...``; ``run.result`` is
        the ``LangResult``. Leaving the block early cancels the run. The ``on_event`` option,
        when set, still receives every event first.
        """
        return RunStream(lambda push: self._start(prompt, options, overrides, listener=push))

    def stream_sync(
        self,
        prompt: PromptLike | MessagesLike,
        options: OptionsLike = None,
        **overrides: Unpack[LangOptionsDict],
    ) -> Iterator[RunEvent]:
        """``stream`` as a blocking iterator of events; works inside a running event loop too.

        Stopping early (``break``, or closing the iterator) cancels the run.
        """
        return self._sync.iterate(self.stream(prompt, options, **overrides))

    def _start(
        self,
        prompt: PromptLike | MessagesLike,
        options: OptionsLike,
        overrides: Mapping[str, Any],
        listener: EventCallback | None = None,
        decisions: Mapping[object, object] | None = None,
        steps: Steps | None = None,
    ) -> Run:
        """A run of a prompt or a conversation; ``listener`` hears every event after on_event.

        ``decisions`` resumes the conversation: its pending calls are decided and run first.
        ``steps`` makes the run durable (``aiwrapper.durable``): requests and calls are steps.
        """
        setup = self._setup_of(options, overrides)
        merged = setup.options
        if listener is not None:
            merged = replace(merged, on_event=chain(merged.on_event, listener))
        result: LangResult[Any] = LangResult(*opening(prompt))
        return Run(
            self.model,
            merged,
            setup.tools,
            result,
            sources=setup.sources,
            facts=self._facts,
            decisions=decisions,
            steps=steps,
        )

    def _setup_of(self, options: OptionsLike, overrides: Mapping[str, Any]) -> CallSetup:
        """The merged options and tools of a call: the last call's when it passed the same."""
        key = setup_key(self.options, options, overrides)
        last = self._last_setup
        if last is not None and last.fits(key):
            return last
        merged = merge_options(self.options, options, **overrides)
        given = tuple(merged.functions or ())
        wrapped = self._last_wrapped
        if wrapped is None or not wrapped.fits(given):  # the same functions: the same tools
            functions = [self._wrap(f) for f in given]
            sources = [f for f in functions if isinstance(f, ToolSource)]  # MCP servers
            tools = to_tools([f for f in functions if not isinstance(f, ToolSource)])
            wrapped = self._last_wrapped = Wrapped(given, tools, sources)
        setup = CallSetup(merged, wrapped.tools, wrapped.sources, key or ())
        self._last_setup = setup if key is not None else None
        return setup

    def _wrap(self, function: Any) -> Any:
        """A plain callable as a ``Tool``, from this ``Lang``'s cache; anything else as is."""
        if isinstance(function, Tool) or not callable(function):
            return function
        try:
            tool = self._wrapped.get(function)
            if tool is None:
                tool = self._wrapped[function] = to_tool(function)
        except TypeError:  # not weakly referable (a slotted callable): wrap it every time
            return function
        return tool

    async def aclose(self) -> None:
        """Close connections (those of the sync facade's loop too).

        Closing twice is harmless; a closed ``Lang`` can still be used and reconnects.
        """
        if self._sync.started:  # its clients live on that loop: closed there, off this loop
            await anyio.to_thread.run_sync(self._close_sync_loop)
        await self.model.aclose()

    def close(self) -> None:
        """Blocking ``aclose`` for scripts (also inside a running event loop)."""
        self._sync.run(self.model.aclose())
        self._sync.close()

    def _close_sync_loop(self) -> None:
        if self._sync.started:
            self._sync.run(self.model.aclose())
        self._sync.close()

    async def __aenter__(self) -> Lang:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        return f"Lang({self.model.name}, model={self.model.model!r})"
