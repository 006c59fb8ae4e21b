"""The timeline: the lazy table model over a session's events or a capture index, and its filter."""
