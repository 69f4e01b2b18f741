#!/usr/bin/env bash
# Held-out typologies on the simulator: one `verdict sim` history with every typology, trained
# once with all of them and then once with each typology held out of training in turn
# (`--hold-out-typology`); prints, per run, recall at the alert rate (default 1 %) on the
# hold-out for every typology by score, anomaly and risk, and for the held-out typology its
# recall over every one of its laundering rows (either part) at the hold-out thresholds.
# Deterministic: one thread, fixed seeds. Work files go to a temporary folder.
# Usage: bench/detection/sim_holdout.sh [VERDICT=build/release/bin/verdict]
#   SIM_FLAGS (default '--accounts 10000 --days 30 --seed 7 --patterns-per-typology 12'),
#   TRAIN_FLAGS (default '--rounds 200 --threads 1 --exclude-features channel_code,type_code').
set -euo pipefail
verdict=$(realpath "${1:-build/release/bin/verdict}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck disable=SC2086  # the flags are lists
"$verdict" sim ${SIM_FLAGS:---accounts 10000 --days 30 --seed 7 --patterns-per-typology 12} \
  --out "$work/sim.csv" > /dev/null
typologies="structuring fan_in fan_out cycle pass_through dormant_activation high_risk_corridor"
for held in none $typologies; do
  flags=()
  [ "$held" != none ] && flags=(--hold-out-typology "$held")
  # shellcheck disable=SC2086
  "$verdict" train --input "$work/sim.csv" --out "$work/model_$held" \
    ${TRAIN_FLAGS:---rounds 200 --threads 1 --exclude-features channel_code,type_code} \
    "${flags[@]}" --json > "$work/train_$held.json" 2> "$work/train_$held.log" ||
    { cat "$work/train_$held.log" >&2; exit 1; }
  /usr/bin/python3 - "$held" "$work/train_$held.json" <<'PY'
import json, sys
held, m = sys.argv[1], json.load(open(sys.argv[2]))["manifest"]
h, a, r = m["holdout"], m.get("holdout_anomaly"), m["holdout_risk"]
print(f"held out: {held}; hold-out {h['rows']} rows, {h['positives']} laundering; "
      f"PR-AUC score {h['pr_auc']:.4f}, anomaly {a['pr_auc'] if a else float('nan'):.4f}, "
      f"risk {r['pr_auc']:.4f}; recall at {100 * h['alert_rate']:.2f}% "
      f"score {h['recall']:.4f}, risk {r['recall']:.4f} (alert rate {100 * r['alert_rate']:.2f}%)")
for name, t in h["recall_by_typology"].items():
    an = a["recall_by_typology"][name]["recall"] if a else float("nan")
    print(f"  {name:20s} {t['positives']:5d}  score {t['recall']:.4f}  anomaly {an:.4f}  "
          f"risk {r['recall_by_typology'][name]['recall']:.4f}")
for u in m["unseen"]:
    print(f"  unseen {u['typology']}: every row ({u['risk']['positives']}): score "
          f"{u['score']['recall']:.4f}, anomaly {u.get('anomaly', {}).get('recall', float('nan')):.4f}, "
          f"risk {u['risk']['recall']:.4f}")
PY
done
