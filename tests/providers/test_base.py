"""The helpers every provider package shares: in-stream errors and sampling fields."""

from __future__ import annotations

from aiwrapper import _errors as errors
from aiwrapper._run._options import LangOptions
from aiwrapper.providers._base import in_stream_error, sampling_fields


def test_an_in_stream_error_of_a_known_class_keeps_what_the_error_object_carried() -> None:
    body = {"error": {"code": 429, "message": "slow down"}}

    err = in_stream_error(
        errors.RateLimitError,
        "slow down",
        provider="wire",
        body=body,
        unknown="never used",
        status=429,
        request_id="req_1",
        retry_after=2.5,
    )

    assert type(err) is errors.RateLimitError
    assert (err.message, err.provider, err.body) == ("slow down", "wire", body)
    assert (err.status_code, err.request_id, err.retry_after) == (429, "req_1", 2.5)


def test_an_in_stream_error_of_no_known_class_is_a_stream_error_saying_so() -> None:
    err = in_stream_error(None, "odd", provider="wire", body={}, unknown="wire: error: odd")

    assert type(err) is errors.StreamError
    assert str(err) == "wire: error: odd"


def test_sampling_fields_use_the_wires_names_in_one_order_with_stop_as_a_list() -> None:
    options = LangOptions(stop="END", top_p=0.5, max_tokens=100, temperature=0.2)

    fields = sampling_fields(options, max_tokens="cap", top_p="topP", stop="stops")

    assert list(fields.items()) == [
        ("temperature", 0.2),
        ("cap", 100),
        ("topP", 0.5),
        ("stops", ["END"]),
    ]


def test_sampling_fields_leave_out_what_is_not_set() -> None:
    fields = sampling_fields(LangOptions(), max_tokens="cap", top_p="topP", stop="stops")

    assert fields == {}
