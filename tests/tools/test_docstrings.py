"""Parameter descriptions from every docstring style docstring-parser knows."""

from __future__ import annotations

import pytest

from aiwrapper._tools import tool
from aiwrapper._tools.docstrings import parse_docstring


def google(city: str, days: int) -> None:
    """Forecast.

    Longer explanation.

    Args:
        city: The city.
        days: How many days,
            wrapped onto a second line.

    Returns:
        Nothing.
    """


def numpy(city: str, days: int) -> None:
    """Forecast.

    Longer explanation.

    Parameters
    ----------
    city : str
        The city.
    days : int
        How many days,
        wrapped onto a second line.
    """


def rest(city: str, days: int) -> None:
    """Forecast.

    Longer explanation.

    :param city: The city.
    :param days: How many days,
        wrapped onto a second line.
    :returns: Nothing.
    """


def epydoc(city: str, days: int) -> None:
    """Forecast.

    Longer explanation.

    @param city: The city.
    @param days: How many days,
        wrapped onto a second line.
    """


@pytest.mark.parametrize("func", [google, numpy, rest, epydoc])
def test_every_style_gives_description_and_parameters(func: object) -> None:
    made = tool(func)  # type: ignore[arg-type]
    assert made.description == "Forecast.\n\nLonger explanation."
    props = made.parameters["properties"]
    assert props["city"] == {"type": "string", "description": "The city."}
    assert props["days"] == {
        "type": "integer",
        "description": "How many days, wrapped onto a second line.",
    }


def test_missing_docstring_gives_empty_description() -> None:
    def bare(x: int) -> None:
        pass

    made = tool(bare)
    assert made.description == ""
    assert made.parameters["properties"]["x"] == {"type": "integer"}


def test_description_option_overrides_docstring() -> None:
    made = tool(description="Custom.")(google)
    assert made.description == "Custom."
    assert made.parameters["properties"]["city"]["description"] == "The city."


def test_parse_docstring_of_plain_text() -> None:
    docs = parse_docstring("Just one line.")
    assert docs.description == "Just one line."
    assert docs.params == {}
