"""The command line: ``python -m aiwrapper [ask | doctor | serve]``, one argparse setup.

With no command it runs the demo (``__main__.py``); ``ask`` streams one answer from any
provider; ``doctor`` shows how each provider would declare a tool and what is lossy or risky
about it; ``serve`` runs the gateway (``gateway/_serve.py`` owns its options and its run).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import traceback
from collections.abc import Callable, Sequence

from ._conversation._media import Document, Image
from ._conversation._runevents import TextDelta
from ._errors import AIWrapperError, ConfigError
from ._lang import Lang
from ._tools import to_tool
from .providers._doctor import diagnose
from .providers._registry import HTTP_PROVIDERS

__all__ = ["build_parser", "run_ask", "run_doctor"]


_SERVE_HELP = "serve the chat APIs clients already speak, from any provider"


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser of every subcommand; no subcommand means the demo.

    ``serve``'s options come from the gateway, whose import costs about as much as the rest
    of the command line together, so they are added only when ``argv`` names ``serve`` (or is
    None: the whole parser).
    """
    parser = argparse.ArgumentParser(
        prog="python -m aiwrapper",
        description="Function calling with language models. With no command: a demo of two "
        "tools, on the provider whose key is set, or offline.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    ask = commands.add_parser("ask", help="stream the answer to a question")
    ask.add_argument("question")
    ask.add_argument(
        "--provider",
        help=f"{', '.join(HTTP_PROVIDERS)}, offline or a compatible server's preset "
        "(default: the first provider whose key is set, else offline)",
    )
    ask.add_argument("--model", help="the model (default: the provider's usual one)")
    ask.add_argument(
        "--attach",
        action="append",
        default=[],
        metavar="PATH",
        help="an image (PNG, JPEG, GIF, WebP) or a document (PDF, text) sent after the question; "
        "repeat for several",
    )
    doctor = commands.add_parser(
        "doctor", help="show each provider's declaration of a tool, and what is lossy or risky"
    )
    doctor.add_argument("target", metavar="MODULE:FUNCTION", help="e.g. myapp.tools:get_weather")
    served = commands.add_parser("serve", help=_SERVE_HELP)
    if argv is None or "serve" in argv:
        from .gateway import _serve as serve

        served.description = serve.DESCRIPTION
        serve.add_arguments(served)
    return parser


def _lang(provider: str | None, model: str | None) -> Lang:
    if provider is None:
        return Lang.from_env()
    from .gateway._routes import lang_for  # the names ``serve --route`` takes, the same way

    return lang_for(provider, model)


def run_ask(args: argparse.Namespace) -> int:
    """Stream the answer to ``args.question``; 1 on an error, said on stderr."""
    try:
        lang = _lang(args.provider, args.model)
        overrides = {"model": args.model} if args.model else {}
        for event in lang.stream_sync(_prompt(args.question, args.attach), **overrides):
            if isinstance(event, TextDelta):
                print(event.text, end="", flush=True)
        print()
        lang.close()
    except AIWrapperError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


def _prompt(question: str, paths: Sequence[str]) -> str | list[str | Image | Document]:
    """The question, followed by each attached file as an image, else as a document."""
    if not paths:
        return question
    attached: list[str | Image | Document] = [question]
    for path in paths:
        try:
            attached.append(Image.from_path(path))
        except ConfigError:  # not an image: a PDF or text, or an error naming what it is
            attached.append(Document.from_path(path))
    return attached


def run_doctor(args: argparse.Namespace) -> int:
    """Print each provider's declaration and the findings; 1 when one cannot declare it."""
    try:
        tool = to_tool(_load(args.target))
    except (AIWrapperError, ImportError, AttributeError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    report = diagnose(tool)
    for provider, declaration in report.declarations.items():
        print(f"== {provider} ==")
        print(json.dumps(declaration, indent=2, ensure_ascii=False))
    print("== findings ==")
    for line in report.findings or ["none"]:
        print(f"- {line}")
    for line in report.errors:
        print(f"error: {line}", file=sys.stderr)
    return 1 if report.errors else 0


def _load(target: str) -> object:
    module_name, _, attribute = target.partition(":")
    if not module_name or not attribute:
        raise ValueError(f"{target!r} is not MODULE:FUNCTION (e.g. myapp.tools:get_weather)")
    if os.getcwd() not in sys.path:  # as `python -m` does: the current directory's modules
        sys.path.insert(0, os.getcwd())
    found = _imported(module_name)
    for part in attribute.split("."):
        found = getattr(found, part)
    return found


def _imported(name: str) -> object:
    """The module ``name``; ImportError saying why and where when importing it fails."""
    try:
        return importlib.import_module(name)
    except ImportError:
        raise
    except Exception as exc:  # the module's own code failed: said in one line, no traceback
        frames = traceback.extract_tb(exc.__traceback__)
        where = f" ({frames[-1].filename}, line {frames[-1].lineno})" if frames else ""
        if isinstance(exc, SyntaxError):
            where = ""  # its message names the file and line already
        message = f"importing {name!r} failed: {type(exc).__name__}: {exc}{where}"
        raise ImportError(message) from exc


def run(argv: Sequence[str] | None, demo: Callable[[], int]) -> int:
    """Parse ``argv`` and run its command, or ``demo()`` when there is none."""
    argv = sys.argv[1:] if argv is None else argv
    args = build_parser(argv).parse_args(argv)
    if args.command == "ask":
        return run_ask(args)
    if args.command == "doctor":
        return run_doctor(args)
    if args.command == "serve":
        from .gateway import _serve as serve

        return serve.run(args)
    return demo()
