"""``--max-message SIZE`` raises (or lowers) the per-message limit of record, replay, tap and the window: a
message over it is recorded as a framing error with its head and tail, and one under it whole, byte-exact."""

from __future__ import annotations

import json
import os
import sys

import pytest
import warm_cli
from helpers import DEMO, ROOT, cli

from inspector.cli.main import build_parser
from inspector.core.capture import read_capture
from inspector.core.sizes import format_size, parse_size
from inspector.core.wire.events import Kind
from inspector.core.wire.framing import DEFAULT_MAX_LINE_BYTES

SIZE = 200_000  #: the demo's big_message answer is a little more than this


def record_big(tmp_path, *options: str):
    send = tmp_path / "send.jsonl"
    send.write_text(json.dumps({"method": "tools/call", "params": {"name": "big_message",
                                                                  "arguments": {"size_bytes": SIZE}}}) + "\n")
    out = tmp_path / "big.jsonl"
    done = cli("record", "--out", str(out), "--send", str(send), "--handshake", "legacy", *options, "--", *DEMO)
    return done, read_capture(out).events


def test_a_message_over_max_message_is_a_framing_error_and_the_sentence_says_how_to_raise_the_limit(tmp_path):
    done, events = record_big(tmp_path, "--max-message", "100K")
    assert done.returncode != 0
    [oversize] = [e for e in events if e.kind == Kind.FRAMING_ERROR]
    assert oversize.data["oversize"]["total_bytes"] > SIZE
    assert "over the size limit (100 KiB per message)" in (oversize.reason or "")
    assert "raise the limit with --max-message (for example --max-message 1M)" in done.stderr


def test_the_same_message_under_a_raised_max_message_is_recorded_whole(tmp_path):
    done, events = record_big(tmp_path, "--max-message", "1M")
    assert done.returncode == 0, done.stderr
    answer = next(e for e in events if e.kind == Kind.MESSAGE and e.data.get("request_method") == "tools/call")
    assert len(json.loads(answer.raw)["result"]["content"][0]["text"]) >= SIZE
    assert not [e for e in events if e.kind == Kind.FRAMING_ERROR]


def test_tap_relays_a_message_over_max_message_whole_and_records_its_head_and_tail(tmp_path):
    capture = tmp_path / "tap.jsonl"
    lines = [{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                 "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
             {"jsonrpc": "2.0", "method": "notifications/initialized"},
             {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
              "params": {"name": "big_message", "arguments": {"size_bytes": SIZE}}}]
    stdin = "".join(json.dumps(line) + "\n" for line in lines)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MCP_INSPECTOR_")}
    done = warm_cli.run([sys.executable, "-m", "inspector", "tap", "--no-live", "--capture", str(capture),
                           "--max-message", "100K", "--", *DEMO], input=stdin.encode(), capture_output=True,
                          timeout=60, cwd=ROOT, env={**env, "HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path)})
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [a.get("id") for a in answers] == [1, 2], "the client got both answers, the big one whole"
    assert len(done.stdout.splitlines()[1]) > SIZE
    events = read_capture(capture).events
    [oversize] = [e for e in events if e.kind == Kind.FRAMING_ERROR]
    assert oversize.data["oversize"]["total_bytes"] > SIZE


@pytest.mark.parametrize("command", [["record", "--out", "x.jsonl"], ["replay", "c.jsonl"], ["tap"]])
def test_max_message_is_parsed_as_a_size_and_defaults_to_the_framing_limit(command):
    parser = build_parser()
    assert parser.parse_args(command).max_message == DEFAULT_MAX_LINE_BYTES == 64 * 1024 * 1024
    assert parser.parse_args([*command, "--max-message", "200MB"]).max_message == 200 * 1024 * 1024


def test_the_window_takes_max_message_too_and_leaves_it_unset_by_default():
    parser = build_parser()
    assert parser.parse_args([]).max_message is None
    assert parser.parse_args(["--max-message", "128M"]).max_message == 128 * 1024 * 1024


def test_a_bad_size_is_a_usage_error_naming_what_was_typed():
    done = cli("record", "--out", "x.jsonl", "--max-message", "lots", "--", "true")
    assert done.returncode == 2
    assert "argument --max-message: 'lots' is not a size" in done.stderr


@pytest.mark.parametrize(("text", "size"), [("65536", 65536), ("64K", 64 * 1024), ("64k", 64 * 1024),
                                            ("64M", 64 * 1024**2), ("200MB", 200 * 1024**2), ("1.5G", 3 * 1024**3 // 2),
                                            ("256 MiB", 256 * 1024**2), ("2gb", 2 * 1024**3)])
def test_sizes_are_bytes_or_a_number_with_k_m_or_g(text, size):
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["", "M", "-1M", "0", "1T", "ten", "1..5M"])
def test_what_is_no_size_is_refused_with_a_sentence(text):
    with pytest.raises(ValueError, match="is not a size"):
        parse_size(text)


def test_sizes_are_written_back_in_the_largest_unit_that_reads_well():
    assert [format_size(n) for n in (1, 512, 1024, 100 * 1024, 64 * 1024**2, 3 * 1024**3 // 2)] == \
        ["1 byte", "512 bytes", "1 KiB", "100 KiB", "64 MiB", "1.5 GiB"]
