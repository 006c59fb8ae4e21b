"""The load tests' HTTP server: the SDK's server over Streamable HTTP (tests/http/servers/sdk_http_server.py),
started with the HTTP tests' own launcher."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import warm_python

HTTP_TESTS = Path(__file__).parent.parent / "http"


@pytest.fixture(scope="module")
def sdk_http_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    sys.path.insert(0, str(HTTP_TESTS))
    from http_support import free_port, launch, stop

    port = free_port()
    log = tmp_path_factory.mktemp("sdk-http") / "server.log"
    server = launch("sdk-http", warm_python.command(HTTP_TESTS / "servers" / "sdk_http_server.py", "streamable-http",
                                                     str(port)), log, port=port)
    try:
        yield server.url("/mcp")
    finally:
        stop(server)
