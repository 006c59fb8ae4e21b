"""The window's --otlp-endpoint (inspector/ui/otel_export.py): a live session's requests reach an OTLP/HTTP
receiver as spans (decoded with opentelemetry-proto), the last ones when the session ends."""

from __future__ import annotations

import pytest
from helpers import until
from otlp_receiver import attributes, otlp_receiver
from qt_loop import open_test_window

from inspector.ui import otel_export
from inspector.ui.session.live import READY

pytestmark = pytest.mark.integration


def test_a_live_session_of_the_window_sends_its_spans_to_the_collector(qapp, qloop, tmp_path):
    with otlp_receiver() as receiver:
        otel_export.configure(receiver.url)
        try:
            with open_test_window(qloop, tmp_path) as window:
                async def scenario():
                    tab = window.open_demo()
                    await until(lambda: tab.live.state == READY and tab.explorer.catalog.settled, 30,
                                "the demo listed")
                    await tab.close()
                    await until(lambda: any(s.name.startswith("mcp session") for s in receiver.spans), 15,
                                "the session span at the receiver")

                qloop.run_until_complete(scenario())
        finally:
            otel_export.configure(None)
    names = {s.name for s in receiver.spans}
    assert "tools/list" in names and any(n.startswith("mcp session mcp-inspector-demo") for n in names)
    listing = next(s for s in receiver.spans if s.name == "tools/list")
    assert attributes(listing)["mcp.server.name"] == "mcp-inspector-demo"


@pytest.mark.report("faults", "an OpenTelemetry collector that is down, during a session", surface="GUI",
                    group="input",
                    advice="Start the collector, or check --otlp-endpoint (its OTLP/HTTP port, usually 4318); the "
                           "session and its capture are complete either way.")
def test_a_collector_that_is_down_is_said_in_the_timeline_and_the_status_line_while_the_session_runs(
        qapp, qloop, tmp_path, report):
    """Issue 39: the window showed nothing of a failing export (the note reached only the capture, at the end)
    nor that a live export was on at all."""
    import socket

    with socket.socket() as probe:  # a loopback port nothing listens on: the collector is down
        probe.bind(("127.0.0.1", 0))
        down = f"http://127.0.0.1:{probe.getsockname()[1]}"
    otel_export.configure(down)
    try:
        with open_test_window(qloop, tmp_path) as window:
            tab = window.open_demo()

            def noted() -> list[str]:
                return [str(e.data.get("text")) for e in tab.events
                        if e.kind == "note" and "OpenTelemetry export" in str(e.data.get("text"))]

            qloop.run_until_complete(until(lambda: tab.live.state == READY and tab.explorer.catalog.settled, 30,
                                           "the demo listed"))
            assert f"spans to {down}/v1/traces" in tab.status.text()
            qloop.run_until_complete(until(lambda: bool(noted()), 15, "the export's note in the timeline"))
            qloop.run_until_complete(until(lambda: "failing" in tab.status.text(), 15, "the status line"))
            report.saw(noted()[0])
            assert "cannot send traces to" in noted()[0]
            assert f"spans to {down}/v1/traces (failing" in tab.status.text()
            assert tab.live.state == READY, "the collector is no reason for the session to fail"
    finally:
        otel_export.configure(None)
