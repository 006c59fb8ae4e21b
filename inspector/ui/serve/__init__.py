"""Serve this capture…: a capture tab's twin, on stdio (the command to paste into a client's config) or over HTTP
(a subprocess on a loopback port, for as long as the dialog asks for it)."""
