"""Images and documents checked before sending: limits, URLs, and models that cannot see them."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from aiwrapper import CapabilityWarning, ConfigError, Document, Image, Lang, LangMessages, tool
from aiwrapper._conversation._messages import MediaPart, TextPart
from aiwrapper._knowledge._media_limits import media_limits
from aiwrapper._knowledge._modelfacts import ModelFacts
from aiwrapper._run._media_checks import sendable
from aiwrapper.models import register_model
from aiwrapper.providers.scripted import ScriptedModel

from .media_samples import PDF, png

pytestmark = pytest.mark.anyio

MB = 1 << 20  # the vendors' MB, read as MiB
IMAGE = Image.from_bytes(png())
PAPER = Document.from_bytes(PDF, name="paper.pdf")
NOTES = Document.from_bytes(b"plain notes", "text/plain")


def _lang(provider: str, model: str, turns: Any = ("ok",)) -> Lang:
    """A scripted model that goes by a provider's name, so that provider's checks apply."""
    scripted = ScriptedModel(list(turns), model=model)
    scripted.name = provider  # type: ignore[misc]
    return Lang(scripted)


def _sized(size: int, header: bytes = b"\x89PNG\r\n\x1a\n") -> bytes:
    return header + bytes(size - len(header))


@pytest.mark.usefixtures("fresh_model_facts")
async def test_a_text_only_model_gets_a_description_and_one_warning() -> None:
    register_model("openai", "text-only", input_modalities=("text",))
    lang = _lang("openai", "text-only", ["one", "two"])
    with pytest.warns(CapabilityWarning, match=r"'text-only' takes no images .*text description"):
        first = await lang.ask(["What is this?", IMAGE, "Thanks."])
    sent = lang.requests[0].messages[0]
    assert sent.parts == [TextPart(f"What is this?\n{IMAGE.describe()}\nThanks.")]
    assert first.messages[0].parts[1] == MediaPart(IMAGE)  # the conversation keeps the image
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # warned once per process and model
        await lang.chat(first.messages.with_user("Again?"))
    assert lang.requests[1].messages[0].parts[0].text.count("cannot be shown") == 1


@pytest.mark.usefixtures("fresh_model_facts")
async def test_a_tool_results_image_is_described_for_a_text_only_model() -> None:
    register_model("anthropic", "blind", input_modalities=("text",))

    @tool
    def snap() -> list[Any]:
        """Take a screenshot."""
        return ["Screen:", IMAGE]

    turns = [{"function_calls": [{"name": "snap", "id": "c1"}]}, "Seen."]
    lang = _lang("anthropic", "blind", turns)
    with pytest.warns(CapabilityWarning):
        result = await lang.ask("Look at my screen", functions=[snap])
    result_message = lang.requests[1].messages[-1]
    assert result_message.parts == [TextPart(f"Screen:\n{IMAGE.describe()}")]
    assert result.messages[2].parts == [TextPart("Screen:"), MediaPart(IMAGE)]


@pytest.mark.usefixtures("fresh_model_facts")
async def test_a_vision_model_reads_pdfs_and_text_documents_are_always_sent() -> None:
    register_model("openai", "vision", input_modalities=("text", "image"))
    register_model("openai", "words", input_modalities=("text",))
    lang = _lang("openai", "vision")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        await lang.ask(["Read:", PAPER, NOTES])
        await _lang("openai", "words").ask(["Read:", NOTES])
    assert lang.requests[0].messages[0].parts[1:] == [MediaPart(PAPER), MediaPart(NOTES)]
    with pytest.warns(CapabilityWarning, match="takes no PDFs"):
        await _lang("openai", "words").ask(["Read:", PAPER])


def test_a_model_nobody_knows_gets_every_part_and_no_media_costs_nothing() -> None:
    facts = ModelFacts()
    messages = LangMessages().add_user(["Look:", IMAGE])
    assert sendable(messages, "openai", "brand-new-model-x", facts) is messages
    plain = LangMessages().add_user("hi")
    assert sendable(plain, "anthropic", "claude-sonnet-4-5", facts) is plain


@pytest.mark.parametrize(
    ("provider", "model", "parts", "message"),
    [
        (
            "anthropic",
            "m",
            ["Look", Image.from_bytes(_sized(4_000_000))],
            r"^message 0, part 1: \[image/png image, 4,000,000 bytes\] is over the Anthropic "
            r"Messages limit of 5,242,880 bytes as base64 per image \(this one: 5,333,336\)",
        ),
        (
            "openai",
            "m",
            [Image.from_bytes(_sized(20 * MB + 1))],
            r"^message 0, part 0: .* over the OpenAI Chat Completions limit of 20,971,520 bytes "
            r"per image \(this one: 20,971,521\)",
        ),
        (
            "bedrock",
            "anthropic.claude-3-5-sonnet-20240620-v1:0",
            [Document.from_bytes(_sized(4_800_000, PDF), name="big.pdf")],
            r"\[application/pdf document 'big.pdf', 4,800,000 bytes\] is over the Amazon Bedrock "
            r"Converse limit of 4,718,592 bytes per document",
        ),
        (
            "bedrock",
            "m",
            [Image.from_bytes(_sized(3_932_161))],
            "limit of 3,932,160 bytes per image",
        ),
        ("anthropic", "m", [IMAGE] * 601, "holds 601 images"),
        ("ollama", "llava", ["Read", PAPER], r"part 1: .*Ollama takes no PDFs; send the doc"),
    ],
)
async def test_a_part_over_a_limit_is_a_config_error_naming_part_and_limit(
    provider: str, model: str, parts: list[Any], message: str
) -> None:
    lang = _lang(provider, model)
    with pytest.raises(ConfigError, match=message) as caught:
        await lang.ask(parts)
    assert lang.requests == []  # nothing was sent
    assert caught.value.result is not None
    assert [m.role for m in caught.value.result.messages] == ["user"]  # no empty turn added


async def test_a_requests_total_is_checked_and_names_its_largest_part() -> None:
    each = _sized(3_500_000)  # 4,666,668 bytes as base64: each within Anthropic's 5 MB
    images = [Image.from_bytes(each) for _ in range(7)] + [Image.from_bytes(_sized(3_600_000))]
    with pytest.raises(
        ConfigError,
        match=r"come to 3\d,.* bytes as base64, over the Anthropic "
        r"Messages limit of 33,554,432 per request \(the largest: message 0, "
        r"part 7, \[image/png image, 3,600,000 bytes\]\)",
    ):
        await _lang("anthropic", "m").ask(images)


async def test_bedrocks_document_limit_does_not_bind_pdfs_on_claude_4() -> None:
    lang = _lang("bedrock", "us.anthropic.claude-sonnet-4-5-20250929-v1:0")
    await lang.ask([Document.from_bytes(_sized(4_800_000, PDF))])
    assert len(lang.requests) == 1


@pytest.mark.parametrize(
    ("provider", "media"),
    [
        ("openai", Image.from_url("https://x/cat.png")),
        ("openai", Image.from_url("http://x/cat.png")),
        ("openai-responses", Document.from_url("https://x/report.pdf")),
        ("anthropic", Document.from_url("https://x/report.pdf")),
        ("gemini", Image.from_url("gs://bucket/cat.png")),
        ("gemini", Document.from_url("https://x/report.pdf")),
        ("groq", Document.from_url("s3://b/k.pdf")),  # a server without a row decides itself
    ],
)
async def test_a_url_goes_by_reference_where_the_wire_takes_it(provider: str, media: Any) -> None:
    lang = _lang(provider, "m")
    await lang.ask(["Look", media])
    assert lang.requests[0].messages[0].parts[1] == MediaPart(media)


@pytest.mark.parametrize(
    ("provider", "media", "message"),
    [
        ("openai", Document.from_url("https://x/r.pdf"), "OpenAI Chat Completions takes no URL"),
        ("openai", Image.from_url("gs://b/cat.png"), "takes image URLs only as https://, http://"),
        ("anthropic", Document.from_url("https://x/a.txt"), "Anthropic Messages takes no URL"),
        ("bedrock", Image.from_url("s3://b/cat.png"), "Amazon Bedrock Converse takes no URL"),
        ("gemini", Image.from_url("http://x/cat.png"), "only as https://, gs://"),
        ("ollama", Image.from_url("https://x/cat.png"), "Ollama takes no URL"),
    ],
)
async def test_a_url_the_wire_cannot_take_is_a_config_error_suggesting_the_bytes(
    provider: str, media: Any, message: str
) -> None:
    name = type(media).__name__
    with pytest.raises(ConfigError, match=f"part 1: .*{message}.*nothing is downloaded here"):
        await _lang(provider, "m").ask(["Look", media])
    with pytest.raises(ConfigError, match=f"{name}.from_path or {name}.from_bytes"):
        await _lang(provider, "m").ask(["Look", media])


def test_a_row_counting_documents_refuses_one_too_many() -> None:
    from aiwrapper._knowledge._media_limits import MediaLimits
    from aiwrapper._run._media_checks import _check, _Found

    limits = MediaLimits("Some API", max_documents=1, source="https://example.com/limits")
    _check(limits, "m", [_Found(0, 1, PAPER)])
    with pytest.raises(ConfigError, match="holds 2 documents, over the Some API limit of 1"):
        _check(limits, "m", [_Found(0, 1, PAPER), _Found(2, 0, NOTES)])


def test_every_wire_has_a_row_with_its_source() -> None:
    for name in ("openai", "openai-responses", "anthropic", "bedrock", "gemini", "ollama"):
        limits = media_limits(name)
        assert limits is not None
        assert limits.source.startswith("https://")
    assert media_limits("scripted") is None
