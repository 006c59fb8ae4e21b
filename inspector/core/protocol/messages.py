"""One message judged against one revision's official schema: requests and notifications by their method,
results by the method of the request they answer, errors by their shape (and, in 2026-07-28, by their code).

Each definition is checked first by Python code generated from the schema (:mod:`.compiled`, well under a
microsecond for a notification);
only a message it calls invalid is judged again by jsonschema, which says each violation as a sentence with
its JSON path. Both are compiled once per revision and definition and kept.
Spec: https://modelcontextprotocol.io/specification/2025-11-25/basic#messages
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from inspector.core.protocol import revisions
from inspector.core.protocol.compiled import Check, CodeCompiler, Unsupported
from inspector.core.wire import jsonrpc

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

#: At most this many violations are said per message (the rest are usually consequences of the first).
MAX_VIOLATIONS = 5


@dataclass(frozen=True, slots=True)
class SchemaViolation:
    path: str  #: JSON path inside the message (``result.tools[2].inputSchema.type``)
    sentence: str  #: the whole sentence, naming the revision and definition
    definition: str  #: the schema definition judged against (``ListToolsResult``)


class RevisionSchema:
    """The validators of one revision, compiled on first use of each definition."""

    def __init__(self, revision: str) -> None:
        self.revision = revision
        self.document = revisions.schema_document(revision)
        self.definitions = revisions.definitions(revision)
        self.methods = revisions.methods(revision)
        self._compiler = CodeCompiler(self.document)
        self._fast: dict[str, Check | None] = {}
        self._slow: dict[str, Validator] = {}
        self._error_codes = _error_codes(self.definitions)

    def fast(self, name: str) -> Check | None:
        if name not in self._fast:
            try:
                self._fast[name] = self._compiler.definition(f"#/{_key(self.document)}/{name}")
            except Unsupported:
                self._fast[name] = None
        return self._fast[name]

    def judge(self, name: str, value: Any, root: str = "") -> list[SchemaViolation]:
        """The violations of ``value`` against definition ``name`` (``[]`` when valid)."""
        fast = self.fast(name)
        if fast is not None and fast(value):
            return []
        # jsonschema only says why a value the generated check refused is invalid: imported then, not with the
        # judge (it was two thirds of the judge's import time)
        from inspector.core.schemas.validate import definition_validator, violations_of

        validator = self._slow.get(name)
        if validator is None:
            validator = self._slow[name] = definition_validator(self.document, name)
        return [SchemaViolation(v.path, f"{v.sentence} (schema {self.revision}, {name})", name)
                for v in violations_of(validator, value, root=root, limit=MAX_VIOLATIONS)]

    def check(self, obj: Any, kind: str, method: str | None, answering: str | None) -> list[SchemaViolation]:
        """Judge one parsed message. ``kind`` is its JSON-RPC kind, ``method`` its own method (requests and
        notifications), ``answering`` the method of the request a response answers (None when unknown).
        Methods the revision does not define, and batches, are not judged here."""
        if kind in (jsonrpc.REQUEST, jsonrpc.NOTIFICATION):
            name = self.methods.get(method or "")
            return self.judge(name, obj) if name else []
        if kind == jsonrpc.RESPONSE and isinstance(obj, dict):
            name = self._result_name(obj.get("result"), answering)
            return self.judge(name, obj.get("result"), "result") if name else []
        if kind == jsonrpc.ERROR and isinstance(obj, dict):
            return self._check_error(obj)
        return []

    def _result_name(self, result: Any, answering: str | None) -> str | None:
        if answering is None:
            return None
        if isinstance(result, dict):
            # the tasks extension's CreateTaskResult (SEP-2663): no core revision defines it
            if result.get("resultType") == "task":
                return None
            # 2026-07-28: any request may be answered "come back with more input"
            if result.get("resultType") == "input_required" and "InputRequiredResult" in self.definitions:
                return "InputRequiredResult"
            # 2025-11-25: a task-augmented request is answered with the task it created
            if "task" in result and "CreateTaskResult" in self.definitions and answering in ("tools/call",
                                                                                             "sampling/createMessage",
                                                                                             "elicitation/create"):
                return "CreateTaskResult"
        return revisions.result_definition(self.revision, answering)

    def _check_error(self, obj: dict[str, Any]) -> list[SchemaViolation]:
        shape = "JSONRPCErrorResponse" if "JSONRPCErrorResponse" in self.definitions else "JSONRPCError"
        found = self.judge(shape, obj)
        if found:
            return found
        error = obj.get("error")
        code = error.get("code") if isinstance(error, dict) else None
        specific = self._error_codes.get(code) if isinstance(code, int) else None
        if specific is None:
            return []
        name, whole = specific
        return self.judge(name, obj) if whole else self.judge(name, error, "error")


def _key(document: dict[str, Any]) -> str:
    return "$defs" if "$defs" in document else "definitions"


def _error_codes(defs: dict[str, Any]) -> dict[int, tuple[str, bool]]:
    """Error code -> (definition, whether it describes the whole response): 2026-07-28 defines errors by code,
    some as the error object (ParseError: ``code`` const), some as the whole response (``error.code``)."""
    out: dict[int, tuple[str, bool]] = {}
    for name, schema in defs.items():
        if not name.endswith("Error") or not isinstance(schema, dict):
            continue
        props = schema.get("properties", {})
        const = props.get("code", {}).get("const")
        if isinstance(const, int):
            out[const] = (name, False)
            continue
        for part in props.get("error", {}).get("allOf", []):
            const = part.get("properties", {}).get("code", {}).get("const")
            if isinstance(const, int):
                out[const] = (name, True)
    return out


_schemas: dict[str, RevisionSchema] = {}


def for_revision(revision: str) -> RevisionSchema | None:
    """The (cached) validators of ``revision``, or None for a revision without a schema file."""
    if revision not in revisions.REVISIONS:
        return None
    found = _schemas.get(revision)
    if found is None:
        found = _schemas[revision] = RevisionSchema(revision)
    return found
