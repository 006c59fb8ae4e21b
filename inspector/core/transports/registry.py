"""Which transports exist: the built-in ones and third-party ones registered through an entry point.

A third-party package adds a transport by declaring, in its ``pyproject.toml``::

    [project.entry-points."mcp_inspector.transports"]
    mine = "my_package.module:MyTransport"

``MyTransport(options: HttpOptions)`` must implement :class:`inspector.core.transports.base.Transport`
(see docs/transports.md). It then appears in ``--transport`` and in the GUI.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import EntryPoint, entry_points

from inspector.core.transports.base import Transport, TransportError
from inspector.core.transports.http_common import HttpOptions

ENTRY_POINT_GROUP = "mcp_inspector.transports"
URL_TRANSPORTS = ("auto", "streamable-http", "sse")

Factory = Callable[[HttpOptions], Transport]


def _builtin(name: str) -> Factory:
    def make(options: HttpOptions) -> Transport:
        if name == "auto":
            from inspector.core.transports.auto_http import AutoHttpTransport

            return AutoHttpTransport(options)
        if name == "sse":
            from inspector.core.transports.http_sse import HttpSseTransport

            return HttpSseTransport(options)
        from inspector.core.transports.streamable_http import StreamableHttpTransport

        return StreamableHttpTransport(options)

    return make


def url_transports() -> dict[str, Factory]:
    """Transports that connect to a URL, by ``--transport`` name: built-ins first, then plug-ins."""
    found: dict[str, Factory] = {name: _builtin(name) for name in URL_TRANSPORTS}
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        if entry.name not in found:
            found[entry.name] = _lazy(entry)
    return found


def _lazy(entry: EntryPoint) -> Factory:
    def make(options: HttpOptions) -> Transport:
        try:
            cls: Factory = entry.load()
        except Exception as exc:  # a broken plug-in must not take the inspector down
            raise TransportError(f"the transport plug-in {entry.name!r} cannot be loaded: {exc}") from None
        return cls(options)

    return make


def create_url_transport(name: str, options: HttpOptions) -> Transport:
    factories = url_transports()
    if name not in factories:
        raise TransportError(f"unknown transport {name!r}; known: {', '.join(factories)}")
    return factories[name](options)
