"""The protocol rules the inspector judges, each with an id, a MUST/SHOULD level, the spec text's address and
a one-line rationale. ``docs/protocol-checks.md`` is generated from :data:`RULES` (scripts/protocol_checks.py).

Where a rule is judged:

- ``judge``: :class:`inspector.core.protocol.judge.ProtocolJudge`, from the event stream, kept beside the
  events (never written into them);
- ``wire``: where the bytes are decoded and paired (:mod:`inspector.core.wire.jsonrpc`,
  :mod:`inspector.core.wire.correlation`): the finding is part of the saved event;
- ``http``: by the HTTP transports as each exchange happens (:mod:`inspector.core.transports.streamable_http`):
  also part of the saved event.

A finding's ``code`` is its rule's id, so the Problems panel, ``show`` and ``lint`` group and count all of
them alike. A MUST broken is severity ``error`` (and makes ``lint`` exit 1); a SHOULD broken is a ``warning``; an
``INFO`` rule's findings (``info``) say something worth knowing and are never a problem.
"""

from __future__ import annotations

from dataclasses import dataclass

MUST = "MUST"
SHOULD = "SHOULD"
#: Not a rule broken: something a developer should know (a deprecated feature in use). Never a problem.
INFO = "INFO"
_SPEC = "https://modelcontextprotocol.io/specification"


@dataclass(frozen=True)
class Rule:
    id: str  #: the stable code of its findings
    level: str  #: MUST or SHOULD
    source: str  #: judge, wire or http (see the module's notes)
    title: str  #: what is wrong, in a few words
    link: str  #: the spec text that makes it a rule
    rationale: str  #: why a developer should care, in one line

    @property
    def severity(self) -> str:
        return {MUST: "error", SHOULD: "warning"}.get(self.level, "info")


RULES: tuple[Rule, ...] = (
    # -- schema -------------------------------------------------------------------------------------------
    Rule("schema", MUST, "judge", "a message does not match the revision's schema",
         f"{_SPEC}/2025-11-25/basic#messages",
         "The official schema.json of the negotiated revision is what every SDK parses against; a message that "
         "breaks it is dropped or misread by some client (a tool without inputSchema is not shown)."),
    # -- lifecycle ----------------------------------------------------------------------------------------
    Rule("request-before-handshake", SHOULD, "judge", "a request before the handshake completed",
         f"{_SPEC}/2025-11-25/basic/lifecycle#initialization",
         "The client SHOULD NOT send requests other than pings before the server answered initialize; the "
         "server SHOULD NOT send requests other than pings before notifications/initialized."),
    Rule("revision-unknown", MUST, "judge", "the server chose a protocol revision that does not exist",
         f"{_SPEC}/2025-11-25/basic/lifecycle#version-negotiation",
         "The server MUST answer with the requested revision or another revision it supports; a revision no "
         "specification defines cannot be spoken by any client."),
    Rule("revision-other", SHOULD, "judge", "the server chose a revision the client did not ask for",
         f"{_SPEC}/2025-11-25/basic/lifecycle#version-negotiation",
         "If the server supports the requested revision it MUST answer with it; another revision is right only "
         "when it does not, and a client that does not speak it disconnects."),
    Rule("method-not-in-revision", MUST, "judge", "a method the negotiated revision does not have",
         f"{_SPEC}/2025-11-25/basic/lifecycle#operation",
         "Both parties MUST respect the negotiated protocol version: a method added later (elicitation, tasks) "
         "or removed (ping, initialize in 2026-07-28) is unknown to a peer of that revision."),
    Rule("server-capability-undeclared", MUST, "judge", "a server capability used without being declared",
         f"{_SPEC}/2025-11-25/basic/lifecycle#operation",
         "Both parties MUST only use capabilities that were negotiated: list_changed, resources.subscribe, "
         "logging, completions, tools, prompts and resources must be in the server's capabilities."),
    Rule("client-capability-undeclared", MUST, "judge", "a client capability used without being declared",
         f"{_SPEC}/2025-11-25/basic/lifecycle#operation",
         "A server MUST NOT ask the client for sampling, elicitation or roots it did not declare, and a client "
         "announces roots changes only with roots.listChanged."),
    # -- utilities ----------------------------------------------------------------------------------------
    Rule("progress-unknown-token", MUST, "judge", "progress for a token no active request carried",
         f"{_SPEC}/2025-11-25/basic/utilities/progress#behavior-requirements",
         "Progress notifications MUST only reference tokens provided in an active request; a receiver cannot "
         "tell what the progress is about."),
    Rule("progress-not-increasing", MUST, "judge", "a progress value that does not increase",
         f"{_SPEC}/2025-11-25/basic/utilities/progress#progress-flow",
         "The progress value MUST increase with each notification, or a progress bar goes backwards."),
    Rule("cancel-unknown-request", MUST, "judge", "notifications/cancelled for a request never sent",
         f"{_SPEC}/2025-11-25/basic/utilities/cancellation#behavior-requirements",
         "Cancellation notifications MUST only reference requests previously issued in the same direction."),
    Rule("cancel-initialize", MUST, "judge", "the initialize request cancelled",
         f"{_SPEC}/2025-11-25/basic/utilities/cancellation#behavior-requirements",
         "The initialize request MUST NOT be cancelled by clients."),
    # -- tools --------------------------------------------------------------------------------------------
    Rule("tool-output-schema", MUST, "judge", "a tool result whose structuredContent breaks its outputSchema",
         f"{_SPEC}/2025-11-25/server/tools#output-schema",
         "If an output schema is provided, servers MUST provide structured results that conform to this schema "
         "(the tools page; schema.json's comment says SHOULD); clients validate the result and reject one that "
         "breaks it, or has none."),
    Rule("tool-name", SHOULD, "judge", "tool names that repeat, hide characters, or break the naming guidance",
         f"{_SPEC}/2025-11-25/server/tools#tool-names",
         "A client calls a tool by its name: two tools of one name cannot both be called, an invisible or "
         "direction-changing character shows a person another name than the one called, and from 2025-11-25 "
         "names SHOULD be 1 to 128 of A-Z, a-z, 0-9, _, - and ."),
    Rule("elicitation-content", SHOULD, "judge", "an elicitation accepted with content that breaks its "
         "requestedSchema", f"{_SPEC}/2025-11-25/client/elicitation#security-considerations",
         "Both parties SHOULD validate elicitation content against the schema the server sent; a server that "
         "trusts the answer reads a wrong type or an out-of-range value. A value equal to the field's own default "
         "is never flagged (the window's answer form uses the same check)."),
    # -- 2026-07-28 ---------------------------------------------------------------------------------------
    Rule("meta-revision-mismatch", MUST, "judge", "a request's _meta names another revision than the session's",
         f"{_SPEC}/2026-07-28/basic#meta",
         "Every 2026-07-28 request carries its protocol version in _meta (a missing one is a schema finding); "
         "a request naming another revision than the one negotiated, or than its MCP-Protocol-Version header, "
         "is judged by the server under rules the client does not expect."),
    Rule("log-without-level", SHOULD, "judge", "a log message no request asked for (2026-07-28)",
         f"{_SPEC}/2026-07-28/basic#meta",
         "In 2026-07-28 the client opts in to log messages per request with io.modelcontextprotocol/logLevel in "
         "_meta; a server logging without it floods a client that asked for none."),
    Rule("subscription-filter", MUST, "judge", "a notification no subscription asked for (2026-07-28)",
         f"{_SPEC}/2026-07-28/basic/patterns/subscriptions#opening-a-stream",
         "The server MUST NOT send notification types the client has not requested in its subscriptions/listen "
         "filter (nor list changes and resource updates outside any subscription): a client that did not ask "
         "does not expect them."),
    Rule("subscription-before-ack", MUST, "judge", "a subscription's notification before its acknowledgement",
         f"{_SPEC}/2026-07-28/basic/patterns/subscriptions#acknowledgment",
         "notifications/subscriptions/acknowledged MUST be the first message carrying the subscription's id: "
         "until then the client does not know what the server agreed to send."),
    Rule("deprecated-feature", INFO, "judge", "a feature 2026-07-28 deprecates, used in a 2026-07-28 session",
         f"{_SPEC}/2026-07-28/deprecated",
         "Roots, sampling and logging (SEP-2577), Dynamic Client Registration, the HTTP+SSE transport and sampling's "
         "includeContext thisServer/allServers (SEP-2596) remain in the specification but are scheduled for "
         "removal; new implementations SHOULD NOT adopt them (an information, once per feature and session)."),
    # -- JSON-RPC, judged where messages are decoded and paired -------------------------------------------
    Rule("id-reused", MUST, "wire", "a request id reused while the first request is in flight",
         f"{_SPEC}/2025-11-25/basic#requests",
         "The request ID MUST NOT have been previously used by the requestor within the same session; two "
         "answers to one id cannot be told apart."),
    Rule("id-type-mismatch", MUST, "wire", "a response id whose JSON type differs from the request's",
         f"{_SPEC}/2025-11-25/basic#responses",
         'Responses MUST include the same ID as the request; "2" is not 2, and a strict client never pairs it.'),
    Rule("notification-with-id", MUST, "wire", "a notification carrying an id",
         f"{_SPEC}/2025-11-25/basic#notifications",
         "Notifications MUST NOT include an ID; with one it is a request nobody answers."),
    Rule("batch-not-allowed", MUST, "wire", "a JSON-RPC batch in a revision without batches",
         f"{_SPEC}/2025-06-18/changelog",
         "Only 2025-03-26 allowed batches; 2025-06-18 removed them, and peers of other revisions reject them."),
    # -- HTTP, judged by the transport as each exchange happens ------------------------------------------
    Rule("content-type", MUST, "http", "an answer to a POST that is neither JSON nor an SSE stream",
         f"{_SPEC}/2025-11-25/basic/transports#sending-messages-to-the-server",
         "For a request the server MUST answer with Content-Type application/json or text/event-stream."),
    Rule("202-for-request", MUST, "http", "202 Accepted for a request",
         f"{_SPEC}/2025-11-25/basic/transports#sending-messages-to-the-server",
         "202 is only for notifications and responses; a request MUST get its answer in the POST's response."),
    Rule("200-with-body", MUST, "http", "a body where 202 Accepted was due",
         f"{_SPEC}/2025-11-25/basic/transports#sending-messages-to-the-server",
         "A server accepting a notification or response MUST return 202 Accepted with no body."),
    Rule("session-id-changed", MUST, "http", "the Mcp-Session-Id changed after it was issued",
         f"{_SPEC}/2025-11-25/basic/transports#session-management",
         "The session id assigned at initialization identifies the session until it ends; a new one mid-session "
         "orphans the client's state."),
)

BY_ID: dict[str, Rule] = {rule.id: rule for rule in RULES}

_LATER = "; it may be removed from the first revision released on or after 2027-07-28"
#: What 2026-07-28 deprecates, and what to do instead: the ``deprecated-feature`` rule's sentences
#: (https://modelcontextprotocol.io/specification/2026-07-28/deprecated)
DEPRECATED = {
    "roots": "roots are deprecated in 2026-07-28 (SEP-2577): pass directories or files via tool parameters, "
             "resource URIs or server configuration" + _LATER,
    "sampling": "sampling is deprecated in 2026-07-28 (SEP-2577): integrate directly with an LLM provider's API"
                + _LATER,
    "logging": "logging is deprecated in 2026-07-28 (SEP-2577): log to stderr on stdio, use OpenTelemetry for "
               "observability" + _LATER,
    "http+sse": "the HTTP+SSE transport is deprecated (since 2025-03-26; SEP-2596): use Streamable HTTP",
    "dcr": "Dynamic Client Registration is deprecated in 2026-07-28: use a Client ID Metadata Document" + _LATER,
    "include-context": 'sampling\'s includeContext "thisServer" and "allServers" are deprecated (SEP-2596): omit it '
                       'or use "none"',
}



def rule(rule_id: str) -> Rule:
    return BY_ID[rule_id]
