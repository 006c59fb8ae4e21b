"""The options of ``check`` alone (its target options are in test_target_options.py), observed in the report
it writes and in what the probe server got."""

from __future__ import annotations

import json

from option_effects_support import ProbeLog, inspector, probe

#: The tools the server lists: two read-only ones and one that is not (the others take their time).
QUICK_TOOLS = "where,echo,mutate"


def test_report_call_tools_and_handshake_reach_the_report_and_the_server(tmp_path):
    """--report r.md: a Markdown report there, the captures beside it; --call-tools: the read-only tools are
    called, not the others; --handshake legacy: initialize without the server/discover probe."""
    log = ProbeLog(tmp_path / "server.log")
    report = tmp_path / "reports" / "r.md"
    report.parent.mkdir()
    done, _ = inspector("check", "--report", str(report), "--call-tools", "--handshake", "legacy",
                        "--env", f"PROBE_TOOLS={QUICK_TOOLS}", "--", *probe(log.path))
    assert report.read_text(encoding="utf-8").startswith("# mcp-inspector check"), done.stdout + done.stderr
    assert sorted(p.name for p in report.parent.glob("r-*.jsonl")), "the captures are beside the report"
    assert f"{report}: " in done.stdout
    # --call-tools: the read-only tools, and only those
    assert set(log.calls()) >= {"where", "echo"}
    assert "mutate" not in log.calls()
    # --handshake legacy
    assert log.methods()[0] == "initialize" and "server/discover" not in log.methods()


def test_format_call_all_tools_and_revision_reach_the_report_and_the_server(tmp_path):
    """--format json: a JSON report whatever the file's ending; --call-all-tools: the tools that are not
    read-only are called too; --revision 2025-06-18: the handshake is at that revision."""
    log = ProbeLog(tmp_path / "server.log")
    report = tmp_path / "report.txt"
    done, _ = inspector("check", "--report", str(report), "--format", "json", "--call-all-tools",
                        "--revision", "2025-06-18", "--env", f"PROBE_TOOLS={QUICK_TOOLS}", "--", *probe(log.path))
    results = json.loads(report.read_text(encoding="utf-8"))["results"]
    assert results, done.stdout + done.stderr
    # --call-all-tools
    assert "mutate" in log.calls()
    # --revision: every initialize of the sessions at that revision asks for it (the one that checks what an
    # unsupported revision gets asks for a made-up one)
    assert log.asked_revisions()[0] == "2025-06-18"
    assert "2025-11-25" not in log.asked_revisions()
    assert {r["revision"] for r in results} >= {"2025-06-18"}


def test_requirements_runs_one_revisions_set_and_a_sarif_report_comes_from_its_ending(tmp_path):
    """--requirements 2025-11-25: the server is asked for 2025-11-25 only (and the made-up revision, on a
    connection of its own), and the report holds exactly that revision's checks for a stdio server, none else;
    a .sarif report is SARIF 2.1.0 without --format."""
    from inspector.core.check.checks import required_checks

    log = ProbeLog(tmp_path / "server.log")
    report = tmp_path / "report.sarif"
    done, _ = inspector("check", "--report", str(report), "--requirements", "2025-11-25",
                        "--env", f"PROBE_TOOLS={QUICK_TOOLS}", "--", *probe(log.path))
    sarif = json.loads(report.read_text(encoding="utf-8"))
    assert sarif["version"] == "2.1.0", done.stdout + done.stderr
    rules = {rule["id"] for rule in sarif["runs"][0]["tool"]["driver"]["rules"]}
    assert rules == {c.id for c in required_checks("2025-11-25", http=False)}
    assert "batch" not in rules and "http-origin" not in rules
    assert [v for v in log.asked_revisions() if v != "1999-01-01"] == ["2025-11-25"]
    assert "server/discover" not in log.methods()
