"""Gemini requests and errors: URLs, headers, exact bodies, option mapping, error classes."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import pytest

from aiwrapper import Param
from aiwrapper import _errors as errors
from aiwrapper._conversation._messages import LangMessage, OpaquePart, ProviderState, ThinkingPart
from aiwrapper._run._contract import ProviderRequest
from aiwrapper._run._options import LangOptions, merge_options
from aiwrapper._wire._httpcall import HttpCall
from aiwrapper.providers.gemini import GeminiProvider, VertexConfig

FIXTURES = Path(__file__).parent.parent / "fixtures" / "gemini"
USER = LangMessage.text("user", "Hi")
USER_CONTENT = {"role": "user", "parts": [{"text": "Hi"}]}


class FakeTool:
    """Stands in for ``aiwrapper._tools.Tool``: a name and a fixed declaration per dialect."""

    def __init__(self, name: str = "get_weather") -> None:
        self.name = name

    def schema_for(self, dialect: str) -> dict[str, Any]:
        key = "parametersJsonSchema" if dialect == "gemini-json" else "parameters"
        return {"name": self.name, key: {"type": "object"}}


def call(
    provider: GeminiProvider | None = None,
    *,
    model: str = "gemini-2.5-flash",
    messages: list[LangMessage] | None = None,
    tools: list[FakeTool] | None = None,
    stream: bool = True,
    **options: Any,
) -> HttpCall:
    request = ProviderRequest(
        model=model,
        messages=messages if messages is not None else [USER],
        tools=tools if tools is not None else [],
        options=merge_options(LangOptions(**options)),
        stream=stream,
    )
    return (provider or GeminiProvider(api_key="AIza-test")).encode(request)


# --- endpoints and credentials ---------------------------------------------------------


def test_google_ai_streaming_url_and_headers() -> None:
    http = call()
    assert http.url == (
        "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash"
        ":streamGenerateContent?alt=sse"
    )
    assert http.headers == {"Content-Type": "application/json", "x-goog-api-key": "AIza-test"}
    assert http.stream is True
    assert http.body == {"contents": [USER_CONTENT]}


def test_google_ai_non_streaming_url_strips_models_prefix_and_honours_version() -> None:
    provider = GeminiProvider(api_key="k", base_url="http://proxy.local/", api_version="v1")
    http = call(provider, model="models/gemini-2.0-flash", stream=False)
    assert http.url == "http://proxy.local/v1/models/gemini-2.0-flash:generateContent"
    assert http.stream is False


def test_vertex_regional_url_with_bearer_token_and_no_api_key_header() -> None:
    vertex = VertexConfig(project="my-proj", location="us-central1", access_token="ya29.tok")
    http = call(GeminiProvider(api_key="ignored", vertex=vertex))
    assert http.url == (
        "https://us-central1-aiplatform.googleapis.com/v1beta1/projects/my-proj/locations/"
        "us-central1/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    )
    assert http.headers == {"Content-Type": "application/json", "Authorization": "Bearer ya29.tok"}


def test_vertex_global_location_uses_global_host() -> None:
    vertex = VertexConfig(project="p", access_token="t", api_version="v1")
    http = call(GeminiProvider(api_key=None, vertex=vertex), stream=False)
    assert http.url == (
        "https://aiplatform.googleapis.com/v1/projects/p/locations/global/publishers/google/"
        "models/gemini-2.5-flash:generateContent"
    )


def test_vertex_express_mode_uses_api_key_and_publisher_path() -> None:
    http = call(GeminiProvider(api_key="vx-key", vertex=VertexConfig(project="")))
    assert http.url == (
        "https://aiplatform.googleapis.com/v1beta1/publishers/google/models/gemini-2.5-flash"
        ":streamGenerateContent?alt=sse"
    )
    assert http.headers == {"Content-Type": "application/json", "x-goog-api-key": "vx-key"}


def test_vertex_custom_base_url_replaces_the_host() -> None:
    vertex = VertexConfig(project="p", location="europe-west4", access_token="t")
    provider = GeminiProvider(api_key=None, base_url="https://psc.example", vertex=vertex)
    assert provider.model_url("m") == (
        "https://psc.example/v1beta1/projects/p/locations/europe-west4/publishers/google/models/m"
    )


def test_missing_credentials_are_config_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(errors.ConfigError, match="GEMINI_API_KEY"):
        GeminiProvider(api_key=None)
    # On Vertex, no token and no key means Application Default Credentials, from the extra.
    monkeypatch.setitem(sys.modules, "google.auth", None)
    with pytest.raises(errors.ConfigError, match=r"aiwrapper\[google\]"):
        GeminiProvider(api_key=None, vertex=VertexConfig(project="p"))


def test_vertex_without_a_token_or_key_uses_application_default_credentials() -> None:
    provider = GeminiProvider(api_key=None, vertex=VertexConfig(project="p"))
    assert provider.auth is not None  # fetched on the first request, never at construction
    assert "Authorization" not in provider._headers()


def test_unknown_schema_dialect_is_config_error() -> None:
    with pytest.raises(errors.ConfigError, match="schema_dialect"):
        GeminiProvider(api_key="k", schema_dialect="openai")  # type: ignore[arg-type]


def test_secrets_stay_out_of_reprs() -> None:
    vertex = VertexConfig(project="p", access_token="ya29.secret")
    text = repr(GeminiProvider(api_key="AIza-secret", vertex=vertex))
    assert "secret" not in text
    assert "project='p'" in text


def test_extra_headers_are_added_and_extra_body_adds_keys_one_level_down() -> None:
    http = call(
        extra_headers={"x-goog-user-project": "billing"},
        extra_body={"generationConfig": {"candidateCount": 1}, "safetySettings": []},
        temperature=0.5,
    )
    assert http.headers["x-goog-user-project"] == "billing"
    assert http.body == {
        "contents": [USER_CONTENT],
        "generationConfig": {"temperature": 0.5, "candidateCount": 1},
        "safetySettings": [],
    }
    with pytest.raises(errors.ConfigError, match="cannot replace 'generationConfig"):
        call(top_p=0.5, extra_body={"generationConfig": {"topP": 0.9}})


# --- body: tools, toolConfig, generationConfig -------------------------------------------


@pytest.mark.parametrize(
    ("dialect", "key"), [("gemini", "parameters"), ("gemini-json", "parametersJsonSchema")]
)
def test_tools_are_function_declarations_in_the_chosen_dialect(dialect: Any, key: str) -> None:
    provider = GeminiProvider(api_key="k", schema_dialect=dialect)
    http = call(provider, tools=[FakeTool("a"), FakeTool("b")])
    assert http.body["tools"] == [
        {
            "functionDeclarations": [
                {"name": "a", key: {"type": "object"}},
                {"name": "b", key: {"type": "object"}},
            ]
        }
    ]


@pytest.mark.parametrize(
    ("choice", "config"),
    [
        ("auto", {"mode": "AUTO"}),
        ("none", {"mode": "NONE"}),
        ("required", {"mode": "ANY"}),
        ("b", {"mode": "ANY", "allowedFunctionNames": ["b"]}),
        ({"name": "a"}, {"mode": "ANY", "allowedFunctionNames": ["a"]}),
    ],
)
def test_function_call_maps_to_function_calling_config(choice: Any, config: Any) -> None:
    http = call(tools=[FakeTool("a"), FakeTool("b")], function_call=choice)
    assert http.body["toolConfig"] == {"functionCallingConfig": config}


def test_function_call_unset_sends_no_tool_config() -> None:
    assert "toolConfig" not in call(tools=[FakeTool()]).body


def test_function_call_auto_without_tools_sends_nothing() -> None:
    assert call(function_call="auto").body == {"contents": [USER_CONTENT]}


def test_parallel_tool_calls_false_is_config_error_and_true_sends_nothing() -> None:
    with pytest.raises(errors.ConfigError, match="parallel=False"):
        call(tools=[FakeTool()], parallel_tool_calls=False)
    assert call(parallel_tool_calls=True).body == {"contents": [USER_CONTENT]}


def test_generation_config_fields() -> None:
    body = call(temperature=0.2, max_tokens=512, top_p=0.9, stop="END").body
    assert body["generationConfig"] == {
        "temperature": 0.2,
        "maxOutputTokens": 512,
        "topP": 0.9,
        "stopSequences": ["END"],
    }
    assert call(stop=["a", "b"]).body["generationConfig"] == {"stopSequences": ["a", "b"]}


@pytest.mark.parametrize("model", ["gemini-2.5-flash", "gemini-3-pro-preview"])
@pytest.mark.parametrize(
    ("thinking", "config"),
    [
        (True, {"includeThoughts": True}),
        (1024, {"includeThoughts": True, "thinkingBudget": 1024}),
        (-1, {"includeThoughts": True, "thinkingBudget": -1}),
        (0, {"thinkingBudget": 0}),
        (False, {"thinkingBudget": 0}),
    ],
)
def test_thinking_budgets_and_defaults_are_the_same_on_every_generation(
    model: str, thinking: Any, config: Any
) -> None:
    assert call(model=model, thinking=thinking).body["generationConfig"] == {
        "thinkingConfig": config
    }


@pytest.mark.parametrize(
    ("thinking", "level", "budget"),
    [("minimal", "MINIMAL", 512), ("low", "LOW", 1024), ("medium", "MEDIUM", 8192),
     ("HIGH", "HIGH", 24576)],
)  # fmt: skip
def test_an_effort_is_a_level_on_gemini_3_and_a_budget_before_never_both(
    thinking: str, level: str, budget: int
) -> None:
    for model in ("gemini-3-pro-preview", "gemini-3.1-flash", "gemini-flash-latest"):
        assert call(model=model, thinking=thinking).body["generationConfig"] == {
            "thinkingConfig": {"includeThoughts": True, "thinkingLevel": level}
        }
    for model in ("gemini-2.5-flash", "models/gemini-2.5-pro", "gemini-2.0-flash-001"):
        assert call(model=model, thinking=thinking).body["generationConfig"] == {
            "thinkingConfig": {"includeThoughts": True, "thinkingBudget": budget}
        }


@pytest.mark.parametrize(("thinking", "shown"), [("max", "'max'"), (-2, "-2"), (1.5, "1.5")])
def test_unknown_thinking_values_are_config_errors(thinking: Any, shown: str) -> None:
    with pytest.raises(errors.ConfigError, match=f"thinking={shown} is not valid"):
        call(thinking=thinking)


# --- body: conversation shapes ---------------------------------------------------------


def test_all_system_messages_go_to_system_instruction() -> None:
    messages = [LangMessage.text("system", "A."), LangMessage.text("system", "B."), USER]
    assert call(messages=messages).body == {
        "systemInstruction": {"parts": [{"text": "A."}, {"text": "B."}]},
        "contents": [USER_CONTENT],
    }


def test_assistant_turn_of_only_foreign_thinking_is_left_out() -> None:
    thinking = LangMessage("assistant", [ThinkingPart("hmm", ProviderState("anthropic", {}))])
    reply = LangMessage.text("assistant", "Hello!")
    body = call(messages=[USER, thinking, reply, USER]).body
    assert body["contents"] == [
        USER_CONTENT,
        {"role": "model", "parts": [{"text": "Hello!"}]},
        USER_CONTENT,
    ]


def test_gemini_opaque_parts_are_replayed_verbatim_and_foreign_ones_dropped() -> None:
    code = {"executableCode": {"language": "PYTHON", "code": "print(1)"}}
    parts = [
        OpaquePart(ProviderState("gemini", {"part": code})),
        OpaquePart(ProviderState("anthropic", {"type": "server_tool_use"})),
    ]
    body = call(messages=[USER, LangMessage("assistant", parts)]).body
    assert body["contents"][1] == {"role": "model", "parts": [code]}


def test_empty_user_messages_are_left_out_and_consecutive_texts_share_a_content() -> None:
    # Gemini rejects an empty text part (400 "empty text parameter").
    messages = [USER, LangMessage.text("user", ""), LangMessage.text("user", "Again")]
    assert call(messages=messages).body["contents"] == [
        {"role": "user", "parts": [{"text": "Hi"}, {"text": "Again"}]}
    ]


def test_tool_result_without_a_name_is_config_error() -> None:
    orphan = LangMessage("tool", [LangMessage.text("user", "x").parts[0]], tool_call_id="zz")
    with pytest.raises(errors.ConfigError, match="'zz' names no function"):
        call(messages=[USER, orphan])


# --- HTTP errors -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "fixture", "cls", "message"),
    [
        (429, "error_429_retry.json", errors.RateLimitError, "You exceeded your current quota"),
        (400, "error_400_api_key_invalid.json", errors.AuthenticationError, "API key not valid"),
        (400, "error_400_schema.json", errors.BadRequestError, "Invalid JSON payload received"),
        (401, "error_401_vertex.json", errors.AuthenticationError, "Request had invalid auth"),
        (403, "error_403_vertex.json", errors.PermissionDeniedError, "Permission 'aiplatform"),
        (404, "error_404.json", errors.NotFoundError, "models/gemini-9-ultra is not found"),
        (500, "error_500.json", errors.ServerError, "An internal error has occurred"),
        (503, "error_503.json", errors.OverloadedError, "The model is overloaded"),
    ],
)
def test_http_errors_map_by_google_status(
    status: int, fixture: str, cls: type[errors.ProviderError], message: str
) -> None:
    body = (FIXTURES / fixture).read_bytes()
    exc = GeminiProvider(api_key="k").error(status, body, {})
    assert type(exc) is cls
    assert exc.message.startswith(message)
    assert (exc.provider, exc.status_code) == ("gemini", status)
    assert exc.body["error"]["code"] == status


def test_retry_info_sets_retry_after() -> None:
    body = (FIXTURES / "error_429_retry.json").read_bytes()
    assert GeminiProvider(api_key="k").error(429, body, {}).retry_after == 22.0


def test_fractional_retry_delay_wins_over_header() -> None:
    body = (
        b'[{"error": {"code": 429, "message": "slow down", "status": "RESOURCE_EXHAUSTED",'
        b' "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo",'
        b' "retryDelay": "1.5s"}]}}]'
    )
    exc = GeminiProvider(api_key="k").error(429, body, {"Retry-After": "9"})
    assert (type(exc), exc.message, exc.retry_after) == (errors.RateLimitError, "slow down", 1.5)


def test_retry_after_header_is_used_without_retry_info() -> None:
    exc = GeminiProvider(api_key="k").error(
        503, (FIXTURES / "error_503.json").read_bytes(), {"retry-after": "3"}
    )
    assert exc.retry_after == 3.0


def test_non_json_error_body_falls_back_to_http_status_and_text() -> None:
    exc = GeminiProvider(api_key="k").error(502, b"<html>Bad Gateway</html>\n", {})
    assert (type(exc), exc.message) == (errors.ServerError, "<html>Bad Gateway</html>")
    empty = GeminiProvider(api_key="k").error(418, b"", {})
    assert (type(empty), empty.message) == (
        errors.BadRequestError,
        "HTTP 418 without an error message",
    )


# --- rendered schemas of real tools ------------------------------------------------------

# The keys a Gemini ``Schema`` accepts; anything else fails the request.
GEMINI_SCHEMA_KEYS = {
    "type", "format", "title", "description", "nullable", "enum", "items", "minItems",
    "maxItems", "properties", "required", "propertyOrdering", "minProperties",
    "maxProperties", "minLength", "maxLength", "pattern", "minimum", "maximum", "anyOf",
    "default", "example",
}  # fmt: skip


def schema_key_violations(schema: Any, path: str = "") -> list[str]:
    """Every key outside the Gemini whitelist, and every ARRAY without items, by path."""
    if not isinstance(schema, dict):
        return [f"{path}: not an object"]
    bad = [f"{path}/{key}" for key in schema if key not in GEMINI_SCHEMA_KEYS]
    if str(schema.get("type", "")).upper() == "ARRAY" and "items" not in schema:
        bad.append(f"{path}: ARRAY without items")
    if "type" not in schema and "anyOf" not in schema:
        # 400 "...properties[x].type: must be specified when not using one_of, any_of or
        # all_of fields" (danny-avila/LibreChat#6971).
        bad.append(f"{path}: no type")
    for name, sub in (schema.get("properties") or {}).items():
        bad += schema_key_violations(sub, f"{path}/properties/{name}")
    if "items" in schema:
        bad += schema_key_violations(schema["items"], f"{path}/items")
    for i, sub in enumerate(schema.get("anyOf") or []):
        bad += schema_key_violations(sub, f"{path}/anyOf/{i}")
    return bad


@dataclass
class Node:
    """A tree node (a recursive type)."""

    label: str
    children: list[Node]
    weight: float | None = None


@dataclass
class Point:
    """A point."""

    x: int
    y: int


def plot(
    root: Node,
    where: Point | str,
    tags: dict[str, int],
    mode: Literal["fast", "exact"] = "fast",
    limit: int | None = None,
) -> str:
    """Plot a tree.

    Args:
        root: The tree.
        where: A point or a place name.
        tags: Free-form counters.
        mode: Speed or precision.
        limit: Cap on nodes.
    """
    return ""


def test_real_tools_render_only_whitelisted_gemini_schema_keys() -> None:
    try:
        from aiwrapper._tools import tool
    except ImportError as exc:  # the tools package is written concurrently
        pytest.skip(f"aiwrapper._tools.tool is not importable yet: {exc}")
    declaration = tool(plot).schema_for("gemini")
    assert declaration["name"] == "plot"
    assert "parametersJsonSchema" not in declaration
    assert schema_key_violations(declaration["parameters"]) == []
    properties = declaration["parameters"]["properties"]
    assert [arm.get("type") for arm in properties["where"]["anyOf"]] == ["object", "string"]
    root = properties["root"]
    assert root["properties"]["children"]["items"]["type"].upper() == "OBJECT"


def loose(payload: Any, note: str = "") -> str:
    """A tool taking anything."""
    return ""


def test_an_any_parameter_still_renders_a_gemini_type() -> None:
    from aiwrapper._tools import tool

    assert schema_key_violations(tool(loose).schema_for("gemini")["parameters"]) == []


# Google's published keyword list for ``parametersJsonSchema``.
GEMINI_JSON_KEYS = {
    "$id", "$defs", "$ref", "$anchor", "type", "format", "title", "description", "enum",
    "items", "prefixItems", "minItems", "maxItems", "minimum", "maximum", "anyOf", "oneOf",
    "properties", "additionalProperties", "required", "propertyOrdering",
}  # fmt: skip


def json_schema_violations(schema: Any, path: str = "") -> list[str]:
    """Unlisted keywords, and ``$ref`` nodes with non-``$`` siblings, by path."""
    if isinstance(schema, list):
        return [v for i, s in enumerate(schema) for v in json_schema_violations(s, f"{path}/{i}")]
    if not isinstance(schema, dict):
        return []
    bad = [f"{path}/{key}" for key in schema if key not in GEMINI_JSON_KEYS]
    if "$ref" in schema and any(not key.startswith("$") for key in schema):
        bad.append(f"{path}: $ref with siblings")
    for key in ("properties", "$defs"):
        for name, sub in (schema.get(key) or {}).items():
            bad += json_schema_violations(sub, f"{path}/{key}/{name}")
    for key in ("items", "additionalProperties", "anyOf", "oneOf", "prefixItems"):
        bad += json_schema_violations(schema.get(key), f"{path}/{key}")
    return bad


def test_real_tools_render_only_listed_gemini_json_keywords() -> None:
    from aiwrapper._tools import tool

    declaration = tool(plot).schema_for("gemini-json")
    assert "parameters" not in declaration
    schema = declaration["parametersJsonSchema"]
    assert json_schema_violations(schema) == []
    assert schema["type"] == "object"
    assert schema["properties"]["root"] == {
        "anyOf": [{"$ref": "#/$defs/Node"}],
        "description": "The tree.",
    }


def constrained(
    code: Annotated[str, Param(pattern="^[A-Z]{3}$", min_length=3)],
    n: Annotated[int, Param(gt=0)],
    pick: Literal[1, 2] = 1,
) -> str:
    """Constraints neither Gemini dialect can carry as keywords."""
    return ""


@pytest.mark.parametrize("dialect", ["gemini", "gemini-json"])
def test_constraints_never_reach_the_wire_as_unsupported_keywords(dialect: str) -> None:
    from aiwrapper._tools import tool

    declaration = tool(constrained).schema_for(dialect)
    if dialect == "gemini":
        assert schema_key_violations(declaration["parameters"]) == []
    else:
        assert json_schema_violations(declaration["parametersJsonSchema"]) == []
