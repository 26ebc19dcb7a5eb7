"""The credentials a route's ``Lang`` holds, found on every provider, and taken out of text."""

from __future__ import annotations

import httpx
import pytest

from aiwrapper import Lang
from aiwrapper.gateway._redact import Redactor, printable, scrub
from aiwrapper.providers.gemini import VertexConfig

KEY = "key-0123456789abcdef"


@pytest.mark.parametrize(
    ("make", "host"),
    [
        (lambda: Lang.openai(api_key=KEY), "api.openai.com"),
        (lambda: Lang.anthropic(api_key=KEY), "api.anthropic.com"),
        (lambda: Lang.gemini(api_key=KEY), "generativelanguage.googleapis.com"),
        (lambda: Lang.ollama(api_key=KEY, base_url="http://10.1.2.3:11434"), "10.1.2.3:11434"),
        (
            lambda: Lang.gemini(vertex=VertexConfig(project="p", access_token=KEY)),
            "aiplatform.googleapis.com",
        ),
        (
            lambda: Lang.openai_compatible(
                "http://gpu.local:8000/v1",
                model="m",
                http_client=httpx.AsyncClient(headers={"X-Custom-Token": KEY}),
            ),
            "gpu.local:8000",
        ),
    ],
    ids=["openai", "anthropic", "gemini", "ollama", "vertex-token", "borrowed-client-header"],
)
def test_every_providers_key_and_host_are_found(make: object, host: str) -> None:
    lang = make()  # type: ignore[operator]
    redact = Redactor(lang)
    assert redact(f"refused {KEY}!") == "refused [redacted]!"
    assert redact.host == host


def test_a_route_without_network_has_nothing_to_hide() -> None:
    redact = Redactor(Lang.scripted(["hi"]))
    assert redact.secrets == []
    assert redact.host == "scripted"
    assert redact("a b c") == "a b c"


def test_userinfo_and_query_strings_are_cut_from_any_url() -> None:
    text = "see https://u:p@host.example/a?key=1&x=2 and http://plain.example/b?q#frag"
    assert scrub(text) == "see https://[redacted]@host.example/a and http://plain.example/b#frag"


def test_printable_escapes_control_characters_and_clips() -> None:
    assert printable("a\nb\r\x1b\u2028c") == "a\\x0ab\\x0d\\x1b\\x2028c"
    assert printable("x" * 50, 10) == "xxxxxxx..."


def test_a_setting_named_like_a_credential_that_holds_a_field_name_is_no_secret() -> None:
    redact = Redactor(Lang.openai_compatible(preset="groq", model="m", api_key="gsk_secret_1234"))
    text = "max_tokens is too large; max_completion_tokens too"
    assert redact(text) == text


def test_the_routes_own_header_credentials_are_redacted() -> None:
    options = {"extra_headers": {"Helicone-Auth": "Bearer hk-abcdef", "X-Tenant": "t1"}}
    redact = Redactor(Lang.openai(api_key="sk-test-1234", options=options))
    assert redact("refused hk-abcdef for tenant t1") == "refused [redacted] for tenant t1"
