"""Several calls in one turn run concurrently; results go back in the order they were made.

Run: python examples/parallel_tools.py   (offline without an API key)
"""

import anyio

from aiwrapper import Lang, tool


@tool
async def fetch_price(symbol: str) -> float:
    """Fetch the latest price of a stock.

    Args:
        symbol: Ticker symbol, e.g. "ACME".
    """
    await anyio.sleep(0.2)  # pretend network latency: the calls overlap
    return {"ACME": 12.5, "GLOBEX": 99.0}.get(symbol.upper(), 1.0)


@tool
async def fetch_news(symbol: str) -> list[str]:
    """Fetch headlines about a stock.

    Args:
        symbol: Ticker symbol.
    """
    await anyio.sleep(0.2)
    return [f"{symbol} beats expectations"]


async def main() -> None:
    async with Lang.from_env() as lang:
        result = await lang.ask(
            "Price and news for ACME?", functions=[fetch_price, fetch_news], max_concurrency=4
        )
    for call in result.function_calls:
        print(f"{call.name}({call.arguments}) -> {call.result}")
    print(result.answer)


if __name__ == "__main__":
    anyio.run(main)
