#!/usr/bin/python3
"""Writes drift_golden.json: fixed samples and SciPy's statistics on them, which
drift_statistics_test.cc checks the C++ implementation against.

Run with Debian's interpreter (python3-scipy, python3-numpy):
  /usr/bin/python3 src/monitor/testdata/make_drift_golden.py > src/monitor/testdata/drift_golden.json
"""
import json
import sys

import numpy as np
from scipy import stats
from scipy.spatial import distance

EPSILON = 1e-4  # kDriftEpsilon


def counts_on(edges, values):
    # The reference's binning rule: bin i is [e_i, e_{i+1}), outer values in the outer bins.
    k = len(edges) - 1
    interior = np.asarray(edges[1:k])
    return np.searchsorted(interior, values, side="right").clip(0, k - 1)


def smoothed(counts):
    p = np.maximum(np.asarray(counts, float) / np.sum(counts), EPSILON)
    return p / p.sum()


def case(name, a, b, edges):
    a = np.sort(np.asarray(a, float))
    b = np.sort(np.asarray(b, float))
    ca = np.bincount(counts_on(edges, a), minlength=len(edges) - 1)
    cb = np.bincount(counts_on(edges, b), minlength=len(edges) - 1)
    ks = stats.ks_2samp(a, b, method="asymp")
    n, m = len(a), len(b)
    en = n * m / (n + m)
    corrected = (np.sqrt(en) + 0.12 + 0.11 / np.sqrt(en)) * ks.statistic
    ea, eb = smoothed(ca), smoothed(cb)
    return {
        "name": name,
        "a": a.tolist(),
        "b": b.tolist(),
        "edges": list(map(float, edges)),
        "counts_a": ca.tolist(),
        "counts_b": cb.tolist(),
        "ks_statistic": float(ks.statistic),
        "ks_p_value_scipy_asymp": float(ks.pvalue),
        "ks_p_value_kstwobign": float(stats.kstwobign.sf(corrected)),
        "wasserstein": float(stats.wasserstein_distance(a, b)),
        "js_base2": float(distance.jensenshannon(ca, cb, base=2)),
        "kl_b_a": float(stats.entropy(eb, ea)),
        "psi": float(np.sum((eb - ea) * np.log(eb / ea))),
        "iqr_a": float(np.percentile(a, 75) - np.percentile(a, 25)),
    }


def main():
    rng = np.random.RandomState(20261202)
    cases = []
    base = rng.normal(0, 1, 2000)
    quantiles = np.quantile(base, np.linspace(0, 1, 11))
    cases.append(case("normal_same", base, rng.normal(0, 1, 1500), quantiles))
    cases.append(case("normal_shift", base, rng.normal(0.3, 1, 800), quantiles))
    cases.append(case("normal_scale", base, rng.normal(0, 2, 300), quantiles))
    counts = rng.poisson(2, 1000)
    cases.append(case("poisson_ties", counts, rng.poisson(3, 700), [0, 0.5, 1.5, 2.5, 3.5, 6]))
    cases.append(case("small", rng.uniform(0, 1, 12), rng.uniform(0.2, 1.2, 15), [0, 0.25, 0.5, 1]))
    cases.append(case("empty_bins", rng.uniform(0, 1, 400), rng.uniform(0.6, 0.9, 300),
                      [0, 0.2, 0.4, 0.6, 0.8, 1]))
    cases.append(case("exponential", rng.exponential(1, 3000), rng.exponential(1.5, 3000),
                      np.quantile(rng.exponential(1, 3000), np.linspace(0, 1, 21))))
    json.dump({"generator": "make_drift_golden.py", "cases": cases}, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
