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
from inspector.core.protocol.revisions import HANDSHAKE_REVISIONS, STATELESS_FROM, STREAMABLE_REVISIONS

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

#: The revisions, as protocol/revisions.py has them: the stateless one, the handshake ones newest first, and
#: those with Streamable HTTP.
MODERN = STATELESS_FROM
LEGACY = HANDSHAKE_REVISIONS
ALL_REVISIONS = (MODERN, *LEGACY)
STREAMABLE = STREAMABLE_REVISIONS


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
    Check("tools-callable", "Tools answer a call with a result (when tools may be called)", SHOULD,
          "A call with arguments that fit the inputSchema should get a result (isError for tool failures), "
          "not a protocol error.",
          (_src("2025-11-25", "server/tools", None),)),
    Check("tool-output-conforms", "structuredContent conforms to the tool's outputSchema (when tools may be called)",
          SHOULD,
          "Clients validate structured results against the declared schema and reject what breaks it. The "
          "schema's text says SHOULD; the tools page (not in the local extract) words it more strongly.",
          (_src("2025-11-25", "schema.json", "If the tool defined an outputSchema, this SHOULD conform to that "
                                             "schema."),
           _src(MODERN, "schema.json", "If the tool defined an {@link Tool.outputSchema}, this SHOULD conform to that "
                                       "schema")),
          revisions=(MODERN, "2025-11-25", "2025-06-18")),
    Check("http-notification-202", "A notification POST gets 202 Accepted with no body", MUST,
          "202 tells the client the notification was taken; anything else is a response to a message that has none. "
          "Judged on a notification the check sends and, up to 2025-11-25, on the handshake's own "
          "notifications/initialized on the session the server issued.",
          (_src("2025-11-25", "basic/transports",
                "If the server accepts the input, the server MUST return HTTP status code 202 Accepted with no "
                "body."),
           _src(MODERN, "basic/transports/streamable-http",
                "If the server accepts it, the server MUST return HTTP status code 202 Accepted with no body.")),
          revisions=STREAMABLE, http_only=True, conformance=("server-session-initialized-accepted",)),
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
          revisions=STREAMABLE, http_only=True),
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
    Check("http-delete", "A DELETE that ends the session is accepted (or refused with 405)", SHOULD,
          "Clients are told to end the sessions they no longer need with DELETE; the server may refuse with 405, "
          "and any other answer leaves a client that cleans up after itself with an error.",
          (_src("2025-11-25", "basic/transports",
                "The server MAY respond to this request with HTTP 405 Method Not Allowed, indicating that the "
                "server does not allow clients to terminate sessions."),),
          revisions=LEGACY[:3], http_only=True, conformance=("server-session-delete-accepted",)),
    Check("http-session-ended-404", "After a DELETE, a request in the ended session gets 404", MUST,
          "A client that ended its session must not find it still alive (or have it hijacked).",
          (_src("2025-11-25", "basic/transports",
                "The server MAY terminate the session at any time, after which it MUST respond to requests "
                "containing that session ID with HTTP 404 Not Found."),),
          revisions=LEGACY[:3], http_only=True, conformance=("server-session-terminated-returns-404",)),
    Check("http-modern-405", "A 2026-07-28-only server answers GET and DELETE with 405", SHOULD,
          "2026-07-28 has no GET stream and no sessions; a server that speaks only it should say so to old "
          "clients.",
          (_src(MODERN, "basic/transports/streamable-http",
                "HTTP GET or DELETE to the MCP endpoint: respond with 405 Method Not Allowed."),),
          revisions=(MODERN,), http_only=True),
    # -- beside the official conformance suite's generic server checks (issue 30) ------------------------------
    Check("http-host", "A foreign Host header is refused with a 4xx (DNS-rebinding protection)", SHOULD,
          "A DNS-rebinding page reaches a loopback server under the attacker's host name, which the Host header "
          "carries; the spec names the Origin check (http-origin), so refusing a foreign Host is the SDKs' "
          "defence (GHSA-w48q-cv73-mx4w) rather than a sentence of it. Judged only for a server on a loopback "
          "address, with no Origin header sent.",
          (_src("2025-11-25", "basic/transports",
                "Servers MUST validate the Origin header on all incoming connections to prevent DNS rebinding "
                "attacks"),
           _src(MODERN, "basic/transports/streamable-http", None)),
          revisions=STREAMABLE, http_only=True, conformance=("localhost-host-rebinding-rejected",)),
    Check("http-concurrent-requests", "Three requests at once, each on its own POST, are all answered", SHOULD,
          "A client sends a request while another is running (a long tool call, a listing); each POST opens its "
          "own response stream, and a server that answers one at a time refuses or stalls the others.",
          (_src("2025-11-25", "basic/transports",
                "The client MAY remain connected to multiple SSE streams simultaneously."),
           _src(MODERN, "basic/transports/streamable-http", None)),
          revisions=(MODERN, "2025-11-25"), http_only=True,
          conformance=("server-accepts-multiple-post-streams", "server-sse-streams-functional")),
    Check("http-session-id-ascii", "A session id is visible ASCII only", MUST,
          "The session id travels in a header: a byte outside 0x21 to 0x7E breaks it on the way back.",
          (_src("2025-11-25", "basic/transports",
                "The session ID MUST only contain visible ASCII characters (ranging from 0x21 to 0x7E)."),),
          revisions=LEGACY[:3], http_only=True, conformance=("server-session-id-visible-ascii",)),
    Check("lists-answered", "The lists of the capabilities the server declares are answered", SHOULD,
          "A client that sees tools, prompts or resources declared lists them first; a list that answers an "
          "error or nothing leaves the feature unusable. The feature pages (not in the local extract) give the "
          "list methods to a server that declares the capability.",
          (_src("2025-11-25", "server/prompts", None), _src(MODERN, "server/prompts", None)),
          conformance=("prompts-list", "resources-list")),
    Check("tools-order-stable", "tools/list gives the same tools in the same order each time", SHOULD,
          "A client that shows the list, or a model that reads it, should not see it reshuffled when nothing "
          "changed; 2026-07-28's tools page (not in the local extract) asks for a deterministic order.",
          (_src(MODERN, "server/tools", None),),
          revisions=(MODERN,), conformance=("tools-list-deterministic-order",)),
    Check("logging-set-level", "logging/setLevel is answered with an empty result", SHOULD,
          "A server that declares logging lets the client choose how much it hears; setLevel's result is the "
          "schema's EmptyResult. The logging page is not in the local extract, so this is a SHOULD here.",
          (_src("2025-11-25", "server/utilities/logging", None),),
          revisions=LEGACY, conformance=("logging-set-level",)),
    Check("resources-subscribe", "resources/subscribe to a listed resource is answered with an empty result",
          SHOULD,
          "A server that declares resources.subscribe must take a subscription to what it lists; the result is "
          "the schema's EmptyResult. The resources page is not in the local extract.",
          (_src("2025-11-25", "server/resources", None),),
          revisions=LEGACY, conformance=("resources-subscribe",)),
    Check("resources-unsubscribe", "resources/unsubscribe is answered with an empty result", SHOULD,
          "A client must be able to end the subscription it made; the result is the schema's EmptyResult.",
          (_src("2025-11-25", "server/resources", None),),
          revisions=LEGACY, conformance=("resources-unsubscribe",)),
    Check("resource-not-found", "Reading an unknown resource gets an error, not empty contents nor -32002", MUST,
          "An empty contents array reads as an empty resource; 2026-07-28 retired -32002 for -32602 "
          "(SEP-2164; the resources page, not in the local extract, forbids the empty result).",
          (_src(MODERN, "basic/index", "Implementations of this protocol version MUST NOT emit these codes:"),
           _src(MODERN, "server/resources", None)),
          revisions=(MODERN,), conformance=("sep-2164-no-empty-contents",)),
    Check("resource-not-found-code", "Reading an unknown resource gets -32602 with the uri in data", SHOULD,
          "The code tells the client the uri is wrong, data.uri which one (SEP-2164).",
          (_src(MODERN, "server/resources", None),),
          revisions=(MODERN,), conformance=("sep-2164-error-code", "sep-2164-data-uri")),
    Check("caching-hints", "List results and resources/read carry ttlMs and cacheScope", SHOULD,
          "2026-07-28's schema requires ttlMs (an integer, 0 or more) and cacheScope (public or private) on "
          "tools/list, prompts/list, resources/list, resources/templates/list and resources/read results "
          "(SEP-2549; a missing one is also a per-message schema finding). The caching page is not in the local "
          "extract, so this is a SHOULD here.",
          (_src(MODERN, "server/utilities/caching", None),),
          revisions=(MODERN,),
          conformance=("sep-2549-tools-list-caching-hints", "sep-2549-prompts-list-caching-hints",
                       "sep-2549-resources-list-caching-hints", "sep-2549-resources-templates-list-caching-hints",
                       "sep-2549-resources-read-caching-hints", "sep-2549-ttl-non-negative",
                       "sep-2549-cache-scope-valid")),
    Check("input-required-not-on-lists", "tools/list and prompts/list never answer input_required", MUST,
          "Only prompts/get, resources/read and tools/call (and tasks/result) may ask the client for input.",
          (_src(MODERN, "basic/patterns/mrtr",
                "Servers MUST NOT send InputRequiredResult responses on any other client requests."),),
          revisions=(MODERN,), conformance=("sep-2322-not-on-unsupported-requests",)),
    Check("request-meta-required", "A request without _meta, or without its protocolVersion or "
          "clientCapabilities, gets -32602 (and HTTP 400)", MUST,
          "A stateless server knows the client only from each request's _meta: one without it cannot be served.",
          (_src(MODERN, "basic/index",
                "A request missing any required field is malformed; the server MUST reject it with JSON-RPC error "
                "code -32602 (Invalid params). On HTTP, the response status MUST be 400 Bad Request."),),
          revisions=(MODERN,),
          conformance=("sep-2575-request-meta-invalid-missing-meta",
                       "sep-2575-request-meta-invalid-missing-protocol-version",
                       "sep-2575-request-meta-invalid-missing-client-capabilities",
                       "sep-2575-http-server-meta-invalid-400")),
    Check("request-meta-client-info-optional", "A request whose _meta has no clientInfo is served", SHOULD,
          "clientInfo is optional in _meta (clients SHOULD send it); a server that requires it turns away "
          "clients configured not to identify themselves.",
          (_src(MODERN, "basic/index",
                "Clients SHOULD include io.modelcontextprotocol/clientInfo on every request unless specifically "
                "configured not to do so."),),
          revisions=(MODERN,), conformance=("sep-2575-request-meta-client-info-optional",)),
    Check("discover-server-info", "server/discover names the server in _meta", SHOULD,
          "A client shows whom it talks to from _meta['io.modelcontextprotocol/serverInfo'] (name and version) "
          "of the discover result (spec PR #3002; the server/discover page is not in the local extract).",
          (_src(MODERN, "server/discover", None),),
          revisions=(MODERN,), conformance=("sep-2575-server-identifies-in-result-meta",)),
    Check("discover-capabilities-match", "The capabilities server/discover declares match the methods served",
          SHOULD,
          "A client asks only for what is declared: tools/list and prompts/list are answered when tools and "
          "prompts are declared, and -32601 when not. The feature pages (not in the local extract) require the "
          "declaration.",
          (_src(MODERN, "server/discover", None),),
          revisions=(MODERN,),
          conformance=("sep-2575-discover-capabilities-match-handlers",
                       "sep-2575-server-declares-prompts-in-discover")),
    Check("subscription-acknowledged", "subscriptions/listen is acknowledged first, tagged with its id", MUST,
          "A client learns from the acknowledgement which notifications it will hear, and from the tag which "
          "subscription a notification belongs to. Judged when the server declares a list change or "
          "resources.subscribe, with a filter asking for each list it declares.",
          (_src(MODERN, "basic/patterns/subscriptions",
                "The server MUST send notifications/subscriptions/acknowledged as the first message carrying the "
                "subscription's ID in _meta under io.modelcontextprotocol/subscriptionId"),),
          revisions=(MODERN,), conformance=("sep-2575-server-sends-subscription-ack",)),
    Check("unsupported-version-details", "An unsupported revision gets HTTP 400, and data echoes it with the "
          "revisions discover lists", MUST,
          "The client retries with one of data.supported, which must be what server/discover lists; data.requested "
          "is required by the schema.",
          (_src(MODERN, "basic/transports/streamable-http",
                "If the server does not implement the requested protocol version (whether the version is unknown "
                "to the server, or is a known version the server has chosen not to support), it MUST respond with "
                "400 Bad Request"),
           _src(MODERN, "schema.json", "For HTTP, the response status code MUST be")),
          revisions=(MODERN,),
          conformance=("sep-2575-server-unsupported-version-error", "sep-2575-http-server-unsupported-version-400")),
    Check("http-method-not-found-404", "A method the server does not implement (initialize, ping, logging/setLevel, "
          "resources/subscribe and unsubscribe, an unknown one) gets HTTP 404 with -32601", MUST,
          "404 with a JSON-RPC body tells a modern client the method is missing, not the endpoint; the methods "
          "2026-07-28 removed are probed, unless the server also speaks an earlier revision and serves them.",
          (_src(MODERN, "basic/transports/streamable-http",
                "If the server does not implement the requested RPC method, it MUST respond with 404 Not Found and "
                "a JSON-RPC error with code -32601 (Method not found)."),),
          revisions=(MODERN,), http_only=True,
          conformance=("sep-2575-http-server-method-not-found-404-initialize",
                       "sep-2575-http-server-method-not-found-404-ping",
                       "sep-2575-http-server-method-not-found-404-logging-setlevel",
                       "sep-2575-http-server-method-not-found-404-resources-subscribe",
                       "sep-2575-http-server-method-not-found-404-resources-unsubscribe",
                       "sep-2575-http-server-method-not-found-404")),
    Check("error-ids-echoed", "Error responses carry the id of their request", MUST,
          "A client pairs an error with its request by id; an error with a null or another id answers nothing. "
          "Judged on the errors the 2026-07-28 HTTP probes draw (a missing _meta, an unknown revision, a "
          "method not implemented, headers that contradict the body): each request had a readable id.",
          (_src(MODERN, "basic/index",
                "Error responses MUST include the same ID as the request they correspond to (except in error "
                "cases where the ID could not be read due a malformed request)."),),
          revisions=(MODERN,), http_only=True, conformance=("sep-2575-http-server-error-jsonrpc-id",)),
    Check("http-version-header-mismatch", "An MCP-Protocol-Version header that differs from _meta gets HTTP 400 "
          "with -32020", MUST,
          "A gateway routes on the header, the server acts on the body: they must agree.",
          (_src(MODERN, "basic/transports/streamable-http",
                "If the values do not match, the server MUST reject the request with 400 Bad Request and a "
                "HeaderMismatch JSON-RPC error"),),
          revisions=(MODERN,), http_only=True, conformance=("sep-2575-http-server-header-mismatch-400",)),
    Check("http-standard-headers", "A missing or mismatched Mcp-Method or Mcp-Name header gets HTTP 400 with "
          "-32020", MUST,
          "Mcp-Method (and Mcp-Name for tools/call) mirror the body for intermediaries; a server that acts on a "
          "body its headers contradict can be steered past a gateway's rules (SEP-2243).",
          (_src(MODERN, "basic/transports/streamable-http",
                "Servers that process the request body MUST reject requests where the values specified in the "
                "headers do not match the corresponding values in the request body."),),
          revisions=(MODERN,), http_only=True,
          conformance=("sep-2243-server-reject-invalid-headers", "sep-2243-server-reject-error-code")),
    Check("http-param-headers", "An Mcp-Param header that is not valid Base64, differs from the body, or is "
          "missing gets HTTP 400 with -32020 (when tools may be called)", MUST,
          "A tool's x-mcp-header arguments are mirrored into Mcp-Param-* headers for intermediaries; a server that "
          "acts on a body its headers contradict can be steered past a gateway's rules. The calls a server "
          "should refuse reach the tool on one that does not, so only tools the user allows are tried.",
          (_src(MODERN, "basic/transports/streamable-http",
                "Servers MUST reject requests with a recognized Mcp-Param-{Name} header that contains invalid "
                "characters (see Value Encoding)."),
           _src(MODERN, "basic/transports/streamable-http",
                "Servers MUST reject requests with a 400 Bad Request HTTP status and JSON-RPC error code -32020 "
                "(HeaderMismatch) if any validation fails.")),
          revisions=(MODERN,), http_only=True,
          conformance=("sep-2243-server-reject-invalid-param-chars", "sep-2243-server-reject-param-mismatch")),
    Check("http-param-headers-decoded", "An Mcp-Param header in Base64, or as literal text, that matches the body "
          "is taken (when tools may be called)", MUST,
          "A client encodes a value a header cannot carry as =?base64?...?=; a value without the whole sentinel is "
          "literal text. A server that compares without decoding refuses conforming clients.",
          (_src(MODERN, "basic/transports/streamable-http",
                "Any server that processes the message body MUST validate that encoded header values, after "
                "decoding if Base64-encoded, match the corresponding values in the request body."),),
          revisions=(MODERN,), http_only=True,
          conformance=("sep-2243-server-decode-base64", "sep-2243-server-validate-param-match")),
    Check("http-standard-headers-lenient", "The Mcp-Method header is taken whatever the letter case of its name",
          MUST,
          "Header names are case-insensitive: a server that refuses mcp-method or MCP-METHOD turns away conforming "
          "clients. (The suite also sends an Mcp-Name with spaces around it; HTTP clients strip them, fetch as "
          "well, so that case is not made.)",
          (_src(MODERN, "basic/transports/streamable-http",
                "Clients and servers MUST use case-insensitive comparisons for header names."),),
          revisions=(MODERN,), http_only=True,
          conformance=("sep-2243-header-name-case-insensitive",)),
    # -- the suite's generic checks that had no match (issue 39) ---------------------------------------------
    Check("tools-listed", "tools/list gives every tool a name, a description and an inputSchema", SHOULD,
          "A client shows and calls a tool by its name, and a model chooses it by its description. The schema "
          "requires name and inputSchema (a tool without one is also a per-message schema finding) and leaves the "
          "description optional, so this is a SHOULD.",
          (_src("2025-11-25", "schema.json",
                "This can be used by clients to improve the LLM's understanding of available tools."),
           _src(MODERN, "schema.json",
                "This can be used by clients to improve the LLM's understanding of available tools.")),
          conformance=("tools-list",)),
    Check("http-loopback-accepted", "A request with the server's own loopback Host and Origin is served", SHOULD,
          "The other half of DNS-rebinding protection (http-host, http-origin): a server on a loopback address "
          "that refuses its own address as Host and Origin turns away the browser-based clients it serves. "
          "Judged only for a server on a loopback address.",
          (_src("2025-11-25", "basic/transports",
                "Servers MUST validate the Origin header on all incoming connections to prevent DNS rebinding "
                "attacks"),
           _src(MODERN, "basic/transports/streamable-http", None)),
          revisions=STREAMABLE, http_only=True, conformance=("localhost-host-valid-accepted",)),
    Check("subscription-notifications-tagged", "Every notification on a subscription carries its id", SHOULD,
          "A client tells which subscription a notification belongs to (on stdio, where all share one channel, "
          "it must) by _meta['io.modelcontextprotocol/subscriptionId']. Judged on what a subscriptions/listen "
          "stream brings in half a second after its acknowledgement; the page states it as a fact, not a MUST.",
          (_src(MODERN, "basic/patterns/subscriptions",
                "All notifications delivered on the stream carry io.modelcontextprotocol/subscriptionId in _meta, "
                "identifying the subscriptions/listen request that opened the stream."),),
          revisions=(MODERN,), conformance=("sep-2575-server-tags-subscription-id",)),
    Check("subscription-filter-honored", "A subscription hears only what its filter asked for", MUST,
          "A subscription that asks for one list's changes is acknowledged with no more than that, and brings "
          "no other notification type in half a second after its acknowledgement (the per-message rule "
          "subscription-filter judges every other notification of the session).",
          (_src(MODERN, "basic/patterns/subscriptions",
                "The server MUST NOT send notification types the client has not explicitly requested."),
           _src(MODERN, "basic/patterns/subscriptions",
                "The notifications field in the acknowledgment reflects the subset the server agreed to honor.")),
          revisions=(MODERN,), conformance=("sep-2575-server-honors-notification-filter",)),
    Check("no-log-without-log-level", "No log message comes for a request that set no log level", SHOULD,
          "In 2026-07-28 a client opts in to log messages per request; the check's requests set none, so any "
          "notifications/message in the session is one nobody asked for (the per-message rule log-without-level, "
          "summed up for the session). The logging page is not in the local extract, so this is a SHOULD here.",
          (_src(MODERN, "schema.json",
                "JSONRPCNotification of a log message passed from server to client. The client opts in by "
                "setting"),),
          revisions=(MODERN,), conformance=("sep-2575-server-no-log-without-loglevel",)),
    Check("no-requests-on-response-streams", "The server sends no JSON-RPC request on a response stream", MUST,
          "In 2026-07-28 sampling, elicitation and roots travel inside an InputRequiredResult; a request from the "
          "server on a POST's event stream has no answer path a 2026-07-28 client knows. Judged on every message "
          "the server sent in the session.",
          (_src(MODERN, "basic/transports/streamable-http",
                "The server MUST NOT send independent JSON-RPC _requests_ on this stream."),),
          revisions=(MODERN,), http_only=True,
          conformance=("sep-2575-http-server-no-independent-requests-on-stream",)),
    Check("input-responses-unasked-ignored", "inputResponses the server did not ask for are ignored", SHOULD,
          "A retry may carry answers the server does not need (another round's, a client's extra); the request "
          "should be served as without them, not refused. Probed with resources/read of a listed resource or "
          "prompts/get of a prompt without required arguments (with --call-tools also a read-only tool), each "
          "with two answers nobody asked for.",
          (_src(MODERN, "basic/patterns/mrtr",
                "If additional, unexpected parameters are provided in the InputResponses object, the server SHOULD "
                "ignore any information it does not recognize or need."),),
          revisions=(MODERN,), conformance=("sep-2322-ignore-unexpected-params",)),
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
