"""The checks ``mcp-inspector check`` runs against a server: one table, documented in docs/server-checks.md.

Each :class:`Check` has an id, a title, the level the spec gives the rule (MUST or SHOULD), the sentence of the
spec it rests on (:class:`Source`: the revision, the page, and the quote as the spec extract in
``mcp-spec/<revision>/`` has it, so a test can find it there), the revisions it applies to, and a one-line
rationale. A probe (:mod:`inspector.core.check.probes`) judges one or more checks and returns a
:class:`Result` for each, with one of four outcomes (:data:`OUTCOMES`): passed, failed (with the seq numbers of
the exchange that shows it and a sentence), not applicable (the rule does not exist here: the revision, the
transport or the server's capabilities leave it out, and why), or incomplete (the rule applies but could not be
tested: the server went away, the handshake failed, a list it declares answered an error or nothing, and
why). Incomplete is never a pass: a run with an incomplete check does not exit 0 (:data:`CHECK_EXITS`).

Where the spec states no status code or error code and the SDKs converge on one (406 for a missing Accept
type, -32601 for an unknown method), the check is a SHOULD and its rationale says so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from inspector.core.exits import EXIT_CANNOT_CONNECT, EXIT_INCOMPLETE, EXIT_OK, EXIT_SERVER_FAILED, EXIT_TIMEOUT

#: 10 s forgives a slow machine without stalling a run on a server that ignores one of them.
DEFAULT_CHECK_TIMEOUT = 10.0

CHECK_EXITS: tuple[tuple[int, str], ...] = (
    (EXIT_OK, "every check was made and no MUST check failed (each passed, failed a SHOULD, or did not apply)"),
    (EXIT_SERVER_FAILED, "a MUST check failed (or the server broke a MUST rule in a message)"),
    (EXIT_CANNOT_CONNECT, "cannot start the server's command, or cannot connect to its URL"),
    (EXIT_TIMEOUT, "the server did not answer the first handshake within --timeout"),
    (EXIT_INCOMPLETE, "incomplete: no MUST check failed, but some checks could not be made (the server went "
                      "away, or a list it declares could not be had); the report says why for each"),
)
CHECK_EXITS_ORDER = "when several apply: 3 or 4 for a run that could not start, else 1 before 8"

MUST = "MUST"
SHOULD = "SHOULD"

PASSED = "passed"
FAILED = "failed"
#: the rule does not exist for this server: not its revision, not its transport, nothing to try it on
NOT_APPLICABLE = "not applicable"
#: the rule applies but could not be tested (the server went away, a list it declares could not be had): never
#: counted as passed, and a run with one does not exit 0
INCOMPLETE = "incomplete"
OUTCOMES = (PASSED, FAILED, NOT_APPLICABLE, INCOMPLETE)
STATUSES = OUTCOMES

MODERN = "2026-07-28"
LEGACY = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
ALL_REVISIONS = (MODERN, *LEGACY)
#: Revisions with Streamable HTTP (2024-11-05 had HTTP+SSE only).
STREAMABLE = ("2025-03-26", "2025-06-18", "2025-11-25", MODERN)


@dataclass(frozen=True)
class Source:
    """The spec sentence a check rests on: ``page`` under the revision (``basic/lifecycle``), and the ``quote``
    as the local extract has it (markup and line breaks aside); None when the page is not in the extract."""

    revision: str
    page: str
    quote: str | None

    @property
    def url(self) -> str:
        page = self.page.removesuffix("/index").removesuffix(".json")
        page = "schema" if page == "schema" else page
        return f"https://modelcontextprotocol.io/specification/{self.revision}/{page}"

    @property
    def local_path(self) -> str:
        """Where the text is under ``mcp-spec/`` (schema.json for the schema's own rules)."""
        return f"{self.revision}/{self.page}" if self.page.endswith(".json") else f"{self.revision}/{self.page}.mdx"


@dataclass(frozen=True)
class Check:
    id: str
    title: str
    level: str
    rationale: str
    sources: tuple[Source, ...]
    revisions: tuple[str, ...] = ALL_REVISIONS  #: where the rule exists
    http_only: bool = False  #: a rule of Streamable HTTP: not applicable on stdio
    #: the official conformance suite's check ids that test the same requirement (empty when none does), so a
    #: report reads beside the suite's (``conformance server``); see docs/server-checks.md
    conformance: tuple[str, ...] = ()

    def source_for(self, revision: str | None) -> Source:
        """The source that states the rule for ``revision``: its own page when one is listed, else the newest
        listed one of the same era, else the first."""
        for source in self.sources:
            if source.revision == revision:
                return source
        modern = revision == MODERN
        same_era = [s for s in self.sources if (s.revision == MODERN) == modern]
        return same_era[0] if same_era else self.sources[0]


def _src(revision: str, page: str, quote: str | None) -> Source:
    return Source(revision, page, quote)


#: Up to 2025-11-25 the codes come from JSON-RPC 2.0 itself, which every message must follow: a session at a
#: legacy revision links its own revision's text, not 2026-07-28's
_JSONRPC_2025 = _src("2025-11-25", "basic/index",
                     "All messages between MCP clients and servers MUST follow the JSON-RPC 2.0 specification.")

CHECKS: tuple[Check, ...] = (
    Check("handshake", "The handshake at the revision asked for", MUST,
          "A client can only talk to a server once initialize (up to 2025-11-25) or server/discover (2026-07-28) "
          "has been answered with the revision they speak.",
          (_src("2025-11-25", "basic/lifecycle",
                "If the server supports the requested protocol version, it MUST respond with the same version."),
           _src(MODERN, "basic/versioning", "Servers MUST implement server/discover.")),
          conformance=("server-initialize", "sep-2575-server-implements-discover")),
    Check("handshake-unsupported", "An unsupported revision (1999-01-01) is answered with what the server speaks",
          MUST,
          "A client asking for a revision the server does not speak must learn which ones it does, to retry.",
          (_src("2025-11-25", "basic/lifecycle",
                "Otherwise, the server MUST respond with another protocol version it supports."),
           _src(MODERN, "basic/versioning",
                "If the server does not implement the requested version (whether the version is unknown to the "
                "server, or is a known version the server has chosen not to support), it MUST respond with an "
                "UnsupportedProtocolVersionError listing the versions it does support")),
          conformance=("sep-2575-server-unsupported-version-error",)),
    Check("ping", "ping is answered with an empty result", MUST,
          "Clients use ping to tell a live server from a hung one.",
          (_src("2025-11-25", "basic/utilities/ping", "The receiver MUST respond promptly with an empty response"),),
          revisions=LEGACY,
          conformance=("ping",)),
    Check("ids-echoed", "String and number request ids are echoed exactly", MUST,
          "A response is paired with its request by id; \"7\" does not answer 7.",
          (_src("2025-11-25", "basic/index",
                "Result responses MUST include the same ID as the request they correspond to."),
           _src(MODERN, "basic/index",
                "Result responses MUST include the same ID as the request they correspond to."))),
    Check("unknown-method", "An unknown method gets an error response", MUST,
          "JSON-RPC 2.0 answers every request; a server that stays silent leaves the client waiting for its timeout.",
          (_src("2025-11-25", "basic/index",
                "All messages between MCP clients and servers MUST follow the JSON-RPC 2.0 specification."),
           _src(MODERN, "basic/index",
                "All messages between MCP clients and servers MUST follow the JSON-RPC 2.0 specification."))),
    Check("unknown-method-code", "The error for an unknown method is -32601 (Method not found)", SHOULD,
          "The spec adopts JSON-RPC's codes without a sentence per code; -32601 is how clients tell an unsupported "
          "method from a failure.",
          (_src(MODERN, "basic/index",
                "MCP uses the standard JSON-RPC 2.0 error codes (-32700, -32600 to -32603) for general protocol "
                "failures."),
           _JSONRPC_2025)),
    Check("malformed-params", "Malformed params get -32602 (Invalid params)", SHOULD,
          "A request whose params break the schema (tools/call with a number for a name) should be refused as "
          "such, not fail deep inside the server.",
          (_src(MODERN, "basic/index",
                "MCP uses the standard JSON-RPC 2.0 error codes (-32700, -32600 to -32603) for general protocol "
                "failures."),
           _JSONRPC_2025)),
    Check("invalid-json", "Invalid JSON gets a -32700 (Parse error) answer or an HTTP 400", SHOULD,
          "JSON-RPC answers a message it cannot parse with -32700 and a null id; over HTTP a 4xx says the same.",
          (_src(MODERN, "basic/index",
                "MCP uses the standard JSON-RPC 2.0 error codes (-32700, -32600 to -32603) for general protocol "
                "failures."),
           _JSONRPC_2025)),
    Check("invalid-json-survives", "The server keeps working after invalid JSON", SHOULD,
          "No sentence requires it, but a server that one stray line kills ends every client's session.",
          (_src("2025-11-25", "basic/index",
                "All messages between MCP clients and servers MUST follow the JSON-RPC 2.0 specification."),)),
    Check("notification-no-response", "A notification gets no response", MUST,
          "A notification has no id: a response to it can answer nothing and confuses pairing.",
          (_src("2025-11-25", "basic/index", "The receiver MUST NOT send a response."),
           _src(MODERN, "basic/index", "The receiver MUST NOT send a response."))),
    Check("cancellation", "A cancelled request leaves the server working", MUST,
          "A cancellation can cross the response on the wire; the server must take it in its stride.",
          (_src("2025-11-25", "basic/utilities/cancellation",
                "Both parties MUST handle these race conditions gracefully"),
           _src(MODERN, "basic/patterns/cancellation",
                "The client MUST send a notifications/cancelled notification referencing the request ID."))),
    Check("batch", "A JSON-RPC batch is answered (2025-03-26 only)", MUST,
          "Only 2025-03-26 has batches: there a server must take them; the revisions after it removed them.",
          (_src("2025-03-26", "basic/index",
                "MCP implementations MAY support sending JSON-RPC batches, but MUST support receiving JSON-RPC "
                "batches."),),
          revisions=("2025-03-26",)),
    Check("pagination", "A nextCursor round-trips to the next page", SHOULD,
          "A client that sends back the cursor it was given must get the next page, not an error.",
          (_src("2025-11-25", "server/utilities/pagination", None),)),
    Check("tool-schemas", "Every tool's inputSchema and outputSchema is a JSON Schema object", MUST,
          "Clients validate arguments and results with these schemas; up to 2025-11-25 the schema requires type "
          "\"object\" at the root of both, in 2026-07-28 of inputSchema only.",
          (_src("2025-11-25", "basic/index", "Schemas MUST be valid according to their declared or default dialect"),
           _src(MODERN, "basic/index", "Schemas MUST be valid according to their declared or default dialect"))),
    Check("tool-names", "Tool names are unique, plain and short", SHOULD,
          "A client calls a tool by its name: two tools of one name cannot both be called, and a name with an "
          "invisible or direction-changing character shows a person another name than the one called. The "
          "guidance (unique; 1 to 128 of A-Z, a-z, 0-9, _, - and .) is on the tools page, not in the local "
          "extract.",
          (_src("2025-11-25", "server/tools", None),),
          revisions=(MODERN, "2025-11-25"),
          conformance=("tools-name-format",)),
    Check("resources-readable", "Listed resources can be read", SHOULD,
          "A resource the server lists and cannot read is a dead link for every client.",
          (_src("2025-11-25", "server/resources", None),)),
    Check("prompts-gettable", "Listed prompts can be got with their required arguments", SHOULD,
          "A prompt the server lists and cannot produce is a dead entry in every client's menu.",
          (_src("2025-11-25", "server/prompts", None),)),
    Check("tools-callable", "Tools answer a call with a result (with --call-tools)", SHOULD,
          "A call with arguments that fit the inputSchema should get a result (isError for tool failures), "
          "not a protocol error.",
          (_src("2025-11-25", "server/tools", None),)),
    Check("tool-output-conforms", "structuredContent conforms to the tool's outputSchema (with --call-tools)", SHOULD,
          "Clients validate structured results against the declared schema and reject what breaks it. The "
          "schema's text says SHOULD; the tools page (not in the local extract) words it more strongly.",
          (_src("2025-11-25", "schema.json", "If the tool defined an outputSchema, this SHOULD conform to that "
                                             "schema."),
           _src(MODERN, "schema.json", "If the tool defined an {@link Tool.outputSchema}, this SHOULD conform to that "
                                       "schema")),
          revisions=(MODERN, "2025-11-25", "2025-06-18")),
    Check("http-notification-202", "A notification POST gets 202 Accepted with no body", MUST,
          "202 tells the client the notification was taken; anything else is a response to a message that has none.",
          (_src("2025-11-25", "basic/transports",
                "If the server accepts the input, the server MUST return HTTP status code 202 Accepted with no "
                "body."),
           _src(MODERN, "basic/transports/streamable-http",
                "If the server accepts it, the server MUST return HTTP status code 202 Accepted with no body.")),
          revisions=STREAMABLE, http_only=True),
    Check("http-origin", "A foreign Origin is refused with 403 (DNS-rebinding protection)", MUST,
          "Which origins are valid is the server's choice, so this is judged only for a server on a loopback "
          "address, where a web page's Origin is never valid; 2025-03-26 and 2025-06-18 require validation "
          "without naming 403, so there any 4xx passes.",
          (_src("2025-11-25", "basic/transports",
                "If the Origin header is present and invalid, servers MUST respond with HTTP 403 Forbidden."),
           _src("2025-06-18", "basic/transports",
                "Servers MUST validate the Origin header on all incoming connections to prevent DNS rebinding "
                "attacks"),
           _src("2025-03-26", "basic/transports",
                "Servers MUST validate the Origin header on all incoming connections to prevent DNS rebinding "
                "attacks"),
           _src(MODERN, "basic/transports/streamable-http",
                "If the Origin header is present and invalid, servers MUST respond with HTTP 403 Forbidden.")),
          revisions=STREAMABLE, http_only=True,
          conformance=("localhost-host-rebinding-rejected",)),
    Check("http-accept", "A POST whose Accept lacks text/event-stream is refused with 406", SHOULD,
          "The spec makes clients list both types and names no status for a client that does not; the official "
          "SDKs answer 406 Not Acceptable.",
          (_src("2025-11-25", "basic/transports",
                "The client MUST include an Accept header, listing both application/json and text/event-stream as "
                "supported content types."),),
          revisions=STREAMABLE, http_only=True),
    Check("http-get-stream", "GET opens an SSE stream or gets 405", MUST,
          "A client opening the standalone stream must get the stream or a clear no.",
          (_src("2025-11-25", "basic/transports",
                "The server MUST either return Content-Type: text/event-stream in response to this HTTP GET, or "
                "else return HTTP 405 Method Not Allowed, indicating that the server does not offer an SSE stream "
                "at this endpoint."),),
          revisions=LEGACY[:3], http_only=True),
    Check("http-delete", "DELETE ends the session; the next request gets 404", MUST,
          "A client that ended its session must not find it still alive (or have it hijacked).",
          (_src("2025-11-25", "basic/transports",
                "The server MAY terminate the session at any time, after which it MUST respond to requests "
                "containing that session ID with HTTP 404 Not Found."),),
          revisions=LEGACY[:3], http_only=True,
          conformance=("server-session-delete-accepted", "server-session-terminated-returns-404")),
    Check("http-modern-405", "A 2026-07-28-only server answers GET and DELETE with 405", SHOULD,
          "2026-07-28 has no GET stream and no sessions; a server that speaks only it should say so to old "
          "clients.",
          (_src(MODERN, "basic/transports/streamable-http",
                "HTTP GET or DELETE to the MCP endpoint: respond with 405 Method Not Allowed."),),
          revisions=(MODERN,), http_only=True),
)

BY_ID: dict[str, Check] = {check.id: check for check in CHECKS}

#: The revisions ``check --requirements`` takes: those the conformance suite has a requirement set for.
REQUIREMENT_REVISIONS = ("2025-11-25", MODERN)


def required_checks(revision: str, *, http: bool) -> tuple[Check, ...]:
    """The checks ``--requirements revision`` runs: every check whose rule is part of ``revision`` (its
    ``revisions``), less the Streamable HTTP rules for a server on stdio (they require nothing of it).

    Like the conformance suite's ``--requirements`` (a revision's requirement set, run at that revision's wire
    version, replacing its own choice of suite and version), the set is fixed by the revision alone: what the
    server declares only makes a required check "not applicable" in the report, never drops it. Unlike the
    suite's, which is frozen in a file when the revision ships, the set is this table's at this version of
    mcp-inspector."""
    return tuple(c for c in CHECKS if revision in c.revisions and (http or not c.http_only))


@dataclass
class Result:
    """What one check found in one session (at one revision)."""

    check: Check
    status: str
    #: why: what was seen (passed), what was wrong (failed), why it does not apply, why it could not be tested
    sentence: str
    seqs: tuple[int, ...] = ()  #: the events of the exchange that shows it, in the session's capture
    revision: str | None = None  #: the revision the session spoke (None: no handshake got through)
    capture: str | None = None  #: the capture file of that session
    exchange: list[str] = field(default_factory=list)  #: the exchange's events, one line each (filled in later)


@dataclass(frozen=True)
class ExtraFinding:
    """A finding from elsewhere (per-message schema and lifecycle rules) that joins the report: the rule's id,
    its level (MUST/SHOULD), a sentence, and where it was seen."""

    rule: str
    level: str
    sentence: str
    revision: str | None = None
    seq: int | None = None
    capture: str | None = None


def normalize_spec_text(text: str) -> str:
    """Spec text as quotes are written: links reduced to their text, no ``**``/backticks, spaces collapsed."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = text.replace("**", "").replace("`", "")
    return re.sub(r"\s+", " ", text)
