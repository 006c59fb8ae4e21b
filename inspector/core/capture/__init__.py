"""Capture files: the append-only, crash-safe JSON Lines record of a session (see docs/capture-format.md)."""

from inspector.core.capture.format import FORMAT_NAME, FORMAT_VERSION, CaptureError
from inspector.core.capture.reader import Capture, iter_capture, read_capture
from inspector.core.capture.writer import CaptureWriter

__all__ = [
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "Capture",
    "CaptureError",
    "CaptureWriter",
    "iter_capture",
    "read_capture",
]
