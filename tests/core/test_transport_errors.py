"""Failures are typed by what went wrong, so callers (the window's hints, a tap's exit status) never match on
the sentence; the sentence stays the one the user reads."""

from __future__ import annotations

import asyncio
import os
import sys

import pytest

from inspector.core.transports.base import (
    CannotRun,
    CommandNotFound,
    NoWorkingDirectory,
    TransportError,
    WholeCommandLine,
)
from inspector.core.transports.http_common import (
    HeaderError,
    UrlError,
    check_url,
    parse_header,
)
from inspector.core.transports.stdio import StdioTransport
from inspector.core.wire.events import Lifecycle


def start_failure(argv: list[str], cwd: str | None = None) -> TransportError:
    async def attempt() -> TransportError:
        transport = StdioTransport(argv, cwd=cwd)
        try:
            await transport.start()
        except TransportError as exc:
            return exc
        await transport.close()
        raise AssertionError(f"{argv} started")

    return asyncio.run(attempt())


def test_a_missing_program_is_command_not_found(tmp_path):
    missing = start_failure(["mcp-inspector-no-such-server"])
    assert type(missing) is CommandNotFound and str(missing).startswith("command not found: mcp-inspector-no-such")
    whole = start_failure(["python -m srv"])
    assert type(whole) is WholeCommandLine and "is a whole command line in one word" in str(whole)
    assert isinstance(whole, CommandNotFound)
    assert type(start_failure([str(tmp_path / "nothing")])) is CommandNotFound


def test_a_program_that_exists_but_cannot_run_as_given_is_cannot_run(tmp_path):
    script = tmp_path / "server.sh"
    script.write_text("#!/bin/sh\n")
    os.chmod(script, 0o644)
    assert type(start_failure([str(script)])) is CannotRun
    assert str(start_failure([str(tmp_path)])) == f"{tmp_path} is a directory, not a program"
    assert type(start_failure([str(tmp_path)])) is CannotRun
    gone = start_failure([sys.executable, "-c", "pass"], cwd=str(tmp_path / "gone"))
    assert type(gone) is NoWorkingDirectory and str(gone) == f"the working directory {tmp_path / 'gone'} does not exist"
    assert isinstance(gone, CannotRun)


def test_a_bad_url_or_header_says_why_with_and_without_naming_it():
    with pytest.raises(UrlError) as url:
        check_url("http:///mcp")
    assert (str(url.value), url.value.detail) == ("'http:///mcp' has no host name", "has no host name")
    with pytest.raises(HeaderError) as bad:
        parse_header("X-Api-Key")
    assert (str(bad.value), bad.value.detail) == ("-H 'X-Api-Key' must look like 'Name: value'",
                                                  "'X-Api-Key' must look like 'Name: value'")


def test_the_lifecycle_names_are_the_strings_captures_have_always_had():
    names = {k: v for k, v in vars(Lifecycle).items() if k.isupper()}
    assert names == {"SPAWNED": "spawned", "STDIN_CLOSED": "stdin_closed", "SIGNAL": "signal", "EXITED": "exited",
                     "GROUP_LEFTOVERS": "group_leftovers", "CONNECTING": "connecting",
                     "DISCONNECTED": "disconnected", "REQUEST_FAILED": "request_failed",
                     "STREAM_LOST": "stream_lost", "CLOSED": "closed",
                     "RELOADING": "reloading"}
