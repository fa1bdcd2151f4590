// Command peer-go runs the harness's workloads natively on Go's runtime
// (standard library only), so that the go policy can be measured beside
// the scheduler it models. It speaks the peer protocol of peers/README.md:
// a header line, then one JSON line per trial.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
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

type params map[string]uint64

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
	n := p["n"]
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
	n := p["n"]
	slots := make([]uint32, n)
	left := int64(n)
	done := make(chan struct{})
	work := p["work_ns"]
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

type workload struct {
	run      func(params) (uint64, string)
	defaults params
}

var workloads = map[string]workload{
	"fib":        {runFib, params{"n": 30}},
	"spawn-many": {runSpawnMany, params{"n": 10000, "work_ns": 0, "from": 0}},
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
		v, err := strconv.ParseUint(kv[1], 10, 64)
		if err != nil {
			fail("parameter %s: '%s' is not a non-negative integer", kv[0], kv[1])
		}
		p[kv[0]] = v
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
		if why != "" {
			line["why"] = why
		}
		enc.Encode(line)
		if why != "" {
			os.Exit(1)
		}
	}
}
