#!/usr/bin/env bash
#
# test_sweep.sh - scripts/sweep.py end to end, in a temporary directory.
#
#   test_sweep.sh HARNESS
#
# A small grid gives exactly one result per configuration, each holding the
# configuration its name promises; run ids do not depend on how the grid is
# written; a sweep stopped by --max-runs or by SIGTERM resumes without
# running a finished run again (sweep.log and inode numbers show it); the
# parallel backend (GNU parallel, also through an --sshloginfile naming the
# local host) produces the same set of results; the Slurm backend writes a
# job array of the right size whose tasks run the right commands; merge keeps
# one result per configuration. No network: the sshloginfile names ':' only.

set -u
testlib_name=test_sweep
. "$(dirname "$0")/testlib.sh"

harness=${1:?usage: test_sweep.sh HARNESS [grid|control]}
# PART: grid (sections 1-7: results, resume, backends, merge, bad grids) or control
# (8-9: the grid checked before any run, -j on threads, Ctrl-C, terminal progress); both
# by default. ctest runs each part as its own test, to keep every test short.
part=${2:-all}
case $part in
all | grid | control) ;;
*) echo "test_sweep: unknown part '$part' (grid, control)" >&2; exit 2 ;;
esac
[ -x "$harness" ] || { echo "test_sweep: $harness is not an executable file" >&2; exit 1; }
harness=$(cd "$(dirname "$harness")" && pwd)/$(basename "$harness")
here=$(cd "$(dirname "$0")" && pwd)
sweep=$here/../scripts/sweep.py
py=/usr/bin/python3

tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_sweep.XXXXXX") || exit 1
bgpid=
cleanup() {
	[ -n "$bgpid" ] && kill "$bgpid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
cd "$tmp" || exit 1
unset PYTHONOPTIMIZE PYTHONPATH PYTHONHOME	# the Python checks are asserts


sw() { "$py" "$sweep" "$@" --harness "$harness"; }

# count_json DIR: result files in DIR.
count_json() { find "$1" -maxdepth 1 -name '*.json' | wc -l; }

# The small grid: 2 policies x 2 workloads x 2 worker counts, a knob list only
# static-partition has (2 values) and parameters of either workload. volt has
# no 'routing': it runs 2 wl x 2 w = 4 times; static-partition 2 x 2 x 2 = 8.
cat >grid.json <<'EOF'
{
  "name": "small",
  "policies": ["volt", "static-partition"],
  "workloads": ["fib", "imbalanced"],
  "engines": ["sim"],
  "workers": [2, 3],
  "set": {"routing": [0, 1]},
  "params": {"n": 12, "t0_ms": 2, "t1_ms": 2, "t2_ms": 3, "t3_ms": [4]},
  "options": {"trials": 2, "warmup": 0}
}
EOF
# The same configurations written differently: keys reordered, reals for integers.
cat >grid_same.json <<'EOF'
{
  "options": {"warmup": 0.0, "trials": 2},
  "params": {"t3_ms": 4.0, "t2_ms": 3, "t1_ms": 2, "t0_ms": 2, "n": [12.0]},
  "set": {"routing": [1, 0]},
  "workers": [3, 2],
  "engines": "sim",
  "workloads": ["imbalanced", "fib"],
  "policies": ["static-partition", "volt"]
}
EOF

if [ "$part" != control ]; then
# --- 1. one result per configuration -----------------------------------------
sw run grid.json --out seq >out 2>err || fail "sequential sweep exited $?"
n=$(count_json seq)
[ "$n" -eq 12 ] || fail "sequential sweep: $n result files, expected 12"
# Every file holds the configuration its name promises, and no two hold the same one.
"$py" - seq <<'EOF' >check.out 2>&1 || { cat check.out >&2; fail "result contents do not match their names"; }
import json, os, re, sys
d = sys.argv[1]
seen = set()
for f in sorted(os.listdir(d)):
    if not f.endswith(".json"):
        continue
    m = re.match(r"^(fib|imbalanced)-(volt|static-partition)-(\d+)w-sim-([0-9a-f]{12})\.json$", f)
    assert m, "unexpected name " + f
    c = json.load(open(os.path.join(d, f)))["config"]
    assert c["workload"] == m.group(1) and c["policy"] == m.group(2), f
    assert c["workers"] == int(m.group(3)) and c["engine"] == "sim", f
    assert c["trials"] == 2 and c["warmup"] == 0, f
    if c["workload"] == "fib":
        assert c["params"]["n"] == 12, f
    else:
        assert [c["params"]["t%d_ms" % i] for i in range(4)] == [2, 2, 3, 4], f
    key = json.dumps(c, sort_keys=True)
    assert key not in seen, "two files with one configuration: " + f
    seen.add(key)
routing = sorted(json.load(open(os.path.join(d, f)))["config"]["knobs"].get("routing", -1)
                 for f in os.listdir(d) if f.endswith(".json") and "static-partition" in f)
assert routing == [0, 0, 0, 0, 1, 1, 1, 1], routing
print(len(seen))
EOF
pass "a 12-run grid gives 12 results, each with the configuration its name says"
# Every result valid against the schema (when the standard validator is installed; CI has it).
"$py" "$here/validate_results.py" "$here/../docs/result.schema.json" seq >check.out 2>&1
case $? in
0) pass "$(tail -n 1 check.out) against docs/result.schema.json" ;;
77) [ "${CI:-}" = true ] && fail "python3-jsonschema is missing under CI"
    echo "test_sweep: schema check skipped: no python3-jsonschema" ;;
*) cat check.out >&2; fail "a sweep result is not valid against docs/result.schema.json" ;;
esac

# Logs and the command list exist for every run.
[ "$(grep -c '' seq/commands.sh)" -eq 14 ] || fail "commands.sh: expected 2 header lines + 12 commands"
[ "$(ls seq/logs/*.out | wc -l)" -eq 12 ] || fail "expected 12 harness logs"
[ "$(grep -c ' done ' seq/sweep.log)" -eq 12 ] || fail "sweep.log: expected 12 done lines"
pass "commands.sh, logs/ and sweep.log cover every run"

# Ids depend on the configuration, not on how the grid is written.
sw list grid.json --out seq 2>/dev/null | awk '{print $1, $2}' | sort >ids1
sw list grid_same.json --out seq 2>/dev/null | awk '{print $1, $2}' | sort >ids2
cmp -s ids1 ids2 || fail "the same grid written differently gives other ids"
[ "$(grep -c ' done$' ids2)" -eq 12 ] || fail "list does not see the 12 existing results"
pass "run ids are stable: a reordered grid with 4.0 for 4 names the same 12 runs, all done"

# Repeats are runs of their own, with seeds a stride apart; a trials list crosses.
cat >rep.json <<'EOF'
{"policies": "volt", "workloads": "fib", "engines": "sim", "workers": 2, "params": {"n": 10},
 "repeats": 2, "trials": [1, 2], "options": {"seed": 5, "warmup": 0}}
EOF
sw list rep.json >rep.out 2>err || fail "list of the repeats grid exited $?"
[ "$(awk '{print $1}' rep.out | sort -u | wc -l)" -eq 4 ] || fail "repeats x trials: expected 4 ids"
[ "$(grep -c -- '--seed 5 ' rep.out)" -eq 2 ] && [ "$(grep -c -- '--seed 10005 ' rep.out)" -eq 2 ] ||
	fail "repeat seeds are not 5 and 10005: $(cat rep.out)"
pass "2 repeats x 2 trial counts: 4 runs, seeds 5 and 10005"

# Rerunning a finished sweep runs nothing.
sw run grid.json --out seq >out 2>err || fail "second sequential sweep exited $?"
grep -q '12 exist, 0 to run' err || fail "rerun did not find the 12 results"
[ "$(grep -c ' start ' seq/sweep.log)" -eq 12 ] || fail "rerun started runs again"
pass "a finished sweep reruns nothing"

# --- 2. resume after --max-runs ----------------------------------------------
sw run grid.json --out part --max-runs 5 >out 2>err || fail "--max-runs 5 exited $?"
[ "$(count_json part)" -eq 5 ] || fail "--max-runs 5 left $(count_json part) results"
ls -i part/*.json | sort >inodes_before
sleep 1.1  # so that a rewritten file would also show a newer mtime
sw run grid.json --out part >out 2>err || fail "resumed sweep exited $?"
grep -q '5 exist, 7 to run' err || fail "resume did not count 5 existing and 7 pending runs"
[ "$(count_json part)" -eq 12 ] || fail "resumed sweep: $(count_json part) results, expected 12"
while read -r ino f; do
	now=$(ls -i "$f" | awk '{print $1}')
	[ "$now" = "$ino" ] || fail "$f was written again (inode $ino -> $now)"
done <inodes_before
dups=$(awk '$2 == "start" {print $3}' part/sweep.log | sort | uniq -d)
[ -z "$dups" ] || fail "runs started twice: $dups"
[ "$(awk '$2 == "start"' part/sweep.log | wc -l)" -eq 12 ] || fail "expected 12 starts in all"
diff <(ls seq/*.json | xargs -n1 basename) <(ls part/*.json | xargs -n1 basename) >/dev/null ||
	fail "the resumed sweep holds other files than the uninterrupted one"
pass "--max-runs 5 then a rerun: 7 more runs, the first 5 untouched (same inodes), 12 results"

# --- 3. resume after SIGTERM -------------------------------------------------
# Real-thread runs of a few tens of ms each, so that the signal lands mid-sweep.
cat >slow.json <<'EOF'
{
  "policies": ["volt", "tokio", "static-partition", "central-queue"],
  "workloads": ["imbalanced"],
  "workers": [1, 2],
  "params": {"t0_ms": 10, "t1_ms": 10, "t2_ms": 10, "t3_ms": 10, "task_us": 50},
  "options": {"trials": 1, "warmup": 0, "no-baseline": true}
}
EOF
"$py" "$sweep" run slow.json --out term --harness "$harness" >out 2>err &
bgpid=$!
for ((i = 0; i < 400; i++)); do
	[ "$(count_json term 2>/dev/null || echo 0)" -ge 2 ] && break
	sleep 0.02
done
kill -TERM "$bgpid"
wait "$bgpid"
status=$?
bgpid=
[ "$status" -eq 143 ] || fail "SIGTERM: sweep exited $status, expected 143"
got=$(count_json term)
[ "$got" -ge 2 ] && [ "$got" -lt 8 ] || fail "SIGTERM: $got results (expected some, not all 8)"
leftover=$(find term -name '*.tmp')
[ -z "$leftover" ] || fail "SIGTERM left temporary files: $leftover"
grep -q 'rerun the same command to resume' err || fail "SIGTERM: no resume hint on stderr"
ls -i term/*.json | sort >inodes_before
finished=$(awk '$2 == "done" {print $3}' term/sweep.log | sort)
sw run slow.json --out term >out 2>err || fail "sweep resumed after SIGTERM exited $?"
[ "$(count_json term)" -eq 8 ] || fail "after resume: $(count_json term) results, expected 8"
while read -r ino f; do
	[ "$(ls -i "$f" | awk '{print $1}')" = "$ino" ] || fail "$f was written again after SIGTERM"
done <inodes_before
for id in $finished; do
	n=$(awk -v id="$id" '$2 == "start" && $3 == id' term/sweep.log | wc -l)
	[ "$n" -eq 1 ] || fail "run $id finished before SIGTERM but started $n times"
done
pass "SIGTERM after $got of 8 results: exit 143, no temporary file; the rerun runs only the other $((8 - got))"

# --- 4. the parallel backends ------------------------------------------------
sw run grid.json --out par -j 2 >out 2>err || fail "parallel sweep exited $?"
diff <(ls seq/*.json | xargs -n1 basename) <(ls par/*.json | xargs -n1 basename) >/dev/null ||
	fail "-j 2 produced another set of results than the sequential sweep"
[ "$(awk '$2 == "start"' par/sweep.log | wc -l)" -eq 12 ] || fail "-j 2: expected 12 starts"
# The simulated runs are deterministic: the same configuration gives the same trials.
"$py" - seq par <<'EOF' || fail "-j 2 results differ from the sequential ones"
import json, os, sys
a, b = sys.argv[1:]
for f in os.listdir(a):
    if f.endswith(".json"):
        ta = json.load(open(os.path.join(a, f)))["trials"]
        tb = json.load(open(os.path.join(b, f)))["trials"]
        assert [t["makespan_ns"] for t in ta] == [t["makespan_ns"] for t in tb], f
EOF
pass "-j 2 (GNU parallel) gives the same 12 files with the same simulated makespans"

echo "2/:" >hosts.txt
sw run grid.json --out hosts --hosts hosts.txt >out 2>err || fail "--hosts sweep exited $?"
diff <(ls seq/*.json | xargs -n1 basename) <(ls hosts/*.json | xargs -n1 basename) >/dev/null ||
	fail "--hosts produced another set of results"
pass "--hosts with an sshloginfile naming the local host gives the same 12 files"

# Several policies interleaved in one process: one file per policy, nothing left behind.
cat >group.json <<'EOF'
{
  "policies": ["volt", "steal-one", "static-partition"],
  "interleave": true,
  "workloads": ["imbalanced"],
  "engines": ["sim"],
  "workers": [4],
  "params": {"t0_ms": 1, "t1_ms": 1, "t2_ms": 2, "t3_ms": 3.5},
  "options": {"trials": 1, "warmup": 0}
}
EOF
sw run group.json --out group >out 2>err || fail "interleaved sweep exited $?"
[ "$(count_json group)" -eq 3 ] || fail "interleaved run: $(count_json group) results, expected 3"
id=$(ls group/*.json | head -1 | sed 's/.*-\([0-9a-f]*\)\.json$/\1/')
for p in volt steal-one static-partition; do
	[ -f "group/imbalanced-$p-4w-sim-$id.json" ] || fail "interleaved run: no file for $p"
done
grep -- '--policy=volt,steal-one,static-partition' group/logs/$id.out >/dev/null ||
	fail "the three policies did not run in one harness process"
for f in $(grep '^result: ' group/logs/$id.out | sed 's/^result: //'); do
	[ -e "$f" ] && fail "interleaved run left $f in the harness's results directory"
done
pass "an interleaved run of 3 policies is one process and gives 3 files with one id"

# A knob ablation interleaved in one process per worker count: the four lifo_cap values
# (given out of order) are one --set list, so each run's trials of the four variants mix in
# one shuffled order; one file per variant, named after it.
cat >ablation.json <<'EOF'
{
  "policies": ["volt"],
  "interleave": "all",
  "workloads": ["fib"],
  "engines": ["sim"],
  "workers": [2, 3],
  "set": {"lifo_cap": [10, 0, 3, 1]},
  "params": {"n": 13},
  "options": {"trials": 3, "warmup": 0}
}
EOF
sed 's/\[10, 0, 3, 1\]/[0, 1, 3, 10.0]/' ablation.json >ablation_same.json
sw list ablation.json >abl.list 2>err || fail "list of the ablation exited $?"
[ "$(grep -c '' abl.list)" -eq 2 ] || fail "ablation: $(grep -c '' abl.list) runs, expected 2 (one per worker count)"
grep -q -- '--set lifo_cap=0,1,3,10 ' abl.list || fail "ablation: the values are not one --set list"
sw list ablation_same.json 2>/dev/null | awk '{print $1}' | sort >abl.ids2
awk '{print $1}' abl.list | sort | cmp -s - abl.ids2 || fail "ablation: reordered values change the ids"
sed 's/"all"/false/' ablation.json >ablation_apart.json
[ "$(sw list ablation_apart.json 2>/dev/null | grep -c '')" -eq 8 ] ||
	fail "ablation without interleave: not one run per value and worker count"
sw run ablation.json --out abl >out 2>err || fail "ablation sweep exited $?"
[ "$(awk '$2 == "start"' abl/sweep.log | wc -l)" -eq 2 ] || fail "ablation: not 2 harness processes"
"$py" - abl <<'EOF' >check.out 2>&1 || { cat check.out >&2; fail "ablation results"; }
import json, os, re, sys
d = sys.argv[1]
runs = {}
for f in sorted(os.listdir(d)):
    if not f.endswith(".json"):
        continue
    m = re.match(r"^fib-volt-lifo_cap=(\d+)-([23])w-sim-([0-9a-f]{12})\.json$", f)
    assert m, "unexpected name " + f
    doc = json.load(open(os.path.join(d, f)))
    c = doc["config"]
    v = int(m.group(1))
    # Each variant under its own name, with its own knob value (which reached the runtime:
    # lifo_cap=0 makes no LIFO poll).
    assert c["variant"] == "volt[lifo_cap=%d]" % v and c["knobs"]["lifo_cap"] == v, (f, c)
    assert c["workers"] == int(m.group(2)) and c["trials"] == 3, f
    assert (doc["counters_total"]["lifo_polls"] == 0) == (v == 0), f
    runs.setdefault(m.group(3), {})[v] = [t["order"] for t in doc["trials"]]
assert len(runs) == 2, sorted(runs)
for rid, by in runs.items():
    assert sorted(by) == [0, 1, 3, 10], (rid, sorted(by))
    # One process: the 12 trials hold the places 0..11 of one run order, each once.
    places = sorted(o for v in by.values() for o in v)
    assert places == list(range(12)), (rid, by)
    # Interleaved: no variant's three trials ran back to back.
    seq = [v for o in range(12) for v in by if o in by[v]]
    for v, o in by.items():
        assert o == sorted(o) and o[-1] - o[0] > 2, ("lifo_cap=%d ran as one block" % v, seq)
    print(rid, " ".join(str(v) for v in seq))
EOF
pass "a 4-value lifo_cap ablation at 2 and 3 workers: 2 processes, 8 files, trials interleaved ($(head -n 1 check.out))"
sw run ablation.json --out abl >out 2>err || fail "ablation rerun exited $?"
grep -q '2 exist, 0 to run' err || fail "ablation rerun did not find its 8 files"
sw run ablation.json --out abl_par -j 2 >out 2>err || fail "ablation with -j 2 exited $?"
diff <(ls abl/*.json | xargs -n1 basename) <(ls abl_par/*.json | xargs -n1 basename) >/dev/null ||
	fail "ablation: -j 2 gave other files"
"$py" "$sweep" merge --out abl_merged abl abl_par >out 2>err || fail "merge of the ablations exited $?"
[ "$(count_json abl_merged)" -eq 8 ] && grep -q '8 duplicates skipped' err ||
	fail "merge of two ablations: $(count_json abl_merged) results, $(cat err)"
pass "the ablation reruns nothing, runs alike through GNU parallel, merges to its 8 variants"

# --- 5. the Slurm backend ----------------------------------------------------
rm -f part/"$(ls part | grep '\.json$' | head -1)" part/"$(ls part | grep '\.json$' | sed -n 2p)"
sw run grid.json --out part --slurm job.sh >out 2>err || fail "--slurm exited $?"
[ -x job.sh ] && [ -f job.cmds ] || fail "--slurm did not write job.sh and job.cmds"
grep -qx '#SBATCH --array=1-2' job.sh || fail "job array size is not 1-2 for 2 missing runs: $(grep array job.sh)"
[ "$(grep -c '' job.cmds)" -eq 2 ] || fail "job.cmds: expected 2 commands"
[ "$(count_json part)" -eq 10 ] || fail "--slurm ran something"
bash -n job.sh || fail "job.sh is not valid bash"
grep -qx '#SBATCH --cpus-per-task=1' job.sh || fail "simulated runs should ask for 1 CPU"
sw run grid.json --out all_slurm --slurm job12.sh >out 2>err || fail "--slurm (12 runs) exited $?"
grep -qx '#SBATCH --array=1-12' job12.sh || fail "job array size is not 1-12 for a fresh grid"
# Every command of the list is one run of the grid, each run once.
awk '{for (i = 1; i <= NF; i++) if ($i == "--id") print $(i + 1)}' job12.cmds | sort >slurm_ids
awk '{print $1}' ids1 | sort >grid_ids
cmp -s slurm_ids grid_ids || fail "job12.cmds does not hold each run of the grid once"
# Run the two array tasks as Slurm would: line i for task i.
for i in 1 2; do
	SLURM_ARRAY_TASK_ID=$i bash job.sh >out 2>err || fail "array task $i exited $?"
done
[ "$(count_json part)" -eq 12 ] || fail "array tasks left $(count_json part) results, expected 12"
SLURM_ARRAY_TASK_ID=3 bash job.sh >out 2>err && fail "array task 3 of 2 succeeded"
pass "--slurm: arrays of 2 (missing runs) and 12 (fresh), each task runs its line, nothing submitted"

# --- 6. merge ------------------------------------------------------------------
"$py" "$sweep" merge --out merged seq par part >out 2>err || fail "merge exited $?"
[ "$(count_json merged)" -eq 12 ] || fail "merge of 3 x 12 results: $(count_json merged), expected 12"
grep -q '24 duplicates skipped' err || fail "merge did not report 24 duplicates: $(cat err)"
# Split the grid across two "hosts" and merge them back.
mkdir -p hostA hostB
i=0
for f in seq/*.json; do
	((i++ % 2)) && cp "$f" hostA/ || cp "$f" hostB/
done
cp seq/"$(ls seq | grep '\.json$' | head -1)" hostA/  # one run done on both hosts (the first went to hostB)
"$py" "$sweep" merge --out merged2 hostA hostB >out 2>err || fail "merge of two hosts exited $?"
[ "$(count_json merged2)" -eq 12 ] || fail "merge of two hosts: $(count_json merged2), expected 12"
grep -q '1 duplicates skipped' err || fail "merge did not skip the run both hosts made"
sw run grid.json --out merged2 >out 2>err || fail "sweep over merged results exited $?"
grep -q '12 exist, 0 to run' err || fail "a sweep over merged results wants to run again"
# A result with the same id but another configuration is reported.
f=$(ls hostA/*.json | head -1)
sed -E 's/"warmup": ?0([,}])/"warmup": 7\1/' "$f" >hostB/"$(basename "$f")"
"$py" "$sweep" merge --out merged3 hostA hostB >out 2>err && fail "merge accepted a conflicting duplicate"
grep -q 'configurations differ' err || fail "merge did not name the conflict"
pass "merge: 3 copies of 12 runs give 12 files; two hosts' halves give the grid; conflicts reported"

# --- 7. bad grids ------------------------------------------------------------
bad() {
	local name=$1 word=$2 json=$3
	echo "$json" >bad.json
	sw run bad.json --out badout >out 2>err
	local status=$?
	[ "$status" -eq 2 ] || fail "$name: exit $status, expected 2"
	grep -q -- "$word" err || fail "$name: stderr does not mention '$word'"
	[ "$(count_json badout 2>/dev/null || echo 0)" -eq 0 ] || fail "$name: ran something"
	pass "$name: $(head -1 err)"
}
bad "unknown policy" "nosuch" '{"policies": ["nosuch"], "workloads": ["fib"]}'
bad "a knob no policy has" "lifo_cap" '{"policies": ["static-partition"], "workloads": ["fib"], "set": {"lifo_cap": [0]}}'
bad "a parameter no workload has" "dist" '{"policies": ["volt"], "workloads": ["fib"], "params": {"dist": [1]}}'
bad "unknown grid key" "polices" '{"polices": ["volt"], "workloads": ["fib"]}'

fi

if [ "$part" != grid ]; then
# --- 8. the grid is checked before the first run -----------------------------
cat >badvals.json <<'EOF'
{"policies": ["volt", "tokio"], "workloads": ["fib"], "engines": ["sim"],
 "params": {"n": [12, 70]}, "set": {"lifo_cap": [0, "lots"]},
 "options": {"trials": 1, "warmup": 0}}
EOF
sw run badvals.json --out badvals >out 2>err
st=$?
[ "$st" -eq 2 ] || fail "a grid with bad values: exit $st, expected 2"
grep -q '^sweep: 6 of 8 runs cannot run (nothing was started):' err ||
	fail "bad values: no summary naming 6 of 8 runs: $(head -n 1 err)"
[ "$(grep -c 'n: 70 is out of range' err)" -eq 2 ] || fail "bad values: n=70 (with lifo_cap=0) not named twice"
[ "$(grep -c "lifo_cap: 'lots'" err)" -eq 4 ] || fail "bad values: lifo_cap=lots not named 4 times"
[ "$(count_json badvals 2>/dev/null || echo 0)" -eq 0 ] || fail "bad values: something ran"
[ -e badvals/sweep.log ] && fail "bad values: a sweep.log was started"
pass "a grid with n=70 and lifo_cap=lots: one error naming the 6 bad runs of 8, nothing run"

# --- 9. -j 2 on threads, Ctrl-C, progress ----------------------------------------
# Real-thread runs of about a second each (spin work), six of them.
cat >second.json <<'EOF'
{"policies": ["volt", "tokio", "central-queue"], "workloads": ["imbalanced"], "workers": [1],
 "params": {"t0_ms": 250, "t1_ms": 250, "t2_ms": 250, "t3_ms": 250, "task_us": 1000},
 "repeats": 2, "options": {"trials": 1, "warmup": 0, "no-baseline": true}}
EOF
# Ctrl-C at a terminal signals the whole foreground process group: setsid makes the sweep
# one, and kill -INT to the group is what the terminal would send.
setsid "$py" "$sweep" run second.json --out intr -j 2 --harness "$harness" >out 2>err &
bgpid=$!
for ((i = 0; i < 1500; i++)); do
	[ "$(awk '$2 == "start"' intr/sweep.log 2>/dev/null | wc -l)" -ge 2 ] && break
	sleep 0.02
done
kill -INT -- -"$bgpid"
wait "$bgpid"
st=$?
bgpid=
[ "$st" -eq 143 ] || fail "Ctrl-C with -j 2: exit $st, expected 143"
grep -q 'warning: -j 2 runs 6 threads-engine run' err || fail "-j 2 on threads: no warning"
grep -q 'waiting for the [0-9]* running run(s) to finish' err || fail "Ctrl-C: no word on the running runs"
starts=$(awk '$2 == "start"' intr/sweep.log | wc -l)
dones=$(awk '$2 == "done"' intr/sweep.log | wc -l)
[ "$starts" -ge 2 ] && [ "$starts" -lt 6 ] || fail "Ctrl-C: $starts runs started, expected 2..5"
[ "$dones" -eq "$starts" ] && [ "$(count_json intr)" -eq "$starts" ] ||
	fail "Ctrl-C killed running runs: $starts started, $dones done, $(count_json intr) results"
pass "-j 2 on threads warns; Ctrl-C lets the $starts running runs finish with their results, starts no more"

# On a terminal (script(1) gives the sweep a pseudo-terminal) the progress line is redrawn
# while a run lasts, not only between runs.
if command -v script >/dev/null; then
	cat >two.json <<'EOF'
{"policies": ["volt", "tokio"], "workloads": ["imbalanced"], "workers": [1],
 "params": {"t0_ms": 400, "t1_ms": 400, "t2_ms": 400, "t3_ms": 400, "task_us": 1000},
 "options": {"trials": 1, "warmup": 0, "no-baseline": true}}
EOF
	script -qfec "$py $sweep run two.json --out tty --harness $harness" /dev/null >tty.out 2>&1 ||
		fail "sweep under script(1) exited $?"
	ticks=$(tr '\r' '\n' <tty.out | grep -c '1 running')
	[ "$ticks" -ge 2 ] || fail "terminal progress: $ticks redraws during the 2 runs of ~1.6 s"
	tr '\r' '\n' <tty.out | grep -q 'sweep: 2/2 done (0 existed), 0 failed, 0 left' ||
		fail "terminal progress: no final line"
	pass "terminal progress redrawn $ticks times while the runs ran (runs done, failed, running, left, ETA)"
else
	[ "${CI:-}" = true ] && fail "no script(1) (bsdutils) under CI"
	echo "test_sweep: terminal progress not checked: no script(1)"
fi

fi

echo "test_sweep: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
