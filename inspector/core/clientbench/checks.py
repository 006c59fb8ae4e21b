"""What a scenario says about a client: checks, each with an id, a status, one sentence and the spec text it
rests on; a scenario's status follows from its checks."""

from __future__ import annotations

from dataclasses import dataclass

PASSED = "passed"
FAILED = "failed"
NOT_APPLICABLE = "not applicable"
INCOMPLETE = "incomplete"
STATUSES = (PASSED, FAILED, NOT_APPLICABLE, INCOMPLETE)

_SPEC = "https://modelcontextprotocol.io/specification"
#: The spec text each kind of check rests on (2025-11-25 unless the check is of the 2026-07-28 era).
LIFECYCLE = f"{_SPEC}/2025-11-25/basic/lifecycle#initialization"
OPERATION = f"{_SPEC}/2025-11-25/basic/lifecycle#operation"
SHUTDOWN = f"{_SPEC}/2025-11-25/basic/lifecycle#shutdown"
TIMEOUTS = f"{_SPEC}/2025-11-25/basic/lifecycle#timeouts"
VERSIONS = f"{_SPEC}/2025-11-25/basic/lifecycle#version-negotiation"
REQUESTS = f"{_SPEC}/2025-11-25/basic#requests"
RESPONSES = f"{_SPEC}/2025-11-25/basic#responses"
STDIO = f"{_SPEC}/2025-11-25/basic/transports#stdio"
PING = f"{_SPEC}/2025-11-25/basic/utilities/ping#behavior-requirements"
CANCELLATION = f"{_SPEC}/2025-11-25/basic/utilities/cancellation"
PAGINATION = f"{_SPEC}/2025-11-25/server/utilities/pagination#implementation-guidelines"
LIST_CHANGED = f"{_SPEC}/2025-11-25/server/tools#list-changed-notification"
SAMPLING = f"{_SPEC}/2025-11-25/client/sampling#error-handling"
ELICITATION = f"{_SPEC}/2025-11-25/client/elicitation#error-handling"
ROOTS = f"{_SPEC}/2025-11-25/client/roots#error-handling"
MESSAGES = f"{_SPEC}/2025-11-25/basic#messages"
NOTIFICATIONS = f"{_SPEC}/2025-11-25/basic#notifications"
TOOL_RESULTS = f"{_SPEC}/2025-11-25/server/tools#tool-result"
DISCOVER = f"{_SPEC}/2026-07-28/server/discover"
MODERN_VERSIONS = f"{_SPEC}/2026-07-28/basic/lifecycle#version-negotiation"


@dataclass(frozen=True, slots=True)
class CheckResult:
    """One check of one scenario: ``id`` (stable), ``status`` (one of :data:`STATUSES`), ``sentence`` (for a
    person), ``spec`` (the URL of the spec text it rests on) and ``seq``, the capture's event it points at (the
    client's offending message, when there is one)."""

    id: str
    status: str
    sentence: str
    spec: str
    seq: int | None = None


def scenario_status(checks: list[CheckResult]) -> str:
    """Failed when a check failed; else incomplete when one is; else passed (not-applicable checks aside; a
    scenario whose checks all did not apply passes: nothing it tests went wrong)."""
    statuses = {c.status for c in checks}
    if FAILED in statuses:
        return FAILED
    if INCOMPLETE in statuses:
        return INCOMPLETE
    return PASSED
