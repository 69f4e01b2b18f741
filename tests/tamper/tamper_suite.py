"""The tamper suite: random edits of a stopped engine's data directory, each judged by what the
engine then does with it.

One data directory is built through the real binary with the shipped configuration and demo
model (API keys of every role, one revoked;
decisions of two tenants, some blocked by a tenant's policy, some opening cases; a case
assigned, commented on and disposed). Then each trial edits a copy of it once, chosen by the
seed: a file's byte flipped, a file cut short or deleted (every file in the directory), or a
record-level edit written through RocksDB with valid store checksums (store_edit: any family,
any kind of stored object, including journal entries re-encoded with a valid entry hash). The
trial runs `verdict audit verify`, starts the engine on the copy and, if it serves, reads
everything it served before (every decision by id, by transaction and by account, the cases,
the policies and models, every key's authorization on routes of each role) and compares.

Each trial is one of:
  detected   the engine refused to start or to serve (/readyz false: every route 503)
  harmless   the engine serves exactly what it served before, and verify passes
  served_damaged  the engine serves although `audit verify` reports damage   (a failure)
  missed     the engine serves something else than before, and nothing noticed (a failure)
  uncovered  missed, by an edit of what the engine does not check yet: a case no analyst has
             changed deleted. Counted and listed apart, so that the rest stays held to zero;
             each is an open gap (docs/journal_format.md), not a pass.
What the engine serves differently from one start to the next on an untouched copy (times,
checkpoints signed at start) is measured on two baseline starts and left out of the comparison.

Usage: tamper_suite.py --trials N --seed S --store-edit PATH [--report FILE]
Exit status 1 when any trial is a failure; the report lists each trial."""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "integration"))
import verdict_process as vp  # noqa: E402

ALPHA_POLICY = """policy "alpha-strict" version "a-1"
rule big_amount {
  description "alpha blocks large transfers"
  when txn.amount >= 5000 USD
  then block
  reason "ALPHA_BIG"
}
"""
# How long each stage took: what an answer says that no stored byte decides.
TIMINGS = {"timings_us"}
# Routes that need one role each: admin, analyst, scorer (an idempotent replay writes nothing).
ROLE_PROBES = (("GET", "/v1/keys"), ("GET", "/v1/cases?status="), ("GET", "/v1/policy"))


def auth(key):
    return {"Authorization": "Bearer " + key}


def build(data_dir):
    """The data directory every trial starts from. Returns what the view reads."""
    keys = {
        "alpha": vp.create_key(data_dir, "alpha", "scorer", "analyst", "admin")["key"],
        "alpha_scorer": vp.create_key(data_dir, "alpha", "scorer")["key"],
        "alpha_analyst": vp.create_key(data_dir, "alpha", "analyst")["key"],
        "beta": vp.create_key(data_dir, "beta", "scorer", "analyst", "admin")["key"],
    }
    revoked = vp.create_key(data_dir, "alpha", "scorer", "analyst", "admin")
    subprocess.run([vp.BINARY, "keys", "revoke", "--data-dir", data_dir, "--id", revoked["id"]],
                   check=True, capture_output=True, timeout=60)
    keys["alpha_revoked"] = revoked["key"]
    transactions = []
    with vp.VerdictProcess(data_dir=data_dir, insecure_dev=False,
                           config=vp.shipped_config_text()) as engine:
        status, body = engine.json("POST", "/v1/policy/ingest",
                                   {"version": "a-1", "policy": ALPHA_POLICY, "files": {}},
                                   auth(keys["alpha"]))
        assert status == 200, body
        for i in range(12):
            tenant = "alpha" if i % 4 else "beta"
            amount = "%d.00" % (25000 + 700 * i if i % 3 == 0 else 40 + i)
            txn = vp.transaction("tamper-%d" % i, amount=amount,
                                 sender={"account": "ACC-T-%d" % (i % 3), "country": "US"},
                                 timestamp="2026-12-02T10:%02d:00Z" % i)
            status, body = engine.json("POST", "/v1/decisions", txn, auth(keys[tenant]))
            assert status == 200, body
            transactions.append((tenant, txn, body["decision_id"]))
        deadline = time.monotonic() + 30
        while True:
            _, listed = engine.json("GET", "/v1/cases?status=", headers=auth(keys["alpha"]))
            if listed["total"] >= 2 or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        cases = [c["case_id"] for c in listed["cases"]]
        changed_cases = set(cases[:2])
        assert len(cases) >= 2, listed
        for case, action, body in ((cases[0], "assign", {}),
                                   (cases[0], "comment", {"text": "looked at the sender"}),
                                   (cases[1], "assign", {}),
                                   (cases[1], "dispose", {"disposition": "false_positive"})):
            status, out = engine.json("POST", "/v1/cases/%s:%s" % (case, action), body,
                                      auth(keys["alpha"]))
            assert status == 200, out
    return {"keys": keys, "transactions": transactions, "changed_cases": changed_cases}


def view(engine, world):
    """Everything the engine serves of the built directory, as {what: (status, body)}."""
    keys = world["keys"]
    out = {}

    def read(name, method, path, key, body=None):
        status, _, data = engine.request(method, path, body, auth(key))
        try:
            parsed = json.loads(data) if data else None
        except ValueError:
            parsed = data.decode("utf-8", "replace")
        out[name] = (status, parsed)

    for name, key in sorted(keys.items()):
        for method, path in ROLE_PROBES:
            read("role %s %s" % (name, path), method, path, key)
        tenant_txn = next(t for tenant, t, _ in world["transactions"]
                          if tenant == ("beta" if name == "beta" else "alpha"))
        read("role %s replay" % name, "POST", "/v1/decisions", key, json.dumps(tenant_txn))
    for tenant, txn, decision_id in world["transactions"]:
        key = keys[tenant]
        read("decision " + decision_id, "GET", "/v1/decisions/" + decision_id, key)
        read("transaction " + txn["transaction_id"], "GET",
             "/v1/transactions/%s/decision" % txn["transaction_id"], key)
    for tenant in ("alpha", "beta"):
        for account in sorted({t["sender"]["account"] for _, t, _ in world["transactions"]}):
            read("account %s %s" % (tenant, account), "GET",
                 "/v1/accounts/%s/decisions" % account, keys[tenant])
        read("models " + tenant, "GET", "/v1/models", keys[tenant])
        status, listed = engine.json("GET", "/v1/cases?status=", headers=auth(keys[tenant]))
        out["cases " + tenant] = (status, listed)
        for case in (listed or {}).get("cases", []):
            read("case " + case["case_id"], "GET", "/v1/cases/" + case["case_id"], keys[tenant])
    # New decisions read the stored account states (and the policies, models and keys).
    for tenant in ("alpha", "beta"):
        for i, account in enumerate(sorted({t["sender"]["account"]
                                            for _, t, _ in world["transactions"]})):
            txn = vp.transaction("probe-%s-%d" % (tenant, i), amount="%d.00" % (90 + 4000 * i),
                                 sender={"account": account, "country": "US"},
                                 timestamp="2026-12-02T11:%02d:00Z" % i)
            read("probe %s %s" % (tenant, account), "POST", "/v1/decisions", keys[tenant],
                 json.dumps(txn))
    return out


def settled_readiness(engine, timeout_s=60):
    """/readyz once the background checks have ended: (ready, reason)."""
    deadline = time.monotonic() + timeout_s
    while True:
        status, body = engine.json("GET", "/readyz")
        reason = (body or {}).get("reason", "")
        if status != 200 or "being verified" not in reason or time.monotonic() > deadline:
            return status == 200, reason
        time.sleep(0.05)


def serve_and_view(data_dir, world):
    """(None, view) when the engine serves the directory; (why, None) when it does not."""
    try:
        engine = vp.VerdictProcess(data_dir=data_dir, insecure_dev=False,
                                   config=vp.shipped_config_text())
    except RuntimeError as e:
        return "refused to start: " + str(e).strip().splitlines()[-1][:300], None
    try:
        ready, reason = settled_readiness(engine)
        if not ready:
            return "not ready: " + reason[:300], None
        return None, view(engine, world)
    finally:
        engine.__exit__(None, None, None)


def audit_verify(data_dir):
    done = subprocess.run([vp.BINARY, "audit", "verify", "--data-dir",
                           os.path.join(data_dir, "journal")],
                          capture_output=True, text=True, errors="replace", timeout=300)
    return done.returncode == 0, (done.stdout + done.stderr).strip().splitlines()[-1:]


def flatten(value, path, out):
    """{path: scalar} of a JSON value (lists by position), without the timings."""
    if isinstance(value, dict):
        for k, v in value.items():
            if k not in TIMINGS:
                flatten(v, path + "." + k, out)
    elif isinstance(value, (list, tuple)):
        out[path + "#"] = len(value)
        for i, v in enumerate(value):
            flatten(v, "%s[%d]" % (path, i), out)
    else:
        out[path] = value
    return out


def stable_part(first, second):
    """The view's fields that two starts on the same untouched copy served alike."""
    a, b = flatten(first, "", {}), flatten(second, "", {})
    volatile = sorted(k for k in a if a[k] != b.get(k))
    return {k: v for k, v in a.items() if k not in volatile}, volatile


def tamper_file(data_dir, rng):
    """Flips a byte of, cuts short or deletes one file of the directory: what was done."""
    files = sorted(os.path.join(root, name) for root, _, names in os.walk(data_dir)
                   for name in names if name != "LOCK")
    path = rng.choice(files)
    rel = os.path.relpath(path, data_dir)
    size = os.path.getsize(path)
    action = rng.choice(("flip", "flip", "truncate", "delete"))
    if action == "delete" or size == 0:
        os.remove(path)
        return "deleted " + rel
    if action == "truncate":
        cut = rng.randrange(size)
        os.truncate(path, cut)
        return "cut %s from %d to %d bytes" % (rel, size, cut)
    at = rng.randrange(size)
    with open(path, "r+b") as f:
        f.seek(at)
        byte = f.read(1)[0]
        f.seek(at)
        f.write(bytes([byte ^ (1 << rng.randrange(8))]))
    return "flipped a bit at %d of %s (%d bytes)" % (at, rel, size)


def uncovered(edit, world):
    """Whether a store edit is of what the engine does not check yet (see the module's text)."""
    words = edit.split()
    if len(words) >= 4 and words[1] == "deleted" and words[2] == "registry":
        name = bytes.fromhex(words[-1]).decode("utf-8", "replace")
        return (name.startswith("cases/")
                and name.rsplit("/", 1)[-1] not in world["changed_cases"])
    return False


def run(args):
    rng = random.Random(args.seed)
    work = tempfile.mkdtemp(prefix="verdict-tamper-")
    try:
        pristine = os.path.join(work, "pristine")
        world = build(pristine)
        ok, said = audit_verify(pristine)
        assert ok, said
        views = []
        for _ in range(2):
            copy = os.path.join(work, "baseline")
            shutil.copytree(pristine, copy)
            why, seen = serve_and_view(copy, world)
            assert why is None, why
            views.append(seen)
            shutil.rmtree(copy)
        baseline, volatile = stable_part(*views)
        assert len(baseline) > 500, sorted(baseline)
        trials = []
        counts = {"detected": 0, "harmless": 0, "served_damaged": 0, "missed": 0, "uncovered": 0}
        for trial in range(args.trials):
            copy = os.path.join(work, "trial")
            shutil.copytree(pristine, copy)
            if rng.random() < 0.5:
                edit = tamper_file(copy, rng)
            else:
                done = subprocess.run([args.store_edit, os.path.join(copy, "journal"),
                                       str(rng.randrange(1 << 62))],
                                      capture_output=True, text=True, timeout=120)
                if done.returncode == 2:
                    shutil.rmtree(copy)
                    continue
                assert done.returncode == 0, done.stderr
                edit = "store: " + done.stdout.strip()
            verified, said = audit_verify(copy)
            why, seen = serve_and_view(copy, world)
            if why is not None:
                outcome, detail = "detected", why
            else:
                served = flatten(seen, "", {})
                changed = sorted(k for k in baseline if served.get(k) != baseline[k])
                if changed:
                    outcome = "uncovered" if uncovered(edit, world) else "missed"
                    detail = "served differently: " + ", ".join(changed[:8])
                elif not verified:
                    outcome, detail = "served_damaged", "verify: " + " ".join(said)
                else:
                    outcome, detail = "harmless", ""
            counts[outcome] += 1
            trials.append({"trial": trial, "edit": edit, "outcome": outcome,
                           "verify_passed": verified, "detail": detail})
            print("%3d %-14s %s%s" % (trial, outcome, edit, (" -> " + detail) if detail else ""),
                  flush=True)
            shutil.rmtree(copy)
        report = {"seed": args.seed, "trials": len(trials), "counts": counts,
                  "volatile_reads": volatile, "compared_reads": len(baseline),
                  "results": trials}
        if args.report:
            with open(args.report, "w") as f:
                json.dump(report, f, indent=1)
        print(json.dumps({k: report[k] for k in ("seed", "trials", "counts", "compared_reads")}))
        return 1 if counts["missed"] or counts["served_damaged"] else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--store-edit", required=True)
    parser.add_argument("--report")
    sys.exit(run(parser.parse_args()))


if __name__ == "__main__":
    main()
