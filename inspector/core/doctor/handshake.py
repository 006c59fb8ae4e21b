"""The ``handshake`` step, shared by commands and URLs: the session's own handshake and its version negotiation.

Spec: https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#version-negotiation (the client
asks for a revision; the server answers with it or another it supports, and the client goes on if it speaks that
one) and, for 2026-07-28, ``server/discover``. The negotiation itself is :class:`inspector.core.session.handshake.
Handshake`'s; this step says what it came to, and what to do when it failed.
"""

from __future__ import annotations

from inspector.core.doctor.model import Step, failed, passed, warning
from inspector.core.doctor.session_run import SessionRun
from inspector.core.protocol.revisions import REVISIONS
from inspector.core.session.outcomes import RequestTimeout, RevisionRefused, UnreadableResponse

#: How the session's notes about version negotiation begin (inspector/core/session/handshake.py).
NEGOTIATION_NOTES = ("the server rejected", "asked for protocol")

FIX_SILENT_STDIO = ("Check that the server starts in stdio mode (not HTTP or SSE) and is not waiting for a prompt or "
                    "a login, and read its stderr.")
FIX_SILENT_HTTP = "The server takes the request but does not answer it: its own log says what it is waiting for."
FIX_REFUSED = ("Ask for a revision the server supports (--protocol-version), or update the server or "
               "mcp-inspector so that they share one.")
FIX_OTHER = "The server broke off the handshake: its log (or stderr) says why."


def handshake_step(run: SessionRun) -> Step:
    """``handshake``: the session's handshake completed, at which revision, with which server."""
    server = run.server
    if server is None:
        error = run.error
        detail = str(error) if error is not None else "the handshake did not complete"
        stdio = run.transport is not None and run.transport.name == "stdio"
        if isinstance(error, RequestTimeout):
            return failed("handshake", detail, FIX_SILENT_STDIO if stdio else FIX_SILENT_HTTP)
        if isinstance(error, RevisionRefused):
            return failed("handshake", detail, FIX_REFUSED)
        if isinstance(error, UnreadableResponse):
            return failed("handshake", detail, "Raise --max-message, or make the server's answer smaller.")
        return failed("handshake", detail, FIX_OTHER)
    who = " ".join(x for x in (server.name, server.version) if x) or "the server (it gave no name)"
    revision = server.protocol_version or "?"
    how = "initialize" if server.era == "legacy" else "server/discover" if server.era == "modern" else server.era
    detail = f"{who} answered {how} at protocol {revision}"
    # the session notes each turn of the negotiation: a revision refused with the ones the server lists, or
    # another one chosen in the server's answer
    negotiated = [n for n in run.notes() if n.startswith(NEGOTIATION_NOTES)]
    if negotiated:
        detail += f" ({'; '.join(negotiated)})"
    if revision not in REVISIONS:
        return warning("handshake", f"{detail}, a revision mcp-inspector does not know",
                       "Expect surprises: the server speaks a protocol revision newer or other than the ones "
                       "mcp-inspector checks.")
    return passed("handshake", detail)
