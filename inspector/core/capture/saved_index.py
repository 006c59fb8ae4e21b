"""A scanned :class:`~inspector.core.capture.index.CaptureIndex` kept in a file, so the next start skips the scan.

Scanning a capture of a million events costs seconds of CPU (every line is looked at); what it leaves is about
18 bytes an event of columns and offsets, which a file gives back in milliseconds. :func:`save_index` writes them;
:func:`load_index` gives them back only to the same capture, unchanged: the saved index carries the capture's
*key* (:func:`capture_key`: its size, modification time, inode, and a hash of its header line and of its last
64 KiB) and a hash of its own contents, and anything that does not agree (another file, a capture grown or
rewritten since, a saved index cut short or damaged, an older layout) is not used: the caller scans the capture
again. The capture is the truth; the saved index is only ever a shortcut to what a scan of it gives.

The file: :data:`MAGIC`, the length of a JSON head (8 bytes, little-endian), the head (the key, the layout's
version, the scalar state, the method names, the warnings, each column's length), then the columns' bytes, in
the order of :data:`_ARRAYS`. Columns are written in the machine's own byte order and item sizes, which the head
names (a saved index from another kind of machine is not used).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from array import array
from pathlib import Path
from typing import Any

from inspector.core.capture.index import CaptureIndex

MAGIC = b"MCPI-CAPTURE-INDEX\n"
#: The layout of the saved file and of what it holds: bump it whenever CaptureIndex or Columns keep something new
#: or read the capture differently (an index saved by another version is then scanned again).
LAYOUT = 1
#: How much of the capture's end its key hashes (an append or an edit near the end changes it).
TAIL_BYTES = 64 << 10
#: The columns saved, as (owner, attribute, typecode; "" for a bytearray).
_ARRAYS = (("columns", "categories", ""), ("columns", "small_methods", ""), ("columns", "methods", "I"),
           ("columns", "partners", "i"), ("columns", "_run_rows", "q"), ("columns", "_run_seqs", "q"),
           ("index", "offsets", "q"))


def capture_key(path: str | os.PathLike[str]) -> dict[str, Any] | None:
    """What identifies the capture at ``path`` as it is now (None when it cannot be read)."""
    try:
        with open(path, "rb") as file:
            stat = os.fstat(file.fileno())
            head = hashlib.blake2b(file.readline(1 << 20), digest_size=16)
            file.seek(max(0, stat.st_size - TAIL_BYTES))
            tail = hashlib.blake2b(file.read(TAIL_BYTES), digest_size=16)
    except OSError:
        return None
    return {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "inode": stat.st_ino, "device": stat.st_dev,
            "head": head.hexdigest(), "tail": tail.hexdigest()}


def _machine() -> dict[str, Any]:
    return {"layout": LAYOUT, "byteorder": sys.byteorder,
            "itemsizes": {code: array(code).itemsize for code in "Iiq"}}


def save_index(index: CaptureIndex, key: dict[str, Any], target: Path) -> bool:
    """Write the scanned ``index`` of the capture whose key (taken before the scan) is ``key`` to ``target``;
    False, and nothing written, when the index is not one whole scan of that capture as it still is (it grew or
    changed meanwhile) or the file cannot be written."""
    if not index.done or index.scanned != key["size"] or index.size != key["size"] \
            or capture_key(index.path) != key:
        return False
    columns = index.columns
    owners = {"columns": columns, "index": index}
    blobs = [bytes(getattr(owners[owner], name)) for owner, name, _ in _ARRAYS]
    digest = hashlib.blake2b(digest_size=16)
    for blob in blobs:
        digest.update(blob)
    head = {
        **_machine(), "key": key, "lengths": [len(blob) for blob in blobs], "digest": digest.hexdigest(),
        "method_names": columns.method_names, "next_seq": columns.next_seq, "ordered": columns._ordered,
        "spans": {"rows": sorted(columns.span_of_row.items()), "labels": columns.span_labels,
                  "names": sorted(columns._span_numbers.items(), key=lambda item: item[1])},
        "warnings": index.warnings, "line_no": index._line_no, "problems": index._problems,
    }
    text = json.dumps(head, separators=(",", ":")).encode()
    try:
        target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=target.name + ".", suffix=".part", dir=target.parent)
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(MAGIC + len(text).to_bytes(8, "little") + text)
                for blob in blobs:
                    out.write(blob)
            os.replace(temporary, target)  # whole or not at all: a reader never sees half of it
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    except OSError:
        return False
    return True


def load_index(path: str | os.PathLike[str], saved: Path) -> CaptureIndex | None:
    """The index of the capture at ``path`` as :func:`save_index` saved it in ``saved``, scanned to its end; None
    when ``saved`` is missing, damaged, of another layout or machine, or of another capture or an earlier state of
    this one (then scan it). Raises :class:`~inspector.core.capture.format.CaptureError` as
    :class:`CaptureIndex` does when the capture itself cannot be read."""
    try:
        with open(saved, "rb") as file:
            data = file.read()
    except OSError:
        return None
    head = _head(data)
    key = capture_key(path)
    if head is None or key is None or head.get("key") != key:
        return None
    index = CaptureIndex(path)
    try:
        if index.size != key["size"] or not _restore(index, head, memoryview(data)[_body_start(data):]):
            index.close()
            return None
    except (ValueError, TypeError, KeyError, IndexError, AttributeError):  # a head of the right layout, wrong inside
        index.close()
        return None
    return index


def _body_start(data: bytes) -> int:
    return len(MAGIC) + 8 + int.from_bytes(data[len(MAGIC):len(MAGIC) + 8], "little")


def _head(data: bytes) -> dict[str, Any] | None:
    if not data.startswith(MAGIC) or len(data) < len(MAGIC) + 8:
        return None
    end = _body_start(data)
    if end > len(data):
        return None
    try:
        head = json.loads(data[len(MAGIC) + 8:end])
    except (ValueError, RecursionError):
        return None
    if not isinstance(head, dict) or any(head.get(name) != value for name, value in _machine().items()):
        return None
    return head


def _restore(index: CaptureIndex, head: dict[str, Any], body: memoryview) -> bool:
    """Fill the fresh ``index`` from a saved head and body; False when they do not hold together."""
    lengths = head["lengths"]
    if len(lengths) != len(_ARRAYS) or sum(lengths) != len(body):
        return False
    digest = hashlib.blake2b(body, digest_size=16)
    if digest.hexdigest() != head["digest"]:
        return False
    columns = index.columns
    owners = {"columns": columns, "index": index}
    start = 0
    for (owner, name, code), length in zip(_ARRAYS, lengths, strict=True):
        piece = body[start:start + length]
        start += length
        value: bytearray | array[int] = bytearray(piece) if not code else array(code, piece.tobytes())
        setattr(owners[owner], name, value)
    rows = len(index.offsets)
    names = head["method_names"]
    if not (len(columns.categories) == len(columns.small_methods) == len(columns.methods) == rows
            and len(columns.partners) <= rows and len(columns._run_rows) == len(columns._run_seqs)
            and isinstance(names, list) and names[:1] == [""] and all(isinstance(n, str) for n in names)
            and (not rows or (max(columns.methods) < len(names) and index.offsets[-1] < index.size))):
        return False
    columns.method_names = names
    columns._method_ids = {name: number for number, name in enumerate(names)}
    columns.next_seq = head["next_seq"]
    columns._ordered = bool(head["ordered"])
    spans = head["spans"]
    columns.span_of_row = {int(row): int(number) for row, number in spans["rows"]}
    columns.span_labels = [str(label) for label in spans["labels"]]
    columns._span_numbers = {str(name): int(number) for name, number in spans["names"]}
    index.warnings = [str(warning) for warning in head["warnings"]]
    index._line_no = int(head["line_no"])
    index._problems = int(head["problems"])
    index.scanned = index.size
    index.done = True
    return True
