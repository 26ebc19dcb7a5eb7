"""``Param`` is hashable although ``examples`` is a list: Python 3.10's ``get_type_hints``
hashes ``Annotated`` metadata when a ``None`` default makes the annotation Optional."""

from __future__ import annotations

from typing import Annotated

from aiwrapper import Param, tool


def test_a_param_with_examples_is_hashable_and_equal_params_hash_alike() -> None:
    first, second = Param(examples=["cats"]), Param(examples=["cats"])
    assert first == second
    assert hash(first) == hash(second)
    assert {first: 1}[second] == 1


def test_examples_with_a_none_default_and_no_return_annotation() -> None:
    # The issue's exact case: an implicit Optional (RUF013) and no return annotation.
    def search(query: Annotated[str, Param(examples=["cats"])] = None):  # type: ignore[assignment]  # noqa: RUF013
        """Search."""
        return query

    query = tool(search).parameters["properties"]["query"]
    # Python 3.10 reads the None default as Optional (an anyOf with null); later ones do not.
    string = next((s for s in query.get("anyOf", ()) if s["type"] == "string"), query)
    assert string == {"type": "string", "examples": ["cats"]} | (
        {} if "anyOf" in query else {"default": None}
    )
