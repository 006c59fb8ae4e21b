"""The collection file: saved requests with their expected outcomes (docs/collections.md is the contract).

::

    {"format": "mcp-inspector-collection", "version": 1, "name": "smoke",
     "requests": [
       {"name": "add two numbers", "method": "tools/call",
        "params": {"name": "add", "arguments": {"a": 2, "b": 3}},
        "expect": {"status": "result", "isError": false, "textContains": ["5"],
                   "equals": {"/structuredContent/result": 5}, "outputSchema": true, "latencyUnderMs": 500}}]}

Every ``expect`` member is optional; a request without any still has to be answered. :func:`load` checks the
whole file and raises :class:`CollectionError` naming the first thing wrong (which request, which member) in one
sentence; :meth:`Collection.save` writes it atomically. :func:`from_call` turns an Explorer history entry into a
request that expects what the call gave then (isError as it was); :func:`add_to` appends it to a file.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FORMAT = "mcp-inspector-collection"
VERSION = 1
#: The members ``expect`` may have, and the JSON type each needs (checked at load, named in the sentence).
EXPECT_MEMBERS = ("status", "isError", "textContains", "equals", "outputSchema", "latencyUnderMs")
STATUSES = ("result", "error")


class CollectionError(Exception):
    """A collection file cannot be used; ``str()`` is one sentence naming where."""


@dataclass
class Expect:
    """What a request's answer must be (None or empty: not checked)."""

    status: str | None = None  #: ``result`` or ``error`` (a JSON-RPC error answer)
    is_error: bool | None = None  #: the tool result's ``isError`` (absent counts as false)
    text_contains: list[str] = field(default_factory=list)  #: each must be in the answer's text
    equals: dict[str, Any] = field(default_factory=dict)  #: RFC 6901 pointer into the result -> the value there
    output_schema: bool = False  #: ``structuredContent`` matches the tool's ``outputSchema``
    latency_under_ms: float | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.status is not None:
            out["status"] = self.status
        if self.is_error is not None:
            out["isError"] = self.is_error
        if self.text_contains:
            out["textContains"] = list(self.text_contains)
        if self.equals:
            out["equals"] = dict(self.equals)
        if self.output_schema:
            out["outputSchema"] = True
        if self.latency_under_ms is not None:
            out["latencyUnderMs"] = self.latency_under_ms
        return out

    @classmethod
    def from_json(cls, data: Any, where: str) -> Expect:
        if data is None:
            return cls()
        if not isinstance(data, dict):
            raise CollectionError(f"{where}: \"expect\" must be an object")
        unknown = [k for k in data if k not in EXPECT_MEMBERS]
        if unknown:
            raise CollectionError(f"{where}: \"expect\" has {unknown[0]!r}, which is none of "
                                  f"{', '.join(EXPECT_MEMBERS)}")
        status = data.get("status")
        if status is not None and status not in STATUSES:
            raise CollectionError(f"{where}: expect.status must be \"result\" or \"error\", not {status!r}")
        is_error = data.get("isError")
        if is_error is not None and not isinstance(is_error, bool):
            raise CollectionError(f"{where}: expect.isError must be true or false")
        texts = data.get("textContains", [])
        texts = [texts] if isinstance(texts, str) else texts
        if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
            raise CollectionError(f"{where}: expect.textContains must be a string or a list of strings")
        equals = data.get("equals", {})
        if not isinstance(equals, dict) or not all(k == "" or k.startswith("/") for k in equals):
            raise CollectionError(f"{where}: expect.equals must be an object of JSON pointers (\"/a/0/b\", RFC "
                                  "6901) to the values expected there")
        schema = data.get("outputSchema", False)
        if not isinstance(schema, bool):
            raise CollectionError(f"{where}: expect.outputSchema must be true or false")
        latency = data.get("latencyUnderMs")
        if latency is not None and (isinstance(latency, bool) or not isinstance(latency, (int, float))
                                    or latency <= 0):
            raise CollectionError(f"{where}: expect.latencyUnderMs must be a number of milliseconds above 0")
        return cls(status, is_error, list(texts), dict(equals), schema,
                   None if latency is None else float(latency))


@dataclass
class SavedRequest:
    """One request of a collection: a name for reports, the method and params, what is expected."""

    name: str
    method: str
    params: Any = None
    expect: Expect = field(default_factory=Expect)

    @property
    def tool(self) -> str | None:
        """The tool a ``tools/call`` calls."""
        if self.method == "tools/call" and isinstance(self.params, dict) and isinstance(self.params.get("name"), str):
            return str(self.params["name"])
        return None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "method": self.method}
        if self.params is not None:
            out["params"] = self.params
        expect = self.expect.to_json()
        if expect:
            out["expect"] = expect
        return out


@dataclass
class Collection:
    """A named list of saved requests."""

    name: str
    requests: list[SavedRequest] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT, "version": VERSION, "name": self.name,
                "requests": [request.to_json() for request in self.requests]}

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the file atomically. Raises CollectionError."""
        target = Path(path)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, temp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(self.to_json(), out, ensure_ascii=False, indent=2)
                out.write("\n")
            os.replace(temp, target)
        except OSError as exc:
            raise CollectionError(f"cannot write the collection {target}: {exc.strerror or exc}") from None


def load(path: str | os.PathLike[str]) -> Collection:
    """Read and check a collection file. Raises CollectionError with a sentence."""
    name = os.fspath(path)
    try:
        data = json.loads(Path(name).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CollectionError(f"{name}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise CollectionError(f"{name} cannot be read: {getattr(exc, 'strerror', None) or exc}") from None
    except ValueError as exc:
        raise CollectionError(f"{name} is not JSON ({exc})") from None
    except RecursionError:  # Python's json reads about a thousand levels: the stack ends there
        raise CollectionError(f"{name} is JSON nested too deep to read") from None
    return parse(data, name)


def parse(data: Any, name: str) -> Collection:
    """A collection from its parsed JSON (``name``: the file, for sentences). Raises CollectionError."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CollectionError(f"{name} is not a collection (no \"format\": \"{FORMAT}\")")
    if data.get("version") != VERSION:
        raise CollectionError(f"{name} is a collection of version {data.get('version')!r}; this inspector reads "
                              f"version {VERSION}")
    requests = data.get("requests")
    if not isinstance(requests, list):
        raise CollectionError(f"{name} has no \"requests\" list")
    out = []
    for number, entry in enumerate(requests, 1):
        where = f"{name}, request {number}"
        if not isinstance(entry, dict) or not isinstance(entry.get("method"), str) or not entry["method"]:
            raise CollectionError(f"{where} needs a \"method\" (a string)")
        params = entry.get("params")
        if params is not None and not isinstance(params, (dict, list)):
            raise CollectionError(f"{where}: \"params\" must be an object")
        label = entry.get("name")
        out.append(SavedRequest(label if isinstance(label, str) and label else f"{number}. {entry['method']}",
                                entry["method"], params, Expect.from_json(entry.get("expect"), where)))
    collection_name = data.get("name")
    return Collection(collection_name if isinstance(collection_name, str) else Path(name).stem, out)


def from_call(tool: str, arguments: dict[str, Any], *, is_error: bool | None = None, text: str = "",
              name: str = "") -> SavedRequest:
    """A saved ``tools/call`` of ``tool`` with ``arguments``, expecting ``is_error`` (when known) and, when given,
    that the answer's text contains ``text``."""
    expect = Expect(status="result", is_error=is_error, text_contains=[text] if text else [])
    return SavedRequest(name or f"{tool}", "tools/call", {"name": tool, "arguments": arguments}, expect)


def add_to(path: str | os.PathLike[str], requests: list[SavedRequest]) -> Collection:
    """Append ``requests`` to the collection at ``path`` (made, named after the file, when there is none yet) and
    save it. Raises CollectionError (a file that is not a collection is never overwritten)."""
    collection = load(path) if Path(path).exists() else Collection(Path(path).stem)
    collection.requests.extend(requests)
    collection.save(path)
    return collection
