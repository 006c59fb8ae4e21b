"""Replay: a capture's client messages sent again to a server, and what changed."""
