"""Spans as OTLP, with the official protobuf messages of opentelemetry-proto (no hand-written encoding):
:func:`export_request` builds an ``ExportTraceServiceRequest`` (OTLP/protobuf is its ``SerializeToString()``,
what OTLP/HTTP sends with ``Content-Type: application/x-protobuf``), and :func:`to_otlp_json` its OTLP/JSON form
(https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding): the protobuf JSON mapping with lowerCamelCase
names and enums as integers, except that trace and span ids are hex strings, not base64, as OTLP/JSON requires.

The resource is the inspector (``service.name`` ``mcp-inspector``, its version); the scope is
``mcp-inspector``. Attribute values: strings, booleans, integers, doubles; anything else as its JSON text.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable
from typing import Any

from google.protobuf.json_format import MessageToDict
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, InstrumentationScope, KeyValue
from opentelemetry.proto.resource.v1.resource_pb2 import Resource
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans, Span, Status

from inspector import __version__
from inspector.core.otel.spans import SpanRecord

SCOPE = "mcp-inspector"
_ID_FIELDS = ("traceId", "spanId", "parentSpanId")


def value_of(value: Any) -> AnyValue:
    """An attribute value as OTLP's AnyValue."""
    if isinstance(value, bool):
        return AnyValue(bool_value=value)
    if isinstance(value, int) and -(2 ** 63) <= value < 2 ** 63:
        return AnyValue(int_value=value)
    if isinstance(value, float):
        return AnyValue(double_value=value)
    if isinstance(value, str):
        return AnyValue(string_value=value)
    return AnyValue(string_value=json.dumps(value, ensure_ascii=False, default=str))


def attributes(values: dict[str, Any]) -> list[KeyValue]:
    return [KeyValue(key=key, value=value_of(value)) for key, value in values.items() if value is not None]


def span_message(record: SpanRecord) -> Span:
    span = Span(trace_id=record.trace_id, span_id=record.span_id, parent_span_id=record.parent_span_id,
                name=record.name, kind=record.kind,  # type: ignore[arg-type]  # the enum's int, as OTLP defines it
                start_time_unix_nano=record.start_ns, end_time_unix_nano=max(record.end_ns, record.start_ns),
                attributes=attributes(record.attributes), trace_state=record.trace_state,
                dropped_events_count=record.dropped_events,
                status=Status(code=record.status_code, message=record.status_message))  # type: ignore[arg-type]
    for event in record.events:
        span.events.add(time_unix_nano=event.time_ns, name=event.name, attributes=attributes(event.attributes))
    return span


def export_request(records: Iterable[SpanRecord]) -> ExportTraceServiceRequest:
    """One ``ExportTraceServiceRequest`` holding ``records``."""
    resource = Resource(attributes=attributes({"service.name": "mcp-inspector", "service.version": __version__,
                                               "telemetry.sdk.language": "python"}))
    scope = ScopeSpans(scope=InstrumentationScope(name=SCOPE, version=__version__),
                       spans=[span_message(record) for record in records])
    return ExportTraceServiceRequest(resource_spans=[ResourceSpans(resource=resource, scope_spans=[scope])])


def to_otlp_json(request: ExportTraceServiceRequest) -> dict[str, Any]:
    """The request's OTLP/JSON object (ids in hex)."""
    data: dict[str, Any] = MessageToDict(request, use_integers_for_enums=True)
    for resource_spans in data.get("resourceSpans", []):
        for scope_spans in resource_spans.get("scopeSpans", []):
            for span in scope_spans.get("spans", []):
                for name in _ID_FIELDS:
                    if name in span:
                        span[name] = base64.b64decode(span[name]).hex()
    return data
