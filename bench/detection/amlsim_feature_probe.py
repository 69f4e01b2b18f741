#!/usr/bin/python3
"""Probe candidate graph/behavioural features on AMLSim before building them (issue 43).

Computes candidate features in one streaming pass (point in time: each transaction sees only
the ones before it, as verdict's feature code does), appends them to the features-2 matrix that
`verdict features` wrote, trains XGBoost with `verdict train`'s defaults as the cross-typology
script runs it (first 80 % by time, 200 rounds, depth 6, eta 0.1, hist, one thread, seed 42,
positives weighted negatives/positives) and prints the account-level average precision on the
other sample for each variant. With no candidate the figures equal bench/detection/amlsim_cross.sh
(the same split and parameters through the XGBoost Python package).

Usage: bench/detection/amlsim_feature_probe.py DIR VARIANT...
  DIR holds 20K_fanin200/ and 20K_cycle200/ (unpacked) and feat2_fanin200.csv,
  feat2_cycle200.csv (`verdict features --input DIR/20K_x --out DIR/feat2_x.csv`).
  VARIANT: base, all, or comma-separated candidate names (CANDIDATES below).
  XGB_PARAMS='{"max_depth": 3}' overrides XGBoost parameters; MARK_RULE=burst|small picks what
  counts as an unusual transfer; HALF_LIFE_DAYS=D lets marks fade (default: never).
"""
import collections
import csv
import json
import os
import sys

import numpy as np
import xgboost as xgb

CANDIDATES = [
    'pair_count_24h',        # earlier transfers sender -> receiver within a day (burst)
    'pair_same_amount_24h',  # ... of the same amount (within 1 %)
    'sender_in_match_60d',   # |amount / closest of the sender's last 8 inflows (60 d) - 1|
    'receiver_out_match_60d',  # the same against the receiver's last 8 outflows
    'sender_marks', 'receiver_marks',  # transfers of the account that were "unusual" (below)
    'sender_peer_marks', 'receiver_peer_marks',  # most marks of any counterparty (2 hops)
    'sender_transfers', 'receiver_transfers',  # lifetime transfers either way (degree)
]


def load(folder, name):
    fraud_step = {}
    with open('%s/20K_%s/nodes.csv' % (folder, name)) as f:
        for r in csv.DictReader(f):
            fraud_step[r['nodeid']] = max(int(r['fraudStep']), 0) if r['isFraud'] == '1' else -1
    with open('%s/20K_%s/transactions.csv' % (folder, name)) as f:
        tx = [(r['sourceNodeId'], r['targetNodeId'], float(r['value']), int(r['time']))
              for r in csv.DictReader(f)]
    with open('%s/feat2_%s.csv' % (folder, name)) as f:
        rows = csv.reader(f)
        names = next(rows)[6:]
        body = list(rows)
    x = np.array([[float(v) for v in r[6:]] for r in body], dtype=np.float32)
    y = np.array([int(r[3]) for r in body])
    return fraud_step, tx, x, y, names


def candidates(tx, x, names, mark_rule):
    ratio = x[:, names.index('sender_amount_ratio_mean_30d')]
    zscore = x[:, names.index('sender_amount_log_zscore')]
    half_life = float(os.environ.get('HALF_LIFE_DAYS', '0'))  # 0: no decay

    def decay(entry, step):  # marks fade with a half-life, as of the account's last update
        if half_life > 0:
            f = 0.5 ** ((step - entry['t']) / half_life)
            entry['marks'] *= f
            entry['peer'] *= f
        entry['t'] = step
    acc = collections.defaultdict(lambda: {'marks': 0.0, 'peer': 0.0, 'n': 0, 't': 0,
                                           'ins': collections.deque(maxlen=8),
                                           'outs': collections.deque(maxlen=8)})
    pair = collections.defaultdict(lambda: collections.deque(maxlen=8))
    out = []
    for k, (s, r, amount, step) in enumerate(tx):
        a, b = acc[s], acc[r]
        decay(a, step)
        decay(b, step)
        day = [v for (t, v) in pair[(s, r)] if t > step - 1]
        same = sum(1 for v in day if abs(v - amount) <= 0.01 * amount)
        s_in = min([abs(v / amount - 1) for (t, v) in a['ins'] if t > step - 60] or [1.0])
        r_out = min([abs(v / amount - 1) for (t, v) in b['outs'] if t > step - 60] or [1.0])
        out.append([len(day), same, s_in, r_out, a['marks'], b['marks'], a['peer'], b['peer'],
                    a['n'], b['n']])
        if mark_rule == 'small':
            mark = 0 < ratio[k] < 0.1
        else:  # 'burst': a repeated transfer or an amount far from the sender's usual
            mark = len(day) >= 1 or abs(zscore[k]) > 3
        pair[(s, r)].append((step, amount))
        a['outs'].append((step, amount))
        b['ins'].append((step, amount))
        a['marks'] += mark
        b['marks'] += mark
        a['n'] += 1
        b['n'] += 1
        a['peer'] = max(a['peer'], b['marks'])
        b['peer'] = max(b['peer'], a['marks'])
    return np.array(out, dtype=np.float32)


def account_average_precision(fraud_step, tx, scores):
    best = {n: -1.0 for n in fraud_step}
    best_after = {n: -1.0 for n in fraud_step}
    for (s, r, _, step), v in zip(tx, scores):
        for n in {s, r}:
            best[n] = max(best[n], v)
            if fraud_step[n] >= 0 and step >= fraud_step[n]:
                best_after[n] = max(best_after[n], v)
    scored = sorted(((best_after[n] if f >= 0 else best[n], f >= 0)
                     for n, f in fraud_step.items()), key=lambda p: -p[0])
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


def main(folder, variants):
    mark_rule = os.environ.get('MARK_RULE', 'burst')
    data = {}
    for name in ('fanin200', 'cycle200'):
        fraud_step, tx, x, y, names = load(folder, name)
        data[name] = (fraud_step, tx, x, candidates(tx, x, names, mark_rule), y)
    params = dict(objective='binary:logistic', max_depth=6, eta=0.1, nthread=1, seed=42,
                  tree_method='hist')
    params.update(json.loads(os.environ.get('XGB_PARAMS', '{}')))
    for train, test in (('fanin200', 'cycle200'), ('cycle200', 'fanin200')):
        figures = []
        for variant in variants:
            keep = [] if variant == 'base' else [
                i for i, n in enumerate(CANDIDATES) if variant == 'all' or n in variant.split(',')]

            def matrix(name):
                _, _, x, extra, _ = data[name]
                return np.hstack([x, extra[:, keep]])
            _, tx, _, _, y = data[train]
            steps = np.array([t[3] for t in tx])
            early = steps < steps[int(0.8 * len(y))]
            p = dict(params, scale_pos_weight=(early.sum() - y[early].sum()) / y[early].sum())
            booster = xgb.train(p, xgb.DMatrix(matrix(train)[early], y[early]), 200)
            fraud_step, tx_test, _, _, _ = data[test]
            scores = booster.predict(xgb.DMatrix(matrix(test)))
            figures.append('%s %.4f' % (variant, account_average_precision(fraud_step, tx_test,
                                                                            scores)))
        print('%s -> %s: %s' % (train, test, '; '.join(figures)), flush=True)


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2:] or ['base', 'all'])
