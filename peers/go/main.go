// Command peer-go runs the harness's workloads natively on Go's runtime
// (standard library only), so that the go policy can be measured beside
// the scheduler it models. It speaks the peer protocol of peers/README.md:
// a header line, then one JSON line per trial.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/metrics"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// params: the workload's parameters, numbers as the harness has them
// (open-loop's load and service are not integers); integer ones are
// checked to be integers.
type params map[string]float64

func (p params) u(name string) uint64 { return uint64(p[name]) }

// realParams: the parameters that need not be integers.
var realParams = map[string]bool{"load": true, "service_us": true}

// fibTask is one node of fib(n) as a goroutine of its own: a node below 2
// is a leaf; any other starts both children and waits for them, as the
// harness's fib spawns both and joins (workloads/fib.c).
func fibTask(n uint64, res, nodes *uint64, wg *sync.WaitGroup) {
	defer wg.Done()
	if n < 2 {
		*res, *nodes = n, 1
		return
	}
	var r, c [2]uint64
	var w sync.WaitGroup
	w.Add(2)
	go fibTask(n-1, &r[0], &c[0], &w)
	go fibTask(n-2, &r[1], &c[1], &w)
	w.Wait()
	*res, *nodes = r[0]+r[1], c[0]+c[1]+1
}

func fibSerial(n uint64) uint64 {
	a, b := uint64(0), uint64(1)
	for i := uint64(0); i < n; i++ {
		a, b = b, a+b
	}
	return a
}

func runFib(p params) (uint64, string) {
	n := p.u("n")
	var res, nodes uint64
	var wg sync.WaitGroup
	wg.Add(1)
	go fibTask(n, &res, &nodes, &wg)
	wg.Wait()
	if want := fibSerial(n); res != want {
		return nodes, fmt.Sprintf("fib(%d) = %d, want %d", n, res, want)
	}
	if want := 2*fibSerial(n+1) - 1; nodes != want {
		return nodes, fmt.Sprintf("fib(%d) ran %d nodes, want %d", n, nodes, want)
	}
	return nodes, ""
}

// spin spends ns of CPU, as the harness's compute does on threads.
func spin(ns uint64) {
	if ns == 0 {
		return
	}
	end := time.Now().Add(time.Duration(ns))
	for time.Now().Before(end) {
	}
}

// runSpawnMany: one goroutine starts n goroutines (Tokio's
// spawn_many_local); each spends work_ns, marks its slot and counts down;
// the last one ends the trial. Go has no spawn from outside its workers
// (every goroutine is started by one), so from=1 is refused up front.
func runSpawnMany(p params) (uint64, string) {
	n := p.u("n")
	slots := make([]uint32, n)
	left := int64(n)
	done := make(chan struct{})
	work := p.u("work_ns")
	go func() {
		for i := uint64(0); i < n; i++ {
			i := i
			go func() {
				spin(work)
				atomic.AddUint32(&slots[i], 1)
				if atomic.AddInt64(&left, -1) == 0 {
					close(done)
				}
			}()
		}
	}()
	<-done
	for i, s := range slots {
		if s != 1 {
			return n, fmt.Sprintf("spawn-many: task %d ran %d times", i, s)
		}
	}
	return n, ""
}

// chainLink is link depth of chained-spawn (Tokio's chained_spawn): it
// starts link depth+1 and returns; the last link ends the trial. Each link
// counts itself and the last records its depth, checked as
// workloads/chained_spawn.c checks them.
func chainLink(depth, n uint64, links *uint64, last *uint64, done chan struct{}) {
	atomic.AddUint64(links, 1)
	if depth+1 < n {
		go chainLink(depth+1, n, links, last, done)
		return
	}
	*last = depth
	close(done) // orders the links' counts and *last before the reader's loads
}

// runChainedSpawn: link 0 started by the main goroutine (Go has no spawn
// from outside its workers; the harness injects link 0 from outside).
func runChainedSpawn(p params) (uint64, string) {
	n := p.u("n")
	var links, last uint64
	done := make(chan struct{})
	go chainLink(0, n, &links, &last, done)
	<-done
	links = atomic.LoadUint64(&links)
	if last != n-1 {
		return links, fmt.Sprintf("chained-spawn: the last link has depth %d, expected %d", last, n-1)
	}
	if links != n {
		return links, fmt.Sprintf("chained-spawn: %d links polled, expected a chain of %d", links, n)
	}
	return links, ""
}

// runYieldMany (Tokio's yield_many): tasks goroutines, each yielding
// (runtime.Gosched) yields times before it completes, so run yields + 1
// times; each writes that count into its slot, checked as
// workloads/yield_many.c checks them.
func runYieldMany(p params) (uint64, string) {
	tasks, yields := p.u("tasks"), p.u("yields")
	slots := make([]uint64, tasks)
	var wg sync.WaitGroup
	wg.Add(int(tasks))
	for i := uint64(0); i < tasks; i++ {
		go func(i uint64) {
			defer wg.Done()
			polls := uint64(1)
			for k := uint64(0); k < yields; k++ {
				runtime.Gosched()
				polls++
			}
			slots[i] = polls
		}(i)
	}
	wg.Wait()
	for i, v := range slots {
		if v != yields+1 {
			return tasks, fmt.Sprintf("yield-many: task %d was polled %d times, expected %d", i, v, yields+1)
		}
	}
	return tasks, ""
}

// runPingPong (Tokio's ping_pong, rounds exchanges a pair): a root
// goroutine starts for each pair its third goroutine (if third=1), then its
// ping, which starts pong with ping 1 already sent; each side answers the
// other's message k (pong k for ping k) on a channel until round rounds.
// The third records how many rounds its pair had completed when it ran
// (workloads/ping_pong.c's probe). Verified: every pair's rounds in order,
// every third run once; tasks: the root, ping, pong and third of each pair.
func runPingPong(p params) (uint64, string) {
	pairs, rounds, third := p.u("pairs"), p.u("rounds"), p.u("third") != 0
	done := make([]uint64, pairs)
	thirdRan := make([]uint32, pairs)
	var bad uint32
	var wg sync.WaitGroup
	tasks := 1 + pairs*2
	if third {
		tasks += pairs
	}
	wg.Add(int(tasks))
	go func() {
		defer wg.Done()
		for i := uint64(0); i < pairs; i++ {
			if third {
				go func(i uint64) {
					defer wg.Done()
					_ = atomic.LoadUint64(&done[i]) // the probe: how far the pair got
					atomic.AddUint32(&thirdRan[i], 1)
				}(i)
			}
			go func(i uint64) {
				defer wg.Done()
				toPong, toPing := make(chan uint64, 1), make(chan uint64, 1)
				toPong <- 1
				go func() {
					defer wg.Done()
					for k := uint64(1); k <= rounds; k++ {
						if m := <-toPong; m != k {
							atomic.AddUint32(&bad, 1)
						}
						toPing <- k
					}
				}()
				for k := uint64(1); k <= rounds; k++ {
					if m := <-toPing; m == k {
						atomic.StoreUint64(&done[i], k)
					}
					if k < rounds {
						toPong <- k + 1
					}
				}
			}(i)
		}
	}()
	wg.Wait()
	if bad != 0 {
		return tasks, "ping-pong: a pong got a ping out of order"
	}
	for i := range done {
		if done[i] != rounds {
			return tasks, fmt.Sprintf("ping-pong: pair %d completed %d rounds of %d", i, done[i], rounds)
		}
		if third && thirdRan[i] != 1 {
			return tasks, fmt.Sprintf("ping-pong: pair %d's third task ran %d times", i, thirdRan[i])
		}
	}
	return tasks, ""
}

// nqKnown: nqueens's solutions for N = 0..14 (workloads/nqueens.c).
var nqKnown = []uint64{0, 1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596}

// nqNodes: the boards of the task tree, as workloads/nqueens.c counts them.
func nqNodes(full, cols, left, right uint32) uint64 {
	nodes := uint64(1)
	if cols == full {
		return nodes
	}
	free := full &^ (cols | left | right)
	for free != 0 {
		bit := free & -free
		free ^= bit
		nodes += nqNodes(full, cols|bit, (left|bit)<<1, (right|bit)>>1)
	}
	return nodes
}

// nqTask: one board as a goroutine (workloads/nqueens.c with cutoff 0): it
// starts one goroutine per free column of the next row and waits for them.
func nqTask(full, cols, left, right uint32, sol, nodes *uint64, wg *sync.WaitGroup) {
	defer wg.Done()
	if cols == full {
		*sol, *nodes = 1, 1
		return
	}
	free := full &^ (cols | left | right)
	k := 0
	for f := free; f != 0; f &= f - 1 {
		k++
	}
	s, c := make([]uint64, k), make([]uint64, k)
	var w sync.WaitGroup
	w.Add(k)
	for j := 0; free != 0; j++ {
		bit := free & -free
		free ^= bit
		go nqTask(full, cols|bit, (left|bit)<<1, (right|bit)>>1, &s[j], &c[j], &w)
	}
	w.Wait()
	*sol, *nodes = 0, 1
	for j := 0; j < k; j++ {
		*sol += s[j]
		*nodes += c[j]
	}
}

func runNqueens(p params) (uint64, string) {
	n := p.u("n")
	if n == 0 || n > 14 {
		return 0, fmt.Sprintf("nqueens: n %d is not 1..14", n)
	}
	full := uint32(1)<<n - 1
	var sol, nodes uint64
	var wg sync.WaitGroup
	wg.Add(1)
	go nqTask(full, 0, 0, 0, &sol, &nodes, &wg)
	wg.Wait()
	if sol != nqKnown[n] {
		return nodes, fmt.Sprintf("nqueens(%d) = %d, want %d", n, sol, nqKnown[n])
	}
	if want := nqNodes(full, 0, 0, 0); nodes != want {
		return nodes, fmt.Sprintf("nqueens(%d) polled %d boards, want %d", n, nodes, want)
	}
	return nodes, ""
}

// schedule: open-loop's requests as the harness wrote them (harness/real.c):
// "n warm", then n lines "offset_ns service_ns".
type schedule struct {
	warm            int
	offset, service []uint64
}

func readSchedule(path string) *schedule {
	f, err := os.Open(path)
	if err != nil {
		fail("%v", err)
	}
	defer f.Close()
	r := bufio.NewReader(f)
	var n int
	s := &schedule{}
	if _, err := fmt.Fscan(r, &n, &s.warm); err != nil || n < 1 || s.warm >= n {
		fail("%s: not a schedule", path)
	}
	s.offset, s.service = make([]uint64, n), make([]uint64, n)
	for i := 0; i < n; i++ {
		if _, err := fmt.Fscan(r, &s.offset[i], &s.service[i]); err != nil ||
			(i > 0 && s.offset[i] < s.offset[i-1]) {
			fail("%s: line %d is not a sorted offset and a service", path, i+2)
		}
	}
	return s
}

var sched *schedule

// runOpenLoop: a generator goroutine sleeps (Go's timers) to each intended
// arrival and starts a goroutine per request due; a request spins its
// service and records completion minus intended arrival, so a late start is
// charged to it (no coordinated omission).
func runOpenLoop(p params) (uint64, string) {
	s := sched
	n := len(s.offset)
	lat := make([]int64, n)
	// late: how late each request was started after its intended arrival
	// (the generator's sleeps and go statements; the harness's late_p99_ns).
	late := make([]uint64, n)
	var wg sync.WaitGroup
	wg.Add(n)
	start := time.Now()
	go func() {
		for i := 0; i < n; i++ {
			due := start.Add(time.Duration(s.offset[i]))
			if d := time.Until(due); d > 0 {
				time.Sleep(d)
			}
			late[i] = uint64(time.Since(due))
			go func(i int, due time.Time) {
				defer wg.Done()
				spin(s.service[i])
				lat[i] = int64(time.Since(due))
			}(i, due)
		}
	}()
	wg.Wait()
	v := make([]uint64, 0, n-s.warm)
	for _, x := range lat[s.warm:] {
		v = append(v, uint64(x))
	}
	lastLatency = v
	lastLate = append([]uint64(nil), late[s.warm:]...)
	return uint64(n), ""
}

// lastLatency, lastLate: the recorded latencies and delivery delays of the
// last open-loop trial.
var lastLatency, lastLate []uint64

// latencyPct: nearest-rank percentiles at core/pctci.h's levels.
func latencyPct(v []uint64) map[string]uint64 {
	sort.Slice(v, func(i, j int) bool { return v[i] < v[j] })
	out := map[string]uint64{}
	names := []string{"p50", "p90", "p99", "p99_9", "p99_99"}
	for k, q := range []float64{50, 90, 99, 99.9, 99.99} {
		r := int(math.Ceil(q / 100 * float64(len(v))))
		if r < 1 {
			r = 1
		}
		if r > len(v) {
			r = len(v)
		}
		out[names[k]] = v[r-1]
	}
	return out
}

type workload struct {
	run      func(params) (uint64, string)
	defaults params
}

var workloads = map[string]workload{
	"fib":           {runFib, params{"n": 30}},
	"spawn-many":    {runSpawnMany, params{"n": 10000, "work_ns": 0, "from": 0}},
	"chained-spawn": {runChainedSpawn, params{"n": 1000}},
	"yield-many":    {runYieldMany, params{"tasks": 200, "yields": 1000}},
	"ping-pong":     {runPingPong, params{"pairs": 1000, "rounds": 10, "third": 1}},
	"nqueens":       {runNqueens, params{"n": 13}},
	"open-loop":     {runOpenLoop, params{"load": 0.5, "service_us": 100}},
}

func cpuNs() (uint64, uint64) {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return uint64(ru.Utime.Nano()), uint64(ru.Stime.Nano())
}

// schedLatency is Go's own scheduling-delay histogram
// (/sched/latencies:seconds: time a goroutine spent runnable before it ran).
const schedLatency = "/sched/latencies:seconds"

func readHist() *metrics.Float64Histogram {
	s := []metrics.Sample{{Name: schedLatency}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64Histogram {
		return nil
	}
	return s[0].Value.Float64Histogram()
}

// quantiles of the samples added between a and b: the upper bound of the
// bucket holding each quantile, in ns.
func quantiles(a, b *metrics.Float64Histogram, qs []float64) (uint64, []float64) {
	if a == nil || b == nil {
		return 0, nil
	}
	d := make([]uint64, len(b.Counts))
	var total uint64
	for i := range b.Counts {
		d[i] = b.Counts[i] - a.Counts[i]
		total += d[i]
	}
	out := make([]float64, len(qs))
	for k, q := range qs {
		target := uint64(q*float64(total) + 0.5)
		if target == 0 {
			target = 1
		}
		var cum uint64
		for i, c := range d {
			cum += c
			if cum >= target {
				out[k] = b.Buckets[i+1] * 1e9
				break
			}
		}
	}
	return total, out
}

func fail(format string, a ...interface{}) {
	fmt.Fprintf(os.Stderr, "peer-go: "+format+"\n", a...)
	os.Exit(2)
}

func main() {
	wl := flag.String("workload", "", "workload")
	workers := flag.Int("workers", 1, "GOMAXPROCS")
	trials := flag.Int("trials", 5, "measured trials")
	warmup := flag.Int("warmup", 1, "discarded trials")
	var sets []string
	flag.Func("param", "NAME=VALUE", func(s string) error { sets = append(sets, s); return nil })
	schedPath := flag.String("schedule", "", "open-loop: the schedule file")
	flag.Parse()
	w, ok := workloads[*wl]
	if !ok {
		names := make([]string, 0, len(workloads))
		for k := range workloads {
			names = append(names, k)
		}
		sort.Strings(names)
		fail("no workload '%s' (valid: %s)", *wl, strings.Join(names, ", "))
	}
	if *workers < 1 || *workers > 1024 || *trials < 1 || *warmup < 0 {
		fail("bad --workers, --trials or --warmup")
	}
	p := params{}
	for k, v := range w.defaults {
		p[k] = v
	}
	for _, s := range sets {
		kv := strings.SplitN(s, "=", 2)
		if _, known := p[kv[0]]; len(kv) != 2 || !known {
			fail("workload %s has no parameter '%s'", *wl, s)
		}
		v, err := strconv.ParseFloat(kv[1], 64)
		if err != nil || v < 0 || math.IsInf(v, 0) || (!realParams[kv[0]] && v != math.Trunc(v)) {
			fail("parameter %s: '%s' is not a non-negative integer", kv[0], kv[1])
		}
		p[kv[0]] = v
	}
	if (*wl == "open-loop") != (*schedPath != "") {
		fail("--schedule PATH is open-loop's, and open-loop needs it")
	}
	if *schedPath != "" {
		sched = readSchedule(*schedPath)
	}
	if *wl == "spawn-many" && p["from"] != 0 {
		fail("spawn-many from=1: Go has no spawn from outside its workers (every goroutine is started by another)")
	}
	runtime.GOMAXPROCS(*workers)
	enc := json.NewEncoder(os.Stdout)
	enc.Encode(map[string]interface{}{"peer": "go", "runtime": "go", "version": runtime.Version(),
		"workload": *wl, "workers": *workers, "params": p, "counters_available": true})
	for t := 0; t < *warmup+*trials; t++ {
		runtime.GC()
		h0 := readHist()
		u0, s0 := cpuNs()
		t0 := time.Now()
		tasks, why := w.run(p)
		ns := time.Since(t0).Nanoseconds()
		u1, s1 := cpuNs()
		h1 := readHist()
		count, q := quantiles(h0, h1, []float64{0.5, 0.99})
		line := map[string]interface{}{"trial": t, "warmup": t < *warmup, "ns": ns, "tasks": tasks,
			"verified": why == "", "cpu_user_ns": u1 - u0, "cpu_sys_ns": s1 - s0,
			"counters": map[string]interface{}{"sched_latency_samples": count}}
		if q != nil {
			line["sched_latency_ns"] = map[string]float64{"p50": q[0], "p99": q[1]}
		}
		if lastLatency != nil {
			line["latency_ns"] = latencyPct(lastLatency)
			line["latency_samples"] = len(lastLatency)
			lp := latencyPct(lastLate)
			line["late_ns"] = map[string]uint64{"p50": lp["p50"], "p99": lp["p99"]}
			lastLatency, lastLate = nil, nil
		}
		if why != "" {
			line["why"] = why
		}
		enc.Encode(line)
		if why != "" {
			os.Exit(1)
		}
	}
}
