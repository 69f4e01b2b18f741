#!/usr/bin/env python3
"""Stream ingestion against HTTP ingestion, side by side in one run (docs/PERFORMANCE.md,
"Streams"): the same N transactions (one JSON transaction per message or request) decided by
the shipped configuration, durable, on a fresh data directory each time:

- kafka: all N produced to the mock Kafka cluster (tools/kafka_mock) first, then the engine
  started with an [[ingest]] stream on it; timed from the first message read to the N-th
  committed (verdict_ingest_messages_total), scraped every 50 ms.
- amqp: the same through a RabbitMQ node started here (persistent messages, publisher confirms).
- kafka+realtime: the kafka run with the stream in the bulk class, and beside it verdict-load
  sending realtime HTTP requests at 200/s for 5 s: are they within their deadline?
- realtime-alone, http-bulk+realtime: the controls for kafka+realtime, realtime HTTP at 200/s
  for 5 s alone, and beside verdict-load sending the transactions as bulk HTTP at 4,000/s.
- http: verdict-load sending the N transactions open-loop at --http-rate over 64 connections
  (above what the engine answers, so that it is saturated as a pre-filled stream saturates it);
  timed from verdict-load's start to its last answer.

Each prints decisions/s and the engine's CPU (utime + stime from /proc) per decision.
Usage (from the repository root): bench/ingest/stream_vs_http.py [--n 10000] [--rounds 2]
  [--http-rate 10000] [--modes kafka,amqp,http,kafka+realtime]
  [--max-in-flight N]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "integration"))
os.environ.setdefault("VERDICT_BIN", os.path.join(ROOT, "build/release/bin/verdict"))
os.environ.setdefault("VERDICT_SOURCE_DIR", ROOT)
from stream_services import KafkaMock, RabbitMQ, stream_transaction  # noqa: E402
from verdict_process import BINARY, VerdictProcess, shipped_config_text  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def committed(server, stream):
    _, _, body = server.request("GET", "/metrics")
    total = 0
    for line in body.decode().splitlines():
        if line.startswith("verdict_ingest_messages_total{") and 'stream="%s"' % stream in line:
            total += int(float(line.rsplit(" ", 1)[1]))
    return total


MAX_IN_FLIGHT = None  # --max-in-flight: the streams' max_in_flight; None: the default


def stream_ingest_toml(kind, endpoint):
    if kind == "kafka":
        where = 'brokers = "%s"\ntopic = "in"\ndecisions_topic = "out"' % endpoint
    else:
        where = 'url = "%s"\nqueue = "in"\ndecisions_exchange = "out"' % endpoint
    if MAX_IN_FLIGHT is not None:
        where += "\nmax_in_flight = %d" % MAX_IN_FLIGHT
    return '\n[[ingest]]\nkind = "%s"\n%s\ndead_letter = "dlq"\ntenant = "dev"\n' % (kind, where)


def realtime_load(server, rate, seconds):
    """verdict-load sending realtime requests beside the stream, started now."""
    load = os.path.join(os.path.dirname(BINARY), "verdict-load")
    return subprocess.Popen(
        [load, "--target", "http://127.0.0.1:%d/v1/decisions" % server.port, "--rate", str(rate),
         "--duration", str(seconds), "--connections", "8", "--mix", "realtime=1", "--json"],
        stdout=subprocess.PIPE, text=True)


def time_stream(kind, endpoint, n, stream, priority="standard", realtime=None):
    """Decisions/s and engine CPU per decision; with `realtime` (rate, seconds), also the
    realtime HTTP report of verdict-load run beside the stream."""
    data = tempfile.mkdtemp(prefix="verdict-bench-")
    toml = stream_ingest_toml(kind, endpoint) + 'priority = "%s"\n' % priority
    with VerdictProcess(config=shipped_config_text() + toml, data_dir=data) as server:
        cpu0 = cpu_seconds(server.proc.pid)
        load = realtime_load(server, *realtime) if realtime else None
        start = None
        last, last_change = 0, time.monotonic()
        while True:
            done = committed(server, stream)
            if start is None and done > 0:
                start = time.monotonic()
                start_done = done
            if done >= n:
                break
            if done != last:
                last, last_change = done, time.monotonic()
            elif time.monotonic() - last_change > 30:
                raise RuntimeError("%s: stuck at %d of %d committed" % (stream, done, n))
            time.sleep(0.05)
        elapsed = time.monotonic() - start
        cpu = cpu_seconds(server.proc.pid) - cpu0
        if load is None:
            return (n - start_done) / elapsed, cpu / n * 1e6
        report = json.loads(load.communicate(timeout=120)[0])
        return (n - start_done) / elapsed, cpu / n * 1e6, report


def run_kafka(n, lines, priority="standard", realtime=None):
    from confluent_kafka import Producer
    with KafkaMock({"in": 1, "out": 1, "dlq": 1}) as kafka:
        producer = Producer({"bootstrap.servers": kafka.brokers, "linger.ms": 20})
        for i, line in enumerate(lines):
            producer.produce("in", key=("stream-%05d" % i).encode(), value=line)
            if i % 10000 == 0:
                producer.poll(0)
        if producer.flush(60) != 0:
            raise RuntimeError("kafka: messages left unsent")
        from confluent_kafka import Consumer, TopicPartition
        probe = Consumer({"bootstrap.servers": kafka.brokers, "group.id": "probe"})
        low, high = probe.get_watermark_offsets(TopicPartition("in", 0), timeout=10)
        probe.close()
        if (low, high) != (0, n):
            raise RuntimeError("kafka: the mock kept offsets %d..%d of %d" % (low, high, n))
        return time_stream("kafka", kafka.brokers, n, "kafka:in", priority, realtime)


def run_amqp(n, lines):
    import pika
    with RabbitMQ() as rabbit:
        connection = pika.BlockingConnection(rabbit.parameters())
        channel = connection.channel()
        channel.queue_declare("in", durable=True)
        channel.exchange_declare("out", exchange_type="topic", durable=True)
        channel.queue_declare("out-all", durable=True)
        channel.queue_bind("out-all", "out", routing_key="#")
        persistent = pika.BasicProperties(delivery_mode=2, content_type="application/json")
        for line in lines:
            channel.basic_publish("", "in", line, persistent)
        connection.close()
        return time_stream("amqp", rabbit.url, n, "amqp:in")


def run_realtime_control(lines_path, bulk_rate):
    """Realtime HTTP at 200/s for 5 s on the same configuration, alone (bulk_rate 0) or beside
    an HTTP bulk flood of the same transactions at `bulk_rate`/s: the controls for
    kafka+realtime."""
    data = tempfile.mkdtemp(prefix="verdict-bench-")
    load = os.path.join(os.path.dirname(BINARY), "verdict-load")
    with VerdictProcess(config=shipped_config_text(), data_dir=data) as server:
        bulk = None
        if bulk_rate:
            bulk = subprocess.Popen(
                [load, "--target", "http://127.0.0.1:%d/v1/decisions" % server.port, "--input",
                 lines_path, "--rate", str(bulk_rate), "--duration", "5", "--connections", "64",
                 "--mix", "bulk=1", "--json"], stdout=subprocess.PIPE, text=True)
        report = json.loads(realtime_load(server, 200, 5).communicate(timeout=120)[0])
        bulk_report = json.loads(bulk.communicate(timeout=120)[0]) if bulk else None
        return report, bulk_report


def run_http(n, path, rate):
    data = tempfile.mkdtemp(prefix="verdict-bench-")
    load = os.path.join(os.path.dirname(BINARY), "verdict-load")
    with VerdictProcess(config=shipped_config_text(), data_dir=data) as server:
        cpu0 = cpu_seconds(server.proc.pid)
        start = time.monotonic()
        done = subprocess.run(
            [load, "--target", "http://127.0.0.1:%d/v1/decisions" % server.port, "--input", path,
             "--rate", str(rate), "--duration", str(n / rate), "--max-requests", str(n),
             "--connections", "64", "--drain", "30", "--json"],
            capture_output=True, text=True, check=True)
        report = json.loads(done.stdout)
        cpu = cpu_seconds(server.proc.pid) - cpu0
        elapsed = time.monotonic() - start
        return report, cpu, elapsed


def main():
    parser = argparse.ArgumentParser()
    # The mock cluster keeps about 5 MB of a partition's log: 10,000 messages of ~330 bytes fit.
    parser.add_argument("--n", type=int, default=10000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--http-rate", type=float, default=10000)
    parser.add_argument("--modes", default="kafka,amqp,http")
    parser.add_argument("--max-in-flight", type=int, default=None)
    args = parser.parse_args()
    global MAX_IN_FLIGHT
    MAX_IN_FLIGHT = args.max_in_flight
    lines = [json.dumps(stream_transaction(i)).encode() for i in range(args.n)]
    with tempfile.NamedTemporaryFile("wb", suffix=".jsonl", delete=False) as f:
        f.write(b"\n".join(lines) + b"\n")
        path = f.name
    try:
        for r in range(args.rounds):
            for mode in args.modes.split(","):
                if mode == "kafka":
                    rate, cpu_us = run_kafka(args.n, lines)
                    print("round %d kafka: %.0f decisions/s, %.0f us engine CPU per decision"
                          % (r + 1, rate, cpu_us), flush=True)
                elif mode == "kafka+realtime":
                    rate, cpu_us, report = run_kafka(args.n, lines, "bulk", (200, 5))
                    rt = report["overall"]
                    print("round %d kafka bulk stream: %.0f decisions/s, %.0f us engine CPU per "
                          "decision; beside it realtime HTTP at 200/s for 5 s: %d of %d within "
                          "deadline, %d fallback, p99 %.1f ms"
                          % (r + 1, rate, cpu_us, rt["within_deadline"], rt["sent"],
                             rt["fallback"], rt["p99_us"] / 1000), flush=True)
                elif mode in ("realtime-alone", "http-bulk+realtime"):
                    bulk_rate = 0 if mode == "realtime-alone" else 4000
                    report, bulk = run_realtime_control(path, bulk_rate)
                    rt = report["overall"]
                    beside = ("alone" if bulk is None else
                              "beside HTTP bulk offered at 4,000/s (%.0f/s answered)"
                              % bulk["overall"]["throughput_per_s"])
                    print("round %d realtime HTTP at 200/s for 5 s %s: %d of %d within "
                          "deadline, %d fallback, p99 %.1f ms"
                          % (r + 1, beside, rt["within_deadline"], rt["sent"], rt["fallback"],
                             rt["p99_us"] / 1000), flush=True)
                elif mode == "amqp":
                    rate, cpu_us = run_amqp(args.n, lines)
                    print("round %d amqp: %.0f decisions/s, %.0f us engine CPU per decision"
                          % (r + 1, rate, cpu_us), flush=True)
                elif mode == "http":
                    report, cpu, elapsed = run_http(args.n, path, args.http_rate)
                    overall = report["overall"]
                    print("round %d http at %.0f/s offered: %.0f decisions/s (%d answered in "
                          "%.1f s, %d fallback, p99 %.1f ms), %.0f us engine CPU per decision"
                          % (r + 1, args.http_rate, overall["answered"] / elapsed,
                             overall["answered"], elapsed, overall["fallback"],
                             overall["p99_us"] / 1000, cpu / args.n * 1e6), flush=True)
    finally:
        os.unlink(path)


if __name__ == "__main__":
    main()
