"""The panels around the timeline: detail, stderr, composer, server requests, replay results."""
