"""Every read from a server has a limit, and every export streams (issue 26, point 4): under a flood of stdout
or a body far over ``--max-message``, ``check``, ``record`` and ``call`` stay under twice the message limit and
100 MB, the inspector and its server together (the issue measured 6.6 GB, 12.3 GB and 4 GB for a gigabyte).
The floods here are smaller, so that each case runs in seconds; the old code grew with them (the figures in
the report rows say how far each stays from its bound).

The whole process tree is measured (tests/memory_support.py), from a cold start, so the bounds hold the
interpreter and the server too."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from helpers import ROOT, wait_until
from memory_support import run_measured

from inspector.core.capture import read_capture
from inspector.core.capture.writer import CaptureWriter, make_header
from inspector.core.wire.events import Direction, Kind
from inspector.core.wire.framing import decode_line

#: each case measures whole processes, started cold, under a flood: seconds of CPU (so the quick suite,
#: tests/quick_run.py, leaves them out)
pytestmark = pytest.mark.slow

HOSTILE = ROOT / "tests" / "data" / "hostile"
INSPECTOR = [sys.executable, "-m", "inspector"]
MAX_MESSAGE_MIB = 1
#: the done-when's bound for --max-message 1M: twice the largest message, and 100 MB
BOUND_MIB = 2 * MAX_MESSAGE_MIB + 100
#: an export streams: its peak does not grow with the capture (the interpreter and a batch of events; holding
#: the 16 MB capture's events took 70 to 117 MiB)
EXPORT_BOUND_MIB = 60


def env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    return {**{k: v for k, v in os.environ.items() if not k.startswith("MCP_INSPECTOR_")}, "HS_GOODVER": "1",
            "HOME": str(home), "XDG_DATA_HOME": str(home / "data"), "XDG_CONFIG_HOME": str(home / "config"),
            "MCP_INSPECTOR_TOKEN_STORE": "memory"}


def first_line(text: str) -> str:
    return next((line for line in text.splitlines() if line.strip()), "")


@pytest.mark.parametrize(("mode", "megabytes"), [("c_junkflood", 8), ("c_flood", 24)])
def test_check_under_a_flood_of_stdout_stays_under_the_bound(tmp_path, mode, megabytes, request):
    report_path = tmp_path / "report.json"
    run = run_measured([*INSPECTOR, "check", "--max-message", f"{MAX_MESSAGE_MIB}M", "--timeout", "5",
                        "--report", str(report_path), "--", sys.executable, str(HOSTILE / "hs.py"), mode,
                        str(megabytes)], timeout=180, env=env(tmp_path), cwd=ROOT)
    assert "Traceback" not in run.stderr, run.stderr
    data = json.loads(report_path.read_text())
    assert run.returncode == data["exit_code"] == 1, run.stdout  # the flood breaks MUSTs, and the check says so
    assert report_path.stat().st_size < 1 << 20, "the report lists the flood instead of counting it"
    assert run.peak_mib < BOUND_MIB, f"{run.peak_mib:.0f} MiB for {megabytes} MB of {mode}"
    more = [f["sentence"] for f in data["extra_findings"] if f["sentence"].startswith("and ")]
    assert more, "the findings beyond the first few are counted"


@pytest.mark.report("faults", "check: the server floods its stdout with junk lines", surface="CLI", group="hostile",
                    advice="Nothing to do in mcp-inspector: the report counts the lines; fix what writes them.")
def test_check_under_a_junk_flood_reports_with_bounded_memory(tmp_path, report):
    report_path = tmp_path / "report.txt"
    run = run_measured([*INSPECTOR, "check", "--max-message", f"{MAX_MESSAGE_MIB}M", "--timeout", "5",
                        "--report", str(report_path), "--", sys.executable, str(HOSTILE / "hs.py"), "c_junkflood",
                        "4"], timeout=180, env=env(tmp_path), cwd=ROOT)
    assert run.peak_mib < BOUND_MIB
    counted = [line for line in report_path.read_text().splitlines() if "more of framing" in line]
    assert counted, report_path.read_text()[-2000:]
    report.saw(f"{first_line(run.stdout).split(': ', 1)[1]}; \"{counted[0].strip()}\" (peak {run.peak_mib:.0f} "
               f"MiB for 4 MB of junk, bound {BOUND_MIB} MiB)", seconds=run.seconds)


@pytest.fixture
def big_body_url(tmp_path):
    import subprocess

    port_file = tmp_path / "port"
    server = subprocess.Popen([sys.executable, str(HOSTILE / "http_srv.py"), "bigjson", str(port_file)],
                              start_new_session=True)
    try:
        wait_until(lambda: port_file.exists() and port_file.read_text().strip() != "", 10, "the server's port")
        yield f"http://127.0.0.1:{port_file.read_text().strip()}/mcp"
    finally:
        os.killpg(server.pid, 9)
        server.wait()


def body_case(command: str) -> object:
    return pytest.param(command, id=command, marks=pytest.mark.report(
        "faults", f"{command}: a 1 GB JSON body with --max-message 1M", surface="CLI", group="hostile",
        advice="Raise --max-message if the message is meant to be that big."))


@pytest.mark.parametrize("command", [body_case("record"), body_case("tools"), body_case("check")])
def test_a_body_far_over_max_message_is_not_read_past_the_limit(tmp_path, big_body_url, command, report):
    send = tmp_path / "send.jsonl"
    send.write_text('{"method": "tools/list"}\n')
    args = {"record": ["record", "--out", str(tmp_path / "out.jsonl"), "--send", str(send)],
            "tools": ["tools"],
            "check": ["check", "--report", str(tmp_path / "report.json")]}[command]
    run = run_measured([*INSPECTOR, *args, "--url", big_body_url, "--max-message", f"{MAX_MESSAGE_MIB}M",
                        "--timeout", "20"], timeout=120, env=env(tmp_path), cwd=ROOT)
    assert "Traceback" not in run.stderr, run.stderr
    assert run.peak_mib < BOUND_MIB, f"{run.peak_mib:.0f} MiB"
    assert run.seconds < 20, "the body was read whole"
    if command == "check":
        data = json.loads((tmp_path / "report.json").read_text())
        schemas = next(r for r in data["results"] if r["id"] == "tool-schemas")
        assert schemas["status"] == "incomplete" and "is over the size limit (1 MiB per message)" in \
            schemas["sentence"]
        report.saw(f"tool-schemas incomplete: {schemas['sentence']} (check: peak {run.peak_mib:.0f} MiB, bound "
                   f"{BOUND_MIB} MiB)", seconds=run.seconds)
        return
    sentence = first_line(run.stderr)
    assert run.returncode == 1
    assert "a body of 1,073,741,887 bytes (its Content-Length) is over the size limit (1 MiB per message); only " \
           "its first 64 KiB are kept and the rest was not read; to read it whole, raise the limit with " \
           "--max-message (for example --max-message 2048M)" in sentence, sentence
    assert sentence.count("over the size limit") == 1, "said once"
    if command == "record":
        [oversize] = [e for e in read_capture(tmp_path / "out.jsonl").events if e.kind == Kind.FRAMING_ERROR]
        assert oversize.data["oversize"]["total_bytes"] == 1_073_741_887
        assert oversize.raw.startswith(b'{"jsonrpc": "2.0", "id": ')
        report.saw(f"{sentence} (record: peak {run.peak_mib:.0f} MiB, bound {BOUND_MIB} MiB)", seconds=run.seconds)
    else:
        report.saw(f"{sentence} ({command}: peak {run.peak_mib:.0f} MiB, bound {BOUND_MIB} MiB)", seconds=run.seconds)


@pytest.mark.report("faults", "OAuth: a 1 GB token response", surface="CLI", group="hostile",
                    advice="The authorization server's token answer is broken; nothing to do in mcp-inspector.")
def test_an_oauth_answer_over_its_limit_is_not_read_further(tmp_path, report):
    import subprocess

    port_file = tmp_path / "port"
    server = subprocess.Popen([sys.executable, str(HOSTILE / "oauth_srv.py"), "token-1gb", str(port_file)],
                              stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        wait_until(lambda: port_file.exists() and port_file.read_text().strip() != "", 10, "the server's port")
        send = tmp_path / "send.jsonl"
        send.write_text('{"method": "tools/list"}\n')
        run = run_measured([*INSPECTOR, "record", "--url", f"http://127.0.0.1:{port_file.read_text().strip()}/mcp",
                            "--oauth", "--oauth-authorize", "follow", "--out", str(tmp_path / "out.jsonl"), "--send",
                            str(send), "--timeout", "20"], timeout=120, env=env(tmp_path), cwd=ROOT)
    finally:
        os.killpg(server.pid, 9)
        server.wait()
    assert "Traceback" not in run.stderr, run.stderr
    assert run.peak_mib < BOUND_MIB, f"{run.peak_mib:.0f} MiB"
    sentence = first_line(run.stderr)
    assert "a body of 1,073,741,824 bytes (its Content-Length), over the 1 MiB an OAuth answer may have: it was " \
           "not read further" in sentence, sentence
    report.saw(f"{sentence} (peak {run.peak_mib:.0f} MiB)", seconds=run.seconds)


def write_big_capture(path: Path, megabytes: int) -> int:
    """A capture of about ``megabytes`` MB: a flood of notifications, and a request with its answer."""
    writer = CaptureWriter(path, make_header({"transport": "stdio", "argv": ["server"], "redacted": True}))
    note = b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"' + b"y" * 200 + b'"}}'
    seq = 0
    written = 0
    while written < megabytes << 20:
        batch = []
        for _ in range(1000):
            seq += 1
            event = decode_line(note, Direction.S2C)
            event.seq, event.t, event.wall = seq, seq / 1000, 1.8e9 + seq / 1000
            batch.append(event)
        writer.write_many(batch)
        written += 1000 * (len(note) + 80)
    writer.close()
    return seq


def export_case(to: str) -> object:
    return pytest.param(to, id=to, marks=pytest.mark.report(
        "faults", f"export --to {to} of a 16 MB capture", surface="CLI", group="hostile",
        advice="Nothing to do: exports stream."))


@pytest.mark.parametrize("to", [export_case("html"), export_case("markdown"), export_case("jsonrpc")])
def test_export_streams_a_big_capture(tmp_path, to, report):
    capture = tmp_path / "big.jsonl"
    events = write_big_capture(capture, 16)
    out = tmp_path / f"big.{to}"
    run = run_measured([*INSPECTOR, "export", str(capture), "--to", to, "--out", str(out)], timeout=180,
                       env=env(tmp_path), cwd=ROOT)
    assert run.returncode == 0, run.stderr
    assert run.peak_mib < EXPORT_BOUND_MIB, f"{run.peak_mib:.0f} MiB to export {capture.stat().st_size >> 20} MB"
    text = out.read_text()
    if to == "jsonrpc":
        assert text.count("\n") == events
    else:
        assert text.count("notifications/message") >= events  # a timeline row each
    report.saw(f"export --to {to} of a {capture.stat().st_size >> 20} MB capture: {out.stat().st_size >> 20} MB "
               f"written, peak {run.peak_mib:.0f} MiB", seconds=run.seconds)


@pytest.mark.report("faults", "record: a 256 MB SSE event with --max-message 1M", surface="CLI", group="hostile",
                    advice="Raise --max-message if the message is meant to be that big.")
def test_an_sse_event_far_over_max_message_is_counted_not_kept(tmp_path, report):
    import subprocess

    port_file = tmp_path / "port"
    server = subprocess.Popen([sys.executable, str(ROOT / "tests" / "cli" / "oneshot_servers" / "big_sse_server.py"),
                               "256", str(port_file)], start_new_session=True)
    try:
        wait_until(lambda: port_file.exists() and port_file.read_text().strip() != "", 10, "the server's port")
        send = tmp_path / "send.jsonl"
        send.write_text('{"method": "tools/list"}\n')
        run = run_measured([*INSPECTOR, "record", "--url", f"http://127.0.0.1:{port_file.read_text().strip()}/mcp",
                            "--out", str(tmp_path / "out.jsonl"), "--send", str(send), "--max-message",
                            f"{MAX_MESSAGE_MIB}M", "--timeout", "60"], timeout=120, env=env(tmp_path), cwd=ROOT)
    finally:
        os.killpg(server.pid, 9)
        server.wait()
    assert "Traceback" not in run.stderr, run.stderr
    assert run.peak_mib < BOUND_MIB, f"{run.peak_mib:.0f} MiB"
    sentence = first_line(run.stderr)
    assert run.returncode == 1
    assert "the server's answer to tools/list could not be read: an event of 268,435," in sentence, sentence
    assert "is over the size limit (1 MiB per message)" in sentence and sentence.count("over the size limit") == 1
    report.saw(f"{sentence} (peak {run.peak_mib:.0f} MiB, bound {BOUND_MIB} MiB)", seconds=run.seconds)

