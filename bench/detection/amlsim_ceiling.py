#!/usr/bin/python3
"""What account-level average precision AMLSim's 20K samples allow (issue 43).

AMLSim marks whole accounts as fraud; about a third of them (every one with fraudStep -1 and no
laundering transfer) never take part in a laundering transfer in the data. Their transactions
with other fraud accounts are labelled laundering, yet look like any other. This script ranks
accounts with hindsight that no model has, and prints the average precision of each ranking:

  touched   accounts that sent or received a laundering transfer (a transaction both of whose
            ends are fraud accounts with an amount below every ordinary transfer: < 60 in these
            samples; checked below) first, the rest tied;
  + degree  then by their number of transactions;
  + laundering neighbours  then by how many of their counterparties sent or received a
            laundering transfer (at any time), then by their number of transactions;
  + fraud neighbours (hindsight labels) then by how many of their counterparties are fraud
            accounts (the labels themselves), then by their number of transactions.

The third uses only behaviour (with hindsight in time); the last uses the labels of the
counterparties themselves, which no behaviour shows.
Usage: bench/detection/amlsim_ceiling.py FOLDER...   (unpacked 20K_* samples)
"""
import collections
import csv
import sys


def average_precision(scored):
    """Sum over score levels (descending) of precision x recall gained; ties enter together."""
    scored = sorted(scored, key=lambda x: -x[0])
    positives = sum(label for _, label in scored)
    ap, seen, hits, i = 0.0, 0, 0, 0
    while i < len(scored):
        j, level_hits = i, 0
        while j < len(scored) and scored[j][0] == scored[i][0]:
            level_hits += scored[j][1]
            j += 1
        seen += j - i
        hits += level_hits
        ap += hits / seen * level_hits / positives
        i = j
    return ap


def main(folder):
    fraud = {}
    with open(folder + '/nodes.csv') as f:
        for row in csv.DictReader(f):
            fraud[row['nodeid']] = row['isFraud'] == '1'
    count = collections.Counter()
    neighbours = collections.defaultdict(set)
    touched = set()
    smallest_ordinary = float('inf')
    with open(folder + '/transactions.csv') as f:
        for row in csv.DictReader(f):
            s, r, value = row['sourceNodeId'], row['targetNodeId'], float(row['value'])
            count[s] += 1
            count[r] += 1
            neighbours[s].add(r)
            neighbours[r].add(s)
            if fraud[s] and fraud[r] and value < 60:
                touched |= {s, r}
            elif value < smallest_ordinary:
                smallest_ordinary = value
    fraud_ids = {n for n, f in fraud.items() if f}
    inert = fraud_ids - touched
    print('%s: %d accounts, %d fraud: %d with a laundering transfer, %d without; '
          'smallest other transfer %.2f' % (folder, len(fraud), len(fraud_ids), len(touched),
                                            len(inert), smallest_ordinary))
    rankings = {
        'touched': lambda n: n in touched,
        'touched + degree': lambda n: (n in touched) * 1e9 + count[n],
        'touched + laundering neighbours + degree':
            lambda n: (n in touched) * 1e9 + len(neighbours[n] & touched) * 1e4 + count[n],
        'touched + fraud neighbours (hindsight labels) + degree':
            lambda n: (n in touched) * 1e9 + len(neighbours[n] & fraud_ids) * 1e4 + count[n],
    }
    for name, key in rankings.items():
        print('  %-56s average precision %.4f' %
              (name, average_precision([(key(n), fraud[n]) for n in fraud])))


if __name__ == '__main__':
    for folder in sys.argv[1:]:
        main(folder)
