"""Save a conversation to a file and continue it later, in this process or another.

The JSON keeps everything a provider needs to go on (signed thinking, encrypted reasoning,
calls and their results), so the conversation read back continues exactly where it stopped.

Run: python examples/save_and_continue.py
"""

import tempfile
from pathlib import Path

from aiwrapper import Lang, LangMessages, tool


@tool
def get_weather(city: str) -> str:
    """Current weather for a city.

    Args:
        city: City name, e.g. "Oslo".
    """
    return f"sunny, 21 °C in {city}"


lang = Lang.from_env()
first = lang.ask_sync("Weather in Oslo?", functions=[get_weather])
print(first.answer)

with tempfile.TemporaryDirectory() as folder:
    path = Path(folder) / "conversation.json"
    path.write_text(first.messages.to_json(), encoding="utf-8")
    print(f"saved {len(first.messages)} messages ({path.stat().st_size} bytes)")

    # Later, anywhere: read it back and go on.
    messages = LangMessages.from_json(path.read_text(encoding="utf-8"))

second = lang.chat_sync(messages.with_user("And in Rome?"), functions=[get_weather])
print(second.answer)
lang.close()
