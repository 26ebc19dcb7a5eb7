"""Finer rules inside the layers that ``test_house`` orders, types included.

The transport reaches no provider, and neither do the tools, which name no vendor either (a
dialect is found by name in its provider's package); a ground floor of plain data (calls,
message parts and messages and their JSON document, results, run events, options and
deferred decisions, errors, the result serializer and JSON text), drawn from several layers,
stands below everything else. Outside the provider packages no module names a vendor, but for
the few allowances listed with their reasons.
"""

from __future__ import annotations

import re

from .importgraph import PACKAGE, Graph, package_graph, reachable

# The plain data every other module builds on; nothing in it may reach above it.
GROUND_FLOOR = {
    "aiwrapper._conversation._call",
    "aiwrapper._conversation._logprobs",
    "aiwrapper._knowledge._modelinfo",
    "aiwrapper._conversation._parts",
    "aiwrapper._conversation._media",
    "aiwrapper._conversation._serialize",
    "aiwrapper._errors",
    "aiwrapper._wire._jsontext",
    "aiwrapper._wire._numbers",
    "aiwrapper._conversation._message_dicts",
    "aiwrapper._conversation._media_dicts",
    "aiwrapper._conversation._content",
    "aiwrapper._conversation._messages",
    "aiwrapper._conversation._document",
    "aiwrapper._conversation._document_values",
    "aiwrapper._run._decisions",
    "aiwrapper._knowledge._modelrules",
    "aiwrapper._run._options",
    "aiwrapper._run._overrides",
    "aiwrapper._conversation._result",
    "aiwrapper._conversation._runevents",
    "aiwrapper._wire._sizelimits",
}
TRANSPORT = (
    "aiwrapper._wire._http",
    "aiwrapper._wire._bodies",
    "aiwrapper._wire._framing",
    "aiwrapper._wire._httpcall",
    "aiwrapper._wire._outgoing",
)


def _graph() -> Graph:
    return package_graph()


def test_the_transport_reaches_no_provider_module() -> None:
    graph = _graph()
    for module in TRANSPORT:
        providers = {m for m in reachable(graph, module) if m.startswith("aiwrapper.providers")}
        assert not providers, f"{module} reaches {sorted(providers)}"


def test_the_shared_request_type_imports_nothing_of_aiwrapper() -> None:
    assert reachable(_graph(), "aiwrapper._wire._httpcall") == set()


def test_the_ground_floor_imports_nothing_above_it() -> None:
    graph = _graph()
    for module in sorted(GROUND_FLOOR):
        above = reachable(graph, module) - GROUND_FLOOR
        assert not above, f"{module} reaches {sorted(above)}, above the ground floor"


def test_a_call_and_the_error_tree_stand_on_nothing_but_json_text() -> None:
    graph = _graph()
    assert reachable(graph, "aiwrapper._conversation._call") == {"aiwrapper._wire._jsontext"}
    assert reachable(graph, "aiwrapper._errors") == set()
    assert reachable(graph, "aiwrapper._conversation._serialize") == {"aiwrapper._wire._jsontext"}


# The four vendors by name, and the hosts and port that would mean one of them.
VENDOR_WORDS = re.compile(r"openai|anthropic|gemini|ollama|googleapis|11434|claude", re.IGNORECASE)


def test_the_tools_reach_no_provider_module() -> None:
    graph = _graph()
    for module in sorted(m for m in graph if m.startswith("aiwrapper._tools")):
        providers = {m for m in reachable(graph, module) if m.startswith("aiwrapper.providers")}
        assert not providers, f"{module} reaches {sorted(providers)}"


# The front-ends' contract: it stands in the providers' room, below every wire's package.
SERVING_CONTRACT = ("aiwrapper.providers._serving", "aiwrapper.providers._callstate")


def test_the_serving_contract_reaches_no_provider_and_no_gateway_module() -> None:
    graph = _graph()
    for module in SERVING_CONTRACT:
        above = {
            m
            for m in reachable(graph, module)
            if m.startswith(("aiwrapper.providers.", "aiwrapper.gateway"))
            and m not in SERVING_CONTRACT
        }
        assert not above, f"{module} reaches {sorted(above)}"


def test_no_provider_module_reaches_the_gateway() -> None:
    graph = _graph()
    for module in sorted(m for m in graph if m.startswith("aiwrapper.providers")):
        gateway = {m for m in reachable(graph, module) if m.startswith("aiwrapper.gateway")}
        assert not gateway, f"{module} reaches {sorted(gateway)}"


# Files outside the provider packages (the gateway included: its front-ends live in their
# wire's package) that may still name a vendor, each with its reason.
VENDOR_ALLOWANCES = {
    "_lang.py": "the factories: one typed classmethod per vendor, delegating to its package",
    "_conversation/_message_dicts.py": (
        "the ground floor reads the message dicts chat accepts, in two vendors' shapes, and "
        "tags the thinking signatures and calls read from one of them with that vendor's "
        "name; standing below the provider packages, it cannot take the name from one"
    ),
    "_knowledge/_media_limits.py": (
        "each wire's documented limits for images and documents, one row per provider name "
        "with the vendor page it cites; the run checks a request against its row before the "
        "provider encodes it, so the rows stand below the provider packages"
    ),
    "_conversation/_media_dicts.py": (
        "the same reader's images and documents, in the same two shapes; an image's detail "
        "and a block's cache breakpoint ride on the part tagged with their vendor's name"
    ),
}


def test_no_vendor_is_named_outside_the_provider_packages_but_where_allowed() -> None:
    """The tools and the gateway included: a dialect or a front-end is found by name."""
    outside = [
        path
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.relative_to(PACKAGE).parts[0] != "providers"
        and path.relative_to(PACKAGE).as_posix() not in VENDOR_ALLOWANCES
    ]
    found = [
        f"{path.relative_to(PACKAGE)}:{number}: {line.strip()}"
        for path in outside
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if VENDOR_WORDS.search(line)
    ]
    assert found == []


def test_each_allowance_to_name_a_vendor_is_still_needed() -> None:
    for name in VENDOR_ALLOWANCES:
        assert VENDOR_WORDS.search((PACKAGE / name).read_text(encoding="utf-8")), name


def test_the_gateway_imports_no_provider_package_only_the_registry() -> None:
    graph = _graph()
    gateway = sorted(m for m in graph if m.startswith("aiwrapper.gateway"))
    providers = {m for g in gateway for m in graph[g] if m.startswith("aiwrapper.providers")}
    assert providers == {"aiwrapper.providers._registry", *SERVING_CONTRACT}
