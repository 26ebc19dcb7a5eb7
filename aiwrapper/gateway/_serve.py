"""``python -m aiwrapper serve``: the gateway under uvicorn (the ``aiwrapper[gateway]`` extra).

``--route NAME=PROVIDER:MODEL[@BASE_URL]`` (repeatable) puts a ``Lang`` behind each model name
clients send (``_routes`` reads it): PROVIDER is an HTTP provider's name, the preset of a
compatible server (``groq``, ``openrouter``, ``vllm``...), each with its key from its usual
environment variable, or ``offline`` / ``scripted`` (no network). Without ``--api-key`` it
listens on a loopback address only. uvicorn runs with the limits of ``_server`` (a deadline
for request heads, a connection cap), on httptools and uvloop where they are installed (the
line printed at start names the parser and the loop), and does the graceful shutdown: on
Ctrl-C or SIGTERM it stops accepting, lets in-flight requests and streams finish for a while,
then cuts what is left. What the process holds once set up is frozen out of garbage
collection (``settle``).
A mistake in the options is one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import ipaddress
import logging
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .._errors import ConfigError
from .._lang import Lang
from ._app import DEFAULT_BODY_TIMEOUT, DEFAULT_MAX_BODY_BYTES, Gateway
from ._routes import parse_routes
from ._server import ServerLimits, settle, stack, uvicorn_config

if TYPE_CHECKING:
    import uvicorn

__all__ = ["add_arguments", "main", "run"]

DESCRIPTION = "Serve the chat APIs clients already speak, from any provider."
_DEFAULTS = ServerLimits()


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
    try:
        config, routes = _configured(args)
    except ConfigError as exc:
        print(f"serve: {exc}", file=sys.stderr)
        return 2
    _log_to_stderr()
    listed = ", ".join(
        f"{name} -> {lang.provider}:{lang.model.model}" for name, lang in routes.items()
    )
    settle(config)
    where = f"http://{args.host}:{args.port}"
    print(f"aiwrapper gateway on {where} serving {listed} ({stack(config)})", flush=True)
    try:
        uvicorn.Server(config).run()
    except KeyboardInterrupt:
        pass  # uvicorn raises Ctrl-C again once its graceful shutdown is over
    finally:
        for lang in routes.values():
            lang.close()
    return 0


def _configured(args: argparse.Namespace) -> tuple[uvicorn.Config, dict[str, Lang]]:
    """uvicorn's configuration and the routes; ConfigError for a mistake in ``args``."""
    if not 0 <= args.port <= 65535:
        raise ConfigError(f"--port {args.port} is not a port number (0-65535)")
    if not args.api_key and not _is_loopback(args.host):
        raise ConfigError(
            f"refusing to serve {args.host} without --api-key: anyone who can reach it could "
            "spend your provider keys (listen on 127.0.0.1, or give --api-key)"
        )
    limits = ServerLimits(
        header_timeout=args.header_timeout,
        keep_alive_timeout=args.keep_alive_timeout,
        max_connections=args.max_connections,
        max_header_bytes=args.max_header_bytes,
    )
    routes = parse_routes(args.route)
    try:
        gateway = Gateway(
            routes,
            api_keys=args.api_key,
            max_body_bytes=args.max_body_bytes,
            body_timeout=args.body_timeout,
            cors_origins=args.cors_origin,
        )
        return uvicorn_config(gateway, host=args.host, port=args.port, limits=limits), routes
    except ConfigError:
        for lang in routes.values():
            lang.close()
        raise


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``serve`` options, on its own parser or the CLI's ``serve`` subcommand."""
    parser.add_argument(
        "--route",
        action="append",
        required=True,
        metavar="NAME=PROVIDER:MODEL[@BASE_URL]",
        help="a model name for clients, served by PROVIDER's MODEL (repeatable); PROVIDER "
        "may be offline or scripted (no network)",
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument(
        "--api-key", action="append", default=[], help="a key clients must send (repeatable)"
    )
    parser.add_argument(
        "--cors-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="a web origin (https://app.example) whose pages may call the gateway (repeatable; "
        "'*' for any, with --api-key only); default: no CORS",
    )
    _add_limits(parser)


def _add_limits(parser: argparse.ArgumentParser) -> None:
    limits = parser.add_argument_group("limits")
    limits.add_argument(
        "--max-connections",
        type=int,
        metavar="N",
        help="open connections at most; past it the longest-idle one is closed "
        "(default: from the file-descriptor limit, at most 1000)",
    )
    limits.add_argument(
        "--header-timeout",
        type=float,
        default=_DEFAULTS.header_timeout,
        metavar="SECONDS",
        help="time for a request's headers to arrive (default: %(default)s)",
    )
    limits.add_argument(
        "--body-timeout",
        type=float,
        default=DEFAULT_BODY_TIMEOUT,
        metavar="SECONDS",
        help="time for a request's body to arrive (default: %(default)s)",
    )
    limits.add_argument(
        "--keep-alive-timeout",
        type=int,
        default=_DEFAULTS.keep_alive_timeout,
        metavar="SECONDS",
        help="how long an idle connection stays open (default: %(default)s)",
    )
    limits.add_argument(
        "--max-header-bytes",
        type=int,
        default=_DEFAULTS.max_header_bytes,
        metavar="BYTES",
        help="the largest request line and headers (default: %(default)s)",
    )
    limits.add_argument(
        "--max-body-bytes",
        type=int,
        default=DEFAULT_MAX_BODY_BYTES,
        metavar="BYTES",
        help="the largest request body (default: %(default)s)",
    )


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
