"""tap: a relay between a real client and its stdio server that records the traffic and shows it live."""
