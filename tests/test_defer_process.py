"""Approval that waits across processes: one process runs until ``approve`` defers a call and
writes ``result.messages.to_json()`` to a file; another reads it and resumes with a decision.

The model is the Responses API behind ``httpx.MockTransport`` in both processes, answering
with recorded bytes (encrypted reasoning and two parallel calls, then text), so the request the
second process sends is compared with the one a single process sends: byte for byte the same.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import httpx
import pytest

from aiwrapper import DEFER, FunctionCall, Lang, LangMessages, tool

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "openai_responses"

# The same in every process: the tool, the approval rule, and a Lang on recorded answers.
SETUP = """
import json, sys
from pathlib import Path
import httpx
from aiwrapper import DEFER, Lang, tool

FIXTURES = Path(sys.argv[1])
sent = []

@tool(requires_approval=True)
def get_weather(city: str) -> str:
    "Current weather for a city."
    return {"Oslo": "4 °C", "Rome": "19 °C"}[city]

def approve(call):
    return DEFER if call.arguments["city"] == "Rome" else True

def lang_answering(*names):
    def answer(request):
        sent.append(request.content)
        body = (FIXTURES / names[len(sent) - 1]).read_bytes()
        return httpx.Response(200, content=body, headers={"content-type": "text/event-stream"})
    client = httpx.AsyncClient(transport=httpx.MockTransport(answer))
    options = {"functions": [get_weather], "approve": approve, "thinking": "high"}
    return Lang.openai("o3", api="responses", api_key="k", http_client=client, options=options)
"""

FIRST = """
lang = lang_answering("reasoning_calls.sse")
result = lang.ask_sync("Weather in Oslo and Rome?")
Path(sys.argv[2]).write_text(result.messages.to_json(), encoding="utf-8")
pending = [c.id for c in result.pending]
print(json.dumps({"finish_reason": result.finish_reason, "pending": pending}))
lang.close()
"""

SECOND = """
lang = lang_answering("text.sse")
saved = Path(sys.argv[2]).read_text(encoding="utf-8")
result = lang.resume_sync(saved, json.loads(sys.argv[3]))
Path(sys.argv[2] + ".sent").write_bytes(sent[0])
calls = [[c.id, c.status, c.error] for c in result.function_calls]
print(json.dumps({"answer": result.answer, "calls": calls}))
lang.close()
"""


def run_python(code: str, *args: str) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(SETUP) + textwrap.dedent(code), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    out: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return out


@tool(requires_approval=True)
def get_weather(city: str) -> str:
    "Current weather for a city."
    return {"Oslo": "4 °C", "Rome": "19 °C"}[city]


def in_one_process(decisions: dict[str, object]) -> bytes:
    """The request a single process sends when it resumes: the reference."""
    sent: list[bytes] = []
    names = ["reasoning_calls.sse", "text.sse"]

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request.content)
        body = (FIXTURES / names[len(sent) - 1]).read_bytes()
        return httpx.Response(200, content=body, headers={"content-type": "text/event-stream"})

    def approve(call: FunctionCall) -> object:
        return DEFER if call.arguments["city"] == "Rome" else True

    client = httpx.AsyncClient(transport=httpx.MockTransport(answer))
    options = {"functions": [get_weather], "approve": approve, "thinking": "high"}
    lang = Lang.openai("o3", api="responses", api_key="k", http_client=client, options=options)
    first = lang.ask_sync("Weather in Oslo and Rome?")
    lang.resume_sync(first.messages, decisions)  # type: ignore[arg-type]
    lang.close()
    return sent[1]


@pytest.mark.parametrize(
    ("decision", "rome"),
    [
        (True, ["call_Rome9Xv4", "done", None]),
        (
            "not in the budget",
            ["call_Rome9Xv4", "denied", "Call to 'get_weather' was not run: not in the budget."],
        ),
    ],
)
def test_a_run_stopped_in_one_process_is_resumed_in_another(
    tmp_path: Path, decision: object, rome: list[object]
) -> None:
    saved = tmp_path / "conversation.json"
    first = run_python(FIRST, str(FIXTURES), str(saved))
    assert first == {"finish_reason": "deferred", "pending": ["call_Rome9Xv4"]}
    on_disk = LangMessages.from_json(saved.read_text(encoding="utf-8"))
    assert [m.tool_call_id for m in on_disk if m.role == "tool"] == ["call_Oslo7Qm2"]

    decisions = {"call_Rome9Xv4": decision}
    second = run_python(SECOND, str(FIXTURES), str(saved), json.dumps(decisions))
    assert second == {"answer": "Oslo is 4 °C and Rome 19 °C.", "calls": [rome]}

    sent = (tmp_path / "conversation.json.sent").read_bytes()
    assert sent == in_one_process(decisions)
    body = json.loads(sent)
    reasoning = [item for item in body["input"] if item["type"] == "reasoning"]
    assert reasoning[0]["encrypted_content"].startswith("gAAAA")  # replayed verbatim
    outputs = [i["call_id"] for i in body["input"] if i["type"] == "function_call_output"]
    assert outputs == ["call_Oslo7Qm2", "call_Rome9Xv4"]  # in the order of the calls
