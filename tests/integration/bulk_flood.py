"""Drives an engine with one worker and room for one waiting bulk request into refusing bulk
(issue 7's admission): a batch request keeps the worker busy while waves of bulk requests
arrive, each sender on its own kept-alive connection, until one is answered 429. The round is
repeated, a bounded number of times, if the batch ended before any bulk request found the queue
full. Shared by test_bulk_refusal.py and test_bulk_refusal_pause.py."""
import threading
from dataclasses import dataclass

import verdict_process as vp

# One worker and room for one waiting bulk request; no inline decisions, so every request waits
# for the worker. Asynchronous journal: this is about admission, not durability. The tests
# prepend their own [server] section.
ENGINE_CONFIG = """
[engine]
workers = 1
[sched]
bulk_queue_capacity = 1
inline_when_idle = false
[journal]
durability = "async"
"""

BATCH = 1000  # the most a batch request may hold: it keeps the worker busy the longest
ROUNDS = 20
SENDERS = 4


@dataclass
class BulkAnswer:
    tx_id: str
    txn: dict
    status: int
    headers: dict
    body: bytes
    conn: object  # the kept-alive connection it came on; open only for the first refused


def flood_until_refused(engine, test, wait_for_batch=True):
    """Returns (refused, answered, finish): the bulk answers of the round that had a 429
    (refused empty after ROUNDS without one), and a function that waits for the rest of that
    round (the batch request and the wave's senders still waiting for the worker) and checks
    their answers. With wait_for_batch (the default) it has been called already. False: it
    returns as soon as a bulk request is refused, for a test of what follows the refusal at
    once, which must call finish itself while the engine runs. Only the first refused answer's
    connection is left open. Fails `test` if a batch request or a bulk request gets anything but
    200 or 429."""
    refused, answered = [], []
    for round_ in range(ROUNDS):
        batch = {"transactions": [vp.transaction("batch-%d-%d" % (round_, i))
                                  for i in range(BATCH)]}
        batch_done = threading.Event()
        batch_result = []

        def run_batch():
            try:
                status, _, body = engine.request("POST", "/v1/decisions:batch", batch)
                batch_result.append((status, body[:300]))
            finally:
                batch_done.set()  # also when the request failed: the waves stop

        batch_thread = threading.Thread(target=run_batch)
        batch_thread.start()
        connections = [engine.connection() for _ in range(SENDERS)]
        wave = 0
        refusal = threading.Event()
        senders, results = [], []
        while not batch_done.is_set() and not refused:
            results = [None] * SENDERS

            def send(i, results=results, wave=wave):
                tx_id = "bulk-%d-%d-%d" % (round_, wave, i)
                txn = vp.transaction(tx_id, priority="bulk", deadline_ms=2000)
                status, headers, body = engine.request("POST", "/v1/decisions", txn, None,
                                                       connections[i])
                results[i] = BulkAnswer(tx_id, txn, status, headers, body, connections[i])
                if status == 429:
                    refusal.set()

            senders = [threading.Thread(target=send, args=(i,)) for i in range(SENDERS)]
            for t in senders:
                t.start()
            if wait_for_batch:
                for t in senders:
                    t.join()
            else:
                # The senders whose requests were admitted wait for the worker, after the batch.
                while not refusal.wait(0.01) and any(t.is_alive() for t in senders):
                    pass
            for answer in results:
                if answer is not None:
                    test.assertIn(answer.status, (200, 429), answer.body)
                    (refused if answer.status == 429 else answered).append(answer)
            wave += 1

        def finish(thread=batch_thread, result=batch_result, senders=senders, results=results,
                   connections=connections, kept=refused[0].conn if refused else None):
            for t in senders:
                t.join()
            for answer in results:
                test.assertIn(answer.status, (200, 429), answer.body)
            thread.join()
            test.assertEqual(len(result), 1, "the batch request raised")
            test.assertEqual(result[0][0], 200, result[0][1])
            for conn in connections:
                if conn is not kept:
                    conn.close()

        if wait_for_batch or not refused:
            finish()
        if refused:
            return refused, answered, finish
    return refused, answered, lambda: None
