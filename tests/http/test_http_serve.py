"""A capture recorded over HTTP from the official Python SDK's server serves over HTTP: the SDK's own client gets
from ``serve --listen`` the tools, the call's result and the resource it gets from the real server, whichever
HTTP transport the capture was recorded on and the twin is served on."""

from __future__ import annotations

import anyio
import pytest
from serve_support import sdk_session, serving

from inspector.core.exits import EXIT_OK

pytestmark = pytest.mark.integration

SEND = [{"method": "tools/list"}, {"method": "tools/call", "params": {"name": "add", "arguments": {"a": 2, "b": 3}}},
        {"method": "resources/read", "params": {"uri": "test://greeting"}}]


@pytest.mark.parametrize(("recorded_on", "served_on"), [("streamable-http", "streamable-http"),
                                                        ("sse", "streamable-http"), ("streamable-http", "sse")])
def test_the_sdks_client_gets_from_a_served_http_capture_what_the_real_sdk_server_gave(
        recorded_on, served_on, sdk_streamable, sdk_sse, record):
    server = sdk_streamable if recorded_on == "streamable-http" else sdk_sse
    url = server.url("/mcp" if recorded_on == "streamable-http" else "/sse")
    recorded = record(url, "--transport", recorded_on, "--handshake", "legacy", send=SEND)
    assert recorded.returncode == 0, recorded.stderr
    real = anyio.run(sdk_session, url, recorded_on, "test://greeting")
    with serving(recorded.out, "--transport", served_on) as served:
        twin = anyio.run(sdk_session, served.url, served_on, "test://greeting")
        assert served.stop() == EXIT_OK, served.stderr
    assert twin["server"] == real["server"] == "inspector-test-sdk-http-server"
    assert twin["tools"] == real["tools"]
    assert (twin["call"], twin["text"]) == (real["call"], real["text"]) == ({"result": 5}, "5")
    assert twin["contents"] == real["contents"]
    assert real["missed"] == "" and "no recorded answer to this tools/call" in twin["missed"]
