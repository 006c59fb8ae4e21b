"""A session: one connection driven through its transport, the event pipeline, the handshake, requests and answers."""
