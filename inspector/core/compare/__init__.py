"""Comparing servers: two captures, or a capture and a live server (``diff``: their interfaces and their answers
to the same requests), and a server against the tool definitions approved before (``baseline``). Headless; the
window's Compare view and drift warning sit on it."""
