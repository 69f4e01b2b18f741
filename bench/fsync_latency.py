#!/usr/bin/env python3
"""The disk's own sync latency, for comparison with the journal's group commits, whose figures
are in docs/PERFORMANCE.md (Scheduler and load): N writes of SIZE bytes, one after another, to a
fresh file in DIR, each followed by fdatasync, timed one by one; --file says whether the file
grows with them (as a WAL does) or not.

    taskset -c 1 bench/fsync_latency.py [--size 1500] [--count 3000] [--dir /tmp] [--file append]

Pin it with taskset to the engine's core to see what a busy core does to a sync's wake-up
(run a busy loop there beside it). --gap-us spins that long between syncs, as a core busy with
requests would; the report then also counts the syncs over 2 ms by their phase in a 100 ms
period, which shows a host CPU quota's pauses: on a VM under such a quota, a busy vCPU beside
the syncs puts most of the slow ones in one tenth of the period
(docs/perf-log/2026-12-06-load-session-19.md).
--overlap runs two threads syncing the same file side by side (each its own blocks) and counts,
per thread, the syncs over 1.5 ms inside which a whole sync of the other thread started and
ended (0.5 ms or more before their end): whether a second commit in flight could have been
durable sooner. Measured, it hardly ever could: a slow sync is slow for every sync of the file
in flight (docs/perf-log/2026-12-06-load-session-20.md). It ignores --file (the file is
overwritten) and --gap-us.
--direct writes with O_DIRECT (with --file overwrite and a --size of whole 4 KiB blocks), as the
journal's commit log does: a direct write and sync costs less time and CPU than one through the
page cache (docs/perf-log/2026-12-06-load-session-21.md). --background-mbps R has a second
process write another file in DIR meanwhile, 1 MiB at a time through the page cache at R MB/s
(0: as fast as it can), starting each MiB's write-back at once (sync_file_range), as a RocksDB
flush or compaction does with bytes_per_sync: what the store's table writes do to a commit's
sync (they slow it: a sync's p99 went from about 0.2 ms alone to 0.6-0.9 ms beside 30-100 MB/s
of them; docs/perf-log/2026-12-06-load-session-22.md). Every run also reports the process's CPU
per write and sync."""
import argparse
import ctypes
import mmap
import multiprocessing
import os
import tempfile
import time

parser = argparse.ArgumentParser()
parser.add_argument("--size", type=int, default=1500)
parser.add_argument("--count", type=int, default=3000)
parser.add_argument("--dir", default="/tmp")
parser.add_argument(
    "--file", choices=("append", "overwrite", "fallocate"), default="append",
    help="append: the file grows with each write, so each sync also writes the inode (as "
         "RocksDB's WAL does); overwrite: the file was written and synced to full size first; "
         "fallocate: its size was allocated first (posix_fallocate)")
parser.add_argument("--gap-us", type=int, default=0,
                    help="spin this long (not sleep) between one sync's end and the next write")
parser.add_argument("--overlap", action="store_true",
                    help="two threads, each writing and syncing its own blocks of one "
                         "overwritten file (ignores --file and --gap-us)")
parser.add_argument("--direct", action="store_true",
                    help="write with O_DIRECT (needs --file overwrite and a --size of whole "
                         "4096-byte blocks)")
parser.add_argument("--background-mbps", type=float, default=None,
                    help="a second process writes another file at this many MB/s meanwhile "
                         "(0: as fast as it can), as the store's flushes do")
args = parser.parse_args()
if args.direct and (args.file != "overwrite" or args.size % 4096 != 0):
    parser.error("--direct needs --file overwrite and a --size that is a multiple of 4096")


def overlap_run():
    """Two threads, alternate blocks of one overwritten file; see the module's doc."""
    import threading
    with tempfile.NamedTemporaryFile(dir=args.dir) as f:
        os.pwrite(f.fileno(), b"\0" * (2 * args.count * args.size), 0)
        os.fsync(f.fileno())
        data = b"x" * args.size
        spans = ([], [])

        def run(t):
            for i in range(args.count):
                start = time.perf_counter()
                os.pwrite(f.fileno(), data, (2 * i + t) * args.size)
                os.fdatasync(f.fileno())
                spans[t].append((start, time.perf_counter()))
                time.sleep(0.0003 * (1 + t))  # so that the two drift against each other

        threads = [threading.Thread(target=run, args=(t,)) for t in (0, 1)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    for t in (0, 1):
        slow = [(s, e) for s, e in spans[t] if e - s > 1.5e-3]
        overtaken = sum(1 for s, e in slow
                        if any(os_ > s and oe < e - 0.5e-3 for os_, oe in spans[1 - t]))
        lat = sorted(e - s for s, e in spans[t])
        print(f"thread {t}: {len(lat)} syncs, p50 {lat[len(lat) // 2] * 1e3:.3f} ms, p99 "
              f"{lat[int(0.99 * len(lat))] * 1e3:.3f} ms; {len(slow)} over 1.5 ms, of which "
              f"{overtaken} had a whole sync of the other thread start and end inside them "
              f"(0.5 ms or more before their end)")


def background_writes(rate_mbps, stop):
    """Buffered 1 MiB writes to a file of its own, each MiB's write-back started at once."""
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    sync_file_range_write = 2  # SYNC_FILE_RANGE_WRITE
    chunk = os.urandom(1 << 20)
    with tempfile.NamedTemporaryFile(dir=args.dir) as f:
        began = time.monotonic()
        written = 0
        while not stop.is_set():
            if rate_mbps > 0:
                wait = began + written / rate_mbps - time.monotonic()
                if wait > 0:
                    time.sleep(wait)
            offset = (written % 256) << 20  # the file stays at 256 MiB
            os.pwrite(f.fileno(), chunk, offset)
            libc.sync_file_range(f.fileno(), ctypes.c_int64(offset), ctypes.c_int64(len(chunk)),
                                 sync_file_range_write)
            written += 1


if args.overlap:
    overlap_run()
    raise SystemExit(0)

background = None
if args.background_mbps is not None:
    stop_background = multiprocessing.Event()
    background = multiprocessing.Process(target=background_writes,
                                         args=(args.background_mbps, stop_background))
    background.start()

with tempfile.NamedTemporaryFile(dir=args.dir) as f:
    data = b"x" * args.size
    if args.file == "overwrite":
        os.pwrite(f.fileno(), b"\0" * (args.count * args.size), 0)
        os.fsync(f.fileno())
    elif args.file == "fallocate":
        os.posix_fallocate(f.fileno(), 0, args.count * args.size)
        os.fsync(f.fileno())
    fd = f.fileno()
    if args.direct:
        fd = os.open(f.name, os.O_RDWR | os.O_DIRECT)
        data = mmap.mmap(-1, args.size)  # page-aligned, as O_DIRECT needs
        data.write(b"x" * args.size)
    latencies = []
    starts = []
    cpu_before = os.times()
    began = time.perf_counter()
    for i in range(args.count):
        start = time.perf_counter()
        os.pwritev(fd, [data], i * args.size)
        os.fdatasync(fd)
        end = time.perf_counter()
        latencies.append(end - start)
        starts.append(start - began)
        while time.perf_counter() - end < args.gap_us * 1e-6:
            pass
    cpu_after = os.times()
    if args.direct:
        os.close(fd)
if background is not None:
    stop_background.set()
    background.join()
cpu_us = (cpu_after.user + cpu_after.system - cpu_before.user - cpu_before.system) * 1e6
slow_phases = [int(s * 1e3 % 100 // 10) for s, l in zip(starts, latencies) if l > 2e-3]
latencies.sort()


def ms(q):
    return latencies[min(int(q * len(latencies)), len(latencies) - 1)] * 1e3


mode = args.file + (", O_DIRECT" if args.direct else "")
if args.background_mbps is not None:
    mode += f", background writes at {args.background_mbps or 'full'} MB/s"
print(f"{args.count} writes of {args.size} B ({mode}) + fdatasync: p50 {ms(0.5):.3f} ms, "
      f"p99 {ms(0.99):.3f} ms, p99.9 {ms(0.999):.3f} ms, max {latencies[-1] * 1e3:.3f} ms; "
      f"CPU {cpu_us / args.count:.1f} us per write and sync")
by_decile = [slow_phases.count(d) for d in range(10)]
print(f"over 2 ms: {len(slow_phases)}; by phase in a 100 ms period (tenths, from the first "
      f"write): {by_decile}")
