"""A durable worker: its run survives the process dying halfway (on the offline model).

Needs the optional extra: pip install 'aiwrapper[dbos]'
Run: python examples/durable_worker.py   (offline without an API key)

The script plays both sides. It starts a worker (this file with --worker), whose run charges a
card, then sends the receipt; the first time, the worker dies while sending it, as an OOM kill
or a lost machine would. The script starts the worker again with the same executor id: it
recovers the run, the card is not charged again, and the receipt goes out. The runs are kept in
a SQLite file in a temporary directory.
"""

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from aiwrapper import Lang, tool
from aiwrapper.durable import DurableLang

WORKDIR = Path(os.environ.get("DEMO_DIR", "."))


def record(event: str) -> None:
    with open(WORKDIR / event, "a", encoding="utf-8") as file:
        file.write(f"{os.getpid()}\n")


@tool
def charge_card(order: str) -> str:
    """Charge the card of an order.

    Args:
        order: The order id, e.g. "A-17".
    """
    record("charged")
    return f"charged {order}"


@tool(sequential=True)  # runs once charge_card is done
def send_receipt(order: str) -> str:
    """Email the receipt of an order.

    Args:
        order: The order id.
    """
    record("receipts")
    if not (WORKDIR / "died").exists():
        (WORKDIR / "died").touch()
        os._exit(137)  # the process dies here: no cleanup, no goodbye
    return f"receipt sent for {order}"


# Built at import time, the same in every worker: recovery finds the run's code by its name.
agent = DurableLang(
    Lang.from_env(),
    "orders",
    functions=[charge_card, send_receipt],
    database_url=f"sqlite:///{WORKDIR / 'runs.sqlite'}",
)


def worker() -> None:
    # The run's id makes asking again safe: an existing run is waited for, never run twice.
    result = agent.ask_sync('Charge order "A-17" and send its receipt.', workflow_id="order-A-17")
    print(result.answer)


def main() -> None:
    with tempfile.TemporaryDirectory() as directory:
        # Each worker has its own executor id; a restarted worker keeps it and recovers its runs.
        env = {**os.environ, "DEMO_DIR": directory, "DBOS__VMID": "worker-1"}
        for start in ("first start", "restart"):
            done = subprocess.run(
                [sys.executable, __file__, "--worker"], env=env, capture_output=True, text=True
            )
            print(f"worker, {start}: exit status {done.returncode}")
        print(done.stdout.strip())
        charged = len((Path(directory) / "charged").read_text().splitlines())
        receipts = len((Path(directory) / "receipts").read_text().splitlines())
        print(f"card charged {charged} time(s); receipt attempted {receipts} time(s)")


if __name__ == "__main__":
    worker() if "--worker" in sys.argv else main()
