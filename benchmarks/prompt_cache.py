"""Prompt caching on a 10-round tool loop: billed input cost with ``cache="auto"`` and without.

Usage: ``python benchmarks/prompt_cache.py [--quick] [--rounds N] [--system-tokens N]``. A
threaded server on 127.0.0.1 speaks the Anthropic Messages wire and bills input the way
Anthropic does: the prompt (tools, then system, then messages) is cut into blocks; a block
carrying ``cache_control`` writes the prefix up to it into a cache that lives 5 minutes
(refreshed on each read); a request reads the longest cached prefix found at one of its
breakpoints or up to 20 blocks before one. Uncached input costs 1 per token, cache writes
1.25, cache reads 0.1; a token is 4 characters of the block's JSON. The model calls a tool
``rounds - 1`` times, then answers. Each way runs twice against a fresh server: a cold run
(nothing cached yet) and a warm one right after (the same system prompt and tools, a new
question), as an application serving many questions sees them.

Expected with the defaults (about 10,000 system tokens, 10 rounds): the cold run pays the
first write at 1.25x and then reads at 0.1x, about 78% less than without caching; the warm
run reads the system prompt from the start, about 88% less. The usage aiwrapper reports
(``cached_input_tokens``, ``cache_write_tokens``) matches what the server billed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

sys.path[1:1] = [str(Path(__file__).resolve().parents[1])]  # the checkout's aiwrapper

from aiwrapper import Lang, tool  # noqa: E402

LIFETIME = 300.0  # seconds a cache entry lives, refreshed on each read
LOOKBACK = 20  # blocks before a breakpoint where a cached prefix is still found
PRICES = {"input": 1.0, "write": 1.25, "read": 0.1}


@dataclass
class Billing:
    """The server's cache and what it billed, per request."""

    cache: dict[str, float] = field(default_factory=dict)  # prefix hash -> expiry
    bills: list[dict[str, int]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def bill(self, body: dict[str, Any]) -> dict[str, int]:
        blocks = list(_blocks(body))
        sizes = [max(1, len(text) // 4) for text, _ in blocks]
        hashes = _prefix_hashes([text for text, _ in blocks])
        marks = [index for index, (_, marked) in enumerate(blocks) if marked]
        now = time.monotonic()
        with self.lock:
            hit = self._longest_hit(hashes, marks, now)
            for index in marks:
                self.cache[hashes[index]] = now + LIFETIME
        last = marks[-1] if marks else -1
        read = sum(sizes[: hit + 1])
        written = sum(sizes[hit + 1 : last + 1]) if last > hit else 0
        bill = {"read": read, "write": written, "input": sum(sizes) - read - written}
        self.bills.append(bill)
        return bill

    def _longest_hit(self, hashes: list[str], marks: list[int], now: float) -> int:
        best = -1
        for mark in marks:
            for index in range(mark, max(mark - LOOKBACK, -1), -1):
                if self.cache.get(hashes[index], 0.0) > now:
                    self.cache[hashes[index]] = now + LIFETIME  # a read refreshes it
                    best = max(best, index)
                    break
        return best


def _blocks(body: dict[str, Any]) -> Iterator[tuple[str, bool]]:
    """The prompt's blocks in prefix order, as JSON without their marker, and whether marked."""
    system = body.get("system") or []
    system = [{"type": "text", "text": system}] if isinstance(system, str) else system
    messages = body.get("messages") or []
    content = [m["content"] for m in messages]
    for block in [*(body.get("tools") or []), *system, *(b for c in content for b in c)]:
        marked = "cache_control" in block
        plain = {k: v for k, v in block.items() if k != "cache_control"}
        yield json.dumps(plain, sort_keys=True), marked


def _prefix_hashes(texts: list[str]) -> list[str]:
    digest, out = hashlib.sha256(), []
    for text in texts:
        digest.update(text.encode())
        out.append(digest.copy().hexdigest())
    return out


def _reply(body: dict[str, Any], bill: dict[str, int], rounds: int) -> dict[str, Any]:
    calls = sum(b.get("type") == "tool_use" for m in body["messages"] for b in m["content"])
    if calls < rounds - 1:
        block = {"type": "tool_use", "id": f"toolu_{calls}", "name": "lookup"}
        block["input"] = {"page": calls}
        content, stop = [block], "tool_use"
    else:
        content, stop = [{"type": "text", "text": "Done."}], "end_turn"
    usage = {
        "input_tokens": bill["input"],
        "cache_creation_input_tokens": bill["write"],
        "cache_read_input_tokens": bill["read"],
        "output_tokens": 20,
    }
    head = {"id": "msg_bench", "type": "message", "role": "assistant", "model": "claude-bench"}
    return {**head, "content": content, "stop_reason": stop, "usage": usage}


@contextmanager
def serve(billing: Billing, rounds: int) -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["content-length"])))
            data = json.dumps(_reply(body, billing.bill(body), rounds)).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@tool
def lookup(page: int) -> str:
    """One page of the handbook."""
    return f"Page {page}: " + "the rule applies to every case listed above. " * 8


def cost(bills: list[dict[str, int]]) -> float:
    return sum(bill[kind] * PRICES[kind] for bill in bills for kind in PRICES)


def run_way(cache: Any, rounds: int, system_tokens: int) -> dict[str, Any]:
    """A cold run and a warm run of the loop on a fresh server; their bills and usage."""
    billing = Billing()
    rules = (f"Rule {i}: answer from the handbook only." for i in range(system_tokens // 10))
    system = " ".join(rules)  # about 10 tokens a rule
    runs = []
    with serve(billing, rounds) as url:
        lang = Lang.anthropic("claude-bench", api_key="-", base_url=url)
        for question in ("What does the handbook say?", "And about exceptions?"):
            before = len(billing.bills)
            result = lang.ask_sync(
                question,
                functions=[lookup],
                system_prompt=system,
                max_iterations=rounds,
                stream=False,
                cache=cache,
            )
            assert result.answer == "Done.", result.answer
            bills = billing.bills[before:]
            usage = result.usage
            assert usage.cached_input_tokens == sum(b["read"] for b in bills)
            assert usage.cache_write_tokens == sum(b["write"] for b in bills)
            runs.append({"bills": bills, "cost": cost(bills), "requests": len(bills)})
    return {"cold": runs[0], "warm": runs[1]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 rounds, 2,000 system tokens")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--system-tokens", type=int, default=10_000)
    args = parser.parse_args()
    rounds, tokens = (3, 2_000) if args.quick else (args.rounds, args.system_tokens)
    ways = {str(cache): run_way(cache, rounds, tokens) for cache in (False, "auto")}
    print(f"{rounds}-round tool loop, about {tokens:,} system tokens (cost: uncached token = 1)")
    for run in ("cold", "warm"):
        plain, cached = ways["False"][run], ways["auto"][run]
        saved = 1 - cached["cost"] / plain["cost"]
        print(f"{run} run")
        print(f"  cache=False   billed input {plain['cost']:>10,.0f}")
        print(f"  cache='auto'  billed input {cached['cost']:>10,.0f}")
        reads = sum(b["read"] for b in cached["bills"])
        writes = sum(b["write"] for b in cached["bills"])
        print(f"  cache reads {reads:,} tokens, cache writes {writes:,} tokens")
        print(f"  saved by caching: {saved:.1%}")


if __name__ == "__main__":
    main()
