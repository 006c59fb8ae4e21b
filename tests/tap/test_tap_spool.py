"""The tap's spool (relay -> recorder): frames come out whole and in order, whatever the recorder's pace; the
relay pauses past the backlog bound and resumes once the recorder is halfway back; space the recorder has
passed is given back to the file system."""

from __future__ import annotations

import asyncio
import os
import sys

import pytest
from helpers import until

from inspector.core.tap import spool as tap_spool
from inspector.core.tap.spool import FRAME, Spool, SpoolReader, SpoolWriter


def spool_pair(tmp_path, on_pause=lambda: None, on_resume=lambda: None, lost=None):
    spool = Spool(tmp_path)
    writer = SpoolWriter(spool, 0.0, on_pause, on_resume, (lost if lost is not None else []).append)
    # both ends live in this process here (the tap forks between them): the reader gets its own descriptor
    reader_side = Spool.__new__(Spool)
    reader_side.fd, reader_side.wake_r, reader_side.consumed = os.dup(spool.fd), spool.wake_r, spool.consumed
    return spool, writer, SpoolReader(reader_side)


def read_all(reader: SpoolReader) -> list[tuple[int, bytes]]:
    async def drain():
        got = []
        while True:
            frames = reader.take()
            if frames:
                got.extend((tag, payload) for tag, _, _, payload in frames)
            elif reader.ended:
                return got
            else:
                await asyncio.wait_for(reader.wait(), 10)
    return asyncio.run(drain())


def test_frames_come_out_whole_and_in_order_after_the_relay_closes_its_end(tmp_path):
    _, writer, reader = spool_pair(tmp_path)
    sent = [(1 + i % 3, bytes([i % 256]) * (i * 37 % 5000)) for i in range(3000)]  # ~7 MB, spans many reads

    async def send():
        for tag, payload in sent:
            writer.send(tag, payload)
        writer.close()
    asyncio.run(send())
    assert read_all(reader) == sent
    assert reader.leftover == 0


def test_the_spool_is_an_unlinked_private_file_next_to_the_capture(tmp_path):
    spool = Spool(tmp_path)
    try:
        assert list(tmp_path.iterdir()) == []  # no name anyone could open
        assert os.fstat(spool.fd).st_mode & 0o777 == 0o600
        assert os.fstat(spool.fd).st_dev == os.stat(tmp_path).st_dev
    finally:
        for fd in (spool.fd, spool.wake_r, spool.wake_w):
            os.close(fd)


def test_a_frame_cut_short_by_a_killed_relay_is_left_over_not_returned(tmp_path):
    spool, writer, reader = spool_pair(tmp_path)

    async def send():
        writer.send(2, b"whole")
        os.write(spool.fd, FRAME.pack(2, 100, 0.0, 0.0) + b"only part")  # the relay died mid-frame
        writer.close()
    asyncio.run(send())
    assert read_all(reader) == [(2, b"whole")]
    assert reader.leftover == FRAME.size + len(b"only part")


def test_the_relay_pauses_past_the_backlog_and_resumes_when_the_recorder_is_halfway_back(tmp_path, monkeypatch):
    monkeypatch.setenv(tap_spool.BACKLOG_ENV, "100000")
    calls: list[str] = []
    _, writer, reader = spool_pair(tmp_path, lambda: calls.append("pause"), lambda: calls.append("resume"))
    payload = b"x" * 10_000

    async def scenario():
        while not calls:
            writer.send(2, payload)
        assert calls == ["pause"] and writer.backlog > 100_000
        frames = reader.take()  # the recorder catches up
        assert len(frames) * (len(payload) + FRAME.size) == writer.backlog + len(frames) * (len(payload) + FRAME.size)
        await until(lambda: calls == ["pause", "resume"], 5, "the relay to resume")
        writer.close()
    asyncio.run(scenario())


def test_a_recorder_that_is_gone_stops_the_recording_and_says_so_once(tmp_path):
    lost: list[str] = []
    spool, writer, reader = spool_pair(tmp_path, lost=lost)
    reader.close()  # the read end of the wake-up pipe with it: the next token fails with EPIPE

    async def send():
        writer.send(2, b"a")
        writer.send(2, b"b")
    asyncio.run(send())
    assert len(lost) == 1 and "the recorder stopped" in lost[0]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="hole punching is Linux only")
def test_space_the_recorder_has_passed_is_given_back_to_the_file_system(tmp_path):
    spool, writer, reader = spool_pair(tmp_path)
    chunk = os.urandom(1 << 20)

    async def scenario():
        for _ in range(40):  # 40 MiB, more than two punch steps
            writer.send(2, chunk)
        while writer.backlog:
            reader.take()
    asyncio.run(scenario())
    allocated = os.fstat(spool.fd).st_blocks * 512
    if allocated >= 40 << 20:
        pytest.skip("this file system does not punch holes")
    assert allocated <= tap_spool.PUNCH_STEP + (2 << 20)
    writer.close()
    reader.close()
