"""Continue a conversation: result.messages holds everything, ready for chat().

Run: python examples/continue_conversation.py
"""

from aiwrapper import Lang, tool


@tool
def convert(amount: float, rate: float = 1.1) -> float:
    """Convert euros to dollars.

    Args:
        amount: Euros.
        rate: Dollars per euro.
    """
    return round(amount * rate, 2)


lang = Lang.from_env()
first = lang.ask_sync("What is 20 EUR in USD?", functions=[convert])
print(first.answer)
second = lang.chat_sync(first.messages.add_user("And 50 EUR?"), functions=[convert])
print(second.answer)
print(f"{len(second.messages)} messages in the conversation")
lang.close()
