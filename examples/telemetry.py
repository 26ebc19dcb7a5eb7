"""Print the OpenTelemetry spans of a run with a tool: invoke_agent, chat, execute_tool.

Needs the SDK beside the extra: pip install 'aiwrapper[otel]' opentelemetry-sdk
Run: python examples/telemetry.py
"""

from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import ConsoleSpanExporter, SimpleSpanProcessor

from aiwrapper import Lang, tool

provider = TracerProvider()  # your exporter here: OTLP, Logfire, Langfuse, Phoenix...
provider.add_span_processor(SimpleSpanProcessor(ConsoleSpanExporter()))
trace.set_tracer_provider(provider)


@tool
def roll_dice(sides: int = 6) -> int:
    """Roll a die."""
    return min(4, sides)


result = Lang.from_env().ask_sync("Roll a die for me.", functions=[roll_dice])
print(result.answer)
