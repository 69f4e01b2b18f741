#!/usr/bin/env python3
"""Turns `verdict sim` CSV into verdict-load --input lines: one transaction JSON object per line,
in the simulator's time order, so load runs see the traffic the demo model was trained on (and
its drift reference describes) rather than generated payments.

Usage: bench/load/sim_to_requests.py SIM.csv OUT.jsonl
"""
import csv
import json
import sys


def as_request(row):
    """One simulator CSV row (a dict by column name) as the API's transaction object."""
    return {
        "transaction_id": row["transaction_id"],
        "timestamp": row["timestamp"],
        "amount": row["amount"],
        "currency": row["currency"],
        "sender": {"account": row["sender_account"], "bank": row["sender_bank"],
                   "country": row["sender_country"]},
        "receiver": {"account": row["receiver_account"], "bank": row["receiver_bank"],
                     "country": row["receiver_country"]},
        "channel": row["channel"],
        "type": row["type"],
    }


def main() -> None:
    src, dst = sys.argv[1], sys.argv[2]
    with open(src, newline="") as f, open(dst, "w") as out:
        for row in csv.DictReader(f):
            out.write(json.dumps(as_request(row), separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
