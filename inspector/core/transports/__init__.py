"""Transports: each speaks one MCP transport byte-exactly and reports everything as events."""

from inspector.core.transports.base import Transport, TransportClosed, TransportError

__all__ = ["Transport", "TransportClosed", "TransportError"]
