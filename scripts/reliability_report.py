"""Produce docs/reliability.md from the tests themselves: the fault matrix, the fuzz counts, the
crash-safety figures and the security checks.

Runs every test marked ``report`` (see tests/report_rows.py) with ``MCP_INSPECTOR_REPORT_ROWS`` set, then
writes the rows as tables. Nothing in the report is typed by hand: a case whose test fails appears as a row
marked failing, with the reason pytest gave.

    python scripts/reliability_report.py            # quick fuzz profile (200 examples per property)
    python scripts/reliability_report.py --long     # 100,000 examples per property (a soak run)

The long fuzz run takes over an hour on two cores; it can run on its own and be folded in later:

    MCP_INSPECTOR_REPORT_ROWS=docs/fuzz-long-rows.jsonl HYPOTHESIS_PROFILE=long python -m pytest tests/fuzz
    python scripts/reliability_report.py --fuzz-rows docs/fuzz-long-rows.jsonl

It also writes docs/troubleshooting.md: the fault rows turned around, from the sentence a user sees to the
advice given in the test's ``report`` marker.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GROUP_ORDER = ["stdio", "http", "input", "capture", "apps"]


def run_tests(rows_path: Path, long: bool, extra: list[str]) -> tuple[int, float]:
    env = {**os.environ, "MCP_INSPECTOR_REPORT_ROWS": str(rows_path), "QT_QPA_PLATFORM": "offscreen"}
    if long:
        env["HYPOTHESIS_PROFILE"] = "long"
    started = time.monotonic()
    # -n 0: one process (the suite's addopts run it in parallel), so the rows come in the tests' order
    code = subprocess.call([sys.executable, "-m", "pytest", "-m", "report", "-q", "-p", "no:cacheprovider", "-n", "0",
                            *extra], cwd=ROOT, env=env)
    return code, time.monotonic() - started


def load_rows(rows_path: Path) -> list[dict]:
    if not rows_path.exists():
        return []
    rows = [json.loads(line) for line in rows_path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return sorted(rows, key=lambda row: row.get("order", 0))  # the tests' order, whichever worker wrote first


def cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def status_cell(row: dict) -> str:
    if row["status"] == "holds":
        return "holds"
    return f"**{row['status'].upper()}**: {cell(row['reason'])}" if row["reason"] else f"**{row['status'].upper()}**"


def seconds_cell(row: dict) -> str:
    return "" if row.get("seconds") is None else f"{row['seconds']:.2f} s"


def fault_table(rows: list[dict]) -> list[str]:
    by_case: dict[tuple[str, str], dict[str, dict]] = defaultdict(dict)
    order: list[tuple[str, str]] = []
    for row in rows:
        key = (row["group"], row["case"])
        if key not in by_case:
            order.append(key)
        by_case[key][row["surface"]] = row
    order.sort(key=lambda k: (GROUP_ORDER.index(k[0]) if k[0] in GROUP_ORDER else len(GROUP_ORDER), k[0]))
    lines = ["| Group | Case | Surface | What the user sees | Time to diagnosis | Status |",
             "|---|---|---|---|---|---|"]
    for key in order:
        surfaces = by_case[key]
        for surface in sorted(surfaces):
            row = surfaces[surface]
            lines.append(f"| {cell(key[0])} | {cell(key[1])} | {surface} | {cell(row['sees'])} "
                         f"| {seconds_cell(row)} | {status_cell(row)} |")
    return lines


def figures_cell(row: dict) -> str:
    return ", ".join(f"{name}: {value}" for name, value in row.get("figures", {}).items())


def simple_table(rows: list[dict], headers: tuple[str, str, str, str]) -> list[str]:
    lines = [f"| {' | '.join(headers)} |", "|---|---|---|---|"]
    for row in rows:
        lines.append(f"| {cell(row['case'])} | {row['surface']} | {cell(figures_cell(row) or row['sees'])} "
                     f"| {status_cell(row)} |")
    return lines


def long_fuzz_section(rows: list[dict], source: Path | None) -> list[str]:
    """The rows of a separate long fuzz run (``--fuzz-rows``), or how to make one."""
    if not rows:
        return ["The long profile (100,000 examples per property) runs with `python scripts/reliability_report.py "
                "--long`, or on its own as described in the script's docstring.", ""]
    name = source.relative_to(ROOT) if source is not None and source.is_relative_to(ROOT) else source
    return [f"The long profile, run separately (rows from `{name}`):", "",
            *simple_table(rows, ("Property", "Surface", "Examples and figures", "Status")), ""]


def render(rows: list[dict], *, long: bool, exit_code: int, wall: float, long_fuzz: list[dict] = (),
           long_fuzz_source: Path | None = None) -> str:
    sections: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        sections[row["section"]].append(row)
    failing = [r for r in rows if r["status"] != "holds"]
    profile = "long (100,000 examples per property)" if long else "ci (200 examples per property)"
    out = [
        "# Reliability report",
        "",
        "Generated by `python scripts/reliability_report.py` from the tests marked `report`; do not edit by "
        "hand. Each row is a test: *holds* means it passed in this run, a failing row gives pytest's reason.",
        "",
        f"- Run: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {wall:.0f} s, pytest exit code {exit_code}",
        f"- Machine: {platform.system()} {platform.machine()}, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}",
        f"- Fuzz profile: {profile}",
        f"- Rows: {len(rows)}, holding: {len(rows) - len(failing)}, failing or not run: {len(failing)}",
        "",
        "## Fault matrix",
        "",
        "Every case ends with one sentence the user can act on, within a bounded wait, with no crash, no "
        "process left behind and the capture intact. *Time to diagnosis* is from the start of the case to "
        "the sentence.",
        "",
        *fault_table(sections["faults"]),
        "",
        "## Fuzzing",
        "",
        *simple_table(sections["fuzz"], ("Property", "Surface", "Examples and figures", "Status")),
        "",
        *long_fuzz_section(long_fuzz, long_fuzz_source),
        "## Crash safety",
        "",
        *simple_table(sections["crash"], ("Case", "Surface", "Figures", "Status")),
        "",
        "## Security checks",
        "",
        *simple_table(sections["security"], ("Check", "Surface", "What was checked", "Status")),
        "",
    ]
    return "\n".join(out)


def render_troubleshooting(rows: list[dict]) -> str:
    """docs/troubleshooting.md: the fault matrix turned around, from what the user sees to what to do."""
    by_case: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for row in rows:
        if row["section"] == "faults":
            by_case[(row["group"], row["case"])].append(row)
    titles = {"stdio": "Servers started by the inspector (stdio)", "http": "HTTP servers",
              "input": "Commands, URLs and headers you type", "capture": "Capture files", "apps": "MCP Apps"}
    out = [
        "# Troubleshooting",
        "",
        "What the inspector tells you when a server, a URL or a file misbehaves, and what to do about it. "
        "Generated from the fault matrix of the [reliability report](reliability.md) by "
        "`python scripts/reliability_report.py`: every sentence below is quoted from a test run, in the "
        "command line (CLI) and in the window (GUI).",
        "",
        "When a connection fails and the sentence is not enough, `mcp-inspector doctor --url URL` (or `doctor -- "
        "COMMAND`), and **Diagnose…** beside the failed session's status line in the window, go through the "
        "connection step by step (name, port, TLS certificate, path, transport, sign-in, handshake; or command, "
        "start, stdout, handshake) and name the first step that fails with its fix ([user "
        "guide](user-guide.md#when-a-connection-fails-diagnose-and-doctor)). An https server whose certificate "
        "is self-signed or from a private CA is trusted with `--ca-file FILE`, or, for a test server only, not "
        "verified at all with `--insecure`.",
        "",
    ]
    groups = sorted({group for group, _ in by_case},
                    key=lambda g: (GROUP_ORDER.index(g) if g in GROUP_ORDER else len(GROUP_ORDER), g))
    for group in groups:
        out += [f"## {titles.get(group, group)}", ""]
        for (row_group, case), surfaces in by_case.items():
            if row_group != group:
                continue
            advice = next((r["advice"] for r in surfaces if r.get("advice")), "")
            out += [f"### {case[:1].upper()}{case[1:]}", ""]
            for row in sorted(surfaces, key=lambda r: r["surface"]):
                if row["sees"]:
                    out.append(f"- {row['surface']}: “{row['sees']}”")
            if advice:
                out += ["", f"**What to do:** {advice}"]
            if any(r["status"] != "holds" for r in surfaces):
                out += ["", "*Known problem: this case does not fully hold yet; see the reliability report.*"]
            out.append("")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--long", action="store_true", help="run the fuzz properties with 100,000 examples each")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "reliability.md")
    parser.add_argument("--troubleshooting", type=Path, default=None,
                        help="where to write the troubleshooting page (default: troubleshooting.md next to --out)")
    parser.add_argument("--fuzz-rows", type=Path, default=None,
                        help="the rows of a separate long fuzz run, shown as their own table")
    parser.add_argument("pytest_args", nargs="*", help="extra arguments for pytest (after --)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        rows_path = Path(tmp) / "rows.jsonl"
        code, wall = run_tests(rows_path, args.long, args.pytest_args)
        rows = load_rows(rows_path)
    if not rows:
        print("no report rows were produced; is anything marked `report`?", file=sys.stderr)
        return 2
    long_rows = load_rows(args.fuzz_rows) if args.fuzz_rows else []
    args.out.write_text(render(rows, long=args.long, exit_code=code, wall=wall, long_fuzz=long_rows,
                               long_fuzz_source=args.fuzz_rows), encoding="utf-8")
    troubleshooting = args.troubleshooting or args.out.with_name("troubleshooting.md")
    troubleshooting.write_text(render_troubleshooting(rows), encoding="utf-8")
    failing = sum(1 for r in rows if r["status"] != "holds")
    print(f"wrote {args.out} ({len(rows)} rows, {failing} failing or not run)")
    return 0 if failing == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
