"""Shared by the tests of ``serve --listen`` (tests/cli/test_serve_listen.py, tests/http/test_http_serve.py): a
served capture running in a process of its own, and the Python SDK's own client over HTTP."""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
import warm_cli
from helpers import ROOT


def tap_support() -> Any:
    """tests/tap/http_tap_support.py (what listens, read in /proc), loaded by its path as that folder's tests do."""
    module = sys.modules.get("http_tap_support")
    if module is None:
        spec = importlib.util.spec_from_file_location("http_tap_support", ROOT / "tests" / "tap" /
                                                      "http_tap_support.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["http_tap_support"] = module
        spec.loader.exec_module(module)
    return module


#: Bound on the served capture starting (its URL printed), and on its end after a signal.
START_TIMEOUT = 30.0
CLIENT_TIMEOUT = 30.0


class Served:
    """A running ``serve --listen``: its URL, and :meth:`stop` (a signal, then its exit status and stderr)."""

    def __init__(self, process: subprocess.Popen[bytes], url: str) -> None:
        self.process = process
        self.url = url
        self.stderr = ""

    def stop(self, sig: int = signal.SIGTERM) -> int:
        if self.process.poll() is None:
            self.process.send_signal(sig)
        try:
            _, err = self.process.communicate(timeout=START_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.communicate(timeout=START_TIMEOUT)
            pytest.fail(f"serve did not end within {START_TIMEOUT:g} s of signal {sig}")
        self.stderr = err.decode("utf-8", "replace")
        return self.process.returncode


@contextmanager
def serving(capture: Path, *options: str) -> Iterator[Served]:
    """``serve CAPTURE --listen 127.0.0.1:0 OPTIONS`` running; its URL is the line it prints."""
    argv = [sys.executable, "-m", "inspector", "serve", str(capture), "--listen", "127.0.0.1:0", *options]
    process = warm_cli.Popen(argv, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env=dict(os.environ))
    try:
        line = tap_support().first_line(process, START_TIMEOUT).decode().strip()
        if not line:
            process.kill()
            _, err = process.communicate(timeout=START_TIMEOUT)
            pytest.fail(f"serve printed no URL within {START_TIMEOUT:g} s: {err.decode('utf-8', 'replace')}")
        yield Served(process, line)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate(timeout=START_TIMEOUT)
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()


async def sdk_session(url: str, transport: str, resource: str = "demo://readme") -> dict[str, Any]:
    """The SDK's own client over ``transport``: initialize, the tools, add(2, 3), ``resource``, add(2, 4)."""
    from mcp.client.session import ClientSession

    if transport == "sse":
        from mcp.client.sse import sse_client as client
    else:
        from mcp.client.streamable_http import streamable_http_client as client
    with anyio.fail_after(CLIENT_TIMEOUT):
        async with client(url) as streams, ClientSession(streams[0], streams[1]) as session:
            name = (await session.initialize()).server_info.name
            tools = await session.list_tools()
            call = await session.call_tool("add", {"a": 2, "b": 3})
            read = await session.read_resource(resource)
            try:
                await session.call_tool("add", {"a": 2, "b": 4})
                missed = ""
            except Exception as exc:  # the SDK's MCPError, whatever its module: its message is kept
                missed = str(exc)
    return {"server": name, "tools": [t.model_dump(by_alias=True, exclude_none=True) for t in tools.tools],
            "call": call.structured_content, "text": call.content[0].text, "uri": str(read.contents[0].uri),
            "contents": read.model_dump(mode="json")["contents"], "missed": missed}
