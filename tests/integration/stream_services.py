"""Brokers for the stream ingestion tests (docs/streams.md), each started by the test in a temp
dir on loopback ports and stopped by it:

- KafkaMock: librdkafka's mock cluster (the Kafka wire protocol in memory) in a process of its
  own, tools/kafka_mock, so that it outlives an engine killed with SIGKILL.
- RabbitMQ: Debian's rabbitmq-server with its own node name, ports (AMQP, distribution, epmd),
  mnesia and log dirs, and Erlang cookie.

Also the check both tests make after a crash: every input transaction has exactly one decision.
"""
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time

from verdict_process import BINARY, free_port

KAFKA_MOCK = os.path.join(os.path.dirname(BINARY), "verdict-kafka-mock")
RABBITMQ_SERVER = "/usr/lib/rabbitmq/bin/rabbitmq-server"


class KafkaMock:
    """A mock Kafka cluster with the given topics ({name: partitions}); a context manager."""

    def __init__(self, topics, timeout_s=20):
        self.tmp = tempfile.mkdtemp(prefix="verdict-kafka-")
        brokers_file = os.path.join(self.tmp, "brokers")
        args = [KAFKA_MOCK, "--brokers-file", brokers_file]
        for name, partitions in topics.items():
            args += ["--topic", "%s:%d" % (name, partitions)]
        self.log = open(os.path.join(self.tmp, "mock.log"), "w")
        self.proc = subprocess.Popen(args, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout_s
        while not os.path.exists(brokers_file):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("verdict-kafka-mock did not start")
            time.sleep(0.02)
        with open(brokers_file) as f:
            self.brokers = f.read().strip()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


class RabbitMQ:
    """A RabbitMQ node of the test's own; a context manager. `port` is its AMQP port."""

    def __init__(self, timeout_s=60):
        import pika  # Debian's python3-pika
        self.tmp = tempfile.mkdtemp(prefix="verdict-rabbitmq-")
        self.port = free_port()
        self.epmd_port = free_port()
        dist_port = free_port()
        with open(os.path.join(self.tmp, "enabled_plugins"), "w") as f:
            f.write("[].\n")
        env = dict(os.environ)
        env.update({
            "HOME": self.tmp,  # the Erlang cookie is made here
            "RABBITMQ_NODENAME": "verdict-test-%d@localhost" % os.getpid(),
            "RABBITMQ_NODE_IP_ADDRESS": "127.0.0.1",
            "RABBITMQ_NODE_PORT": str(self.port),
            "RABBITMQ_DIST_PORT": str(dist_port),
            "ERL_EPMD_PORT": str(self.epmd_port),
            "ERL_EPMD_ADDRESS": "127.0.0.1",
            "RABBITMQ_MNESIA_BASE": os.path.join(self.tmp, "mnesia"),
            "RABBITMQ_LOG_BASE": os.path.join(self.tmp, "log"),
            "RABBITMQ_ENABLED_PLUGINS_FILE": os.path.join(self.tmp, "enabled_plugins"),
            "RABBITMQ_PLUGINS_EXPAND_DIR": os.path.join(self.tmp, "plugins"),
            "RABBITMQ_CONFIG_FILE": os.path.join(self.tmp, "rabbitmq"),
            "RABBITMQ_ADVANCED_CONFIG_FILE": os.path.join(self.tmp, "advanced.config"),
            "RABBITMQ_CONF_ENV_FILE": os.path.join(self.tmp, "rabbitmq-env.conf"),
            "RABBITMQ_PID_FILE": os.path.join(self.tmp, "pid"),
        })
        self.env = env
        self.log = open(os.path.join(self.tmp, "server.log"), "w")
        self.proc = subprocess.Popen([RABBITMQ_SERVER], stdout=self.log, stderr=subprocess.STDOUT,
                                     env=env, start_new_session=True)
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                pika.BlockingConnection(self.parameters(connection_attempts=1)).close()
                break
            except Exception:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    with open(os.path.join(self.tmp, "server.log")) as f:
                        log = f.read()[-3000:]
                    self.stop()
                    raise RuntimeError("rabbitmq-server did not start:\n" + log)
                time.sleep(0.5)

    def parameters(self, **kwargs):
        import pika
        return pika.ConnectionParameters("127.0.0.1", self.port, socket_timeout=5, **kwargs)

    @property
    def url(self):
        return "amqp://guest:guest@127.0.0.1:%d" % self.port

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        # The node's own epmd (on its own port) outlives it.
        subprocess.run(["epmd", "-port", str(self.epmd_port), "-kill"],
                       env=self.env, capture_output=True, timeout=10)
        self.log.close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def stream_transaction(i):
    """The i-th input transaction: its own id, one of 50 senders."""
    return {
        "transaction_id": "stream-%05d" % i,
        "timestamp": "2026-12-02T10:%02d:%02d.000Z" % ((i // 60) % 60, i % 60),
        "amount": "%d.00" % (100 + (i * 37) % 9000),
        "currency": "USD",
        "sender": {"account": "S-%02d" % (i % 50), "country": "US"},
        "receiver": {"account": "R-%02d" % (i % 17), "country": "GB"},
        "channel": "wire",
        "type": "transfer",
    }


def check_exactly_one_decision(test, expected_ids, decisions):
    """`decisions`: (key, body bytes) as published. Each expected transaction id has decisions,
    all of them one decision (a message read again after a crash may publish the journaled
    decision once more; it is the same decision), and nothing else was decided."""
    by_id = {}
    for key, body in decisions:
        decision = json.loads(body)
        test.assertEqual(key, decision["transaction_id"])
        by_id.setdefault(decision["transaction_id"], set()).add(decision["decision_id"])
    missing = sorted(set(expected_ids) - set(by_id))
    test.assertEqual(missing, [], "%d transactions without a decision" % len(missing))
    test.assertEqual(sorted(set(by_id) - set(expected_ids)), [])
    twice = {t: ids for t, ids in by_id.items() if len(ids) != 1}
    test.assertEqual(twice, {}, "transactions decided more than once")
    return by_id


def check_one_message_per_transaction(test, expected_ids, decisions):
    """`decisions`: (key, body bytes) as published. Each expected transaction id has exactly one
    published decision message (not a second copy of the same decision), and nothing else was
    published. Returns {transaction id: decision id}."""
    by_id = {}
    for key, body in decisions:
        decision = json.loads(body)
        test.assertEqual(key, decision["transaction_id"])
        by_id.setdefault(decision["transaction_id"], []).append(decision["decision_id"])
    missing = sorted(set(expected_ids) - set(by_id))
    test.assertEqual(missing, [], "%d transactions without a decision" % len(missing))
    test.assertEqual(sorted(set(by_id) - set(expected_ids)), [])
    repeated = {t: ids for t, ids in by_id.items() if len(ids) != 1}
    test.assertEqual(len(repeated), 0, "%d transactions published more than once, e.g. %s"
                     % (len(repeated), sorted(repeated.items())[:3]))
    return {t: ids[0] for t, ids in by_id.items()}
