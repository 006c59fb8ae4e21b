"""Read `mcp-inspector check` beside the official conformance suite: one row per generic suite check.

    python scripts/conformance_parity.py --suite SUITE_DIR --ours REPORT.json [--suite ... --ours ...]
        [--label NAME ...]

``SUITE_DIR`` is what ``conformance server --url URL -o SUITE_DIR`` wrote (a folder per scenario, each with
``checks.json``); ``REPORT.json`` is ``mcp-inspector check --url URL --revision R --format json --report
REPORT.json``, at the revision the suite's run speaks (2025-11-25 for its default set, 2026-07-28 for
``--requirements 2026-07-28``). Pairs are given in order, each with an optional ``--label``. The output is a
Markdown table: suite check id | our check id | then, per pair, the suite's verdict and ours; and the coverage
of the generic checks (:data:`GENERIC`) by ours.

Which of our checks matches which suite check is each check's ``conformance`` field, and :data:`EXISTING`
for the per-message findings (no check of the table); :data:`UNMATCHED` says why a generic suite check has no
match.
The verdicts compare as: SUCCESS with passed, FAILURE and WARNING with failed, SKIPPED with not applicable; a
suite check seen several times in one run takes its worst verdict; a check one side could not make (the suite
did not run it, ours is incomplete: the handshake failed) or that the suite only reports (INFO) is not compared.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from inspector.core.check.checks import CHECKS

#: The suite's generic server checks (decided on a server without its fixture tools, prompts or resources by
#: that server's own behaviour), in the order of the table: the default set (2025-11-25), then --requirements
#: 2026-07-28.
GENERIC = (
    "server-initialize", "server-session-id-visible-ascii", "server-session-initialized-accepted",
    "server-session-delete-accepted", "server-session-terminated-returns-404", "logging-set-level", "ping",
    "tools-list", "tools-call-error", "tools-name-format", "tools-list-deterministic-order", "resources-list",
    "prompts-list",
    "resources-subscribe", "resources-unsubscribe", "localhost-host-rebinding-rejected",
    "localhost-host-valid-accepted", "server-accepts-multiple-post-streams", "server-sse-streams-functional",
    "wire-schema-valid",
    "sep-2575-request-meta-invalid-missing-meta", "sep-2575-request-meta-invalid-missing-protocol-version",
    "sep-2575-request-meta-invalid-missing-client-capabilities", "sep-2575-http-server-meta-invalid-400",
    "sep-2575-request-meta-client-info-optional", "sep-2575-server-implements-discover",
    "sep-2575-server-identifies-in-result-meta", "sep-2575-server-declares-prompts-in-discover",
    "sep-2575-discover-capabilities-match-handlers", "sep-2575-server-unsupported-version-error",
    "sep-2575-http-server-unsupported-version-400", "sep-2575-http-server-header-mismatch-400",
    "sep-2575-http-server-method-not-found-404-initialize", "sep-2575-http-server-method-not-found-404-ping",
    "sep-2575-http-server-method-not-found-404-logging-setlevel",
    "sep-2575-http-server-method-not-found-404-resources-subscribe",
    "sep-2575-http-server-method-not-found-404-resources-unsubscribe", "sep-2575-http-server-method-not-found-404",
    "sep-2575-http-server-error-jsonrpc-id", "sep-2575-server-sends-subscription-ack",
    "sep-2575-server-tags-subscription-id", "sep-2575-server-honors-notification-filter",
    "sep-2575-server-no-log-without-loglevel", "sep-2575-http-server-no-independent-requests-on-stream",
    "sep-2549-tools-list-caching-hints", "sep-2549-prompts-list-caching-hints", "sep-2549-resources-list-caching-hints",
    "sep-2549-resources-templates-list-caching-hints", "sep-2549-resources-read-caching-hints",
    "sep-2549-ttl-non-negative", "sep-2549-cache-scope-valid",
    "sep-2164-no-empty-contents", "sep-2164-error-code", "sep-2164-data-uri",
    "sep-2322-not-on-unsupported-requests", "sep-2322-ignore-unexpected-params",
    "sep-2243-server-reject-invalid-headers", "sep-2243-server-reject-error-code",
    "sep-2243-header-name-case-insensitive", "sep-2243-server-accepts-whitespace-header-value",
    "sep-2243-server-decode-base64", "sep-2243-server-validate-param-match",
    "sep-2243-server-reject-invalid-param-chars", "sep-2243-server-reject-param-mismatch",
)

#: Suite checks matched by no check (the per-message schema findings); a check's own ``conformance`` field names
#: every other match.
EXISTING: dict[str, str] = {
    "wire-schema-valid": "(per-message findings)",
}
#: Generic suite checks no check of ours matches, and why (the table's row says "none").
UNMATCHED: dict[str, str] = {
    "tools-call-error": "calls the suite's fixture tool test_error_handling; on a server without it, it takes the "
                        "isError result some servers give an unknown tool, which the spec's tools page lists as a "
                        "protocol error (a JSON-RPC error)",
    "sep-2243-server-accepts-whitespace-header-value": "spaces around a header value: HTTP clients, fetch too, strip "
                                                       "them before sending, so ours cannot send it",
}


SUITE_VERDICTS = {"SUCCESS": "passed", "FAILURE": "failed", "WARNING": "failed (warning)",
                  "SKIPPED": "not applicable", "INFO": "info"}
_WORST = ("FAILURE", "WARNING", "INFO", "SKIPPED", "SUCCESS")


def ours_for(suite_id: str) -> str | None:
    for check in CHECKS:
        if suite_id in getattr(check, "conformance", ()):
            return check.id
    return EXISTING.get(suite_id)


def suite_verdicts(folder: Path) -> dict[str, str]:
    found: dict[str, list[str]] = {}
    for checks in sorted(folder.glob("*/checks.json")):
        for item in json.loads(checks.read_text(encoding="utf-8")):
            found.setdefault(item["id"], []).append(item["status"])
    return {i: min(s, key=lambda v: _WORST.index(v) if v in _WORST else 0) for i, s in found.items()}


def our_verdicts(report: Path) -> tuple[dict[str, str], bool]:
    data = json.loads(report.read_text(encoding="utf-8"))
    verdicts = {r["id"]: r["status"] for r in data["results"] if r["id"] != "handshake-unsupported"
                or r.get("revision") != "1999-01-01"}
    return verdicts, bool([f for f in data.get("extra_findings", []) if f.get("level") == "MUST"])


def same(suite: str | None, ours: str | None) -> bool:
    """Whether two verdicts agree; a check either side could not make (not run, incomplete), or that the suite
    only reports (INFO), is not compared."""
    if suite is None or ours is None or ours == "incomplete" or suite == "INFO":
        return True
    return SUITE_VERDICTS.get(suite, suite).split(" ")[0] == ours.split(" ")[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--suite", action="append", type=Path, required=True)
    parser.add_argument("--ours", action="append", type=Path, required=True)
    parser.add_argument("--label", action="append", default=[])
    args = parser.parse_args()
    if len(args.suite) != len(args.ours):
        parser.error("give one --ours per --suite")
    labels = args.label + [f"run {i + 1}" for i in range(len(args.label), len(args.suite))]
    runs = [(suite_verdicts(s), *our_verdicts(o)) for s, o in zip(args.suite, args.ours, strict=True)]
    head = "| suite check | our check | " + " | ".join(f"{label}: suite | {label}: ours" for label in labels) + " |"
    print(head)
    print("|" + "---|" * (2 + 2 * len(labels)))
    differ = 0
    for suite_id in GENERIC:
        ours_id = ours_for(suite_id)
        cells = []
        for suite, ours, must_findings in runs:
            s = suite.get(suite_id)
            if ours_id == "(per-message findings)":
                o: str | None = "failed" if must_findings else "passed"
            else:
                o = ours.get(ours_id) if ours_id else None
            mark = "" if same(s, o) or s is None or o is None else " **≠**"
            differ += bool(mark)
            cells += [SUITE_VERDICTS.get(s, s) if s else "not run", (o or "-") + mark]
        ours_cell = f"`{ours_id}`" if ours_id else f"none ({UNMATCHED[suite_id]})" if suite_id in UNMATCHED else "-"
        print(f"| `{suite_id}` | {ours_cell} | " + " | ".join(cells) + " |")
    covered = sum(1 for i in GENERIC if ours_for(i))
    print(f"\n{covered} of {len(GENERIC)} generic suite checks matched by a check of ours "
          f"({100 * covered / len(GENERIC):.0f}%); {differ} verdicts differ where both ran.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
