"""Write docs/server-checks.md from the check table: python scripts/server_checks.py [--check]

The list of checks is generated from :data:`inspector.core.check.checks.CHECKS` (id, title, level, revisions,
rationale, spec sentence and link), so it cannot drift from the code: tests/check/test_server_checks_doc.py
fails when the file differs from what this script would write. Everything from the ``## Known results``
heading on is written by hand (what real servers raise, verified against the spec) and kept as it is.
``--check`` exits 1 when the file is out of date instead of writing it.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # generated_doc, beside this script

from generated_doc import write_or_check

from inspector.core.check.checks import ALL_REVISIONS, CHECKS, Check

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "server-checks.md"
KNOWN = "## Known results"

HEAD = """\
# Server checks

`mcp-inspector check` probes a server and judges each answer by one of the rules below (the window's
Session > Check server runs the same). Each result is **passed**, **failed** (with the exchange that shows
it: the seq numbers of its events in the session's capture), **not applicable** (with why: the rule is not
part of the revision, the transport has no such thing, the server does not declare the capability) or
**incomplete** (the rule applies but could not be tested, with why: the server went away first, the handshake
failed, a list the server declares answered an error or nothing). Incomplete is never a pass. The exit status
is 1 when a MUST check failed (or a server message broke a MUST rule), else 8 when a check is incomplete, else
0; 3 and 4 when the run could not start (`mcp-inspector check --help`).

```
mcp-inspector check -- node server-everything/dist/index.js stdio
mcp-inspector check --url http://127.0.0.1:3001/mcp --revision all --report report.md
```

One session per revision checked, each saved as a capture beside the report (`report-<revision>.jsonl`) or
in the captures folder. Without `--revision`, the handshake the server settles on; with `--revision all`,
every revision the server claims. Up to 2025-11-25 an unsupported revision (1999-01-01) is asked on a
connection of its own. Tools are called only with `--call-tools`, and then only those annotated
`readOnlyHint` unless `--call-all-tools`.

`--requirements 2025-11-25` or `--requirements 2026-07-28` runs exactly that revision's required set, as the
official conformance suite's `conformance server --requirements R` runs the scenarios R requires, at R's wire
version, in place of its own choice of suite and version: one session that speaks R (initialize at 2025-11-25,
server/discover at 2026-07-28), and only the checks whose rule is part of R (the revisions column below),
less the Streamable HTTP rules for a server on stdio. No other check is probed or in the report. What the
server declares does not change the set: a required check with nothing to try it on is "not applicable" in
the report. A server that answers with another revision gets the handshake "not applicable" and the rest of
the set "incomplete" (exit 8): the set was not tested at R, and is not tested at another revision instead; one
that cannot do R's handshake at all (a legacy server asked for server/discover) fails `handshake` (exit 1).
Where the suite's sets are frozen in files when a revision ships, this set is this table's at this version of
mcp-inspector. `--requirements` replaces `--revision`.

Each check names the conformance suite's check ids that test the same requirement (the conformance column;
`conformance` in the JSON report, `suite:` in the text report, and the SARIF rules' properties), so a report
reads beside the suite's. A check has none where the suite tests no such thing, or tests something near it
but not it: the suite's `sep-2575-http-server-method-not-found-404` also wants HTTP 404, which
`unknown-method` does not judge; `sep-2575-http-server-error-jsonrpc-id` is about error responses, `ids-echoed`
about results; its `resources-read-*`, `prompts-get-*` and `tools-call-*` call the suite's own fixture's items.
Some mapped ones differ in detail: `localhost-host-rebinding-rejected` sends a foreign Host and Origin and takes
any 4xx, as `http-host` does with a foreign Host (`http-origin`, a foreign Origin alone that must get 403 from
2025-11-25 on, matches no suite check); `server-session-initialized-accepted` takes any 2xx for the initialized
notification, where `http-notification-202` wants the spec's 202 with no body; `server-initialize` and
`sep-2575-server-implements-discover` are the two eras of `handshake`; on a server without the suite's fixture
tools, its `sep-2575-server-no-log-without-loglevel`, `sep-2575-http-server-no-independent-requests-on-stream`
and `sep-2322-ignore-unexpected-params` judge a call of a tool the server does not have, where ours judge every
message of the session (`no-log-without-log-level`, `no-requests-on-response-streams`) or a resources/read with
answers nobody asked for (`input-responses-unasked-ignored`), and its `sep-2575-server-honors-notification-filter`
and `sep-2575-server-tags-subscription-id` wait for a list change its fixture makes, where ours hear a
subscription for half a second. tests/check/test_check_conformance_ids.py proves every id named is one the
suite emits.

`--format sarif` (or a `.sarif` report) writes SARIF 2.1.0: one run, a rule per check in the report (its spec
link as `helpUri`, its level and conformance ids in `properties`), a result per failed check (`error` for a
MUST, `warning` for a SHOULD; the session's capture as its location) and per per-message finding, and a
result of kind `open` (level `none`) per incomplete check: SARIF's kind for a rule evaluated without enough to
decide it. Passed and not-applicable checks are not results.

Levels are the spec's: a MUST check rests on a MUST sentence of the revision's text. Where the spec names no
status or code and the SDKs agree on one (406, -32601, -32602), the check is a SHOULD and says so.
Quotes are from the spec extract in `mcp-spec/<revision>/` (generated by scripts/server_checks.py; do not
edit above "Known results").

"""


def revisions_text(check: Check) -> str:
    if tuple(check.revisions) == ALL_REVISIONS:
        return "all"
    return ", ".join(r for r in ALL_REVISIONS if r in check.revisions)


def conformance_text(check: Check) -> str:
    """The suite's ids for ``check`` as code spans, or "none"."""
    return ", ".join(f"`{c}`" for c in check.conformance) or "none"


def render_check(check: Check) -> list[str]:
    lines = [f"### `{check.id}`: {check.title}", "",
             f"**{check.level}** · revisions: {revisions_text(check)}"
             + (" · Streamable HTTP only" if check.http_only else "")
             + f" · conformance: {conformance_text(check)}", "", check.rationale, ""]
    for source in check.sources:
        if source.quote:
            lines.append(f"> {source.quote} — [{source.revision} {source.page}]({source.url})")
        else:
            lines.append(f"> (the page is not in the local spec extract) — [{source.revision} {source.page}]"
                         f"({source.url})")
        lines.append("")
    return lines


def render(known: str | None = None) -> str:
    lines = [HEAD.rstrip("\n"), "", "| id | level | revisions | title | conformance |", "|---|---|---|---|---|"]
    lines += [f"| `{c.id}` | {c.level} | {revisions_text(c)} | {c.title} | {conformance_text(c)} |" for c in CHECKS]
    lines += ["", "## The checks", ""]
    for check in CHECKS:
        lines += render_check(check)
    text = "\n".join(lines).rstrip("\n") + "\n\n"
    if known is None:
        known = current_known()
    return text + known


def current_known() -> str:
    """The hand-written tail of the current file (from ``## Known results``), or a stub."""
    text = OUT.read_text(encoding="utf-8") if OUT.exists() else ""
    index = text.find(KNOWN)
    return text[index:] if index >= 0 else f"{KNOWN}\n\n(none recorded yet)\n"


def main() -> int:
    return write_or_check(OUT, render(), "server_checks.py", ROOT)


if __name__ == "__main__":
    raise SystemExit(main())
