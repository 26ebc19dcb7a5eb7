"""Approval that waits: a large refund waits for a person's decision, in another process if
need be. The run stops with the refund pending, the conversation is saved as JSON, and a
later step resumes it with the decision.

Run: python examples/approval_that_waits.py
"""

from aiwrapper import DEFER, FunctionCall, Lang, LangOptions, tool


@tool
def notify(customer: str) -> str:
    """Tell a customer their request is being handled.

    Args:
        customer: The customer's name.
    """
    return f"{customer} was told"


@tool(requires_approval=True)
def refund(order: int, amount: float) -> str:
    """Refund an order.

    Args:
        order: The order number.
        amount: Euros to refund.
    """
    return f"refunded {amount:g} EUR on order {order}"


def approve(call: FunctionCall):  # True, False, a reason to deny, or DEFER
    return True if call.arguments["amount"] <= 50 else DEFER


# The same tools and options wherever the run goes on.
lang = Lang.from_env(options=LangOptions(functions=[notify, refund], approve=approve))
result = lang.ask_sync("Refund order 7 for Ada, amount 120")
print(f"finish_reason={result.finish_reason!r}")
for call in result.pending:
    print(f"waiting for a person: {call.name}({call.arguments})")
saved = result.messages.to_json()  # store it: a file, a database row, a message queue

# Later, once a person said yes (in a web request, tomorrow, in another process):
decisions = {call.id: True for call in result.pending}
done = lang.resume_sync(saved, decisions)
print(done.answer)
lang.close()
