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
