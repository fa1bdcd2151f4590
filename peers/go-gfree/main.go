// Command go-gfree measures what a goroutine costs on Go's runtime by how
// many are live at once, at GOMAXPROCS=1, the way peer-go's spawn-many and
// chained-spawn run (one goroutine starting n that each mark a slot and
// count down; each link of a chain starting the next): the evidence behind
// the sim's cost spawn_fresh (docs/sim.md, "Costs of a real runtime").
//
// Go's newproc1 (runtime/proc.go) takes a g from gfget, the P's free list
// or a batch from the global one, and makes a new g and stack (malg) only
// when both are empty. Each round runs, in one process and in turn, after a
// runtime.GC() as peer-go's trials do: chained-spawn of n (one goroutine
// live at a time), spawn-many of n/100, n/10 and n, and spawn-many of n
// twice back to back (the second finds the first's n g's, with their
// stacks, on the free lists). It prints the median over the rounds of the
// wall time per task of each, and the most goroutines seen live at once.
//
//	go run . [-n 100000] [-rounds 9]
package main

import (
	"flag"
	"fmt"
	"runtime"
	"sort"
	"sync/atomic"
	"time"
)

var peak int64

// spawnMany: one goroutine starts n, each marks its slot and counts down;
// the spawner samples the live goroutines every 500 starts.
func spawnMany(n int) {
	left := int64(n)
	done := make(chan struct{})
	slots := make([]uint32, n)
	go func() {
		for i := 0; i < n; i++ {
			if i%500 == 0 {
				if g := int64(runtime.NumGoroutine()); g > peak {
					peak = g
				}
			}
			i := i
			go func() {
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
			panic(fmt.Sprintf("task %d ran %d times", i, s))
		}
	}
}

func link(d, n int, done chan struct{}) {
	if d+1 < n {
		go link(d+1, n, done)
		return
	}
	close(done)
}

func chained(n int) {
	done := make(chan struct{})
	go link(0, n, done)
	<-done
}

func perTask(f func(), tasks int) float64 {
	runtime.GC()
	t0 := time.Now()
	f()
	return float64(time.Since(t0).Nanoseconds()) / float64(tasks)
}

func median(v []float64) float64 {
	sort.Float64s(v)
	return v[len(v)/2]
}

func main() {
	n := flag.Int("n", 100000, "tasks of the largest spawn-many and of the chain")
	rounds := flag.Int("rounds", 9, "rounds (the median is printed)")
	flag.Parse()
	runtime.GOMAXPROCS(1)
	sizes := []int{*n / 100, *n / 10, *n}
	names := []string{"chained-spawn", "", "", "", "spawn-many twice: first", "spawn-many twice: second"}
	for k, s := range sizes {
		names[1+k] = fmt.Sprintf("spawn-many n=%d", s)
	}
	res := make([][]float64, len(names))
	peaks := make([]int64, len(names))
	for r := 0; r < *rounds+1; r++ { // the first round warms up
		var v [6]float64
		peak = 0
		v[0] = perTask(func() { chained(*n) }, *n)
		for k, s := range sizes {
			peak = 0
			v[1+k] = perTask(func() { spawnMany(s) }, s)
			if peak > peaks[1+k] {
				peaks[1+k] = peak
			}
		}
		runtime.GC()
		t0 := time.Now()
		spawnMany(*n)
		t1 := time.Now()
		spawnMany(*n)
		v[4] = float64(t1.Sub(t0).Nanoseconds()) / float64(*n)
		v[5] = float64(time.Since(t1).Nanoseconds()) / float64(*n)
		if r > 0 {
			for i := range v {
				res[i] = append(res[i], v[i])
			}
		}
	}
	fmt.Printf("%s, GOMAXPROCS=1, median of %d rounds\n", runtime.Version(), *rounds)
	for i, name := range names {
		line := fmt.Sprintf("%-28s %7.0f ns a task", name, median(res[i]))
		if peaks[i] > 0 {
			line += fmt.Sprintf(", at most %d goroutines seen live", peaks[i])
		}
		fmt.Println(line)
	}
}
