"""A small OTLP/HTTP receiver for the tests: an HTTP server on 127.0.0.1 (a port the kernel picks) that takes
``POST /v1/traces`` bodies, decodes each with opentelemetry-proto (``ExportTraceServiceRequest``) and keeps the
spans, answering 200 with an empty ``ExportTraceServiceResponse`` as a collector does. ``status`` makes it
refuse instead (a collector that is down or says no)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)


class Receiver:
    def __init__(self) -> None:
        self.requests: list[ExportTraceServiceRequest] = []
        self.paths: list[str] = []
        self.content_types: list[str] = []
        self.status = 200
        self.lock = threading.Lock()
        self.url = ""

    @property
    def spans(self) -> list[Any]:
        with self.lock:
            return [span for request in self.requests for rs in request.resource_spans for ss in rs.scope_spans
                    for span in ss.spans]

    def resources(self) -> list[Any]:
        with self.lock:
            return [rs.resource for request in self.requests for rs in request.resource_spans]


@contextmanager
def otlp_receiver() -> Iterator[Receiver]:
    receiver = Receiver()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            if receiver.status != 200:
                self.send_response(receiver.status)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            request = ExportTraceServiceRequest()
            request.ParseFromString(body)
            with receiver.lock:
                receiver.requests.append(request)
                receiver.paths.append(self.path)
                receiver.content_types.append(self.headers.get("Content-Type", ""))
            answer = ExportTraceServiceResponse().SerializeToString()
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, *args: Any) -> None:  # quiet
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    receiver.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def attributes(span: Any) -> dict[str, Any]:
    """A span's (or event's) attributes as plain values."""
    out = {}
    for item in span.attributes:
        kind = item.value.WhichOneof("value")
        out[item.key] = getattr(item.value, kind) if kind else None
    return out
