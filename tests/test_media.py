"""``Image`` and ``Document``: sniffed, checked, encoded once; hostile input is a ConfigError."""

from __future__ import annotations

import base64
import dataclasses
from pathlib import Path

import pytest

from aiwrapper import ConfigError, Document, Image

from .media_samples import GIF, JPEG, PDF, WEBP, png


@pytest.mark.parametrize(
    ("data", "media_type"),
    [(png(), "image/png"), (JPEG, "image/jpeg"), (GIF, "image/gif"), (WEBP, "image/webp")],
)
def test_an_image_type_is_sniffed_from_its_bytes(data: bytes, media_type: str) -> None:
    image = Image.from_bytes(data)
    assert (image.media_type, image.size, image.data, image.url) == (
        media_type,
        len(data),
        data,
        None,
    )


def test_a_pdf_and_a_text_document_are_read() -> None:
    assert Document.from_bytes(PDF).media_type == "application/pdf"
    text = Document.from_bytes("héllo".encode(), "text/plain", name="a.txt")
    assert (text.media_type, text.text, text.name) == ("text/plain", "héllo", "a.txt")


def test_a_file_is_read_once_and_named_after_itself(tmp_path: Path) -> None:
    path = tmp_path / "chart.jpg"  # the suffix lies: the bytes are a PNG
    path.write_bytes(png())
    image = Image.from_path(path)
    assert (image.media_type, image.name) == ("image/png", "chart.jpg")
    notes = tmp_path / "notes.md"
    notes.write_text("# Notes\n", encoding="utf-8")
    assert Document.from_path(notes).text == "# Notes\n"


def test_base64_is_made_once_however_often_it_is_asked_for() -> None:
    image = Image.from_bytes(png())
    first = image.base64()
    assert image.base64() is first
    assert image.data_url() == f"data:image/png;base64,{first}"
    assert base64.b64decode(first) == png()


def test_a_data_url_is_made_once_and_base64_is_then_read_from_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[bytes] = []
    encode = base64.b64encode
    monkeypatch.setattr(base64, "b64encode", lambda data: calls.append(data) or encode(data))
    image = Image.from_bytes(png())
    url = image.data_url()
    assert image.data_url() is url  # kept: a replay sends the same text, not a new copy
    assert url == "data:image/png;base64," + encode(png()).decode()
    assert image.base64() == url.removeprefix("data:image/png;base64,")
    assert len(calls) == 1  # encoded once for both forms
    other = Image.from_bytes(png(5, 5))
    assert other.data_url() == f"data:image/png;base64,{other.base64()}"
    assert len(calls) == 2


def test_parts_are_frozen_and_equal_by_content() -> None:
    image = Image.from_bytes(png())
    with pytest.raises(dataclasses.FrozenInstanceError):
        image.url = "https://x"  # type: ignore[misc]
    assert image == Image.from_bytes(png())
    assert hash(image) == hash(Image.from_bytes(png()))
    assert image != Image.from_bytes(png(4, 4))
    assert image != Document.from_bytes(PDF)


def test_a_url_is_kept_as_a_reference_with_its_type_from_the_path() -> None:
    image = Image.from_url("https://example.com/cat.PNG?size=2")
    assert (image.url, image.media_type, image.data, image.size) == (
        "https://example.com/cat.PNG?size=2",
        "image/png",
        None,
        0,
    )
    assert image.data_url() == image.url
    assert Document.from_url("gs://bucket/report.pdf").media_type == "application/pdf"
    assert Document.from_url("s3://bucket/key").media_type is None
    with pytest.raises(ConfigError, match="is a URL"):
        image.base64()


def test_a_data_url_is_decoded_into_bytes() -> None:
    url = "data:image/png;base64," + base64.b64encode(png()).decode()
    assert Image.from_url(url).data == png()
    assert Document.from_url("data:text/plain,hello%20there").text == "hello there"


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: Image.from_bytes(b""), "data is empty"),
        (lambda: Image.from_bytes("not bytes"), "takes bytes, not str"),  # type: ignore[arg-type]
        (lambda: Image.from_bytes(None), "takes bytes, not NoneType"),  # type: ignore[arg-type]
        (lambda: Image.from_bytes(b"just some text"), "no type it recognises"),
        (lambda: Image.from_bytes(PDF), r"the bytes are application/pdf; accepted: image/png"),
        (lambda: Image.from_bytes(png(), "image/jpeg"), "bytes are image/png, not the stated"),
        (lambda: Image.from_bytes(png(), "image/svg+xml"), "does not take 'image/svg\\+xml'"),
        (lambda: Document.from_bytes(png()), "the bytes are image/png; accepted: application"),
        (lambda: Document.from_bytes(b"\xff\xfe\x00bad", "text/plain"), "must be UTF-8"),
        (lambda: Document.from_bytes(PDF, "text/plain"), "bytes are application/pdf, not"),
        (lambda: Document.from_bytes(b"plain", "application/pdf"), "not application/pdf"),
        (lambda: Image.from_url(b"https://x/y.png"), "takes a string, not bytes"),  # type: ignore[arg-type]
        (lambda: Image.from_url("file:///etc/passwd"), "for a local file use Image.from_path"),
        (lambda: Image.from_url("javascript:alert(1)"), "takes an https://"),
        (lambda: Image.from_url("ftp://host/a.png"), "takes an https://"),
        (lambda: Image.from_url("data:image/png;base64,@@@"), "base64 is invalid"),
        (lambda: Image.from_url("data:image/png;base64"), "without a comma"),
        (
            lambda: Image.from_url("data:image/jpeg;base64," + base64.b64encode(png()).decode()),
            "bytes are image/png, not the stated image/jpeg",
        ),
        (lambda: Image.from_url("data:text/plain;base64,aGVsbG8="), "does not take 'text/plain'"),
        (lambda: Image.from_url("https://x/y.png", "image/tiff"), "does not take 'image/tiff'"),
    ],
)
def test_hostile_input_is_a_config_error_that_says_what_is_wrong(make, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ConfigError, match=message):
        make()


def test_an_unreadable_or_empty_path_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        Image.from_path(tmp_path / "missing.png")
    with pytest.raises(ConfigError, match="cannot read"):
        Image.from_path(tmp_path)  # a directory
    empty = tmp_path / "empty.png"
    empty.write_bytes(b"")
    with pytest.raises(ConfigError, match="is empty"):
        Image.from_path(empty)


def test_describe_says_what_a_part_is_without_its_bytes() -> None:
    assert Image.from_bytes(png()).describe() == (
        f"[image/png image of {len(png())} bytes, which this model cannot be shown]"
    )
    named = Document.from_bytes(PDF, name="q3.pdf").describe()
    shown = "which this model cannot be shown"
    assert named == f"[application/pdf document 'q3.pdf' of {len(PDF)} bytes, {shown}]"
    assert repr(Image.from_url("https://x/a.gif")) == "Image('image/gif', url='https://x/a.gif')"
