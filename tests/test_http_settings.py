"""The transport keywords every factory takes, refused when made if no request could use them.

A ``retry_base_delay`` of NaN once failed only at the first retry, deep inside a run; a
negative ``timeout`` was taken as it was.
"""

from __future__ import annotations

import math
from typing import Any

import httpx
import pytest

from aiwrapper import ConfigError, Lang
from aiwrapper._wire._http import HttpTransport


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"timeout": -1}, "timeout must be a positive number of seconds or None, not -1"),
        ({"timeout": 0}, "timeout must be a positive number of seconds or None, not 0"),
        ({"timeout": math.nan}, "timeout must be a positive number of seconds or None, not nan"),
        ({"timeout": math.inf}, "timeout must be a positive number of seconds or None, not inf"),
        ({"timeout": "5"}, "timeout must be a positive number of seconds or None, not '5'"),
        ({"retry_base_delay": math.nan}, "retry_base_delay must be a number of seconds"),
        ({"retry_base_delay": -1}, "retry_base_delay must be a number of seconds, at least 0"),
        ({"retry_base_delay": math.inf}, "retry_base_delay must be a number of seconds"),
        ({"retry_max_delay": math.nan}, "retry_max_delay must be a number of seconds"),
        ({"retry_max_delay": "8"}, "retry_max_delay must be a number of seconds"),
        ({"max_retries": "3"}, "max_retries must be an int of at least 0, not '3'"),
        ({"max_retries": 2.5}, "max_retries must be an int of at least 0, not 2.5"),
        ({"max_retries": True}, "max_retries must be an int of at least 0, not True"),
        ({"max_retries": -1}, "max_retries must be an int of at least 0, not -1"),
    ],
)
def test_a_transport_setting_no_request_could_use_is_a_config_error_when_made(
    settings: dict[str, Any], message: str
) -> None:
    with pytest.raises(ConfigError) as info:
        Lang.openai(api_key="k", **settings)
    assert str(info.value).startswith(message)


@pytest.mark.parametrize(
    "settings",
    [
        {"timeout": None},
        {"timeout": 0.5},
        {"timeout": httpx.Timeout(5.0)},
        {"retry_base_delay": 0, "retry_max_delay": 0, "max_retries": 0},
    ],
)
def test_good_transport_settings_are_taken(settings: dict[str, Any]) -> None:
    transport = HttpTransport(**settings)
    assert transport.max_retries == settings.get("max_retries", 2)
    assert transport.retry_base_delay == settings.get("retry_base_delay", 0.5)
