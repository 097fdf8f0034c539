#!/usr/bin/env python3
"""The pgqueuer side of scripts/bench-pgqueuer.sh, driven as pgqueuer's own tools/benchmark.py drives it.

  enqueue DSN JOBS ENTRYPOINTS   batch enqueue (lists of 1,000 per call, each its own transaction, as pgqueuer's
                                 Producer does) of JOBS jobs round-robin over the comma-separated entrypoints;
                                 prints the seconds from connecting to the last commit (Python's start-up and
                                 imports are not counted: the Ferry side's is a compiled CLI's, about 10 ms)
  work DSN JOBS ENTRYPOINTS PROCESSES BATCH MAX_TASKS
                                 PROCESSES worker processes (one PgQueuer each, a no-op entrypoint per name, drain
                                 mode, dequeue batch size BATCH, max_concurrent_tasks MAX_TASKS, 0 for no limit)
                                 started together once each is connected; prints jobs/s from the first pick to the
                                 last success, read from pgqueuer_log as Ferry's is read from its events
  worker DSN ENTRYPOINTS BATCH MAX_TASKS   one worker process (used by work)
"""
import asyncio
import subprocess
import sys
import time

import asyncpg
from pgqueuer import PgQueuer
from pgqueuer.db import AsyncpgDriver
from pgqueuer.queries import Queries
from pgqueuer.types import QueueExecutionMode

try:  # pgqueuer's benchmark runs on uvloop; so do we when it is installed
    import uvloop

    run = uvloop.run
except ImportError:
    run = asyncio.run

ENQUEUE_BATCH = 1_000


async def enqueue(dsn: str, jobs: int, entrypoints: list[str]) -> None:
    start = time.perf_counter()
    connection = await asyncpg.connect(dsn=dsn)
    queries = Queries(AsyncpgDriver(connection))
    for first in range(0, jobs, ENQUEUE_BATCH):
        indexes = range(first, min(jobs, first + ENQUEUE_BATCH))
        await queries.enqueue(
            [entrypoints[i % len(entrypoints)] for i in indexes],
            [f"https://bench.example.com/{i}".encode() for i in indexes],
            [0] * len(indexes),
        )
    elapsed = time.perf_counter() - start
    await connection.close()
    print(f"{elapsed:.4f}")


async def worker(dsn: str, entrypoints: list[str], batch: int, max_tasks: int) -> None:
    connection = await asyncpg.connect(dsn=dsn)
    pgq = PgQueuer(AsyncpgDriver(connection))
    for name in entrypoints:

        @pgq.entrypoint(name)
        async def noop(job) -> None:
            pass

    print("ready", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    await pgq.run(batch_size=batch, max_concurrent_tasks=max_tasks or None, mode=QueueExecutionMode.drain)


async def rate(dsn: str, jobs: int) -> None:
    connection = await asyncpg.connect(dsn=dsn)
    row = await connection.fetchrow(
        """SELECT extract(epoch FROM max(created) FILTER (WHERE status = 'successful')
                                  - min(created) FILTER (WHERE status = 'picked'))::float8 AS seconds,
                  count(*) FILTER (WHERE status = 'successful') AS succeeded
             FROM pgqueuer_log WHERE status IN ('picked', 'successful')"""
    )
    await connection.close()
    if row["succeeded"] != jobs:
        sys.exit(f"error: pgqueuer finished {row['succeeded']} of {jobs} jobs")
    print(f"{jobs / row['seconds']:.1f}")


def work(dsn: str, jobs: int, entrypoints: str, processes: int, batch: int, max_tasks: int) -> None:
    workers = [
        subprocess.Popen(
            [sys.executable, __file__, "worker", dsn, entrypoints, str(batch), str(max_tasks)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        for _ in range(processes)
    ]
    for process in workers:  # imported and connected: Python's start-up is not what is measured
        if process.stdout.readline().strip() != "ready":
            sys.exit("error: a pgqueuer worker did not start")
    for process in workers:
        process.stdin.write("go\n")
        process.stdin.flush()
    for process in workers:
        if process.wait() != 0:
            sys.exit(f"error: a pgqueuer worker exited {process.returncode}")
    run(rate(dsn, jobs))


def main() -> None:
    command, args = sys.argv[1], sys.argv[2:]
    if command == "enqueue":
        run(enqueue(args[0], int(args[1]), args[2].split(",")))
    elif command == "work":
        work(args[0], int(args[1]), args[2], int(args[3]), int(args[4]), int(args[5]))
    elif command == "worker":
        run(worker(args[0], args[1].split(","), int(args[2]), int(args[3])))
    else:
        sys.exit(f"error: unknown command {command!r}: use enqueue, work or worker")


if __name__ == "__main__":
    main()
