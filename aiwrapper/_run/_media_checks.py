"""Images and documents checked before a request is sent: sizes, URLs, and what the model sees.

Each round, before the provider encodes the conversation, ``sendable`` looks at its images and
documents. A part of a kind a known model cannot take (an image for a text-only model; a PDF
for one that takes neither PDFs nor images) is sent as its text description, with a
``CapabilityWarning`` once per process: never dropped silently, and only in the request (the
conversation keeps the part). The parts left are checked against the wire's row of
``_knowledge/_media_limits``: a part over a size limit, a request over its total or its count
of images or documents, a URL the wire cannot take (nothing is downloaded here), or a PDF for
a wire without PDFs is a ``ConfigError`` naming the part and the limit. A conversation without
images or documents costs one scan of its parts.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TypeGuard

from .._conversation._content import media_label
from .._conversation._media import Image, Media
from .._conversation._messages import LangMessage
from .._conversation._parts import MediaPart, Part, TextPart
from .._errors import ConfigError
from .._knowledge._media_limits import MediaLimits, media_limits
from .._knowledge._modelfacts import ModelFacts
from .._knowledge._modelinfo import ModelInfo
from ._capabilities import warn_lacking

__all__ = ["kind_of", "sendable"]

# The input modalities (as the catalogue names them) a model needs to be shown each kind; a
# model that sees images reads PDFs on every wire that takes them (as page images), and the
# catalogue lists "pdf" for few models that do.
_NEEDS = {"image": ("image",), "pdf": ("pdf", "image"), "text": ()}
_NOUNS = {"image": "images", "pdf": "PDFs"}


@dataclass(frozen=True, slots=True)
class _Found:
    """One image or document of the request, and where it stands."""

    message: int
    part: int
    media: Media

    @property
    def where(self) -> str:
        return f"message {self.message}, part {self.part}"


def kind_of(media: Media) -> str:
    """``"image"``, ``"text"`` (a plain-text document) or ``"pdf"`` (any other document)."""
    if isinstance(media, Image):
        return "image"
    return "text" if media.media_type == "text/plain" else "pdf"


def sendable(
    messages: Sequence[LangMessage], provider: str, model: str, facts: ModelFacts
) -> Sequence[LangMessage]:
    """The messages to send ``model`` at ``provider``: ``messages`` itself, or a copy in which
    the parts the model cannot take are described.

    Raises:
        ConfigError: A part over a size limit, a request over its limits, a URL the wire
            cannot take, or a PDF for a wire without PDFs.
    """
    found = list(_media(messages))
    if not found:
        return messages
    unseen = _unseen_kinds(facts.info(provider, model), found)
    limits = media_limits(provider)
    if limits is not None:
        _check(limits, model, [f for f in found if kind_of(f.media) not in unseen])
    return _described(messages, unseen) if unseen else messages


def _media(messages: Sequence[LangMessage]) -> Iterator[_Found]:
    for m, message in enumerate(messages):
        for p, part in enumerate(message.parts):
            if isinstance(part, MediaPart):
                yield _Found(m, p, part.media)


def _unseen_kinds(info: ModelInfo | None, found: list[_Found]) -> set[str]:
    """The kinds among ``found`` that ``info``'s model is known not to take, warned once."""
    if info is None or not info.input_modalities:  # a model nobody knows: sent as it is
        return set()
    unseen: set[str] = set()
    for kind in sorted({kind_of(f.media) for f in found}):
        needs = _NEEDS[kind]
        if needs and not any(m in info.input_modalities for m in needs):
            unseen.add(kind)
            warn_lacking(
                info,
                kind,
                f"{info.provider} model {info.model!r} takes no {_NOUNS[kind]} (its input: "
                f"{', '.join(info.input_modalities)}): each is sent as a text description",
            )
    return unseen


def _described(messages: Sequence[LangMessage], unseen: set[str]) -> list[LangMessage]:
    """A copy of ``messages`` whose parts of the ``unseen`` kinds are text descriptions."""
    out: list[LangMessage] = []
    for message in messages:
        if any(_hidden(p, unseen) for p in message.parts):
            message = dataclasses.replace(message, parts=_joined(message.parts, unseen))
        out.append(message)
    return out


def _hidden(part: Part, unseen: set[str]) -> bool:
    return isinstance(part, MediaPart) and kind_of(part.media) in unseen


def _joined(parts: list[Part], unseen: set[str]) -> list[Part]:
    """The parts with each hidden one described, plain texts side by side joined by lines."""
    out: list[Part] = []
    for part in parts:
        if isinstance(part, MediaPart) and kind_of(part.media) in unseen:
            part = TextPart(part.describe())
        previous = out[-1] if out else None
        if _plain(part) and _plain(previous):
            out[-1] = TextPart("\n".join(t for t in (previous.text, part.text) if t))
        else:
            out.append(part)
    return out


def _plain(part: Part | None) -> TypeGuard[TextPart]:
    return type(part) is TextPart and part.state is None


def _check(limits: MediaLimits, model: str, found: list[_Found]) -> None:
    for item in found:
        _check_part(limits, model, item)
    _check_counts(limits, found)
    total = sum(_measured(limits, f.media, "request") for f in found)
    if limits.per_request is not None and total > limits.per_request:
        largest = max(found, key=lambda f: f.media.size)
        raise ConfigError(
            f"the images and documents of this request come to {total:,} bytes"
            f"{_as(limits, 'request')}, over the {limits.wire} limit of {limits.per_request:,} per "
            f"request (the largest: {largest.where}, {media_label(largest.media)}); send "
            f"fewer or smaller ones (see {limits.source})"
        )


def _check_part(limits: MediaLimits, model: str, item: _Found) -> None:
    media, kind = item.media, kind_of(item.media)
    if kind == "pdf" and not limits.pdf:
        raise ConfigError(
            f"{item.where}: {media_label(media)}: {limits.wire} takes no PDFs; send the "
            "document's text instead (a str, or Document.from_bytes(text, 'text/plain'))"
        )
    if media.url is not None:
        _check_url(limits, item, kind)
        return
    limit = limits.per_image if kind == "image" else limits.per_document
    if kind == "pdf" and limits.exempt(model):
        limit = None
    size = _measured(limits, media, media.kind)
    if limit is not None and size > limit:
        counted = _as(limits, media.kind)
        raise ConfigError(
            f"{item.where}: {media_label(media)} is over the {limits.wire} limit of "
            f"{limit:,} bytes{counted} per {media.kind} (this one: {size:,}); make it smaller "
            f"before sending (see {limits.source})"
        )


def _check_url(limits: MediaLimits, item: _Found, kind: str) -> None:
    url = item.media.url
    assert url is not None
    schemes = limits.urls.get(kind, ())
    if url.startswith(schemes):
        return
    takes = f"takes {kind} URLs only as {', '.join(schemes)}" if schemes else "takes no URL"
    name = type(item.media).__name__
    raise ConfigError(
        f"{item.where}: the {item.media.kind} at {url[:80]} cannot be sent: for this kind "
        f"{limits.wire} {takes}, and nothing is downloaded here; read it yourself and pass "
        f"{name}.from_path or {name}.from_bytes"
    )


def _check_counts(limits: MediaLimits, found: list[_Found]) -> None:
    images = sum(1 for f in found if isinstance(f.media, Image))
    documents = len(found) - images
    for noun, count, most in (
        ("images", images, limits.max_images),
        ("documents", documents, limits.max_documents),
    ):
        if most is not None and count > most:
            raise ConfigError(
                f"this request holds {count} {noun}, over the {limits.wire} limit of {most} "
                f"per request (see {limits.source})"
            )


def _measured(limits: MediaLimits, media: Media, limit: str) -> int:
    """The size ``limit`` counts: the bytes, or the base64 text made of them."""
    return 4 * ((media.size + 2) // 3) if limit in limits.encoded else media.size


def _as(limits: MediaLimits, limit: str) -> str:
    return " as base64" if limit in limits.encoded else ""
