"""Every CLI command that prints server text prints its control codes escaped (issue 26, point 6: the
adversarial pass's ``hs.py errmsg`` set the terminal's title, cleared the screen and printed a fake "all good"
through ``call``).

servers/escapes_server.py puts the escapes in every text it has; each command is run against it (or on the
capture ``record`` made of it) and its stdout and stderr are searched for any control character but tab and
line feed: C0, DEL, C1 (U+009B is a one-byte CSI), the line separators and the bidirectional overrides.
JSON output stays the same JSON value: its escapes are JSON's own.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import cli

SERVER = [sys.executable, str(Path(__file__).resolve().parent / "servers" / "escapes_server.py")]
#: What the server puts in its texts (servers/escapes_server.py ESCAPES).
ESCAPES = "boom\x1b]0;PWNED\x07\x1b[2J\x1b[1;31mFAKE: all good\x1b[0m\x9b6n\u202e"
#: How it reads once escaped.
SHOWN = r"boom\x1b]0;PWNED\x07\x1b[2J\x1b[1;31mFAKE: all good\x1b[0m\x9b6n\u202e"
CONTROL = ({chr(c) for c in range(0x20) if chr(c) not in "\t\n"} | {chr(0x7F)} | {chr(c) for c in range(0x80, 0xA0)}
           | {"\u2028", "\u2029"} | {chr(c) for c in range(0x202A, 0x202F)} | {chr(c) for c in range(0x2066, 0x206A)})
#: Each one-shot command, and whether its output carries the escapes in JSON (True) or as text (False).
ONE_SHOTS: list[tuple[list[str], bool]] = [
    (["tools"], True), (["resources"], True), (["templates"], True), (["prompts"], True),
    (["call", "echo"], True), (["call", "echo", "--text"], False), (["call", "fail"], False),
    (["read", "mem://one"], True), (["read", "mem://one", "--text"], False), (["prompt", "greet"], True),
    (["prompt", "greet", "--text"], False), (["complete", "--prompt", "greet", "name", "x"], True),
    (["request", "foo/bar"], False),
]


def strings(value: Any) -> Iterator[str]:
    """Every string in a JSON value."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def raw_controls(text: str) -> list[str]:
    return sorted({f"U+{ord(c):04X}" for c in text if c in CONTROL})


@pytest.mark.integration  # end to end through subprocesses, 7-13 s: CI's second step
@pytest.mark.report("security", "call, read, prompt, the listings, record, check, show and lint print server text "
                                "with its terminal escapes shown, never raw", surface="CLI")
def test_every_cli_command_prints_a_servers_terminal_escapes_escaped(tmp_path: Path, report) -> None:
    printed = 0
    for command, as_json in ONE_SHOTS:
        run = cli(*command, "--", *SERVER)
        output = run.stdout + run.stderr
        assert raw_controls(output) == [], f"{' '.join(command)} wrote control codes: {raw_controls(output)}"
        if as_json:  # the same JSON value: nothing lost
            assert any(ESCAPES in text for text in strings(json.loads(run.stdout))), output
        else:
            assert SHOWN in output, f"{' '.join(command)}: the server's text is not in the output:\n{output}"
        printed += 1
    failed = cli("call", "fail", "--", *SERVER)
    assert failed.stderr.startswith(f"mcp-inspector: the server answered tools/call with a JSON-RPC error: {SHOWN} "
                                    "(code -32000)\n"), failed.stderr
    assert json.loads(failed.stderr.splitlines()[1])["message"] == ESCAPES
    # record (its summary and its sentence about the error answer), then show and lint of its capture, and check
    calls = tmp_path / "calls.jsonl"
    calls.write_text('{"method": "tools/call", "params": {"name": "fail", "arguments": {}}}\n')
    capture = tmp_path / "s.jsonl"
    runs = {"record": cli("record", "--out", str(capture), "--send", str(calls), "--idle", "0", "--", *SERVER),
            "show": None, "lint": None, "check": cli("check", "--", *SERVER, timeout=120)}
    runs["show"], runs["lint"] = cli("show", str(capture)), cli("lint", str(capture))
    for name, run in runs.items():
        assert run is not None
        output = run.stdout + run.stderr
        assert raw_controls(output) == [], f"{name} wrote control codes: {raw_controls(output)}"
        printed += 1
    assert SHOWN in runs["record"].stderr and SHOWN in runs["show"].stdout and SHOWN in runs["check"].stdout
    report.saw(f"{printed} commands, each output free of control codes; e.g. call: mcp-inspector: the server answered "
               f"tools/call with a JSON-RPC error: {SHOWN} (code -32000)")
