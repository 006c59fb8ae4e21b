"""The sentences issue 26 (point 8) found wrong, each against its hostile server (tests/data/hostile, copied
verbatim): an answer too deep to parse fails at once instead of after the timeout, the oversize sentence is
said once, names are cut and escaped, an OAuth wait says what it waits for, a refused URL keeps its scheme,
spec links name the session's revision, and duplicate or direction-changing tool names get a word."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import ROOT, cli, wait_until

from inspector.core.check.context import code_text as _code_text
from inspector.core.check.context import got as _got
from inspector.core.check.lint import lint_capture
from inspector.core.wire.events import Event, Kind

# Every test here runs the CLI end to end against servers in subprocesses: CI's second step runs them, the
# quick suite does not (issue 39: it stays under two minutes as the suite grows).
pytestmark = pytest.mark.integration

HOSTILE = [sys.executable, str(ROOT / "tests" / "data" / "hostile" / "hs.py")]


def first_line(text: str) -> str:
    return next((line for line in text.splitlines() if line.strip()), "")


@pytest.mark.report("faults", "tools: an answer nested 20,000 deep", surface="CLI", group="hostile",
                    advice="The server's answer is nested deeper than any client parses; fix the server.")
def test_an_answer_too_deep_to_parse_fails_at_once_with_its_reason(report):
    started = time.monotonic()
    done = cli("tools", "--timeout", "20", "--", *HOSTILE, "deepschema", "10000", timeout=60)
    elapsed = time.monotonic() - started
    assert done.returncode == 1
    assert done.stderr.strip() == ("mcp-inspector: the server's answer to tools/list could not be read: JSON nested "
                                   "too deeply to parse"), done.stderr
    assert elapsed < 10, "it waited for the timeout"
    report.saw(done.stderr.strip(), seconds=elapsed)


def test_an_answer_over_max_message_is_said_once_with_a_limit_that_reads_it():
    done = cli("tools", "--max-message", "100K", "--", *HOSTILE, "bigenum", "100000", timeout=60)
    assert done.returncode == 1
    sentence = done.stderr.strip()
    assert sentence.count("over the size limit") == 1, sentence
    assert "raise the limit with --max-message (for example --max-message 1M)" in sentence, sentence


@pytest.mark.report("faults", "call: a server with a 1 MB tool name and no tool of the name asked", surface="CLI",
                    group="hostile", advice="Call one of the tools named in the sentence.")
def test_a_megabyte_tool_name_is_cut_in_the_sentence(report):
    done = cli("call", "nosuch", "--", *HOSTILE, "names", timeout=60)
    sentence = first_line(done.stderr)
    assert done.returncode == 2
    assert len(done.stderr) < 2000, f"{len(done.stderr):,} characters"
    assert "… (1,000,003 characters)" in sentence and "rtl\\u202egnp.exe" in sentence, sentence
    assert "\x1b" not in done.stderr and "\u202e" not in done.stderr
    report.saw(sentence)


@pytest.mark.report("faults", "tools: duplicate names and a right-to-left override in a name", surface="CLI",
                    group="hostile", advice="Give each tool one unique plain name (A-Z, a-z, 0-9, _, - and .).")
def test_duplicate_and_direction_changing_tool_names_get_a_word_from_tools_lint_and_check(tmp_path, report):
    done = cli("tools", "--out", str(tmp_path / "names.jsonl"), "--", *HOSTILE, "names", timeout=60)
    assert done.returncode == 0
    warnings = [line for line in done.stderr.splitlines() if line.startswith("mcp-inspector: warning: ")]
    assert "mcp-inspector: warning: 2 tools are named dup: a client can call only one of them by that name" \
        in warnings
    assert any("rtl\\u202egnp.exe holds U+202E (invisible or direction-changing)" in w for w in warnings), warnings
    assert all(len(w) < 400 for w in warnings)
    linted = [f for f in lint_capture(tmp_path / "names.jsonl").findings if f.rule == "tool-name"]
    assert {f.text for f in linted} >= {w.removeprefix("mcp-inspector: warning: ") for w in warnings}
    # check's malformed-params probe (a tool name of 42) crashes this server before the tools are listed: a copy
    # that survives it
    for name in ("hs.py", "modes.py"):
        text = (ROOT / "tests" / "data" / "hostile" / name).read_text()
        (tmp_path / name).write_text(text.replace('"called " + name[:50]', '"called " + str(name)[:50]'))
    report_path = tmp_path / "report.json"
    cli("check", "--timeout", "3", "--report", str(report_path), "--", sys.executable, str(tmp_path / "hs.py"),
        "names", timeout=120, env={"HS_GOODVER": "1"})
    names = next(r for r in json.loads(report_path.read_text())["results"] if r["id"] == "tool-names")
    assert names["status"] == "failed" and "2 tools are named dup" in names["sentence"], names
    report.saw(warnings[0] + " (and " + str(len(warnings) - 1) + " more warnings; lint: tool-name; check: "
               "tool-names failed)")


def test_check_links_the_spec_of_the_revision_it_checked(tmp_path):
    report_path = tmp_path / "report.json"
    cli("check", "--timeout", "3", "--report", str(report_path), "--", *HOSTILE, "c_escerr", timeout=120,
        env={"HS_GOODVER": "1"})
    results = json.loads(report_path.read_text())["results"]
    failed = [r for r in results if r["status"] == "failed" and r["revision"] == "2025-11-25"]
    assert {r["id"] for r in failed} >= {"malformed-params", "invalid-json"}
    assert all("/2025-11-25/" in r["spec"] for r in failed), [r["spec"] for r in failed]


def test_check_never_says_none_for_a_missing_code_or_status(tmp_path):
    assert _code_text({"message": "oops"}) == "an error without a code (oops)"
    assert _code_text({}) == "an error without a code"
    assert _got(Event(Kind.HTTP, data={"error": "connection refused"})) == "no HTTP answer (connection refused)"
    assert _got(None) == "no HTTP answer"
    report_path = tmp_path / "report.txt"
    cli("check", "--timeout", "3", "--report", str(report_path), "--", *HOSTILE, "c_twice", timeout=120,
        env={"HS_GOODVER": "1"})
    text = report_path.read_text()
    assert "None ()" not in text and "HTTP None" not in text
    assert "after a line of invalid JSON, no error -32700 came" in text


def oauth_server(tmp_path: Path, mode: str) -> tuple[subprocess.Popen, str]:
    port_file = tmp_path / f"{mode}.port"
    server = subprocess.Popen([sys.executable, str(ROOT / "tests" / "data" / "hostile" / "oauth_srv.py"), mode,
                               str(port_file)], stderr=subprocess.DEVNULL, start_new_session=True)
    wait_until(lambda: port_file.exists() and port_file.read_text().strip() != "", 10, "the server's port")
    return server, f"http://127.0.0.1:{port_file.read_text().strip()}"


def oauth_record(tmp_path: Path, base: str, timeout: str) -> subprocess.CompletedProcess[str]:
    send = tmp_path / "send.jsonl"
    send.write_text('{"method": "tools/list"}\n')
    home = tmp_path / "home"
    return cli("record", "--url", f"{base}/mcp", "--oauth", "--oauth-authorize", "follow", "--out",
               str(tmp_path / "out.jsonl"), "--send", str(send), "--timeout", timeout, timeout=60,
               env={"MCP_INSPECTOR_TOKEN_STORE": "memory", "HOME": str(home), "XDG_DATA_HOME": str(home / "d"),
                    "XDG_CONFIG_HOME": str(home / "c")})


@pytest.mark.report("faults", "OAuth: the token endpoint never answers", surface="CLI", group="hostile",
                    advice="The authorization server's token endpoint hangs; raise --timeout if it is only slow.")
def test_an_oauth_wait_says_what_it_waits_for(tmp_path, report):
    server, base = oauth_server(tmp_path, "token-hang")
    try:
        started = time.monotonic()
        done = oauth_record(tmp_path, base, "4")
        elapsed = time.monotonic() - started
    finally:
        os.killpg(server.pid, 9)
        server.wait()
    sentence = first_line(done.stderr)
    assert done.returncode == 4
    assert f"it waits for OAuth token: POST {base}/token, which has not answered for " in sentence, sentence
    report.saw(sentence, seconds=elapsed)


@pytest.mark.parametrize(("mode", "url"), [("authz-file", "file:///etc/passwd"),
                                           ("authz-js", "javascript:alert(document.domain)//")])
def test_follow_refuses_a_url_that_is_not_http_and_names_it_with_its_scheme(tmp_path, mode, url):
    server, base = oauth_server(tmp_path, mode)
    try:
        done = oauth_record(tmp_path, base, "10")
    finally:
        os.killpg(server.pid, 9)
        server.wait()
    assert done.returncode != 0
    # refused by the URL rule before anything is fetched, and named with its scheme (follow once dropped it)
    said = first_line(done.stderr)
    assert f"{url} uses the {url.split(':')[0]}: scheme, not https, so it is neither opened nor requested" in said, \
        done.stderr


def test_a_check_result_that_quotes_the_servers_stderr_stays_on_one_line(tmp_path):
    report_path = tmp_path / "report.txt"
    cli("check", "--timeout", "3", "--report", str(report_path), "--", *HOSTILE, "names", timeout=120,
        env={"HS_GOODVER": "1"})
    lines = report_path.read_text().splitlines()
    crashed = [line for line in lines if line.startswith("  INC ") and "stderr lines" in line]
    assert crashed and all(" ⏎ " in line for line in crashed), crashed[:1]
    assert not [line for line in lines if line.lstrip().startswith('File "')], "a stderr line broke the report"
