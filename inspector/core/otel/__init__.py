"""OpenTelemetry traces of MCP sessions: a span per request made from a session's events (:mod:`.spans`, sans-io),
encoded with the official OTLP protobuf messages (:mod:`.encode`: OTLP/protobuf and OTLP/JSON), written to a
file by ``export --to otlp`` or sent live to a collector over OTLP/HTTP (:mod:`.exporter`, ``--otlp-endpoint``).
"""
