"""Never answers, ignores SIGTERM, and keeps running after its stdin closes: only SIGKILL ends it."""

import signal

from _wire import stdin

if __name__ == "__main__":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    for _ in stdin:
        pass
    while True:
        signal.pause()
