"""What each provider's wire takes of images and documents, and the sizes its vendor documents.

One row per provider name (a ``Lang`` factory's wire): the documented size limits per image,
per document and per request, the most images and documents one request may hold, which
kinds go by URL (and with which schemes), and whether PDFs are taken at all. The run checks a
request against its row before sending (``_run/_media_checks``); a name without a row (a
compatible server, a custom ``Model``) is not checked, and its server decides. Each number
cites the vendor page it comes from. A size a vendor writes in MB is read as MiB (1,048,576
bytes), the larger reading, so nothing the server would take is refused here; text is not
counted toward a request's limit, so a request within these limits can still be refused for
its whole size.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["MediaLimits", "media_limits"]

MB = 1 << 20  # as the vendors write it, read as MiB (see above)


@dataclass(frozen=True, slots=True)
class MediaLimits:
    """What one wire takes of images and documents; ``None`` where nothing is documented.

    Attributes:
        wire: The API's name, for messages (``"Anthropic Messages"``).
        encoded: The limits that count the base64 text sent rather than the file's bytes:
            any of ``"image"``, ``"document"`` and ``"request"``.
        per_image: The largest image.
        per_document: The largest document.
        per_request: All images and documents of one request together.
        max_images: The most images in one request.
        max_documents: The most documents in one request.
        urls: The URL schemes taken, by kind: ``"image"``, ``"pdf"`` (a document by URL whose
            type is unknown counts as one), ``"text"``. A kind not listed takes no URL.
        pdf: Whether PDFs are taken at all.
        document_limit_exempt: Models (a regex searched in the model id) whose PDFs the
            per-document limit does not bind.
        source: The vendor page the numbers come from.
    """

    wire: str
    encoded: frozenset[str] = frozenset()
    per_image: int | None = None
    per_document: int | None = None
    per_request: int | None = None
    max_images: int | None = None
    max_documents: int | None = None
    urls: dict[str, tuple[str, ...]] = field(default_factory=dict)
    pdf: bool = True
    document_limit_exempt: str | None = None
    source: str = ""

    def exempt(self, model: str) -> bool:
        """Whether ``model``'s PDFs are free of the per-document limit."""
        pattern = self.document_limit_exempt
        return pattern is not None and re.search(pattern, model) is not None


_WEB = ("https://", "http://")
_GOOGLE = ("https://", "gs://")

_OPENAI_PAGE = "https://platform.openai.com/docs/guides/images-vision"

# Both OpenAI wires: https://platform.openai.com/docs/guides/images-vision (image input
# requirements: 20 MB per image, 500 images and 50 MB of image bytes per request) and
# https://developers.openai.com/api/docs/guides/pdf-files (files within the same 50 MB; file
# URLs are taken by the Responses API only, not by Chat Completions).
_TABLE = {
    "openai": MediaLimits(
        "OpenAI Chat Completions",
        per_image=20 * MB,
        per_request=50 * MB,
        max_images=500,
        urls={"image": _WEB},
        source=_OPENAI_PAGE,
    ),
    "openai-responses": MediaLimits(
        "OpenAI Responses",
        per_image=20 * MB,
        per_request=50 * MB,
        max_images=500,
        urls={"image": _WEB, "pdf": _WEB, "text": _WEB},
        source=_OPENAI_PAGE,
    ),
    # https://platform.claude.com/docs/en/build-with-claude/vision: 5 MB per image through
    # the API (measured on the base64 text), up to 600 images per request (100 on models with
    # a 200k-token window); https://platform.claude.com/docs/en/build-with-claude/pdf-support:
    # 32 MB per request, PDFs by URL too (600 pages, 100 on 200k-token models, is left to the
    # server: counting pages needs a PDF parser). Claude on Vertex AI shares the name.
    "anthropic": MediaLimits(
        "Anthropic Messages",
        encoded=frozenset({"image", "request"}),
        per_image=5 * MB,
        per_request=32 * MB,
        max_images=600,
        urls={"image": _WEB, "pdf": _WEB},
        source="https://platform.claude.com/docs/en/build-with-claude/vision",
    ),
    # https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Message.html: images
    # of 3.75 MB and documents of 4.5 MB, bytes only (S3 locations are not sent), at most 20
    # images and 5 documents in one Converse message: counted by the provider package, which
    # knows how the conversation's messages merge into Converse's.
    # https://docs.aws.amazon.com/bedrock/latest/userguide/inference-api-restrictions.html:
    # the document limit does not bind PDFs for Claude 4 and later, nor for Nova models.
    "bedrock": MediaLimits(
        "Amazon Bedrock Converse",
        per_image=int(3.75 * MB),
        per_document=int(4.5 * MB),
        document_limit_exempt=r"claude-(?:opus|sonnet|haiku)-[4-9]|nova-",
        source="https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Message.html",
    ),
    # https://ai.google.dev/gemini-api/docs/file-input-methods: inline data up to 100 MB per
    # request (base64 text; PDFs up to 50 MB), and files by public or signed https URL or a
    # Cloud Storage gs:// URI (registered first on the Gemini API, taken as is on Vertex AI:
    # both pass here, and the provider tells the two apart).
    "gemini": MediaLimits(
        "Gemini",
        encoded=frozenset({"request"}),
        per_document=50 * MB,
        per_request=100 * MB,
        urls={"image": _GOOGLE, "pdf": _GOOGLE, "text": _GOOGLE},
        source="https://ai.google.dev/gemini-api/docs/file-input-methods",
    ),
    # https://docs.ollama.com/api/chat: images as base64 in a message's "images", no URLs and
    # no documents (https://docs.ollama.com/api/openai-compatibility: the same server behind
    # the compatible endpoint, which the "ollama" preset names alike).
    "ollama": MediaLimits(
        "Ollama",
        pdf=False,
        source="https://docs.ollama.com/api/chat",
    ),
}


def media_limits(provider: str) -> MediaLimits | None:
    """The row of ``provider`` (a ``Model``'s ``name``), or None when none is kept."""
    return _TABLE.get(provider)
