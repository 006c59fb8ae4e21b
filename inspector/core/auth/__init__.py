"""OAuth 2.1 for HTTP MCP servers: discovery, registration, PKCE, tokens, shown step by step. No Qt.

Spec: https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization (and the 2025-03-26,
2025-06-18 and 2026-07-28 revisions of the same page). :class:`flow.OAuthClient` runs the flow through an
exchange function the HTTP transport gives it, so every request is a recorded ``http`` event (marked with
``auth_step``); each step is a :class:`model.Step` a window can list.
"""
