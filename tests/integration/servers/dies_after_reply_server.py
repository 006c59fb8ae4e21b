"""Answers initialize, then exits at once (code 0), before anything else arrives."""

from _wire import initialize_result, messages, send

if __name__ == "__main__":
    for message in messages():
        if message.get("method") == "initialize":
            send(initialize_result(message, "dies-after-reply-server"))
            raise SystemExit(0)
