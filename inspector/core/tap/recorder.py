"""The tap's recorder: a forked process that reads the relay's frames from the spool, turns them into events
through the session's own :class:`~inspector.core.capture.pipeline.EventPipeline` (numbered, paired, counted,
saved to the capture) and streams them to a listening window. See :mod:`inspector.core.tap.relay` for the
whole design."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

from inspector.core.capture.format import event_to_line
from inspector.core.capture.pipeline import EventPipeline
from inspector.core.capture.writer import CaptureWriter
from inspector.core.paths import default_capture_path
from inspector.core.tap.channel import TapFeed
from inspector.core.tap.intercepting import unpack_record
from inspector.core.tap.options import (
    C2S,
    C2S_EOF,
    END,
    INTERCEPTED,
    LIFECYCLE,
    NOTE,
    S2C,
    S2C_EOF,
    STDERR,
    STDERR_EOF,
)
from inspector.core.tap.spool import Spool, SpoolReader
from inspector.core.wire.events import Direction, Event, Kind
from inspector.core.wire.framing import DEFAULT_MAX_LINE_BYTES, LineDecoder
from inspector.core.wire.intercepted import MARK
from inspector.core.wire.lines import TextLineSplitter

#: The recorder runs at a lower priority than the relay, the server and the client: during a flood it
#: falls behind (the spool holds the backlog, see tap_spool) and catches up when the machine is idle.
RECORDER_NICENESS = 19


def _open_private(path: Path, exclusive: bool) -> Path:
    """Create the capture file with mode 0600 (it holds the session's messages); a taken name gets a suffix."""
    flags = os.O_WRONLY | os.O_CREAT | (os.O_EXCL if exclusive else os.O_TRUNC)
    candidate = path
    for n in range(2, 100):
        try:
            os.close(os.open(candidate, flags, 0o600))
            return candidate
        except FileExistsError:
            candidate = path.with_name(f"{path.stem}-{n}{path.suffix}")
    raise FileExistsError(path)





class RecorderBase:
    """What every tap's recorder does with the events it makes: hand them to the same pipeline a session uses
    (numbered, paired, counted, saved to the capture), and from it to the live feed. A subclass turns the
    frames of its relay into events (:meth:`frame`) and reports what is left half-read at the end
    (:meth:`finish`)."""

    def __init__(self, capture: CaptureWriter | None, feed: TapFeed | None = None) -> None:
        self.feed = feed
        self.pipeline = EventPipeline(capture)
        if feed is not None:
            self.pipeline.listeners.append(self._to_feed)

    def frame(self, tag: int, t: float, wall: float, payload: bytes) -> None:
        raise NotImplementedError

    def finish(self, t: float, wall: float) -> None:
        """End of input."""

    def note(self, text: str, t: float, wall: float, **data: Any) -> None:
        self._emit([Event(Kind.NOTE, data={"text": text, **data})], t, wall)

    def _emit(self, events: list[Event], t: float, wall: float) -> None:
        if events:
            self.pipeline.push(events, t, wall)  # nothing to react to: the recorder only records

    def _to_feed(self, events: list[Event]) -> None:
        feed = self.feed
        assert feed is not None
        feed.next_seq = events[-1].seq + 1
        if feed.connected:
            feed.send([event_to_line(event) for event in events])


#: Makes the recorder of one tap: (capture, feed, max_message) -> a recorder.
RecorderFactory = Callable[[CaptureWriter | None, TapFeed | None, int], RecorderBase]


class Recorder(RecorderBase):
    """The stdio tap's recorder: turns the relay's frames (bytes of each stream) into events."""

    def __init__(self, capture: CaptureWriter | None, feed: TapFeed | None = None,
                 max_line_bytes: int = DEFAULT_MAX_LINE_BYTES) -> None:
        super().__init__(capture, feed)
        self.decoders = {C2S: LineDecoder(Direction.C2S, max_line_bytes),
                         S2C: LineDecoder(Direction.S2C, max_line_bytes)}
        self.splitter: TextLineSplitter | None = TextLineSplitter()
        self.max_line_bytes = max_line_bytes

    def frame(self, tag: int, t: float, wall: float, payload: bytes) -> None:
        if tag in (C2S, S2C):
            decoder = self.decoders.get(tag)
            if decoder is not None:
                self._emit(decoder.feed(payload), t, wall)
        elif tag == STDERR:
            if self.splitter is not None:
                self._emit_stderr(self.splitter.feed(payload), t, wall)
        elif tag in (C2S_EOF, S2C_EOF):
            decoder = self.decoders.pop(tag - 3, None)
            if decoder is not None:
                self._emit(decoder.close(), t, wall)
        elif tag == STDERR_EOF:
            self._close_stderr(t, wall)
        elif tag == LIFECYCLE:
            self._emit([Event(Kind.LIFECYCLE, data=json.loads(payload))], t, wall)
        elif tag == NOTE:
            self._emit([Event(Kind.NOTE, data=json.loads(payload))], t, wall)
        elif tag == INTERCEPTED:
            self._intercepted(payload, t, wall)

    def _intercepted(self, payload: bytes, t: float, wall: float) -> None:
        """A message an intercept rule acted on (``tap --rules``), decoded on its own (it is a whole line, and
        may come after its direction ended: a delayed one) and marked."""
        direction, raw, eol, mark = unpack_record(payload)
        decoder = LineDecoder(direction, self.max_line_bytes)
        events = decoder.feed(raw + eol) + decoder.close()
        if mark is not None:
            for event in events:
                event.put(**{MARK: mark})
        self._emit(events, t, wall)

    def finish(self, t: float, wall: float) -> None:
        """End of input: report whatever is left half-read."""
        for tag in (C2S_EOF, S2C_EOF):
            self.frame(tag, t, wall, b"")
        self._close_stderr(t, wall)

    def _close_stderr(self, t: float, wall: float) -> None:
        if self.splitter is not None:
            splitter, self.splitter = self.splitter, None
            self._emit_stderr(splitter.close(), t, wall)

    def _emit_stderr(self, lines: list[tuple[bytes, bytes]], t: float, wall: float) -> None:
        if lines:
            self._emit([Event(Kind.STDERR, raw=line, dir=Direction.S2C, eol=eol) for line, eol in lines], t, wall)

async def _record_frames(spool: Spool, capture_path: Path | None, exclusive: bool, header: dict[str, Any],
                         hello: dict[str, Any], socket_path: Path | None,
                         max_message: int = DEFAULT_MAX_LINE_BYTES, make: RecorderFactory = Recorder,
                         otlp_endpoint: str | None = None) -> None:
    """The recorder process's work: frames from the spool until the relay's end, into the capture and the feed."""
    capture = None
    if capture_path is not None:
        try:
            capture_path = _open_private(capture_path, exclusive)
            capture = CaptureWriter(capture_path, header)
        except OSError as exc:
            say(f"cannot write the capture {capture_path}: {exc.strerror or exc}; relaying without recording")
    feed = None
    if socket_path is not None:
        feed = TapFeed(socket_path, {**hello, "capture": str(capture_path) if capture else None},
                       warn=say)
        await feed.start()
    recorder = make(capture, feed, max_message)
    exporter = await _start_export(otlp_endpoint, header, recorder)
    reader = SpoolReader(spool)
    ended: dict[str, Any] | None = None
    t = wall = 0.0
    try:
        while True:
            frames = reader.take()
            if not frames:
                if reader.ended:
                    break
                await reader.wait()
                continue
            for tag, t, wall, payload in frames:
                if tag == END:
                    ended = json.loads(payload)
                else:
                    recorder.frame(tag, t, wall, payload)
            await asyncio.sleep(0)  # a backlog is read without waiting: let the feed and the flush timer run
    finally:
        reader.close()
    recorder.finish(t, wall)
    if ended is None:
        recorder.note("the tap ended without saying how the server exited (was it killed?)", t, wall)
    if feed is not None:
        if feed.dropped:
            recorder.note(f"the live channel dropped {feed.dropped} events because the window was slow; "
                          "the capture has all of them", t, wall, dropped=feed.dropped)
        await feed.close(ended.get("exit") if ended else None)
    if capture is not None:
        capture.close()
    if exporter is not None:
        await exporter.close()
        if exporter.report():
            say(exporter.report() or "")


async def _start_export(endpoint: str | None, header: dict[str, Any], recorder: RecorderBase) -> Any:
    """``--otlp-endpoint``: an OTLP exporter listening to the recorder's pipeline (its spans go out as the
    recorder decodes the relayed bytes); None without one."""
    if endpoint is None:
        return None
    from inspector.core.interop.otlp import session_key
    from inspector.core.otel.exporter import OtlpExporter

    exporter = OtlpExporter(endpoint, session_key(header))
    recorder.pipeline.listeners.append(exporter.listener)
    exporter.start()
    return exporter


def _lower_priority() -> None:
    """The wire first: on a busy machine the recorder waits, not the relay, the server or the client.

    ``os.nice`` alone is not enough on Linux: with autogroup scheduling (most desktop kernels), nice values
    only weigh within one session's group, and the recorder, in a session of its own after ``setsid``, would
    get a whole group's fair share of the CPU, as much as the client. So its group is niced too."""
    with contextlib.suppress(OSError, AttributeError):
        os.nice(RECORDER_NICENESS)
    with contextlib.suppress(OSError):
        with open("/proc/self/autogroup", "w", encoding="ascii") as autogroup:
            autogroup.write(str(RECORDER_NICENESS))


def capture_destination(asked: Path | None, name: str) -> tuple[Path | None, bool]:
    """Where a tap records: ``--capture`` (overwritten), else a new file in the captures folder (created
    exclusively: two taps never share one); ``(None, True)``, said on stderr, when that folder cannot be made
    (the tap still relays)."""
    if asked is not None:
        return asked, False
    try:
        return default_capture_path(name), True
    except OSError as exc:
        say(f"the captures folder cannot be created ({exc.strerror or exc}); relaying without recording")
        return None, True


def say(text: str) -> None:
    try:
        os.write(2, f"mcp-inspector tap: {text}\n".encode("utf-8", errors="replace"))
    except OSError:
        pass


def fork_recorder(capture_path: Path | None, exclusive: bool, header: dict[str, Any], hello: dict[str, Any],
                   socket_path: Path | None, max_message: int = DEFAULT_MAX_LINE_BYTES, *,
                   make: RecorderFactory = Recorder, close_in_child: tuple[int, ...] = (),
                   otlp_endpoint: str | None = None) -> tuple[int, Spool, int] | None:
    """Fork the recorder; returns (pid, the spool, done read fd), or None if it cannot be started.

    ``make`` builds the recorder in the child (the stdio tap's by default); ``close_in_child`` are descriptors
    the recorder must not hold (the HTTP tap's listening socket: the port must close when the tap ends)."""
    try:
        spool = Spool(capture_path.parent if capture_path is not None else None)
    except OSError as exc:
        say(f"cannot start the recorder ({exc.strerror or exc}); relaying without recording")
        return None
    try:
        done_r, done_w = os.pipe()
        pid = os.fork()
    except OSError as exc:
        for fd in (spool.fd, spool.wake_r, spool.wake_w):
            os.close(fd)
        say(f"cannot start the recorder ({exc.strerror}); relaying without recording")
        return None
    if pid == 0:  # the recorder
        code = 0
        try:
            for fd in close_in_child:
                os.close(fd)
            spool.for_recorder()
            os.close(done_r)
            os.setsid()  # a Ctrl-C or a signal to the tap's group must not cut the capture short
            devnull = os.open(os.devnull, os.O_RDWR)
            os.dup2(devnull, 0)
            os.dup2(devnull, 1)  # never hold the client's stdout open: it must see EOF when the relay closes it
            os.close(devnull)
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            _lower_priority()
            asyncio.run(_record_frames(spool, capture_path, exclusive, header, hello, socket_path, max_message,
                                       make, otlp_endpoint))
        except BaseException as exc:  # the recorder must end with _exit, whatever happened
            say(f"the recorder failed: {exc.__class__.__name__}: {exc}")
            code = 1
        finally:
            os._exit(code)
    spool.for_relay()
    os.close(done_w)
    return pid, spool, done_r
