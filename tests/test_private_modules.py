"""Internal modules are marked private by a leading underscore, as httpx and anyio mark theirs."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "aiwrapper"

# The public surface: what users import, and the packages a new provider plugs into.
PUBLIC_PACKAGES = {
    "aiwrapper",
    "aiwrapper.durable",
    "aiwrapper.gateway",
    "aiwrapper.mcp",
    "aiwrapper.providers",
}
PUBLIC_MODULES = {
    "aiwrapper.__main__",
    "aiwrapper.testing",
    "aiwrapper.notebook",
    "aiwrapper.models",
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_public(name: str) -> bool:
    parent = name.rsplit(".", 1)[0]
    # A provider package (providers/openai) is public: its provider, defaults and builder.
    return name in PUBLIC_PACKAGES | PUBLIC_MODULES or parent == "aiwrapper.providers"


def test_every_internal_module_has_a_private_name() -> None:
    modules = sorted(_module_name(path) for path in PACKAGE.rglob("*.py"))
    unmarked = [
        name
        for name in modules
        if not _is_public(name) and not any(part.startswith("_") for part in name.split(".")[1:])
    ]
    assert unmarked == []


def test_the_public_modules_exist() -> None:
    modules = {_module_name(path) for path in PACKAGE.rglob("*.py")}
    assert modules >= PUBLIC_PACKAGES | PUBLIC_MODULES
