"""What the window's "Serve this capture…" runs: the stdio command to paste, and the HTTP twin as a subprocess
whose first stdout line is its URL, stopped on demand; a twin that cannot start is one sentence."""

from __future__ import annotations

import asyncio
import shlex
import sys
from pathlib import Path

import pytest

from inspector.core.serve.launch import HttpTwin, LaunchError, command_line, http_argv, stdio_argv

#: A stand-in for ``serve --listen`` that prints its URL as serve does, and runs until it is stopped.
PRINTS_URL = "print('http://127.0.0.1:8123/mcp', flush=True)\nimport time\nwhile True: time.sleep(60)\n"


def test_the_stdio_command_is_mcp_inspector_serve_and_the_absolute_path_quoted_for_a_shell(tmp_path: Path):
    capture = tmp_path / "a b.jsonl"
    assert stdio_argv(capture) == ["mcp-inspector", "serve", str(capture.resolve())]
    assert shlex.split(command_line(stdio_argv(capture))) == stdio_argv(capture)


def test_the_http_twin_listens_on_a_free_loopback_port_and_streams_to_the_windows_socket(tmp_path: Path):
    argv = http_argv(tmp_path / "c.jsonl", tmp_path / "tap.sock")
    assert argv[argv.index("--listen") + 1] == "127.0.0.1:0"
    assert argv[argv.index("--socket") + 1] == str(tmp_path / "tap.sock")
    assert "--socket" not in http_argv(tmp_path / "c.jsonl")


@pytest.mark.integration
def test_the_url_is_the_first_line_and_stop_ends_the_process():
    async def scenario() -> tuple[str, int | None, bool]:
        twin = HttpTwin([sys.executable, "-c", PRINTS_URL])
        url = await twin.start()
        running = twin.running
        return url, await twin.stop(), running and not twin.running

    url, code, stopped = asyncio.run(scenario())
    assert url == "http://127.0.0.1:8123/mcp" and stopped and code is not None


@pytest.mark.integration
@pytest.mark.parametrize(("argv", "sentence"), [
    ([sys.executable, "-c", "import sys; print('no such capture', file=sys.stderr); sys.exit(2)"], "no such capture"),
    ([sys.executable, "-c", "print('ready')"], "the twin printed 'ready' where its URL should be"),
    ([sys.executable, "-c", "pass"], "the twin ended (status 0) without printing its URL"),
    (["/nonexistent/mcp-inspector"], "/nonexistent/mcp-inspector cannot be started: No such file or directory"),
], ids=["its-own-sentence", "not-a-url", "no-url", "no-command"])
def test_a_twin_that_cannot_start_is_one_sentence(argv, sentence):
    async def scenario() -> str:
        with pytest.raises(LaunchError) as caught:
            await HttpTwin(argv).start()
        return str(caught.value)

    assert asyncio.run(scenario()) == sentence


@pytest.mark.integration
def test_a_twin_stopped_while_it_starts_never_listens():
    async def scenario() -> tuple[str, int | None]:
        twin = HttpTwin([sys.executable, "-c", PRINTS_URL])
        starting = asyncio.ensure_future(twin.start())
        await asyncio.sleep(0)  # the start is under way: the process is being made
        await twin.stop()
        with pytest.raises(LaunchError) as caught:
            await starting
        assert twin.process is not None
        return str(caught.value), twin.process.returncode

    said, code = asyncio.run(scenario())
    assert said == "stopped before it started" and code is not None
