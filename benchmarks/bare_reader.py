"""The baseline of benchmarks/ingest.py's whole-process comparison: the least a Python client can do with a
stdio server's stdout: an asyncio readline() + json.loads() loop, nothing kept, nothing written. A process of
its own, started like the inspector's command is, so both pay an interpreter's start-up and their imports.

    python benchmarks/bare_reader.py COMMAND [ARG...]    # prints the number of lines read
"""

import asyncio
import json
import sys


async def main(argv: list[str]) -> int:
    proc = await asyncio.create_subprocess_exec(*argv, stdout=asyncio.subprocess.PIPE, limit=1 << 24)
    assert proc.stdout is not None
    count = 0
    while line := await proc.stdout.readline():
        json.loads(line)
        count += 1
    await proc.wait()
    return count


if __name__ == "__main__":
    print(asyncio.run(main(sys.argv[1:])))
