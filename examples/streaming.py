"""Stream the answer, the thinking and the tool calls with on_result.

Run: python examples/streaming.py
"""

import anyio

from aiwrapper import Lang, LangResult, tool


@tool
def roll_dice(sides: int = 6) -> int:
    """Roll a die.

    Args:
        sides: Number of sides.
    """
    return min(4, sides)


class Stream:
    def __init__(self) -> None:
        self.shown = 0

    async def __call__(self, result: LangResult) -> None:  # async callbacks work too
        if len(result.answer) < self.shown:  # a new turn started
            self.shown = 0
        print(result.answer[self.shown :], end="", flush=True)
        self.shown = len(result.answer)


async def main() -> None:
    async with Lang.from_env() as lang:
        result = await lang.ask("Roll a die for me.", functions=[roll_dice], on_result=Stream())
    print(f"\n{[c.result for c in result.function_calls]}")


if __name__ == "__main__":
    anyio.run(main)
