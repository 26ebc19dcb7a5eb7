"""Stream the answer, the thinking and the tool calls as events, with Lang.stream.

Run: python examples/streaming.py
"""

import anyio

from aiwrapper import CallFinished, CallReady, Lang, TextDelta, ThinkingDelta, tool


@tool
def roll_dice(sides: int = 6) -> int:
    """Roll a die.

    Args:
        sides: Number of sides.
    """
    return min(4, sides)


async def main() -> None:
    prompt, tools = "Roll a die for me.", [roll_dice]
    async with Lang.from_env() as lang, lang.stream(prompt, functions=tools) as run:
        async for event in run:
            if isinstance(event, ThinkingDelta):
                print(f"\033[2m{event.text}\033[0m", end="", flush=True)  # dimmed
            elif isinstance(event, TextDelta):
                print(event.text, end="", flush=True)
            elif isinstance(event, CallReady):  # its arguments are complete
                print(f"\n→ {event.call.name}({event.call.arguments})")
            elif isinstance(event, CallFinished):
                print(f"← {event.call.error or event.call.result}")
    print(f"\n{[c.result for c in run.result.function_calls]}")


if __name__ == "__main__":
    anyio.run(main)
