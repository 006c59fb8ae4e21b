"""The window's live OpenTelemetry export (``mcp-inspector --otlp-endpoint URL``): every live session of the run
sends a span per request to that collector, as ``record --otlp-endpoint`` does
(:class:`inspector.core.otel.exporter.OtlpExporter`, a listener of the session). Set once at start by the
composition root (:func:`configure`); a live session attaches its exporter when it is made and closes it when it
ends. The first failure is a note of the session when it happens (a row of the timeline, and the tab's status
line names the export and its problem); what is left to say at the end (spans not exported) is noted then.
"""

from __future__ import annotations

from typing import Any

from inspector.core.otel.exporter import OtlpExporter
from inspector.core.session.session import Session

_endpoint: str | None = None


def configure(endpoint: str | None) -> None:
    """The collector every live session of this run exports to (None: none)."""
    global _endpoint
    _endpoint = endpoint


def endpoint() -> str | None:
    return _endpoint


def attach(session: Session, header: dict[str, Any]) -> OtlpExporter | None:
    """An exporter listening to ``session`` (whose capture has ``header``), started; None without an endpoint."""
    if _endpoint is None:
        return None
    from inspector.core.interop.otlp import start_export

    def noted(sentence: str) -> None:
        session.note(f"OpenTelemetry export: {sentence}", failure=True)

    return start_export(_endpoint, header, session.listeners, noted)


async def detach(exporter: OtlpExporter | None, session: Session | None) -> None:
    """Send the rest and close; what went wrong becomes a note of ``session`` (its capture still open)."""
    if exporter is None:
        return
    said = exporter.problem  # noted when it happened
    await exporter.close()
    problem = exporter.report()
    if problem and session is not None and (said is None or exporter.dropped):
        session.note(f"OpenTelemetry export: {problem}", failure=True)


def status_words(exporter: OtlpExporter | None) -> str | None:
    """What a live session's status line says of its export: where the spans go, and its first problem."""
    if exporter is None:
        return None
    return f"spans to {exporter.url}" + (" (failing: see the timeline's note)" if exporter.problem else "")
