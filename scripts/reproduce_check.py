#!/usr/bin/python3
"""reproduce_check.py - compare two reproductions of the reference results.

    reproduce_check.py NEW REF

Every harness result under NEW is matched by its path with the one under REF
(a run of scripts/reproduce.sh --out NEW against the checked-in
results/reference/), compressed or not: r.json.gz on one side matches r.json
on the other. Sim results must be identical but for their
provenance (and the cost file's path and age), unless they ran on other
costs (part 5 calibrates the machine it runs on): those are named, not
compared. A threads-engine result's median makespan must lie in the other
run's 95% interval of the median, or the difference is put down to what the
two runs recorded (docs/measuring.md) and each cause is named:

  - trials flagged noisy, in either run, with the reasons;
  - the core-to-core round trip moved within a run (its range spans more
    than the flagging ratio, noise.thresholds.c2c_ratio);
  - the two runs in different round-trip regimes (the geometric middles of
    their ranges differ by more than that ratio);
  - a busy machine: the load average before a run above the threshold of
    the harness's warning (0.5 + 10% of the online CPUs).

A result with no noise record (made before the accounting existed) cannot
give a cause and is said to. NEW/reproduced.json (written by
scripts/reproduce.sh) says which parts and engines NEW reran: a REF result
outside them is counted as not rerun, not as missing. A result on one side only
fails; a whole part on one side only is named in one line.
Exit 0 when every difference is within its interval or has a cause, 1
otherwise.
"""

import json
import math
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harnesslib as hl  # noqa: E402

PROG = "reproduce --check"
C2C_RATIO = 1.5     # harness/noise.h NOISE_C2C_RATIO, when a result does not say


def files(root):
    """{result key relative to root: document} of every result under root: plain,
    gzip-compressed or inside an archive (raw.tar.xz stands for raw/), so that a
    reproduction is matched with the reference however either stores it."""
    out = {}
    for p in hl.find_result_files([root]):
        try:
            doc = hl.read_json(p)
        except (OSError, ValueError):
            continue
        if isinstance(doc, dict) and doc.get("schema") == "harness-result":
            out[os.path.relpath(hl.result_key(p), root)] = doc
    return out


def rerun_filter(root):
    """What NEW reran: (parts, engines) from reproduced.json, None for all."""
    try:
        with open(os.path.join(root, "reproduced.json")) as f:
            r = json.load(f)
        return set(str(p) for p in r["parts"]), set(r["engines"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def part_of(rel):
    head = rel.split(os.sep)[0]
    return head.split("-")[0]


def c2c_range(doc):
    r = (doc.get("noise") or {}).get("c2c_regime_ns")
    if r:
        return r["min"], r["max"]
    c = (doc.get("provenance") or {}).get("c2c_round_trip_ns")
    return (c, c) if c is not None else None


def regime(doc):
    r = c2c_range(doc)
    if not r:
        return "unknown"
    return "%.0f ns" % r[0] if r[0] == r[1] else "%.0f..%.0f ns" % r


def ratio_of(doc):
    return ((doc.get("noise") or {}).get("thresholds") or {}).get("c2c_ratio") or C2C_RATIO


def busy(doc):
    """The 1-minute load average before the run when it was above the busy
    warning's threshold, else None."""
    p = doc.get("provenance") or {}
    la, cpus = p.get("load_average"), p.get("cores_online") or 1
    if la and la[0] > 0.5 + 0.1 * cpus:
        return la[0]
    return None


def flagged(doc):
    n = doc.get("noise")
    if not n:
        return "no noise record"
    why = ", ".join("%s %d" % (k, v) for k, v in sorted((n.get("reasons") or {}).items()) if v)
    return "%d of %d trials flagged%s" % (n["flagged"], len(doc.get("trials") or []),
                                          " (%s)" % why if why else "")


def causes(x, y):
    """What the two runs recorded that can move a wall-clock median."""
    out = []
    for side, d in (("here", x), ("there", y)):
        n = d.get("noise")
        if not n:
            out.append("no noise record %s: nothing to attribute it to" % side)
            continue
        if n.get("flagged"):
            out.append("%s %s" % (side, flagged(d)))
        r = c2c_range(d)
        if r and r[0] > 0 and r[1] / r[0] > ratio_of(d):
            out.append("the round trip moved %s (%s)" % (side, regime(d)))
        la = busy(d)
        if la is not None:
            out.append("busy machine %s (load average %.1f on %d CPUs)" % (
                side, la, (d.get("provenance") or {}).get("cores_online") or 1))
    rx, ry = c2c_range(x), c2c_range(y)
    if rx and ry and min(rx + ry) > 0:
        mx, my = math.sqrt(rx[0] * rx[1]), math.sqrt(ry[0] * ry[1])
        if max(mx, my) / min(mx, my) > ratio_of(x):
            out.append("different round-trip regimes (%s here, %s there)" % (regime(x),
                                                                             regime(y)))
    real = [c for c in out if not c.startswith("no noise record")]
    return real, [c for c in out if c.startswith("no noise record")]


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: %s NEW REF" % sys.argv[0])
    new, ref = sys.argv[1], sys.argv[2]
    a, b = files(new), files(ref)
    if not a:
        sys.exit("%s: no results under %s" % (PROG, new))
    only = rerun_filter(new)
    same = diff_sim = agree = explained = unexplained = not_rerun = missing = recal = 0
    whole = {}
    for rel in sorted(set(a) | set(b)):
        if rel not in a and only is not None:
            parts, engines = only
            eng = b[rel]["config"].get("engine")
            # The real engine's runs are wall-clock runs, rerun with the threads engine's.
            if part_of(rel) not in parts or ("threads" if eng == "real" else eng) not in engines:
                not_rerun += 1
                continue
        if rel not in a or rel not in b:
            side, other = (a, b) if rel in a else (b, a)
            head = rel.split(os.sep)[0]
            if not any(r.split(os.sep)[0] == head for r in other):
                # A whole part on one side only: one line for it, not one per result.
                if head not in whole:
                    whole[head] = sum(1 for r in side if r.split(os.sep)[0] == head)
                    print("only under %s: all of part %s (%d results); %s has none of it" % (
                        new if side is a else ref, head, whole[head],
                        ref if side is a else new))
            else:
                print("only under %s: %s" % (new if rel in a else ref, rel))
            missing += 1
            continue
        x, y = a[rel], b[rel]
        if x["config"].get("engine") == "sim":
            # A sim run on a calibration of the machine (5-sim-vs-threads) is exact given
            # its costs: with other costs (another calibration) it is not comparable; the
            # cost file's path and age are not part of the result's content.
            costs = lambda d: [d["config"].get(k) for k in ("sim_costs_ns", "sim_model_ns")]
            if costs(x) != costs(y):
                recal += 1
                print("sim result on another calibration, not compared: %s" % rel)
                continue

            def strip(d):
                d = {k: v for k, v in d.items() if k != "provenance"}
                d["config"] = {k: v for k, v in d["config"].items() if k != "sim_costs_file"}
                return d
            if json.dumps(strip(x), sort_keys=True) == json.dumps(strip(y), sort_keys=True):
                same += 1
            else:
                diff_sim += 1
                keys = sorted(k for k in set(x) | set(y) if k != "provenance" and
                              json.dumps(x.get(k), sort_keys=True) !=
                              json.dumps(y.get(k), sort_keys=True))
                print("sim result differs: %s (in %s; here revision %s, there %s)" % (
                    rel, ", ".join(keys), x["provenance"]["git_revision"][:7],
                    y["provenance"]["git_revision"][:7]))
            continue
        mx, my = x["median"]["makespan_ns"], y["median"]["makespan_ns"]
        cx = (x["median"].get("ci95") or {}).get("makespan_ns")
        cy = (y["median"].get("ci95") or {}).get("makespan_ns")
        if (cy and cy["lo"] <= mx <= cy["hi"]) or (cx and cx["lo"] <= my <= cx["hi"]):
            agree += 1
            continue
        found, blind = causes(x, y)
        iv = lambda c: "[%.4g, %.4g]" % (c["lo"] / 1e6, c["hi"] / 1e6) if c else "[no interval]"
        print("threads result outside its interval: %s: makespan %.4g ms %s here, %.4g ms %s "
              "there (%+.1f%%); here %s, round trip %s; there %s, round trip %s" % (
                  rel, mx / 1e6, iv(cx), my / 1e6, iv(cy), 100 * (mx - my) / my, flagged(x),
                  regime(x), flagged(y), regime(y)))
        if found:
            print("  cause: " + "; ".join(found))
            explained += 1
        else:
            print("  no recorded cause" + (" (%s)" % "; ".join(blind) if blind else ""))
            unexplained += 1
    print("%s: sim %d identical, %d different%s; threads %d within intervals, %d outside with "
          "a recorded cause, %d without; %d on one side only%s" % (
              PROG, same, diff_sim,
              ", %d on another calibration" % recal if recal else "", agree, explained,
              unexplained, missing,
              "; %d not rerun (reproduced.json)" % not_rerun if not_rerun else ""))
    sys.exit(1 if diff_sim or unexplained or missing else 0)


if __name__ == "__main__":
    main()
