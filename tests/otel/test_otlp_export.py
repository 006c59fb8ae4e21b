"""``export --to otlp`` (OTLP/JSON lines) keeps a request's traceparent, and is OTLP that opentelemetry-proto
reads back; ``record --otlp-endpoint`` sends the spans live to an OTLP/HTTP receiver (tests/otel/otlp_receiver.py,
decoding with opentelemetry-proto), a traceparent honoured there too."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
import warm_python
from google.protobuf.json_format import ParseDict
from helpers import cli, wait_until
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from otlp_receiver import attributes, otlp_receiver

SERVER = Path(__file__).parent.parent / "compare" / "servers" / "versioned_server.py"
RUN_TIMEOUT = 90.0
TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT = "00f067aa0ba902b7"
CALL = {"method": "tools/call", "params": {"name": "add", "arguments": {"a": 2, "b": 3},
                                           "_meta": {"traceparent": f"00-{TRACE}-{PARENT}-01"}}}


def record(tmp_path: Path, *options: str) -> tuple[Path, object]:
    send = tmp_path / "send.jsonl"
    send.write_text(json.dumps(CALL) + "\n" + json.dumps({"method": "tools/call", "params": {
        "name": "echo", "arguments": {"message": "hi"}}}) + "\n")
    out = tmp_path / "c.jsonl"
    done = cli("record", "--out", str(out), "--send", str(send), *options, "--", *warm_python.command(SERVER),
               timeout=RUN_TIMEOUT)
    return out, done


def test_an_otlp_export_keeps_the_traceparent_and_reads_back_as_otlp(tmp_path: Path) -> None:
    capture, done = record(tmp_path)
    assert done.returncode == 0, done.stderr
    exported = cli("export", str(capture), "--to", "otlp")
    assert exported.returncode == 0, exported.stderr
    lines = exported.stdout.splitlines()
    spans = [span for line in lines for rs in json.loads(line)["resourceSpans"] for ss in rs["scopeSpans"]
             for span in ss["spans"]]
    call = next(s for s in spans if s["name"] == "tools/call add")
    assert (call["traceId"], call["parentSpanId"]) == (TRACE, PARENT)  # hex, as OTLP/JSON wants
    echo = next(s for s in spans if s["name"] == "tools/call echo")
    session = next(s for s in spans if s["name"].startswith("mcp session"))
    assert echo["parentSpanId"] == session["spanId"] and echo["traceId"] == session["traceId"] != TRACE
    for line in lines:  # every line is an ExportTraceServiceRequest (ids turned back to the protobuf mapping)
        data = json.loads(line)
        for rs in data["resourceSpans"]:
            for ss in rs["scopeSpans"]:
                for span in ss["spans"]:
                    for name in ("traceId", "spanId", "parentSpanId"):
                        if name in span:
                            span[name] = base64.b64encode(bytes.fromhex(span[name])).decode()
        request = ParseDict(data, ExportTraceServiceRequest())
        assert request.resource_spans[0].scope_spans[0].scope.name == "mcp-inspector"


def test_record_sends_a_span_per_request_live_to_the_otlp_receiver(tmp_path: Path) -> None:
    with otlp_receiver() as receiver:
        _, done = record(tmp_path, "--otlp-endpoint", receiver.url)
        assert done.returncode == 0, done.stderr
        wait_until(lambda: any(s.name.startswith("mcp session") for s in receiver.spans), 10, "the session span")
    assert set(receiver.paths) == {"/v1/traces"}
    assert set(receiver.content_types) == {"application/x-protobuf"}
    spans = {s.name: s for s in receiver.spans}
    call = spans["tools/call add"]
    assert (call.trace_id.hex(), call.parent_span_id.hex()) == (TRACE, PARENT)
    assert attributes(call)["mcp.server.name"] == "versioned-test-server"
    assert attributes(call)["gen_ai.tool.name"] == "add"
    assert call.end_time_unix_nano > call.start_time_unix_nano
    assert attributes(receiver.resources()[0])["service.name"] == "mcp-inspector"


@pytest.mark.report("faults", "an OpenTelemetry collector that refuses the spans", surface="CLI", group="input",
                    advice="Check the collector's URL (its OTLP/HTTP port, usually 4318) and that it accepts "
                           "traces; the session and its capture are complete either way.")
def test_a_refusing_collector_is_one_sentence_and_the_session_still_succeeds(tmp_path: Path, report) -> None:
    with otlp_receiver() as receiver:
        receiver.status = 400
        _, done = record(tmp_path, "--otlp-endpoint", receiver.url)
    report.saw(done.stderr.strip().splitlines()[-1].removeprefix("mcp-inspector: "))
    assert done.returncode == 0
    assert "the OTLP endpoint" in done.stderr and "answered 400" in done.stderr and "not exported" in done.stderr
    assert "Traceback" not in done.stderr


def test_an_endpoint_that_is_no_url_is_refused_before_the_server_starts(tmp_path: Path) -> None:
    _, done = record(tmp_path, "--otlp-endpoint", "localhost:4318")
    assert done.returncode == 2
    assert "must be an http or https URL" in done.stderr
