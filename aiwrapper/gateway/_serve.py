"""``python -m aiwrapper serve``: the gateway under uvicorn (the ``aiwrapper[gateway]`` extra).

``--route NAME=PROVIDER:MODEL`` (repeatable) puts a ``Lang`` behind each model name clients
send: PROVIDER is an HTTP provider's name (as ``AIWRAPPER_PROVIDER`` takes it) or the preset of
a compatible server (``groq``, ``openrouter``, ``vllm``...), each with its key from its usual
environment variable. Without ``--api-key`` it listens on a loopback address only. uvicorn does
the graceful shutdown: on Ctrl-C or SIGTERM it stops accepting, lets in-flight requests and
streams finish for a while, then cuts what is left.
"""

from __future__ import annotations

import argparse
import ipaddress
import logging
import sys
from collections.abc import Sequence

from .._errors import ConfigError
from .._lang import Lang
from ..providers._registry import build_for_route
from ._app import Gateway

__all__ = ["add_arguments", "main", "run"]

DESCRIPTION = "Serve the chat APIs clients already speak, from any provider."
_GRACE_SECONDS = 10  # how long in-flight streams may go on after a shutdown signal


def main(argv: Sequence[str]) -> int:
    """Serve the gateway until interrupted; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m aiwrapper serve", description=DESCRIPTION)
    add_arguments(parser)
    return run(parser.parse_args(argv))


def run(args: argparse.Namespace) -> int:
    """Serve the gateway for parsed ``args`` (from :func:`add_arguments`) until interrupted."""
    try:
        import uvicorn
    except ImportError:
        print("serve needs uvicorn: pip install 'aiwrapper[gateway]'", file=sys.stderr)
        return 2
    if not args.api_key and not _is_loopback(args.host):
        print(
            f"refusing to serve {args.host} without --api-key: anyone who can reach it could "
            "spend your provider keys (listen on 127.0.0.1, or give --api-key)",
            file=sys.stderr,
        )
        return 2
    try:
        routes = dict(_route(spec) for spec in args.route)
    except ConfigError as exc:
        print(f"--route: {exc}", file=sys.stderr)
        return 2
    _log_to_stderr()
    config = uvicorn.Config(
        Gateway(routes, api_keys=args.api_key),
        host=args.host,
        port=args.port,
        access_log=False,  # the gateway writes its own lines, without keys or bodies
        timeout_graceful_shutdown=_GRACE_SECONDS,
    )
    listed = ", ".join(
        f"{name} -> {lang.provider}:{lang.model.model}" for name, lang in routes.items()
    )
    print(f"aiwrapper gateway on http://{args.host}:{args.port} serving {listed}", flush=True)
    try:
        uvicorn.Server(config).run()
    except KeyboardInterrupt:
        pass  # uvicorn raises Ctrl-C again once its graceful shutdown is over
    finally:
        for lang in routes.values():
            lang.close()
    return 0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``serve`` options, on its own parser or the CLI's ``serve`` subcommand."""
    parser.add_argument(
        "--route",
        action="append",
        required=True,
        metavar="NAME=PROVIDER:MODEL",
        help="a model name for clients, served by PROVIDER's MODEL (repeatable)",
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument(
        "--api-key", action="append", default=[], help="a key clients must send (repeatable)"
    )


def _route(spec: str) -> tuple[str, Lang]:
    name, _, target = spec.partition("=")
    provider, _, model = target.partition(":")
    if not name or not provider or not model:
        raise ConfigError(f"{spec!r} is not NAME=PROVIDER:MODEL")
    return name, Lang(build_for_route(provider, model))


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _log_to_stderr() -> None:
    logger = logging.getLogger("aiwrapper.gateway")
    if not logger.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
