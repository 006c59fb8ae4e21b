"""Reads stdin forever and never answers anything (exits when stdin closes)."""

from _wire import stdin

if __name__ == "__main__":
    for _ in stdin:
        pass
