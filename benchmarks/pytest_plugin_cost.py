"""What the pytest plugin (inspector/testing) adds per test beyond the server's own start (issue 45: at most 50 ms).

A temporary project with a small Python SDK server (mcp 2.x ``MCPServer``) and two test files of N tests each,
every test starting the server, calling one tool and checking the answer:

- ``test_plugin.py``: ``@pytest.mark.mcp_server(sys.executable, "server.py")`` and the ``mcp_client`` fixture (the
  session recorded to a capture, the exchanges checked, the client synchronous);
- ``test_raw.py``: the baseline, the server's own start: the same server started with ``subprocess.Popen`` and
  spoken to by hand (initialize, initialized, the call, one JSON line each; then stdin closed and the server's
  own exit waited for, as the specification's shutdown has it): the server's own start and stop;
- ``test_bare.py``: the same with the bare SDK client (``mcp.Client`` over stdio in ``asyncio.run``), for
  comparison with what a developer would write without the plugin.

Each file runs in its own ``python -m pytest -p no:randomly`` in the project, the two alternated ``--repeat``
times; a conftest adds up each test's setup, call and teardown (pytest's own start is left out). Printed: the
median ms per test of each, its ratio to the raw baseline, and what the plugin adds per test (plugin less raw),
with the first test of each run (which imports the inspector's core, or the SDK) apart.

    python benchmarks/pytest_plugin_cost.py [--tests 20] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SERVER = '''
from mcp.server.mcpserver import MCPServer

server = MCPServer("greeter", version="1.0.0")


@server.tool()
def greet(name: str) -> str:
    """Greet someone."""
    return f"Hello, {name}!"


if __name__ == "__main__":
    server.run()
'''

PLUGIN_TESTS = '''
import sys

import pytest

pytestmark = pytest.mark.mcp_server(sys.executable, "server.py")


@pytest.mark.parametrize("n", range({n}))
def test_greets(mcp_client, n):
    result = mcp_client.call("greet", name=f"Ada {{n}}")
    assert result["content"][0]["text"] == f"Hello, Ada {{n}}!"
'''

BARE_TESTS = '''
import asyncio
import os
import sys
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

SERVER = str(Path(__file__).parent / "server.py")


async def greet(n):
    params = StdioServerParameters(command=sys.executable, args=[SERVER], env=dict(os.environ))
    async with Client(params, read_timeout_seconds=20) as client:
        result = await client.call_tool("greet", {{"name": f"Ada {{n}}"}})
        return result.content[0].text


@pytest.mark.parametrize("n", range({n}))
def test_greets(n):
    assert asyncio.run(greet(n)) == f"Hello, Ada {{n}}!"
'''

RAW_TESTS = '''
import json
import subprocess
import sys
from pathlib import Path

import pytest

SERVER = str(Path(__file__).parent / "server.py")


def send(server, message):
    server.stdin.write(json.dumps(message).encode() + b"\\n")
    server.stdin.flush()


@pytest.mark.parametrize("n", range({n}))
def test_greets(n):
    server = subprocess.Popen([sys.executable, SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    send(server, {{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {{
        "protocolVersion": "2025-11-25", "capabilities": {{}}, "clientInfo": {{"name": "raw", "version": "1"}}}}}})
    assert json.loads(server.stdout.readline())["id"] == 1
    send(server, {{"jsonrpc": "2.0", "method": "notifications/initialized"}})
    send(server, {{"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                  "params": {{"name": "greet", "arguments": {{"name": f"Ada {{n}}"}}}}}})
    answer = json.loads(server.stdout.readline())
    assert answer["result"]["content"][0]["text"] == f"Hello, Ada {{n}}!"
    server.stdin.close()  # the specification's shutdown: stdin closed, the server exits by itself
    assert server.wait(10) == 0
'''

# each test's setup + call + teardown, written where the benchmark reads it (pytest's own start left out)
CONFTEST = '''
import json
import os

_durations = {}


def pytest_runtest_logreport(report):
    _durations[report.nodeid] = _durations.get(report.nodeid, 0.0) + report.duration


def pytest_sessionfinish(session):
    with open(os.environ["PLUGIN_COST_OUT"], "w") as out:
        json.dump(list(_durations.values()), out)
'''


FILES = ("test_raw.py", "test_plugin.py", "test_bare.py")  #: the arms, run in this order each round


def make_project(folder: Path, n: int) -> None:
    (folder / "server.py").write_text(SERVER, encoding="utf-8")
    (folder / "test_plugin.py").write_text(textwrap.dedent(PLUGIN_TESTS.format(n=n)), encoding="utf-8")
    (folder / "test_bare.py").write_text(textwrap.dedent(BARE_TESTS.format(n=n)), encoding="utf-8")
    (folder / "test_raw.py").write_text(textwrap.dedent(RAW_TESTS.format(n=n)), encoding="utf-8")
    (folder / "conftest.py").write_text(CONFTEST, encoding="utf-8")
    (folder / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")  # the project's own root, not the repo's


def plugin_args() -> list[str]:
    """``-p`` the plugin unless ``pip install`` registered it (pytest would refuse the module twice)."""
    from importlib.metadata import entry_points

    installed = any(ep.value == "inspector.testing.plugin" for ep in entry_points(group="pytest11"))
    return [] if installed else ["-p", "inspector.testing.plugin"]


def run(folder: Path, test_file: str) -> list[float]:
    """One pytest run of ``test_file``: each test's seconds, in order."""
    out = folder / "durations.json"
    env = {**os.environ, "PLUGIN_COST_OUT": str(out), "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "pytest", *plugin_args(), "-p", "no:randomly", "-p",
                           "no:cacheprovider", "-q", "-n", "0", test_file], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=600, check=False)
    if done.returncode != 0:
        sys.exit(f"{test_file} failed:\n{done.stdout[-3000:]}{done.stderr[-2000:]}")
    durations: list[float] = json.loads(out.read_text(encoding="utf-8"))
    return durations


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tests", type=int, default=20, help="tests per file (default 20)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each file, alternated (default 3)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="plugin-cost-") as temp:
        folder = Path(temp)
        make_project(folder, args.tests)
        arms: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name in FILES}
        for _ in range(args.repeat):
            for file, (later, first) in arms.items():
                durations = run(folder, file)
                first.append(durations[0])
                later.extend(durations[1:])
    ms = {file: statistics.median(later) * 1000 for file, (later, _first) in arms.items()}
    firsts = {file: statistics.median(first) * 1000 for file, (_later, first) in arms.items()}
    raw = ms["test_raw.py"]
    print(f"{args.tests} tests x {args.repeat} runs of each file, alternated; median ms per test (the first test of "
          "a run apart)")
    print("| run | ms per test | x raw | first test ms |")
    print("|---|---|---|---|")
    for file, label in (("test_raw.py", "raw: Popen and JSON lines (baseline)"),
                        ("test_plugin.py", "mcp_client fixture (the plugin)"),
                        ("test_bare.py", "bare SDK client (mcp.Client)")):
        print(f"| {label} | {ms[file]:.1f} | {ms[file] / raw:.2f} | {firsts[file]:.0f} |")
    print(f"the plugin adds {ms['test_plugin.py'] - raw:+.1f} ms per test to the server's own start (bar: at most "
          f"50 ms); the SDK client adds {ms['test_bare.py'] - raw:+.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
