#!/usr/bin/env bash
# AMLSim cross-typology detection (issue 43): train on one 20K sample, replay the other through
# the whole pipeline with that model, both ways; prints the account-level average precision
# (an account's risk is the highest score of its transactions, a fraud account's counted from
# its fraudStep) and the account recall at 1 % flagged. The samples are unpacked into a
# temporary folder, never into the repository. Deterministic: one thread, seed 42.
# Usage: bench/detection/amlsim_cross.sh [VERDICT=build/release/bin/verdict] [DATA=../shared/data/amlsim]
#   Extra `verdict train` flags go in TRAIN_FLAGS (e.g. TRAIN_FLAGS='--rounds 300').
set -euo pipefail
verdict=$(realpath "${1:-build/release/bin/verdict}")
data=$(realpath "${2:-../shared/data/amlsim}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for sample in 20K_fanin200 20K_cycle200; do tar -xzf "$data/$sample.tgz" -C "$work"; done
mkdir -p "$work/engine"
summary() {
  /usr/bin/python3 -c '
import json, sys
r = json.load(sys.stdin)
a, d = r["score_accounts"], r["score_detection"]
print("%s -> %s: account average precision %.4f, account recall at 1%% flagged %.4f (%d of %d, precision %.4f), transaction PR-AUC %.4f" % (
    sys.argv[1], sys.argv[2], a["average_precision"], a["recall"], a["detected"], a["fraud_accounts"],
    a["precision"], d["pr_auc"]))' "$1" "$2"
}
for pair in "20K_fanin200 20K_cycle200" "20K_cycle200 20K_fanin200"; do
  set -- $pair
  # shellcheck disable=SC2086  # TRAIN_FLAGS is a list of flags
  "$verdict" train --input "$work/$1" --out "$work/model_$1" --threads 1 --rounds 200 \
    ${TRAIN_FLAGS:-} --json > "$work/train_$1.json" 2> "$work/train_$1.log" ||
    { cat "$work/train_$1.log" >&2; exit 1; }
  "$verdict" replay --input "$work/$2" --model "$work/model_$1" --json --quiet \
    --work-dir "$work/engine" | summary "$1" "$2"
done
