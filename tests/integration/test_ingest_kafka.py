"""Kafka ingestion through the real binary against librdkafka's mock cluster (docs/streams.md):
transactions produced to a topic are decided and their decisions published keyed by
transaction id; the engine is killed with SIGKILL mid-stream and restarted on the same data
directory, several times, and then every input transaction has exactly one decision message on
the output (not a second copy of it: a message read again publishes only what the output lacks),
none lost and none decided twice; a poison message lands in the dead-letter topic once, with its
error, and the consumer goes on."""
import json
import os
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from stream_services import (KafkaMock, check_one_message_per_transaction,  # noqa: E402
                             stream_transaction)
from verdict_process import VerdictProcess  # noqa: E402

from confluent_kafka import Consumer, Producer, TopicPartition  # noqa: E402

MESSAGES = 1500
POISON_AT = 700
# The engine is killed once this many transactions have decisions out, each time.
KILL_AFTER = (200, 600, 1000)
POISON = b'{"transaction_id": "poison", "amount": "ten dollars"'


def config(brokers):
    return """
[[ingest]]
kind = "kafka"
brokers = "%s"
topic = "payments"
decisions_topic = "decisions"
dead_letter = "payments-dlq"
tenant = "dev"
priority = "bulk"
max_in_flight = 16
session_timeout_ms = 6000
""" % brokers


class OutputReader:
    """Reads a whole topic from the beginning, without a group (nothing committed)."""

    def __init__(self, brokers, topic):
        self.consumer = Consumer({"bootstrap.servers": brokers, "group.id": "test-reader",
                                  "enable.auto.commit": False})
        self.consumer.assign([TopicPartition(topic, 0, -2)])  # OFFSET_BEGINNING
        self.messages = []

    def read(self, until_count, timeout_s):
        """Reads until `until_count` distinct keys have come, or for `timeout_s` at most."""
        deadline = time.monotonic() + timeout_s
        while (len({m.key() for m in self.messages}) < until_count
               and time.monotonic() < deadline):
            for m in self.consumer.consume(500, 0.2):
                if m.error() is None:
                    self.messages.append(m)
        return self.messages

    def close(self):
        self.consumer.close()


class KafkaIngestTest(unittest.TestCase):
    def test_kill_mid_stream_loses_nothing_and_publishes_nothing_twice(self):
        with KafkaMock({"payments": 3, "decisions": 1, "payments-dlq": 1}) as kafka:
            producer = Producer({"bootstrap.servers": kafka.brokers, "linger.ms": 5})
            ids = []

            def produce():
                # Produced while the engine runs, so that it is killed mid-stream.
                for i in range(MESSAGES):
                    if i == POISON_AT:
                        producer.produce("payments", key=b"poison", value=POISON)
                    txn = stream_transaction(i)
                    ids.append(txn["transaction_id"])
                    headers = {"content-type": "application/json"} if i % 2 else None
                    producer.produce("payments", key=txn["transaction_id"].encode(),
                                     value=json.dumps(txn).encode(), headers=headers)
                    if i % 100 == 99:
                        producer.flush(10)
                        time.sleep(0.05)
                producer.flush(10)

            decisions = OutputReader(kafka.brokers, "decisions")
            dead = OutputReader(kafka.brokers, "payments-dlq")
            producing = threading.Thread(target=produce)
            data = os.path.join(kafka.tmp, "var")
            producing.start()
            for kill_after in KILL_AFTER:
                server = VerdictProcess(config=config(kafka.brokers), data_dir=data)
                try:
                    # Some decisions are out, then the engine dies without a word.
                    # A restart waits for the killed engine's session in the group to lapse.
                    decisions.read(kill_after, 90)
                    self.assertGreaterEqual(len(decisions.messages), kill_after,
                                            server.read_log()[-3000:])
                    server.proc.kill()
                    server.proc.wait()
                    killed_at = len({m.key() for m in decisions.messages})
                finally:
                    server.stop()
                self.assertLess(killed_at, MESSAGES, "the engine finished before it was killed")
            producing.join(60)

            with VerdictProcess(config=config(kafka.brokers), data_dir=data) as server:
                decisions.read(MESSAGES, 60)
                dead.read(1, 20)
                # Late copies, if any, have time to arrive.
                time.sleep(1)
                decisions.read(MESSAGES + 1, 1)
                dead.read(2, 1)
                by_id = check_one_message_per_transaction(
                    self, ids, [(m.key().decode(), m.value()) for m in decisions.messages])
                # The decisions published are the journal's.
                for tx_id in ("stream-00000", ids[killed_at // 2], ids[-1]):
                    status, stored = server.json("GET", "/v1/transactions/%s/decision" % tx_id)
                    self.assertEqual(status, 200, stored)
                    self.assertEqual(stored["decision_id"], by_id[tx_id])
                # The poison message, as produced, with its error; the stream went on past it.
                self.assertEqual(len(dead.messages), 1)
                for m in dead.messages:
                    self.assertEqual(m.value(), POISON)
                    headers = dict(m.headers())
                    error = json.loads(headers["verdict-error"])
                    self.assertEqual(error["errors"][0]["item"], -1)
                    self.assertEqual(error["errors"][0]["error"]["code"], "invalid_argument")
                    self.assertIn(b"payments/", headers["verdict-source"])
                status, _, body = server.request("GET", "/metrics")
                self.assertEqual(status, 200)
                text = body.decode()
                self.assertIn('verdict_ingest_messages_total{stream="kafka:payments"', text)
                self.assertIn("verdict_ingest_lag_messages", text)
            decisions.close()
            dead.close()

    def test_engines_in_one_group_share_the_partitions(self):
        """Two engines in one consumer group each take some of the input's partitions; one stops
        mid-stream and the other takes its partitions over from their commits, without loss
        and without publishing anything twice."""
        count = 900
        with KafkaMock({"payments": 4, "decisions": 1, "payments-dlq": 1}) as kafka:
            producer = Producer({"bootstrap.servers": kafka.brokers, "linger.ms": 5})
            ids = []

            def produce():
                for i in range(count):
                    txn = stream_transaction(i)
                    ids.append(txn["transaction_id"])
                    producer.produce("payments", key=txn["transaction_id"].encode(),
                                     value=json.dumps(txn).encode())
                    if i % 50 == 49:
                        producer.flush(10)
                        time.sleep(0.2)
                producer.flush(10)

            decisions = OutputReader(kafka.brokers, "decisions")
            first = VerdictProcess(config=config(kafka.brokers),
                                   data_dir=os.path.join(kafka.tmp, "a"))
            second = VerdictProcess(config=config(kafka.brokers),
                                    data_dir=os.path.join(kafka.tmp, "b"))
            producing = threading.Thread(target=produce)
            try:
                # Both have joined and the group has settled before the stream starts.
                deadline = time.monotonic() + 60
                while not all("partitions assigned" in server.read_log()
                              for server in (first, second)):
                    self.assertLess(time.monotonic(), deadline, second.read_log()[-3000:])
                    time.sleep(0.2)
                producing.start()
                decisions.read(300, 90)
                decided = {}
                for name, server in (("first", first), ("second", second)):
                    status, _, body = server.request("GET", "/metrics")
                    self.assertEqual(status, 200)
                    decided[name] = sum(
                        float(line.rsplit(" ", 1)[1]) for line in body.decode().splitlines()
                        if line.startswith("verdict_ingest_messages_total{")
                        and 'result="decided"' in line)
                self.assertGreater(decided["first"], 0, decided)
                self.assertGreater(decided["second"], 0, decided)
                # The first leaves mid-stream: its partitions move to the second.
                self.assertLess(len(decisions.messages), count)
                first.stop()
                producing.join(60)
                decisions.read(count, 90)
                time.sleep(1)
                decisions.read(count + 1, 1)
                check_one_message_per_transaction(
                    self, ids, [(m.key().decode(), m.value()) for m in decisions.messages])
            finally:
                first.stop()
                second.stop()
                decisions.close()

    def test_a_bad_stream_configuration_is_refused_at_start(self):
        bad = """
[[ingest]]
kind = "kafka"
brokers = "127.0.0.1:9"
decisions_topic = "decisions"
dead_letter = "payments-dlq"
"""
        with self.assertRaises(RuntimeError) as refused:
            VerdictProcess(config=bad)
        self.assertIn("ingest[0].topic is required", str(refused.exception))


if __name__ == "__main__":
    unittest.main()
