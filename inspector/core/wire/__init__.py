"""The wire: events, byte-exact framing, JSON-RPC classification, request/response pairing, SSE and line
decoding. Sans-io."""
