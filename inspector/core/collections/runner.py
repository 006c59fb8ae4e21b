"""A collection run: connect to the server, send each saved request in order through one session (saved as a
capture), and judge its answer (:func:`inspector.core.collections.expectations.judge`).

A request that gets no answer within the target's timeout fails its ``answered`` expectation and the run goes
on with the next; a server that goes away fails the rest the same way. The tools are listed once, and only when
an expectation needs a tool's ``outputSchema``. ``on_result`` is told of each request's result as it comes
(the window's runner fills its table from it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspector.core.collections.expectations import Outcome, judge
from inspector.core.collections.format import Collection, SavedRequest
from inspector.core.connect.opened import opened
from inspector.core.connect.target import Target
from inspector.core.explore.listing import ListingError, list_all
from inspector.core.session.session import Session
from inspector.core.transports.base import TransportClosed, TransportError


@dataclass
class RequestResult:
    """One saved request as it went: each expectation's outcome, the answer, its latency and seq."""

    request: SavedRequest
    outcomes: list[Outcome]
    response: dict[str, Any] | None = None
    latency: float | None = None  #: seconds
    seq: int | None = None  #: the answer's seq in the run's capture

    @property
    def passed(self) -> bool:
        return all(outcome.passed for outcome in self.outcomes)

    def failures(self) -> list[Outcome]:
        return [outcome for outcome in self.outcomes if not outcome.passed]


@dataclass
class CollectionRun:
    """A whole run: the collection, where its capture went, the results in order, and how long it took."""

    collection: Collection
    capture: Path | None
    results: list[RequestResult] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def passed(self) -> bool:
        return all(result.passed for result in self.results)

    def counts(self) -> tuple[int, int, int]:
        """(requests passed, requests failed, expectations failed)."""
        failed = [r for r in self.results if not r.passed]
        return len(self.results) - len(failed), len(failed), sum(len(r.failures()) for r in failed)

    def summary(self) -> str:
        passed, failed, broken = self.counts()
        total = passed + failed
        if not failed:
            return f"{self.collection.name}: all {total} request{'' if total == 1 else 's'} met their expectations"
        return (f"{self.collection.name}: {failed} of {total} request{'' if total == 1 else 's'} failed "
                f"({broken} expectation{'' if broken == 1 else 's'})")


async def run_collection(collection: Collection, target: Target, out: Path | None, *,
                         answers: dict[str, str] | None = None,
                         on_result: Callable[[RequestResult], None] | None = None) -> CollectionRun:
    """Run ``collection`` against ``target``, saving the session at ``out``. Raises
    :class:`~inspector.core.connect.opened.CannotOpen` when no session can be had."""
    import time

    run = CollectionRun(collection, out)
    started = time.monotonic()
    async with opened(target, out, answers=answers) as session:
        schemas = _Schemas(session, target.timeout)
        gone: str | None = None
        for request in collection.requests:
            if gone is None:
                result, gone = await _one(session, request, target.timeout, schemas)
            else:
                result = RequestResult(request, judge(request.expect, None, None, no_answer=gone))
            run.results.append(result)
            if on_result is not None:
                on_result(result)
    run.seconds = time.monotonic() - started
    return run


async def _one(session: Session, request: SavedRequest, timeout: float,
               schemas: _Schemas) -> tuple[RequestResult, str | None]:
    """The request sent and judged; the second value is a sentence when the server went away (the rest fail)."""
    try:
        event = await session.request(request.method, request.params, timeout=timeout)
    except TransportClosed as exc:
        sentence = f"not sent: {exc}"
        return RequestResult(request, judge(request.expect, None, None, no_answer=str(exc))), sentence
    except TransportError as exc:  # no answer in time, cancelled
        return RequestResult(request, judge(request.expect, None, None, no_answer=str(exc))), None
    try:
        response = event.json()
    except ValueError:
        response = None
    latency = event.data.get("latency")
    latency = float(latency) if isinstance(latency, (int, float)) else None
    schema, known = (None, True)
    if request.expect.output_schema and request.tool is not None:
        schema, known = await schemas.output_schema(request.tool)
    outcomes = judge(request.expect, response if isinstance(response, dict) else None, latency,
                     no_answer="the answer is not a JSON object", output_schema=schema, schema_known=known)
    return RequestResult(request, outcomes, response if isinstance(response, dict) else None, latency,
                         event.seq), None


class _Schemas:
    """The tools' output schemas, listed once when first needed."""

    def __init__(self, session: Session, timeout: float) -> None:
        self.session = session
        self.timeout = timeout
        self.tools: dict[str, dict[str, Any]] | None = None

    async def output_schema(self, tool: str) -> tuple[Any, bool]:
        """(the tool's outputSchema or None, whether the tool is known)."""
        if self.tools is None:
            try:
                listing = await list_all(self.session, "tools", timeout=self.timeout)
                self.tools = {str(t.get("name")): t for t in listing.items}
            except (ListingError, TransportError):
                self.tools = {}
        found = self.tools.get(tool)
        return (found.get("outputSchema") if found is not None else None), found is not None
