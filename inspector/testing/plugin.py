"""The pytest plugin (entry point ``pytest11``): markers ``mcp_server`` and ``mcp_cassette``, fixture
``mcp_client``, options ``--mcp-update`` and ``--mcp-ignore`` (docs/pytest-plugin.md).

Inert unless a test uses them: this module imports only pytest; the inspector's core is imported when a test asks
for ``mcp_client``.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from inspector.core.connect.target import Target
    from inspector.testing.client import McpClient

CLIENT = pytest.StashKey["McpClient"]()
CAPTURE = pytest.StashKey[Path]()
FAILED = pytest.StashKey[bool]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("mcp", "MCP servers (mcp-inspector)")
    group.addoption("--mcp-update", action="store_true", default=False,
                    help="record again every mcp_cassette whose exchanges differ, instead of failing the test")
    group.addoption("--mcp-ignore", action="append", default=[], metavar="JSON_POINTER",
                    help="a place in answers never compared with a cassette (/result/content/0/text; repeatable)")
    parser.addini("mcp_server", "the command of the server mcp_client starts when no mcp_server marker names one",
                  type="args", default=[])


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "mcp_server(*argv, url=None, env=None): the MCP server mcp_client talks to "
                                       "(a command, or url=...)")
    config.addinivalue_line("markers", "mcp_cassette(name): compare the test's exchanges with cassettes/NAME.jsonl "
                                       "beside the test file (recorded when missing or with --mcp-update)")
    if config.getoption("mcp_ignore"):  # a mistyped place stops the run at once, not at the first cassette
        from inspector.testing.cassette import CassetteError, ignore_paths

        try:
            ignore_paths(config.getoption("mcp_ignore"))
        except (CassetteError, ValueError) as exc:
            raise pytest.UsageError(str(exc)) from None


def _target(item: pytest.Item) -> Target:
    """The server of the closest ``mcp_server`` marker (run in the test file's folder), else of the ini option
    (run in the rootdir, where the ini is)."""
    from inspector.core.connect.target import Target

    marker = item.get_closest_marker("mcp_server")
    argv: list[str] = [str(a) for a in marker.args] if marker else []
    url = marker.kwargs.get("url") if marker else None
    env = marker.kwargs.get("env") if marker else None
    cwd = Path(str(item.path)).parent
    if argv and url:
        pytest.fail("mcp_server names a command or a url=, not both", pytrace=False)
    if not argv and not url:
        argv, cwd = list(item.config.getini("mcp_server")), item.config.rootpath
    if not argv and not url:
        pytest.fail("mcp_client needs a server: mark the test @pytest.mark.mcp_server(COMMAND...) or "
                    "@pytest.mark.mcp_server(url=...), or set mcp_server in the pytest ini", pytrace=False)
    return Target(name=item.name, argv=argv, url=url or "", env={str(k): str(v) for k, v in (env or {}).items()},
                  cwd=str(cwd))


@pytest.fixture
def mcp_client(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[McpClient]:
    """A synchronous client on the server the ``mcp_server`` marker (or ini option) names, its session saved to a
    capture that is kept and named in the report when the test fails."""
    from inspector.core.connect.opened import CannotOpen
    from inspector.testing.client import McpClient

    item = request.node
    capture = tmp_path / "session.jsonl"
    item.stash[CAPTURE] = capture
    try:
        client = McpClient(_target(item), capture)
    except CannotOpen as exc:
        pytest.fail(f"mcp_client cannot open the server: {exc}", pytrace=False)
    item.stash[CLIENT] = client
    try:
        yield client
    finally:
        client.close()
        if not item.stash.get(FAILED, False):
            capture.unlink(missing_ok=True)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    """After a passing test with ``mcp_cassette``: its session ended and compared with the cassette."""
    outcome = yield
    marker = item.get_closest_marker("mcp_cassette")
    client = item.stash.get(CLIENT, None)
    if marker is None or client is None:
        return outcome
    from inspector.testing import cassette

    if not marker.args:
        pytest.fail("mcp_cassette needs a name: @pytest.mark.mcp_cassette('NAME')", pytrace=False)
    client.close()
    path = Path(str(item.path)).parent / "cassettes" / f"{marker.args[0]}.jsonl"
    if not path.exists():
        cassette.record(client.capture, path)
        return outcome
    try:
        ignore = cassette.ignore_paths(item.config.getoption("mcp_ignore"))
        lines = cassette.differences(path, client.capture, ignore)
    except (cassette.CassetteError, ValueError) as exc:
        if not item.config.getoption("mcp_update"):
            pytest.fail(str(exc), pytrace=False)
        lines = [str(exc)]
    if lines and item.config.getoption("mcp_update"):
        # Only a cassette whose exchanges changed is written again: a capture's pids and timings differ on every
        # run, and an unchanged cassette rewritten would be a diff in the user's repository each time.
        cassette.record(client.capture, path)
        return outcome
    if lines:
        pytest.fail(f"the MCP exchanges differ from the cassette {path} (--mcp-update records it again):\n  "
                    + "\n  ".join(lines), pytrace=False)
    return outcome


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]
                              ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """A failed test's report names its session's capture (``mcp-inspector --open PATH`` shows it)."""
    report = yield
    capture = item.stash.get(CAPTURE, None)
    if capture is not None and report.failed:
        item.stash[FAILED] = True
        report.sections.append(("mcp capture", f"the MCP session is kept in {capture} "
                                               f"(mcp-inspector --open {capture})"))
    return report
