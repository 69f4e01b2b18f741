"""A trace context carried by a stream message joins the decision to the caller's trace, as the
HTTP traceparent header does (docs/streams.md, docs/tracing.md): a Kafka message with
`traceparent`/`tracestate` headers and an AMQP message with them in its headers table are
decided with the caller's trace id in the published decision, and the engine's decision span,
exported over OTLP/HTTP to a receiver in this test, has the message's span as its parent."""
import json
import os
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from stream_services import KafkaMock, RabbitMQ, stream_transaction  # noqa: E402
from test_tracing import OtlpReceiver  # noqa: E402
from verdict_process import VerdictProcess  # noqa: E402

from confluent_kafka import Consumer, Producer, TopicPartition  # noqa: E402

KAFKA_TRACE = "5af92f3577b34da6a3ce929d0e0e4736"
AMQP_TRACE = "6bf92f3577b34da6a3ce929d0e0e4736"
MESSAGE_SPAN = "01f067aa0ba902b7"
TRACESTATE = "congo=t61rcWkgMzE"


def tracing(endpoint):
    return '\n[tracing]\notlp_endpoint = "%s"\nsample_ratio = 0\n' % endpoint


class IngestTracingTest(unittest.TestCase):
    def setUp(self):
        self.receiver = OtlpReceiver()

    def tearDown(self):
        self.receiver.close()

    def check_spans(self, trace_id, transaction_id, decision):
        self.assertEqual(decision["transaction_id"], transaction_id)
        self.assertEqual(decision["trace_id"], trace_id)
        spans = self.receiver.trace(trace_id, 6)
        roots = [s for s in spans if s["name"] == "decision"]
        self.assertEqual(len(roots), 1, spans)
        root = roots[0]
        self.assertEqual(root["parentSpanId"], MESSAGE_SPAN)
        self.assertEqual(root["traceState"], TRACESTATE)
        attributes = {a["key"]: a["value"]["stringValue"] for a in root["attributes"]}
        self.assertEqual(attributes["verdict.transaction_id"], transaction_id)
        self.assertEqual(attributes["verdict.decision_id"], decision["decision_id"])
        for span in spans:
            if span is not root:
                self.assertEqual(span["parentSpanId"], root["spanId"], span)

    def test_a_kafka_messages_trace_context_is_the_decisions_parent(self):
        with KafkaMock({"payments": 1, "decisions": 1, "payments-dlq": 1}) as kafka:
            config = """
[[ingest]]
kind = "kafka"
brokers = "%s"
topic = "payments"
decisions_topic = "decisions"
dead_letter = "payments-dlq"
tenant = "dev"
""" % kafka.brokers + tracing(self.receiver.endpoint())
            with VerdictProcess(config=config, data_dir=os.path.join(kafka.tmp, "var")):
                producer = Producer({"bootstrap.servers": kafka.brokers})
                traced, untraced = stream_transaction(1), stream_transaction(2)
                producer.produce("payments", key=b"1", value=json.dumps(traced).encode(),
                                 headers={"traceparent": "00-%s-%s-01" % (KAFKA_TRACE,
                                                                          MESSAGE_SPAN),
                                          "tracestate": TRACESTATE})
                producer.produce("payments", key=b"2", value=json.dumps(untraced).encode())
                producer.flush(10)
                consumer = Consumer({"bootstrap.servers": kafka.brokers, "group.id": "reader",
                                     "enable.auto.commit": False})
                consumer.assign([TopicPartition("decisions", 0, -2)])
                decisions = {}
                deadline = time.monotonic() + 30
                while len(decisions) < 2 and time.monotonic() < deadline:
                    for m in consumer.consume(10, 0.2):
                        if m.error() is None:
                            d = json.loads(m.value())
                            decisions[d["transaction_id"]] = d
                consumer.close()
                self.check_spans(KAFKA_TRACE, traced["transaction_id"],
                                 decisions[traced["transaction_id"]])
                # No context, no trace (sample_ratio 0).
                self.assertNotIn("trace_id", decisions[untraced["transaction_id"]])

    def test_an_amqp_messages_trace_context_is_the_decisions_parent(self):
        import pika
        with RabbitMQ() as rabbit:
            setup = pika.BlockingConnection(rabbit.parameters())
            channel = setup.channel()
            channel.queue_declare("payments", durable=True)
            channel.exchange_declare("decisions", exchange_type="topic", durable=True)
            channel.queue_declare("decisions-out", durable=True)
            channel.queue_bind("decisions-out", "decisions", routing_key="#")
            config = """
[[ingest]]
kind = "amqp"
url = "%s"
queue = "payments"
decisions_exchange = "decisions"
dead_letter = "payments-dlq"
tenant = "dev"
""" % rabbit.url + tracing(self.receiver.endpoint())
            with VerdictProcess(config=config, data_dir=os.path.join(rabbit.tmp, "var")):
                traced = stream_transaction(3)
                channel.basic_publish("", "payments", json.dumps(traced).encode(),
                                      pika.BasicProperties(delivery_mode=2, headers={
                                          "traceparent": "00-%s-%s-01" % (AMQP_TRACE,
                                                                          MESSAGE_SPAN),
                                          "tracestate": TRACESTATE}))
                body = None
                deadline = time.monotonic() + 30
                while body is None and time.monotonic() < deadline:
                    method, _, body = channel.basic_get("decisions-out", auto_ack=True)
                    if method is None:
                        time.sleep(0.05)
                self.assertIsNotNone(body)
                self.check_spans(AMQP_TRACE, traced["transaction_id"], json.loads(body))
            setup.close()


if __name__ == "__main__":
    unittest.main()
