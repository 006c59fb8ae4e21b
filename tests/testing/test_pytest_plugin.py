"""The pytest plugin (inspector/testing, docs/pytest-plugin.md): a server developer's temporary project, run by
pytest in a subprocess, records a cassette, fails with both values when the server changes, and records again
with ``--mcp-update``; loading the plugin costs a test run nothing."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
import textwrap
import tomllib
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest
from helpers import ROOT, cli

from inspector.core.capture.reader import read_capture
from inspector.testing.cassette import CassetteError, differences, exchanges, ignore_paths

SERVER = '''
import os

from mcp.server.mcpserver import MCPServer

server = MCPServer("greeter", version="1.0.0")


@server.tool()
def greet(name: str) -> str:
    """Greet someone."""
    return f"{os.environ.get('GREETING', 'Hello')}, {name}!"


@server.tool()
def crash() -> str:
    """Exit the server without an answer."""
    os._exit(3)


@server.resource("note://today")
def today() -> str:
    return "sunny"


if __name__ == "__main__":
    server.run()
'''

# In a folder below the ini's: the ini's server runs where the ini is.
INI_TEST = '''
def test_lists_the_tools_of_the_ini_server(mcp_client):
    assert mcp_client.tools() == ["greet", "crash"]
'''

TESTS = '''
import sys

import pytest


@pytest.mark.mcp_server(sys.executable, "server.py")
class TestMarked:
    @pytest.mark.mcp_cassette("greet")
    def test_greets(self, mcp_client):
        result = mcp_client.call("greet", name="Ada")
        assert result["isError"] is False
        assert mcp_client.read("note://today")["contents"][0]["text"] == "sunny"

    def test_a_server_that_exits_is_a_sentence(self, mcp_client):
        from inspector.testing.client import McpGone

        with pytest.raises(McpGone, match="^tools/call got no answer: "):
            mcp_client.call("crash")

    @pytest.mark.mcp_server(sys.executable, "server.py", env={"GREETING": "Hey"})
    def test_greets_as_its_environment_says(self, mcp_client):
        assert mcp_client.call("greet", name="Ada")["content"][0]["text"] == "Hey, Ada!"
'''


def _project(tmp_path: Path) -> Path:
    (tmp_path / "server.py").write_text(SERVER, encoding="utf-8")
    (tmp_path / "test_server.py").write_text(TESTS, encoding="utf-8")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "test_ini.py").write_text(INI_TEST, encoding="utf-8")
    # Its own ini, so the inspector's pyproject (its addopts, its markers) is not this project's configuration.
    (tmp_path / "pytest.ini").write_text(textwrap.dedent(f"""\
        [pytest]
        mcp_server = {sys.executable} server.py
        """), encoding="utf-8")
    return tmp_path


def _plugin_args() -> list[str]:
    """``-p`` the plugin unless ``pip install`` registered it (pytest would refuse the module twice)."""
    installed = any(ep.value == "inspector.testing.plugin" for ep in entry_points(group="pytest11"))
    return [] if installed else ["-p", "inspector.testing.plugin"]


def _pytest(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pytest", *_plugin_args(), "-p", "no:cacheprovider",
                           "-p", "no:randomly", "-q", *args], cwd=project, capture_output=True, text=True,
                          timeout=120, check=False)


@pytest.mark.integration
def test_a_cassette_is_recorded_then_fails_naming_both_values_until_it_is_updated(tmp_path: Path) -> None:
    project = _project(tmp_path)
    cassette = project / "cassettes" / "greet.jsonl"

    first = _pytest(project)
    assert first.returncode == 0, first.stdout + first.stderr
    assert cassette.exists()
    recorded = cassette.read_bytes()

    server = project / "server.py"
    server.write_text(SERVER.replace("'Hello'", "'Hi'"), encoding="utf-8")
    changed = _pytest(project)
    assert changed.returncode == 1, changed.stdout + changed.stderr
    assert "1 failed, 3 passed" in changed.stdout
    assert 'result.content[0].text was "Hello, Ada!" in the cassette, is "Hi, Ada!" now' in changed.stdout
    assert cassette.read_bytes() == recorded  # a failing comparison never rewrites the cassette
    kept = re.search(r"the MCP session is kept in (\S+) ", changed.stdout)
    assert kept is not None, changed.stdout
    assert "Hi, Ada!" in Path(kept.group(1)).read_text(encoding="utf-8")

    updated = _pytest(project, "--mcp-update")
    assert updated.returncode == 0, updated.stdout + updated.stderr
    assert cassette.read_bytes() != recorded
    rerecorded = cassette.read_bytes()
    unchanged = _pytest(project, "--mcp-update")
    assert unchanged.returncode == 0, unchanged.stdout + unchanged.stderr
    assert cassette.read_bytes() == rerecorded  # the same exchanges: the cassette is left as it was
    again = _pytest(project)
    assert again.returncode == 0, again.stdout + again.stderr

    shown = cli("show", str(cassette))
    assert shown.returncode == 0, shown.stderr
    assert "tools/call" in shown.stdout and "Hi, Ada!" in shown.stdout


@pytest.mark.integration
def test_an_ignored_json_pointer_lets_a_changed_answer_pass(tmp_path: Path) -> None:
    project = _project(tmp_path)
    assert _pytest(project).returncode == 0
    (project / "server.py").write_text(SERVER.replace("'Hello'", "'Hi'"), encoding="utf-8")
    run = _pytest(project, "--mcp-ignore", "/result/content/0/text", "--mcp-ignore", "$.result.structuredContent")
    assert run.returncode == 0, run.stdout + run.stderr
    mistyped = _pytest(project, "--mcp-ignore", "result.content")
    assert mistyped.returncode == 4, mistyped.stdout + mistyped.stderr  # pytest's usage error
    assert "--mcp-ignore 'result.content' is neither a JSON pointer" in mistyped.stderr


@pytest.mark.integration
def test_a_server_that_cannot_start_fails_the_test_in_one_sentence(tmp_path: Path) -> None:
    project = _project(tmp_path)
    (project / "pytest.ini").write_text(f"[pytest]\nmcp_server = {sys.executable} missing.py\n", encoding="utf-8")
    run = _pytest(project, "-k", "ini_server")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "mcp_client cannot open the server:" in run.stdout
    assert "Traceback" not in run.stdout


@pytest.mark.integration
def test_a_server_named_by_url_is_reached_over_http(tmp_path: Path) -> None:
    http_support = _http_support()
    server = http_support.launch_on_free_port(
        "SDK server", lambda port: [sys.executable, str(ROOT / "tests" / "http" / "servers" / "sdk_http_server.py"),
                                    "streamable-http", str(port)], tmp_path / "sdk.log")
    try:
        project = tmp_path / "project"
        project.mkdir()
        (project / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
        (project / "test_http.py").write_text(textwrap.dedent(f"""\
            import pytest

            @pytest.mark.mcp_server(url={server.url()!r})
            def test_adds(mcp_client):
                assert "add" in mcp_client.tools()
                assert mcp_client.call("add", a=2, b=3)["structuredContent"]["result"] == 5
            """), encoding="utf-8")
        run = _pytest(project)
        assert run.returncode == 0, run.stdout + run.stderr
    finally:
        http_support.stop(server)


def _http_support() -> Any:
    """tests/http/http_support.py, which launches the SDK's HTTP server (tests/http is not on this folder's path)."""
    if "http_support" in sys.modules:  # tests/http's own tests imported it in this process already
        return sys.modules["http_support"]
    spec = importlib.util.spec_from_file_location("http_support", ROOT / "tests" / "http" / "http_support.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["http_support"] = module  # its dataclasses look their module up while it is executed
    spec.loader.exec_module(module)
    return module


def _capture(path: Path, answer_text: str, meta: str) -> Path:
    """A capture of one tools/call whose answer says ``answer_text`` and carries ``_meta`` ``meta``."""
    header = {"format": "mcp-inspector-capture", "version": 1, "target": {"transport": "stdio", "argv": ["s"]}}
    lines = [header]
    for seq, (direction, obj) in enumerate([
        ("c2s", {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}),
        ("s2c", {"jsonrpc": "2.0", "id": 1, "result": {"serverInfo": {"name": "s", "version": meta}}}),
        ("c2s", {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "t", "arguments": {}}}),
        ("s2c", {"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": answer_text}],
                                                        "_meta": {"took": meta}}}),
    ], 1):
        lines.append({"seq": seq, "t": seq / 10, "kind": "message", "dir": direction, "raw": json.dumps(obj)})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def test_a_cassette_compares_answers_but_not_the_handshake_or_meta(tmp_path: Path) -> None:
    old = _capture(tmp_path / "old.jsonl", "a", "1")
    assert [e.method for e in exchanges(read_capture(old).events)] == ["tools/call"]
    assert differences(old, _capture(tmp_path / "same.jsonl", "a", "2"), ignore_paths([])) == []
    assert differences(old, _capture(tmp_path / "new.jsonl", "b", "1"), ignore_paths([])) == [
        'request 1 (tools/call): result.content[0].text was "a" in the cassette, is "b" now']
    assert differences(old, tmp_path / "new.jsonl", ignore_paths(["/result/content/0"])) == []
    with pytest.raises(CassetteError, match="neither a JSON pointer"):
        ignore_paths(["result.content"])


def test_loading_the_plugin_imports_nothing_of_the_inspector_but_itself() -> None:
    code = ("import sys, inspector.testing.plugin; "
            "print(sorted(m for m in sys.modules if m.startswith('inspector') and m != 'inspector.testing.plugin'"
            " or m.startswith(('PySide6', 'mcp'))))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert run.stdout.strip() == "['inspector', 'inspector.testing']"


def test_pip_install_registers_the_plugin_with_pytest() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["entry-points"]["pytest11"] == {"mcp_inspector": "inspector.testing.plugin"}
