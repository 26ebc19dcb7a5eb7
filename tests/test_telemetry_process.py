"""OpenTelemetry as a process sees it, each case in a fresh interpreter: ``import aiwrapper``
imports none of it, a missing API changes nothing, and the global providers and the content
switch (an environment variable) work as an application sets them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CAPTURE = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"


def run_python(code: str, **environment: str) -> str:
    env = {k: v for k, v in os.environ.items() if k != CAPTURE}
    env.update(environment, PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_import_aiwrapper_imports_no_opentelemetry() -> None:
    out = run_python(
        """
        import sys
        import aiwrapper, aiwrapper.gateway
        print(sorted(m for m in sys.modules if m.startswith("opentelemetry")))
        """
    )
    assert out == "[]"


BLOCKED = """
    import sys

    class Blocked:  # as if opentelemetry were not installed
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] == "opentelemetry":
                raise ImportError(f"No module named {name!r}")
            return None

    sys.meta_path.insert(0, Blocked())
"""


def test_without_the_api_runs_streams_and_requests_work_and_import_nothing() -> None:
    out = run_python(
        BLOCKED
        + """
    import anyio, httpx, sys
    from aiwrapper import Lang, tool

    @tool
    def double(n: int) -> int:
        "Double it."
        return 2 * n

    ANSWER = {"choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"},
                           "finish_reason": "stop"}]}

    async def main():
        turns = [{"function_calls": [{"name": "double", "arguments": {"n": 2}}]}, "4"]
        result = await Lang.scripted(turns).ask("Double 2", functions=[double])
        async with Lang.scripted(["streamed"]).stream("Hi") as run:
            events = [e async for e in run]
        seen = []
        def handler(request):
            seen.append(request)
            return httpx.Response(200, json=ANSWER)
        client = httpx.AsyncClient(transport=httpx.MockTransport(handler))
        lang = Lang.openai("gpt-4o", api_key="k", http_client=client)
        answer = await lang.ask("Hi", stream=False)
        print(result.answer, run.result.answer, answer.answer, "traceparent" in seen[0].headers)

    anyio.run(main)
    print(sorted(m for m in sys.modules if m.startswith("opentelemetry")))
    """
    )
    assert out.splitlines() == ["4 streamed ok False", "[]"]


def test_runs_import_no_opentelemetry_until_the_application_uses_it() -> None:
    # Installed (as a dependency of something else) but not set up: nothing could record.
    out = run_python(
        """
        import sys
        from aiwrapper import Lang

        Lang.scripted(["one"]).ask_sync("first")
        print(sorted(m for m in sys.modules if m.startswith("opentelemetry")))
        from opentelemetry import trace  # the application sets up tracing later on
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

        exporter = InMemorySpanExporter()
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        trace.set_tracer_provider(provider)
        Lang.scripted(["two"]).ask_sync("second")
        print([s.name for s in exporter.get_finished_spans()])
        """
    )
    assert out.splitlines() == ["[]", "['chat scripted', 'invoke_agent']"]


def test_a_provider_named_in_the_environment_is_used_without_an_import_of_the_api() -> None:
    out = run_python(
        """
        from aiwrapper._wire import _telemetry

        print(_telemetry.otel() is not None)
        """,
        OTEL_PYTHON_TRACER_PROVIDER="sdk_tracer_provider",
    )
    assert out == "True"


RECORDING = """
    import json, anyio
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    from aiwrapper import Lang, tool

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(provider)

    @tool
    def double(n: int) -> int:
        "Double it."
        return 2 * n

    turns = [{"function_calls": [{"name": "double", "arguments": {"n": 2}, "id": "c0"}]}, "4"]
    anyio.run(lambda: Lang.scripted(turns).ask("Double 2", functions=[double]))
    print(json.dumps({s.name: sorted(s.attributes) for s in exporter.get_finished_spans()}))
"""
CONTENT_KEYS = {
    "chat scripted": ["gen_ai.input.messages", "gen_ai.output.messages"],
    "execute_tool double": ["gen_ai.tool.call.arguments", "gen_ai.tool.call.result"],
    "invoke_agent": [],
}


@pytest.mark.parametrize("setting", ["true", "TRUE", "false", None])
def test_the_global_provider_records_content_only_when_the_variable_says_true(
    setting: str | None,
) -> None:
    environment = {CAPTURE: setting} if setting is not None else {}
    recorded = json.loads(run_python(RECORDING, **environment))
    assert sorted(recorded) == sorted(CONTENT_KEYS)
    captured = setting is not None and setting.lower() == "true"
    for name, keys in CONTENT_KEYS.items():
        assert set(keys) <= set(recorded[name]) if captured else not set(keys) & set(recorded[name])


def test_the_readmes_setup_is_the_example_that_runs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Observability", 1)[1]
    snippet = section.split("```py\n", 1)[1].split("```", 1)[0]
    example = (ROOT / "examples" / "telemetry.py").read_text(encoding="utf-8")
    assert example.endswith(snippet)  # after the example's docstring
    out = run_python(example)
    assert out.endswith("Here is what the tools returned (offline model):\n- roll_dice: 4")
    names = [line.split('"')[3] for line in out.splitlines() if line.startswith('    "name"')]
    assert names == ["chat offline", "execute_tool roll_dice", "chat offline", "invoke_agent"]


def test_without_a_configured_sdk_no_span_is_made_until_one_is_set() -> None:
    out = run_python(
        """
        from opentelemetry import trace
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

        from aiwrapper import Lang
        from aiwrapper._wire import _telemetry

        lang = Lang.scripted(["one", "two"])
        lang.ask_sync("first")
        before = _telemetry.otel()  # the API's proxies only: nothing to record through
        exporter = InMemorySpanExporter()
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        trace.set_tracer_provider(provider)
        lang.ask_sync("second")
        print(before is None, [s.name for s in exporter.get_finished_spans()])
        """
    )
    assert out == "True ['chat scripted', 'invoke_agent']"
