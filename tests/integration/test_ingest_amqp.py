"""AMQP 0-9-1 ingestion through the real binary against a RabbitMQ node the test starts
(docs/streams.md): transactions published to a queue are decided and their decisions published
to a topic exchange with the transaction id as routing key and message id; the engine is killed
with SIGKILL mid-stream and restarted on the same data directory, three times, and then every
input transaction has a decision on the output, none lost and none decided twice, and a decision
published twice only within the stated window (docs/streams.md: at most max_in_flight messages
per crash, those published and not yet recorded as confirmed); a poison message lands in the
dead-letter queue with its error, and the consumer goes on."""
import json
import os
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from stream_services import RabbitMQ, check_exactly_one_decision, stream_transaction  # noqa: E402
from verdict_process import VerdictProcess  # noqa: E402

import pika  # noqa: E402

MESSAGES = 1500
POISON_AT = 700
POISON = b"{\"transaction_id\": 42}"
MAX_IN_FLIGHT = 16
KILL_AFTER = (200, 600, 1000)


def config(url):
    return """
[[ingest]]
kind = "amqp"
url = "%s"
queue = "payments"
decisions_exchange = "decisions"
dead_letter = "payments-dlq"
tenant = "dev"
priority = "bulk"
max_in_flight = %d
""" % (url, MAX_IN_FLIGHT)


class QueueReader:
    """Takes every message of a queue as it comes (basic.get, acknowledged at once)."""

    def __init__(self, rabbit, queue):
        self.connection = pika.BlockingConnection(rabbit.parameters())
        self.channel = self.connection.channel()
        self.queue = queue
        self.messages = []  # (routing key, properties, body)

    def read(self, until_keys, timeout_s):
        """Reads until `until_keys` distinct routing keys have come, or `timeout_s` at most."""
        deadline = time.monotonic() + timeout_s
        while (len({m[0] for m in self.messages}) < until_keys
               and time.monotonic() < deadline):
            method, properties, body = self.channel.basic_get(self.queue, auto_ack=True)
            if method is None:
                time.sleep(0.05)
                continue
            self.messages.append((method.routing_key, properties, body))
        return self.messages

    def close(self):
        self.connection.close()


class AmqpIngestTest(unittest.TestCase):
    def test_kill_mid_stream_loses_nothing_and_decides_nothing_twice(self):
        with RabbitMQ() as rabbit:
            setup = pika.BlockingConnection(rabbit.parameters())
            channel = setup.channel()
            channel.queue_declare("payments", durable=True)
            channel.queue_declare("payments-dlq", durable=True)
            channel.exchange_declare("decisions", exchange_type="topic", durable=True)
            channel.queue_declare("decisions-out", durable=True)
            channel.queue_bind("decisions-out", "decisions", routing_key="#")
            setup.close()
            ids = []

            def publish():
                # Published while the engine runs, so that it is killed mid-stream.
                connection = pika.BlockingConnection(rabbit.parameters())
                out = connection.channel()
                persistent = pika.BasicProperties(delivery_mode=2)
                as_json = pika.BasicProperties(delivery_mode=2, content_type="application/json")
                for i in range(MESSAGES):
                    if i == POISON_AT:
                        out.basic_publish("", "payments", POISON, persistent)
                    txn = stream_transaction(i)
                    ids.append(txn["transaction_id"])
                    out.basic_publish("", "payments", json.dumps(txn).encode(),
                                      as_json if i % 2 else persistent)
                    if i % 100 == 99:
                        time.sleep(0.05)
                connection.close()

            decisions = QueueReader(rabbit, "decisions-out")
            dead = QueueReader(rabbit, "payments-dlq")
            publishing = threading.Thread(target=publish)
            data = os.path.join(rabbit.tmp, "var")
            publishing.start()
            for kill_after in KILL_AFTER:
                server = VerdictProcess(config=config(rabbit.url), data_dir=data)
                try:
                    decisions.read(kill_after, 60)
                    self.assertGreaterEqual(len(decisions.messages), kill_after,
                                            server.read_log()[-3000:])
                    server.proc.kill()
                    server.proc.wait()
                    killed_at = len({m[0] for m in decisions.messages})
                finally:
                    server.stop()
                self.assertLess(killed_at, MESSAGES, "the engine finished before it was killed")
            publishing.join(60)

            with VerdictProcess(config=config(rabbit.url), data_dir=data) as server:
                decisions.read(MESSAGES, 60)
                dead.read(1, 20)
                time.sleep(1)  # late copies, if any, arrive
                decisions.read(MESSAGES + 1, 1)
                by_id = check_exactly_one_decision(
                    self, ids, [(key, body) for key, _, body in decisions.messages])
                for key, properties, _ in decisions.messages:
                    self.assertEqual(properties.message_id, key)
                # Copies beyond the first: only messages published and not yet recorded as
                # confirmed when the engine died, at most max_in_flight per crash.
                self.assertGreaterEqual(len(dead.messages), 1)
                copies = len(decisions.messages) - len(by_id) + len(dead.messages) - 1
                print("amqp: %d decisions and %d dead letters published, %d of them second copies"
                      % (len(decisions.messages), len(dead.messages), copies), file=sys.stderr)
                self.assertLessEqual(copies, MAX_IN_FLIGHT * len(KILL_AFTER))
                for tx_id in ("stream-00000", ids[killed_at // 2], ids[-1]):
                    status, stored = server.json("GET", "/v1/transactions/%s/decision" % tx_id)
                    self.assertEqual(status, 200, stored)
                    self.assertEqual({stored["decision_id"]}, by_id[tx_id])
                for _, properties, body in dead.messages:
                    self.assertEqual(body, POISON)
                    error = json.loads(properties.headers["x-verdict-error"])
                    self.assertEqual(error["errors"][0]["item"], -1)
                    self.assertEqual(error["errors"][0]["error"]["code"], "invalid_argument")
                status, _, body = server.request("GET", "/metrics")
                self.assertEqual(status, 200)
                self.assertIn('verdict_ingest_messages_total{stream="amqp:payments"', body.decode())
            decisions.close()
            dead.close()


if __name__ == "__main__":
    unittest.main()
