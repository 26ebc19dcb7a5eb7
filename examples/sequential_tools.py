"""Calls run one after another, in call order: per run (parallel=False) or per tool.

Run: python examples/sequential_tools.py
"""

from aiwrapper import Lang, tool

ledger: list[str] = []


@tool(sequential=True)  # never runs alongside other calls
def transfer(amount: int, to: str) -> str:
    """Transfer money.

    Args:
        amount: Amount in cents.
        to: Recipient account.
    """
    ledger.append(f"{amount} -> {to}")
    return "ok"


@tool
def balance() -> int:
    """The current balance in cents."""
    return 10_000 - 100 * len(ledger)


lang = Lang.from_env()
result = lang.ask_sync(
    "Send 100 to bob, then tell me my balance.", functions=[transfer, balance], parallel=False
)
print(ledger)
print(result.answer)
lang.close()
