"""The ``Lang`` factories: one per provider, plus the offline models and ``from_env``.

Each factory resolves the API key (argument, then the provider's usual environment variable;
a missing key is a ``ConfigError`` naming the variable, raised before any request), imports its
provider module lazily, and pairs the provider with an ``HttpTransport``.
"""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING, Any

from .errors import ConfigError
from .options import OptionsLike

if TYPE_CHECKING:
    import httpx

    from .lang import Lang
    from .providers.base import Provider
    from .providers.gemini import VertexConfig
    from .providers.scripted import TurnSource

__all__ = ["Factories"]

DEFAULT_MODELS = {
    "openai": "gpt-4o-mini",
    "anthropic": "claude-sonnet-4-5",
    "gemini": "gemini-2.5-flash",
    "ollama": "qwen3",
}


def _key(api_key: str | None, *env_vars: str, required: bool = True) -> str | None:
    key = _stripped(api_key)
    if key:
        return key
    for var in env_vars:
        key = _stripped(os.environ.get(var))
        if key:
            return key
    if required:
        names = " or ".join(env_vars)
        raise ConfigError(f"no API key: pass api_key=... or set the environment variable {names}")
    return None


class Factories:
    """Constructors of ``Lang`` (mixed into it)."""

    @classmethod
    def _http(
        cls,
        provider: Provider,
        model: str,
        timeout: float | None,
        max_retries: int,
        http_client: httpx.AsyncClient | None,
        options: OptionsLike,
        max_connections: int | None = None,
        *,
        retry: tuple[float, float] = (0.5, 8.0),
    ) -> Lang:
        """A ``Lang`` on ``provider`` over a new transport (the arguments every factory takes).

        ``retry`` is the backoff before the first retry and its upper bound, in seconds.
        """
        from .http import HttpTransport
        from .providers.http_model import HttpModel

        transport = HttpTransport(
            timeout=timeout,
            max_retries=max_retries,
            http_client=http_client,
            max_connections=max_connections,
            retry_base_delay=retry[0],
            retry_max_delay=retry[1],
        )
        return cls(HttpModel(provider, transport, model=model), options=options)  # type: ignore[return-value, call-arg]

    @classmethod
    def openai(
        cls,
        model: str = DEFAULT_MODELS["openai"],
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        organization: str | None = None,
        project: str | None = None,
        timeout: float | None = 60.0,
        max_retries: int = 2,
        http_client: httpx.AsyncClient | None = None,
        max_connections: int | None = None,
        retry_base_delay: float = 0.5,
        retry_max_delay: float = 8.0,
        options: OptionsLike = None,
    ) -> Lang:
        """OpenAI Chat Completions (key from ``OPENAI_API_KEY``)."""
        from .providers import openai

        base_url = base_url or openai.DEFAULT_BASE_URL
        provider = openai.OpenAIProvider(
            api_key=_key(api_key, *openai.API_KEY_ENV_VARS),
            base_url=base_url,
            profile=openai.openai_profile(base_url),
            organization=organization,
            project=project,
        )
        return cls._http(
            provider,
            model,
            timeout,
            max_retries,
            http_client,
            options,
            max_connections,
            retry=(retry_base_delay, retry_max_delay),
        )

    @classmethod
    def openai_compatible(
        cls,
        base_url: str | None = None,
        *,
        model: str,
        preset: str | None = None,
        api_key: str | None = None,
        timeout: float | None = 60.0,
        max_retries: int = 2,
        http_client: httpx.AsyncClient | None = None,
        max_connections: int | None = None,
        retry_base_delay: float = 0.5,
        retry_max_delay: float = 8.0,
        options: OptionsLike = None,
    ) -> Lang:
        """Any OpenAI-compatible server, by base URL or by ``preset`` name.

        Presets: openrouter, groq, deepseek, mistral, together, xai, vllm, llamacpp,
        lmstudio, ollama. A preset supplies the base URL, the key's environment variable and
        the server's wire quirks; ``base_url`` overrides its URL.
        """
        from .providers import openai

        if preset is None:
            if base_url is None:
                raise ConfigError("openai_compatible needs base_url=... or preset=...")
            profile, key = openai.profile_for_base_url(base_url), _stripped(api_key) or None
        else:
            _, env_var, profile = openai.get_preset(preset)
            base_url = base_url or openai.preset_base_url(preset)
            key = _key(api_key, env_var) if env_var else _stripped(api_key) or None
        provider = openai.OpenAIProvider(api_key=key, base_url=base_url, profile=profile)
        return cls._http(
            provider,
            model,
            timeout,
            max_retries,
            http_client,
            options,
            max_connections,
            retry=(retry_base_delay, retry_max_delay),
        )

    @classmethod
    def anthropic(
        cls,
        model: str = DEFAULT_MODELS["anthropic"],
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float | None = 60.0,
        max_retries: int = 2,
        http_client: httpx.AsyncClient | None = None,
        max_connections: int | None = None,
        retry_base_delay: float = 0.5,
        retry_max_delay: float = 8.0,
        options: OptionsLike = None,
        **provider_options: Any,
    ) -> Lang:
        """Anthropic Messages (key from ``ANTHROPIC_API_KEY``)."""
        from .providers import anthropic

        provider = anthropic.AnthropicProvider(
            api_key=_key(api_key, *anthropic.API_KEY_ENV_VARS),
            base_url=base_url or anthropic.DEFAULT_BASE_URL,
            **provider_options,
        )
        return cls._http(
            provider,
            model,
            timeout,
            max_retries,
            http_client,
            options,
            max_connections,
            retry=(retry_base_delay, retry_max_delay),
        )

    @classmethod
    def gemini(
        cls,
        model: str = DEFAULT_MODELS["gemini"],
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        vertex: VertexConfig | None = None,
        timeout: float | None = 60.0,
        max_retries: int = 2,
        http_client: httpx.AsyncClient | None = None,
        max_connections: int | None = None,
        retry_base_delay: float = 0.5,
        retry_max_delay: float = 8.0,
        options: OptionsLike = None,
        **provider_options: Any,
    ) -> Lang:
        """Google Gemini (key from ``GEMINI_API_KEY``, then ``GOOGLE_API_KEY``).

        Vertex AI: pass ``vertex=VertexConfig(project=..., location=..., access_token=...)``.
        """
        from .providers import gemini

        key = _key(api_key, *gemini.API_KEY_ENV_VARS, required=vertex is None)
        provider = gemini.GeminiProvider(
            api_key=key,
            base_url=base_url or gemini.DEFAULT_BASE_URL,
            vertex=vertex,
            **provider_options,
        )
        return cls._http(
            provider,
            model,
            timeout,
            max_retries,
            http_client,
            options,
            max_connections,
            retry=(retry_base_delay, retry_max_delay),
        )

    @classmethod
    def ollama(
        cls,
        model: str = DEFAULT_MODELS["ollama"],
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float | None = 300.0,
        max_retries: int = 2,
        http_client: httpx.AsyncClient | None = None,
        max_connections: int | None = None,
        retry_base_delay: float = 0.5,
        retry_max_delay: float = 8.0,
        options: OptionsLike = None,
        **provider_options: Any,
    ) -> Lang:
        """Ollama's native API (``OLLAMA_HOST`` honoured; no key for a local server)."""
        from .providers import ollama

        provider = ollama.OllamaProvider(
            base_url=base_url or ollama.default_base_url(),
            api_key=_key(api_key, *ollama.API_KEY_ENV_VARS, required=False),
            **provider_options,
        )
        return cls._http(
            provider,
            model,
            timeout,
            max_retries,
            http_client,
            options,
            max_connections,
            retry=(retry_base_delay, retry_max_delay),
        )

    @classmethod
    def scripted(cls, turns: TurnSource, *, options: OptionsLike = None) -> Lang:
        """A model that replays ``turns`` and records each request (for tests)."""
        from .providers.scripted import ScriptedModel

        return cls(ScriptedModel(turns), options=options)  # type: ignore[return-value, call-arg]

    @classmethod
    def offline(cls, *, options: OptionsLike = None) -> Lang:
        """A model with no network: calls each tool once, then answers from the results."""
        from .providers.scripted import OfflineModel

        return cls(OfflineModel(), options=options)  # type: ignore[return-value, call-arg]

    @classmethod
    def from_env(cls, *, options: OptionsLike = None) -> Lang:
        """The first provider whose key is set, else the offline model.

        ``AIWRAPPER_PROVIDER`` (openai, anthropic, gemini, ollama, offline) picks one
        explicitly and ``AIWRAPPER_MODEL`` names the model; otherwise the keys are tried in
        the order OpenAI, Anthropic, Gemini.
        """
        env = os.environ
        chosen = env.get("AIWRAPPER_PROVIDER") or next(
            (name for name, var in _ENV_KEYS if env.get(var)), "offline"
        )
        if chosen == "offline":
            if not env.get("AIWRAPPER_PROVIDER"):  # not asked for: say why, once per call
                logging.getLogger("aiwrapper").warning(
                    "Lang.from_env(): no API key found (OPENAI_API_KEY, ANTHROPIC_API_KEY, "
                    "GEMINI_API_KEY, or AIWRAPPER_PROVIDER): running on the offline model"
                )
            return cls.offline(options=options)
        if chosen not in DEFAULT_MODELS:
            raise ConfigError(
                f"AIWRAPPER_PROVIDER={chosen!r} is not one of {sorted(DEFAULT_MODELS)}"
            )
        factory = getattr(cls, chosen)
        return factory(env.get("AIWRAPPER_MODEL") or DEFAULT_MODELS[chosen], options=options)  # type: ignore[no-any-return]


def _stripped(key: str | None) -> str | None:
    """A key without the whitespace around it: a key read from a file ends with a newline,
    which no header may carry (and the failing header's text would show the key)."""
    return key.strip() if key is not None else None


_ENV_KEYS = (
    ("openai", "OPENAI_API_KEY"),
    ("anthropic", "ANTHROPIC_API_KEY"),
    ("gemini", "GEMINI_API_KEY"),
    ("gemini", "GOOGLE_API_KEY"),
)
