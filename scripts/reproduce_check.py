#!/usr/bin/python3
"""reproduce_check.py - compare two reproductions of the reference results.

    reproduce_check.py NEW REF

Every harness result under NEW is matched by its path with the one under REF
(a run of scripts/reproduce.sh --out NEW against the checked-in
results/reference/). Sim results must be identical but for their
provenance. A threads-engine result's median makespan must lie in the other
run's 95% interval of the median, or the difference is put down to what the
noise accounting saw (trials flagged noisy, the core-to-core round-trip
regime of both runs, docs/measuring.md) and named. Exit 0 when every
difference is within its interval or has such a cause, 1 otherwise.
"""

import json
import os
import sys

PROG = "reproduce --check"


def files(root):
    out = {}
    for d, _, names in os.walk(root):
        for n in names:
            if not n.endswith(".json"):
                continue
            p = os.path.join(d, n)
            try:
                with open(p) as f:
                    doc = json.load(f)
            except (OSError, ValueError):
                continue
            if isinstance(doc, dict) and doc.get("schema") == "harness-result":
                out[os.path.relpath(p, root)] = doc
    return out


def regime(doc):
    """The round-trip regime of a result: the range over its probes, or
    (older files) the one probe before the run."""
    r = (doc.get("noise") or {}).get("c2c_regime_ns")
    if r:
        return "%.0f..%.0f ns" % (r["min"], r["max"])
    c = (doc.get("provenance") or {}).get("c2c_round_trip_ns")
    return "%.0f ns" % c if c is not None else "unknown"


def flagged(doc):
    n = doc.get("noise")
    if not n:
        return "no noise record"
    return "%d of %d trials flagged" % (n["flagged"], len(doc.get("trials") or []))


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: %s NEW REF" % sys.argv[0])
    new, ref = sys.argv[1], sys.argv[2]
    a, b = files(new), files(ref)
    if not a:
        sys.exit("%s: no results under %s" % (PROG, new))
    same = diff_sim = agree = explained = unexplained = 0
    for rel in sorted(set(a) | set(b)):
        if rel not in a or rel not in b:
            print("only under %s: %s" % (new if rel in a else ref, rel))
            unexplained += 1
            continue
        x, y = a[rel], b[rel]
        if x["config"].get("engine") == "sim":
            strip = lambda d: {k: v for k, v in d.items() if k != "provenance"}
            if json.dumps(strip(x), sort_keys=True) == json.dumps(strip(y), sort_keys=True):
                same += 1
            else:
                diff_sim += 1
                print("sim result differs: %s" % rel)
            continue
        mx, my = x["median"]["makespan_ns"], y["median"]["makespan_ns"]
        cx = (x["median"].get("ci95") or {}).get("makespan_ns")
        cy = (y["median"].get("ci95") or {}).get("makespan_ns")
        if (cy and cy["lo"] <= mx <= cy["hi"]) or (cx and cx["lo"] <= my <= cx["hi"]):
            agree += 1
            continue
        nx, ny = x.get("noise") or {}, y.get("noise") or {}
        cause = nx.get("flagged", 0) or ny.get("flagged", 0) or regime(x) != regime(y)
        print("threads result outside its interval: %s: makespan %.4g ms here, %.4g ms there; "
              "here %s, round trip %s; there %s, round trip %s%s" % (
                  rel, mx / 1e6, my / 1e6, flagged(x), regime(x), flagged(y), regime(y),
                  "" if cause else " (no recorded cause)"))
        if cause:
            explained += 1
        else:
            unexplained += 1
    print("%s: sim %d identical, %d different; threads %d within intervals, %d outside with "
          "a recorded cause, %d without" % (PROG, same, diff_sim, agree, explained, unexplained))
    sys.exit(1 if diff_sim or unexplained else 0)


if __name__ == "__main__":
    main()
