"""An OpenTelemetry SDK recording in memory, handed to aiwrapper for one test.

The global providers can be set once per process, so each test hands its own to aiwrapper
(``use_providers``) and gives the global ones back after; every xdist worker is a process of
its own, so tests never share what they record.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import pytest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from aiwrapper._wire import _telemetry


@dataclass
class Recorded:
    """What one test recorded: its spans and its metrics."""

    exporter: InMemorySpanExporter
    reader: InMemoryMetricReader
    tracer_provider: TracerProvider

    def spans(self) -> list[ReadableSpan]:
        """The ended spans, in the order they started."""
        return sorted(self.exporter.get_finished_spans(), key=lambda s: s.start_time or 0)

    def named(self, name: str) -> list[ReadableSpan]:
        """The spans of that name; tool calls (run side by side) in call id order."""
        found = [s for s in self.spans() if s.name == name]
        return sorted(found, key=lambda s: str((s.attributes or {}).get("gen_ai.tool.call.id")))

    def tree(self) -> list[tuple[str, str | None]]:
        """Each span's name with its parent's name (None: a root), in start order."""
        spans = self.spans()
        names = {s.context.span_id: s.name for s in spans}
        return [(s.name, names.get(s.parent.span_id) if s.parent else None) for s in spans]

    def points(self, metric: str) -> list[tuple[dict[str, Any], int, float]]:
        """Each histogram point of ``metric``: its attributes, count and sum."""
        data = self.reader.get_metrics_data()
        found = []
        for resource in data.resource_metrics if data else ():
            for scope in resource.scope_metrics:
                for recorded in scope.metrics:
                    if recorded.name == metric:
                        found += [
                            (dict(p.attributes or {}), p.count, p.sum)
                            for p in recorded.data.data_points  # type: ignore[union-attr]
                        ]
        return sorted(found, key=lambda point: sorted(point[0].items()))


@pytest.fixture
def recorded() -> Iterator[Recorded]:
    exporter = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    reader = InMemoryMetricReader()
    meter_provider = MeterProvider(metric_readers=[reader])
    _telemetry.use_providers(tracer_provider, meter_provider)
    try:
        yield Recorded(exporter, reader, tracer_provider)
    finally:
        _telemetry._loaded.clear()  # the global providers again
        meter_provider.shutdown()
        tracer_provider.shutdown()


def attributes(span: ReadableSpan, skip: Sequence[str] = ()) -> dict[str, Any]:
    """A span's attributes as plain values (tuples become lists), without ``skip``."""
    return {
        key: list(value) if isinstance(value, tuple) else value
        for key, value in (span.attributes or {}).items()
        if key not in skip
    }
