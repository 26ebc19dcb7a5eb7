"""SSE and NDJSON framing: any split of the same bytes gives the same events."""

from __future__ import annotations

from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aiwrapper._errors import StreamError
from aiwrapper._wire._framing import NDJSONDecoder, SSEDecoder, SSEEvent

# One stream exercising every rule: CRLF and LF line ends, a keep-alive comment, an event
# name, a multi-line data field, ignored id/retry fields, non-ASCII text (2-, 3- and 4-byte
# UTF-8), an event with no data, and a last event without its final blank line.
SSE_STREAM = (
    b": OPENROUTER PROCESSING\r\n\r\n"
    b'data: {"text":"h\xc3\xa9llo \xe2\x82\xac"}\r\n\r\n'
    b"event: content_block_delta\n"
    b"id: 7\n"
    b"retry: 1000\n"
    b"data: first line\n"
    b"data:second line\n"
    b"\n"
    b"event: ping\n\n"
    b"data: \xf0\x9f\x98\x80\n"
    b": a comment inside an event\n"
    b"\n\n\n"
    b"data: [DONE]"
)
SSE_EVENTS: list[SSEEvent] = [
    (None, '{"text":"héllo €"}'),
    ("content_block_delta", "first line\nsecond line"),
    (None, "😀"),
    (None, "[DONE]"),
]


def sse_decode(chunks: list[bytes]) -> list[SSEEvent]:
    decoder = SSEDecoder()
    events: list[SSEEvent] = []
    for chunk in chunks:
        events.extend(decoder.feed(chunk))
    return events + decoder.flush()


def ndjson_decode(chunks: list[bytes]) -> list[str]:
    decoder = NDJSONDecoder()
    lines: list[str] = []
    for chunk in chunks:
        lines.extend(decoder.feed(chunk))
    return lines + decoder.flush()


def test_sse_whole_body_in_one_chunk() -> None:
    assert sse_decode([SSE_STREAM]) == SSE_EVENTS


@pytest.mark.parametrize("cut", range(1, len(SSE_STREAM)))
def test_sse_split_in_two_at_every_boundary(cut: int) -> None:
    assert sse_decode([SSE_STREAM[:cut], SSE_STREAM[cut:]]) == SSE_EVENTS


def test_sse_split_in_three_at_every_pair_of_boundaries() -> None:
    n = len(SSE_STREAM)
    for i in range(1, n):
        for j in range(i, n):
            chunks = [SSE_STREAM[:i], SSE_STREAM[i:j], SSE_STREAM[j:]]
            assert sse_decode(chunks) == SSE_EVENTS, (i, j)


def test_sse_one_byte_at_a_time() -> None:
    assert sse_decode([SSE_STREAM[i : i + 1] for i in range(len(SSE_STREAM))]) == SSE_EVENTS


# Blocks that look like Anthropic's ``event: name`` + one ``data: ...`` line and are not,
# each with the events it alone gives.
NEAR_NAMED_BLOCKS = [
    (b"event: a\ndata: 1", [("a", "1")]),
    (b"event: \ndata: 2", [(None, "2")]),  # an empty name is the default
    (b"data: 3\nevent: b", [("b", "3")]),  # fields in the other order
    (b"event: c\ndata:4", [("c", "4")]),  # no space after the colon
    (b"eventx: d\ndata: 5", [(None, "5")]),  # an unknown field, not a name
    (b"event: e\ndatum: 6", []),  # no data line: no event
    (b"event: f\ndata: 7\ndata: 8", [("f", "7\n8")]),  # two data lines
    (b": note\ndata: 9", [(None, "9")]),
    (b"event: g\ndata: 10\nid: 1\nevent: h\ndata: 11", [("h", "10\n11")]),  # one event
]


@pytest.mark.parametrize("odd", range(len(NEAR_NAMED_BLOCKS)))
def test_sse_named_events_in_one_chunk_read_as_each_alone(odd: int) -> None:
    named = [(b"event: n%d\ndata: {%d}" % (i, i), [(f"n{i}", f"{{{i}}}")]) for i in range(3)]
    for blocks in (named, [*named[:2], NEAR_NAMED_BLOCKS[odd], *named[2:]]):
        body = b"\n\n".join(block for block, _ in blocks) + b"\n\n"
        assert sse_decode([body]) == [event for _, events in blocks for event in events]


# Blocks that break the unnamed one-line shape (``data: ...`` alone) among events that have it.
NEAR_UNNAMED_BLOCKS = [
    (b"data: 7\ndata: 8", [(None, "7\n8")]),  # two data lines
    (b"data:9", [(None, "9")]),  # no space after the colon
    (b"data: 10\n: note", [(None, "10")]),
    (b"data: 11\nid: 4", [(None, "11")]),
    (b"event: e\ndata: 12", [("e", "12")]),
    (b": only a comment", []),
    (b"data: ", [(None, "")]),
]


@pytest.mark.parametrize("odd", range(len(NEAR_UNNAMED_BLOCKS)))
def test_sse_unnamed_events_in_one_chunk_read_as_each_alone(odd: int) -> None:
    plain = [(b"data: {%d}" % i, [(None, f"{{{i}}}")]) for i in range(3)]
    for blocks in (plain, [*plain[:2], NEAR_UNNAMED_BLOCKS[odd], *plain[2:]]):
        body = b"\n\n".join(block for block, _ in blocks) + b"\n\n"
        expected = [event for _, events in blocks for event in events]
        assert sse_decode([body]) == expected
        assert sse_decode([body[:-1], body[-1:]]) == expected  # the last LF apart


@pytest.mark.parametrize("newline", [b"\n", b"\r", b"\r\n"])
def test_sse_every_line_end_style_gives_the_same_events(newline: bytes) -> None:
    body = b"event: a\ndata: 1\ndata: 2\n\n: keep-alive\n\ndata: 3\n\n".replace(b"\n", newline)
    expected = [("a", "1\n2"), (None, "3")]
    assert sse_decode([body]) == expected
    assert sse_decode([body[i : i + 1] for i in range(len(body))]) == expected


def test_sse_events_are_returned_as_soon_as_their_blank_line_arrives() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"data: a\n") == []
    assert decoder.feed(b"\ndata: b\n\ndata: c") == [(None, "a"), (None, "b")]
    assert decoder.feed(b"\n") == []
    assert decoder.feed(b"\n") == [(None, "c")]
    assert decoder.flush() == []


def test_sse_crlf_split_between_cr_and_lf_is_one_line_end() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"data: a\r") == []
    # The CR already ended the blank line: the event is out before the LF arrives.
    assert decoder.feed(b"\n\r") == [(None, "a")]
    assert decoder.feed(b"\ndata: b\r\n\r\n") == [(None, "b")]
    assert decoder.flush() == []


def test_sse_lone_cr_line_ends_dispatch_without_waiting_for_the_next_chunk() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"data: a\r\r") == [(None, "a")]
    assert decoder.feed(b"event: e\rdata: b\r\r") == [("e", "b")]
    assert decoder.feed(b"\ndata: c\r\n\r\n") == [(None, "c")]  # lone CR, then CRLF
    assert decoder.flush() == []


def test_sse_empty_chunks_do_not_delay_a_blank_line_split_around_them() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"data: a\n") == []
    assert decoder.feed(b"") == []
    assert decoder.feed(b"\ndata: b") == [(None, "a")]
    decoder = SSEDecoder()
    assert decoder.feed(b"data: a\r\n") == []
    assert decoder.feed(b"\r") == [(None, "a")]
    assert decoder.feed(b"\n") == []  # the LF of that CRLF, not another blank line
    assert decoder.feed(b"data: b\n\n") == [(None, "b")]


def test_sse_flush_dispatches_an_event_without_final_blank_line() -> None:
    assert sse_decode([b"data: x\ndata: y\n"]) == [(None, "x\ny")]
    assert sse_decode([b"data: x\r"]) == [(None, "x")]
    assert sse_decode([b"event: e\ndata: x"]) == [("e", "x")]


def test_sse_comment_only_stream_and_empty_body_give_nothing() -> None:
    assert sse_decode([b": OPENROUTER PROCESSING\n\n: OPENROUTER PROCESSING\n\n"]) == []
    assert sse_decode([b""]) == []
    assert sse_decode([]) == []


def test_sse_event_without_data_is_dropped_and_its_name_does_not_leak() -> None:
    assert sse_decode([b"event: ping\n\ndata: x\n\n"]) == [(None, "x")]


def test_sse_field_value_rules() -> None:
    body = (
        b"data:no space\n\n"
        b"data:  two spaces\n\n"
        b"data\n\n"  # a field name alone is that field with an empty value
        b"data:\ndata:\n\n"
        b"event:\ndata: unnamed\n\n"
        b"event: a:b\ndata: x: y\n\n"
        b"unknown: field\ndata: kept\n\n"
    )
    assert sse_decode([body]) == [
        (None, "no space"),
        (None, " two spaces"),
        (None, ""),
        (None, "\n"),
        (None, "unnamed"),
        ("a:b", "x: y"),
        (None, "kept"),
    ]


def test_sse_leading_utf8_bom_is_dropped_even_when_split() -> None:
    body = b"\xef\xbb\xbfdata: x\n\n"
    assert sse_decode([body]) == [(None, "x")]
    assert sse_decode([b"", body[:3], body[3:]]) == [(None, "x")]


def test_sse_bom_split_inside_itself_is_still_dropped() -> None:
    body = b"\xef\xbb\xbfdata: x\n\n"
    for cut in (1, 2):
        assert sse_decode([body[:cut], body[cut:]]) == [(None, "x")]
    assert sse_decode([b"\xef", b"", b"\xbb", b"\xbfdata: x\n\n"]) == [(None, "x")]
    # Bytes that only begin like a BOM are data.
    assert sse_decode([b"\xef\xbb", b"data: x\n\n"]) == []
    assert sse_decode([b"\xef", b"data: x\n\n"]) == []


def test_sse_bom_after_the_start_is_not_stripped() -> None:
    # Only the stream's first bytes may be a BOM; later it makes an unknown field name.
    body = b"data: x\n\n\xef\xbb\xbfdata: y\n\ndata: z\n\n"
    assert sse_decode([body]) == [(None, "x"), (None, "z")]
    assert sse_decode([b"data: x\n\n", b"\xef\xbb\xbfdata: y\n\n"]) == [(None, "x")]


def test_sse_whatwg_examples() -> None:
    # The WHATWG spec's own examples (section 9.2.6): id/retry are ignored, "data" alone
    # is an empty data line. A last event without its blank line is dispatched by flush: a
    # deliberate leniency (WHATWG drops it) so a body cut after "data: [DONE]" still ends.
    assert sse_decode(
        [b"data: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n"]
    ) == [
        (None, "first event"),
        (None, "second event"),
        (None, " third event"),
    ]
    assert sse_decode([b"data\n\ndata\ndata\n\ndata:"]) == [(None, ""), (None, "\n"), (None, "")]
    assert sse_decode([b"retry: 10\nid: 5\nevent: only-name\n\n"]) == []


def test_sse_invalid_utf8_is_replaced_not_raised() -> None:
    assert sse_decode([b"data: a\xffb\n\n"]) == [(None, "a\ufffdb")]


def test_sse_large_event_over_many_small_chunks() -> None:
    payload = b"x" * 100_000
    body = b"data: " + payload + b"\n\n"
    chunks = [body[i : i + 7] for i in range(0, len(body), 7)]
    assert sse_decode(chunks) == [(None, payload.decode())]


def test_sse_one_megabyte_event_split_at_random_points() -> None:
    import random

    rng = random.Random(7)
    payload = ('{"t":"' + "é" * 500_000 + '"}').encode()
    body = b"event: big\r\ndata: " + payload + b"\r\n\r\ndata: [DONE]\r\n\r\n"
    cuts = sorted(rng.sample(range(1, len(body)), 300))
    chunks = [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True)]
    assert sse_decode(chunks) == [("big", payload.decode()), (None, "[DONE]")]


NDJSON_STREAM = (
    b'{"message":{"content":"h\xc3\xa9"},"done":false}\r\n'
    b"\n"
    b'{"message":{"content":"\xf0\x9f\x98\x80"},"done":false}\n'
    b"   \r\n"
    b'{"done":true}'
)
NDJSON_LINES = [
    '{"message":{"content":"hé"},"done":false}',
    '{"message":{"content":"😀"},"done":false}',
    '{"done":true}',
]


@pytest.mark.parametrize("cut", range(1, len(NDJSON_STREAM)))
def test_ndjson_split_in_two_at_every_boundary(cut: int) -> None:
    assert ndjson_decode([NDJSON_STREAM[:cut], NDJSON_STREAM[cut:]]) == NDJSON_LINES


def test_ndjson_one_byte_at_a_time_and_whole() -> None:
    assert ndjson_decode([NDJSON_STREAM]) == NDJSON_LINES
    bytewise = [NDJSON_STREAM[i : i + 1] for i in range(len(NDJSON_STREAM))]
    assert ndjson_decode(bytewise) == NDJSON_LINES


def test_ndjson_lines_are_returned_when_their_newline_arrives() -> None:
    decoder = NDJSONDecoder()
    assert decoder.feed(b'{"a":') == []
    assert decoder.feed(b'1}\n{"b"') == ['{"a":1}']
    assert decoder.feed(b":2}\r") == ['{"b":2}']  # a CR ends the line without waiting
    assert decoder.feed(b"\n") == []
    assert decoder.feed(b'{"c":3}\r\r\n') == ['{"c":3}']
    assert decoder.flush() == []


def test_ndjson_flush_returns_last_line_and_skips_trailing_blank() -> None:
    assert ndjson_decode([b'{"a":1}']) == ['{"a":1}']
    assert ndjson_decode([b'{"a":1}\n\n  \n']) == ['{"a":1}']
    assert ndjson_decode([b""]) == []


def test_ndjson_blank_and_crlf_only_lines_are_skipped_at_every_split() -> None:
    body = b'\r\n\r\n{"a":1}\r\n\r\n\n\r\r{"b":"x\\r\\ny"}\r\n \t \r\n'
    expected = ['{"a":1}', '{"b":"x\\r\\ny"}']
    for cut in range(1, len(body)):
        assert ndjson_decode([body[:cut], body[cut:]]) == expected, cut


def _reference_sse(body: str) -> list[SSEEvent]:
    """The events of an LF-only body read line by line, as the event-stream rules say (an
    event left at the end is dispatched, as ``flush`` does)."""
    events: list[SSEEvent] = []
    name: str | None = None
    data: list[str] = []
    for line in [*body.split("\n"), ""]:
        if not line:
            if data:
                events.append((name, "\n".join(data)))
            name, data = None, []
        elif line[0] != ":":
            field, _, value = line.partition(":")
            value = value[1:] if value[:1] == " " else value
            if field == "data":
                data.append(value)
            elif field == "event":
                name = value or None
    return events


_VALUES = st.text(alphabet=' \t:{}"ab\u00e9\u20ac', max_size=6)
_LINES = st.one_of(
    st.builds(lambda s, v: f"data:{s}{v}", st.sampled_from(["", " ", "  ", "\t"]), _VALUES),
    st.builds(lambda s, v: f"event:{s}{v}", st.sampled_from(["", " "]), _VALUES),
    st.sampled_from([": keep-alive", ":", "id: 7", "retry: 10", "data", "datax: 1", ""]),
)
_SIMPLE_BLOCKS = st.builds(  # the shapes the framing cuts out whole: mostly these
    lambda comment, name, data: [*comment, *name, data],
    st.lists(st.sampled_from([": keep-alive", ":"]), max_size=1),
    st.lists(_LINES.filter(lambda line: line.startswith("event:")), max_size=1),
    _LINES.filter(lambda line: line.startswith("data:")),
)
_BLOCKS = st.lists(
    st.one_of(_SIMPLE_BLOCKS, _SIMPLE_BLOCKS, st.lists(_LINES, min_size=1, max_size=4)),
    max_size=8,
)


@settings(max_examples=250, deadline=None)
@given(blocks=_BLOCKS, cuts=st.lists(st.integers(min_value=0), max_size=4), crlf=st.booleans())
def test_sse_any_mix_of_lines_gives_what_reading_line_by_line_gives(
    blocks: list[list[str]], cuts: list[int], crlf: bool
) -> None:
    text = "".join("\n".join(lines) + "\n\n" for lines in blocks)
    body = text.encode()
    if crlf:
        body = body.replace(b"\n", b"\r\n")
    points = sorted({cut % (len(body) + 1) for cut in cuts} | {0, len(body)})
    chunks = [body[a:b] for a, b in pairwise(points)]
    assert sse_decode(chunks) == _reference_sse(text)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b"\n" * 2_000_000 + b"data: x\n\n", [(None, "x")]),
        (b"event: a\n" * 200_000 + b"data: y\n\n", [("a", "y")]),
        (b"xdata:" * 300_000 + b"\n\ndata: z\n\n", [(None, "z")]),
        (b"\n\nevent: a" * 200_000 + b"\ndata: w\n\n", [("a", "w")]),
        (b": c\n" * 500_000 + b"data: v\n\n", [(None, "v")]),
        (b": c\n\n" * 500_000 + b"data: t\n\n", [(None, "t")]),
        (b"data: a\n\n" + b":\n\n" * 500_000 + b"event: e\ndata: u\n\n", [(None, "a"), ("e", "u")]),
        (b"data: a\n\n:" + b"x" * 3_000_000 + b"\n\ndata: b\n\n", [(None, "a"), (None, "b")]),
    ],
)
def test_sse_hostile_runs_of_lines_are_read_in_one_pass(
    body: bytes, expected: list[SSEEvent]
) -> None:
    # Megabytes that would take hours if a search restarted inside them at every byte.
    assert sse_decode([body]) == expected
    assert sse_decode([body[i : i + 65536] for i in range(0, len(body), 65536)]) == expected


_MIXED_VALUES = st.text(alphabet=' \t:{}"a\u00e9\x00', max_size=5)
_MIXED_LINES = st.one_of(
    st.builds(lambda s, v: f"data:{s}{v}", st.sampled_from(["", " ", "  ", "\t"]), _MIXED_VALUES),
    st.builds(lambda v: f"event: {v}", _MIXED_VALUES),
    st.sampled_from([": keep-alive", ":", ":x:y", "id: 7", "data"]),
)


@settings(max_examples=200, deadline=None)
@given(
    blocks=st.lists(st.lists(_MIXED_LINES, min_size=1, max_size=3), max_size=10),
    ends=st.lists(st.sampled_from(["\n", "\r\n", "\r"]), min_size=1, max_size=8),
    cuts=st.lists(st.integers(min_value=0), max_size=5),
)
def test_sse_mixed_line_ends_and_keep_alives_give_what_reading_line_by_line_gives(
    blocks: list[list[str]], ends: list[str], cuts: list[int]
) -> None:
    # Every line end LF, CRLF or a lone CR, chosen line by line (a CR may end one chunk and
    # its LF begin the next), keep-alive comment blocks between events: the general path.
    lines = [line for block in blocks for line in [*block, ""]]
    text = "".join(line + ends[i % len(ends)] for i, line in enumerate(lines))
    body = text.encode()
    points = sorted({cut % (len(body) + 1) for cut in cuts} | {0, len(body)})
    chunks = [body[a:b] for a, b in pairwise(points)]
    # A CR before an empty line's LF makes one CRLF: the lines are what the line ends say.
    assert sse_decode(chunks) == _reference_sse(text.replace("\r\n", "\n").replace("\r", "\n"))


def test_sse_crlf_stream_cut_at_every_byte_gives_the_same_events() -> None:
    body = (
        b': ping\r\n\r\ndata:\t{"a": 1}\r\n\r\n:\r\n\r\n: x\r\n:y\r\n\r\ndata: \xc3\xa9\r\n\r\n'
        b"event: e\r\ndata:  2\r\n\r\n\r\r\ndata: 3\r\rdata: 4\r\n\r\n"
    )
    expected = [(None, '\t{"a": 1}'), (None, "é"), ("e", " 2"), (None, "3"), (None, "4")]
    assert sse_decode([body]) == expected
    for cut in range(1, len(body)):
        assert sse_decode([body[:cut], body[cut:]]) == expected, cut


def test_sse_invalid_utf8_split_across_chunks_is_replaced_once() -> None:
    body = b"data: a\xe2\x82\n\ndata: \xff\x00b\n\n"
    expected = [(None, "a\ufffd"), (None, "\ufffd\x00b")]
    for cut in range(len(body) + 1):
        assert sse_decode([body[:cut], body[cut:]]) == expected, cut


@pytest.mark.parametrize("after", [b"\n\n", b"\r\n\r\n", b"\n\ndata: x\n\n"])
def test_sse_a_whole_event_longer_than_the_frame_cap_is_refused(after: bytes) -> None:
    # One 50 MB data line in one chunk, whole: refused before it is decoded.
    decoder = SSEDecoder(max_frame=32 * 2**20)
    with pytest.raises(StreamError, match="frame_bytes"):
        decoder.feed(b"data: " + b"x" * (50 * 2**20) + after)


def test_sse_an_event_grown_past_the_cap_by_its_last_chunk_is_refused() -> None:
    decoder = SSEDecoder(max_frame=1000)
    assert decoder.feed(b"data: " + b"x" * 900) == []
    with pytest.raises(StreamError, match="frame_bytes"):
        decoder.feed(b"x" * 200 + b"\n\ndata: y\n\n")


def test_sse_events_within_the_cap_pass_however_long_the_chunk() -> None:
    decoder = SSEDecoder(max_frame=100)
    body = b"data: 0123456789\n\n" * 100
    assert decoder.feed(body) == [(None, "0123456789")] * 100


def test_ndjson_a_whole_line_longer_than_the_frame_cap_is_refused() -> None:
    decoder = NDJSONDecoder(max_frame=1000)
    with pytest.raises(StreamError, match="frame_bytes"):
        decoder.feed(b'{"a":1}\n' + b"x" * 2000 + b'\n{"b":2}\n')
    assert NDJSONDecoder(max_frame=10).feed(b'{"a":1}\n' * 500) == ['{"a":1}'] * 500
