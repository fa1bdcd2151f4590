//! peer-tokio: the harness's workloads on Tokio's multi-threaded runtime, so
//! that the tokio-1.28 model can be measured beside the scheduler it models
//! (Debian's Tokio 1.24: a fixed global-queue interval of 61, an uncapped
//! LIFO slot, one task per inject pop). Speaks the peer protocol of
//! peers/README.md: a header line, then one JSON line per trial. Built with
//! `--cfg tokio_unstable` for the runtime's own per-worker counters.

use peer_common::{
    check_fib, check_nqueens, check_slots, cpu_ns, fail, late_json, latency_json, param, parse_args, print_header, print_trial,
    read_schedule, spin, Params, Schedule,
};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Instant;

/// One node of fib(n) as a task of its own: a leaf below 2; any other node
/// spawns both children and awaits both, as the harness's fib spawns both
/// and joins (workloads/fib.c). Returns (value, nodes in the subtree).
fn fib_task(n: u64) -> Pin<Box<dyn Future<Output = (u64, u64)> + Send>> {
    Box::pin(async move {
        if n < 2 {
            return (n, 1);
        }
        let a = tokio::spawn(fib_task(n - 1));
        let b = tokio::spawn(fib_task(n - 2));
        let (x, cx) = a.await.expect("fib child");
        let (y, cy) = b.await.expect("fib child");
        (x + y, cx + cy + 1)
    })
}

fn run_fib(rt: &tokio::runtime::Runtime, p: &Params) -> (u64, Option<String>) {
    let n = param(p, "n");
    let (v, nodes) = rt.block_on(async move { tokio::spawn(fib_task(n)).await.expect("fib root") });
    (nodes, check_fib(n, v, nodes))
}

struct Many {
    slots: Vec<AtomicU32>,
    left: AtomicU64,
    work: u64,
    done: tokio::sync::Notify,
    tx: Mutex<Option<mpsc::SyncSender<()>>>,
}

impl Many {
    fn task(self: &Arc<Self>, i: usize) -> impl Future<Output = ()> + Send + 'static {
        let m = self.clone();
        async move {
            spin(m.work);
            m.slots[i].fetch_add(1, Ordering::Relaxed);
            // AcqRel: the last decrement sees every other task's slot write.
            if m.left.fetch_sub(1, Ordering::AcqRel) == 1 {
                m.done.notify_one();
                if let Some(tx) = m.tx.lock().unwrap().take() {
                    let _ = tx.send(());
                }
            }
        }
    }
}

/// Tokio's benches/rt_multi_threaded.rs shapes: from=0 one task spawns all n
/// (spawn_many_local), from=1 the main thread, outside the runtime, spawns
/// each (spawn_many_remote_idle). Each spends work_ns, marks its slot and
/// counts down; the last one ends the trial.
fn run_spawn_many(rt: &tokio::runtime::Runtime, p: &Params) -> (u64, Option<String>) {
    let n = param(p, "n") as usize;
    let (tx, rx) = mpsc::sync_channel(1);
    let m = Arc::new(Many {
        slots: (0..n).map(|_| AtomicU32::new(0)).collect(),
        left: AtomicU64::new(n as u64),
        work: param(p, "work_ns"),
        done: tokio::sync::Notify::new(),
        tx: Mutex::new(Some(tx)),
    });
    if param(p, "from") == 0 {
        let m2 = m.clone();
        rt.block_on(async move {
            tokio::spawn(async move {
                for i in 0..n {
                    tokio::spawn(m2.task(i));
                }
                // notify_one keeps a permit if the last task came first.
                m2.done.notified().await;
            })
            .await
            .expect("spawn-many root")
        });
    } else {
        let h = rt.handle();
        for i in 0..n {
            h.spawn(m.task(i));
        }
        rx.recv().expect("spawn-many: the last task's signal");
    }
    (n as u64, check_slots(m.slots.iter().map(|s| s.load(Ordering::Relaxed))))
}

/// chained-spawn (Tokio's benches/rt_multi_threaded.rs chained_spawn): link 0
/// is spawned from outside the runtime, as the harness injects it; link i
/// spawns link i + 1 and completes; the last one ends the trial. Each link
/// counts itself and carries its depth, checked as workloads/chained_spawn.c
/// checks them: n links polled, the last at depth n - 1.
struct Chain {
    n: u64,
    links: AtomicU64,
    last_depth: AtomicU64,
    tx: Mutex<Option<mpsc::SyncSender<()>>>,
}

fn chain_link(c: Arc<Chain>, depth: u64) -> Pin<Box<dyn Future<Output = ()> + Send>> {
    Box::pin(async move {
        c.links.fetch_add(1, Ordering::Relaxed);
        if depth + 1 < c.n {
            tokio::spawn(chain_link(c.clone(), depth + 1));
            return;
        }
        c.last_depth.store(depth, Ordering::Relaxed);
        if let Some(tx) = c.tx.lock().unwrap().take() {
            let _ = tx.send(());
        }
    })
}

fn run_chained_spawn(rt: &tokio::runtime::Runtime, p: &Params) -> (u64, Option<String>) {
    let (tx, rx) = mpsc::sync_channel(1);
    let c = Arc::new(Chain {
        n: param(p, "n"),
        links: AtomicU64::new(0),
        last_depth: AtomicU64::new(u64::MAX),
        tx: Mutex::new(Some(tx)),
    });
    rt.handle().spawn(chain_link(c.clone(), 0));
    rx.recv().expect("chained-spawn: the last link's signal");
    // The channel's send and receive order the links' counts before these loads.
    let (links, last) = (c.links.load(Ordering::Relaxed), c.last_depth.load(Ordering::Relaxed));
    let why = if last != c.n - 1 {
        Some(format!("chained-spawn: the last link has depth {}, expected {}", last, c.n - 1))
    } else if links != c.n {
        Some(format!("chained-spawn: {} links polled, expected a chain of {}", links, c.n))
    } else {
        None
    };
    (links, why)
}

/// yield-many (Tokio's yield_many): `tasks` tasks spawned from outside the
/// runtime, each yielding (tokio::task::yield_now) `yields` times before it
/// completes, so polled yields + 1 times; each writes that count into its
/// slot, checked as workloads/yield_many.c checks them.
fn run_yield_many(rt: &tokio::runtime::Runtime, p: &Params) -> (u64, Option<String>) {
    let (tasks, yields) = (param(p, "tasks") as usize, param(p, "yields"));
    let slots: Arc<Vec<AtomicU64>> = Arc::new((0..tasks).map(|_| AtomicU64::new(0)).collect());
    let left = Arc::new(AtomicU64::new(tasks as u64));
    let (tx, rx) = mpsc::sync_channel(1);
    for i in 0..tasks {
        let (slots, left, tx) = (slots.clone(), left.clone(), tx.clone());
        rt.handle().spawn(async move {
            let mut polls = 1;
            for _ in 0..yields {
                tokio::task::yield_now().await;
                polls += 1;
            }
            slots[i].store(polls, Ordering::Relaxed);
            // AcqRel: the last decrement sees every other task's slot write.
            if left.fetch_sub(1, Ordering::AcqRel) == 1 {
                let _ = tx.send(());
            }
        });
    }
    rx.recv().expect("yield-many: the last task's signal");
    for (i, s) in slots.iter().enumerate() {
        let v = s.load(Ordering::Relaxed);
        if v != yields + 1 {
            return (tasks as u64, Some(format!("yield-many: task {} was polled {} times, expected {}", i, v, yields + 1)));
        }
    }
    (tasks as u64, None)
}

/// ping-pong (Tokio's ping_pong, `rounds` exchanges a pair): a root task,
/// spawned from outside, spawns for each pair its third task (if third=1)
/// then its ping task; ping spawns pong with ping 1 already sent; each side
/// answers the other's message k on a channel (pong k for ping k) until
/// round `rounds`. The third task records how many rounds its pair had
/// completed when it ran (workloads/ping_pong.c's starvation probe).
/// Verified: every pair's rounds in order, every third task run once;
/// tasks: the root, ping, pong and third of each pair.
struct Pairs {
    rounds: u64,
    done_rounds: Vec<AtomicU64>,
    third_ran: Vec<AtomicU64>,
    bad: AtomicU64,
    left: AtomicU64,
    tx: Mutex<Option<mpsc::SyncSender<()>>>,
}

impl Pairs {
    fn finish_one(&self) {
        // AcqRel: the last task to finish sees every other's writes.
        if self.left.fetch_sub(1, Ordering::AcqRel) == 1 {
            if let Some(tx) = self.tx.lock().unwrap().take() {
                let _ = tx.send(());
            }
        }
    }
}

fn run_ping_pong(rt: &tokio::runtime::Runtime, p: &Params) -> (u64, Option<String>) {
    let (npairs, rounds, third) = (param(p, "pairs") as usize, param(p, "rounds"), param(p, "third") != 0);
    let (tx, rx) = mpsc::sync_channel(1);
    let tasks = 1 + npairs as u64 * (2 + third as u64);
    let s = Arc::new(Pairs {
        rounds,
        done_rounds: (0..npairs).map(|_| AtomicU64::new(0)).collect(),
        third_ran: (0..npairs).map(|_| AtomicU64::new(0)).collect(),
        bad: AtomicU64::new(0),
        left: AtomicU64::new(tasks),
        tx: Mutex::new(Some(tx)),
    });
    let root = s.clone();
    rt.handle().spawn(async move {
        for i in 0..npairs {
            if third {
                let t = root.clone();
                tokio::spawn(async move {
                    // Relaxed: a probe of how far the pair got, no order needed.
                    let seen = t.done_rounds[i].load(Ordering::Relaxed);
                    t.third_ran[i].fetch_add(1 + (seen << 32), Ordering::Relaxed);
                    t.finish_one();
                });
            }
            let ping = root.clone();
            tokio::spawn(async move {
                let (to_pong, mut pong_in) = tokio::sync::mpsc::unbounded_channel::<u64>();
                let (to_ping, mut ping_in) = tokio::sync::mpsc::unbounded_channel::<u64>();
                to_pong.send(1).expect("ping 1");
                let pong = ping.clone();
                tokio::spawn(async move {
                    for k in 1..=pong.rounds {
                        let m = pong_in.recv().await.expect("pong: a ping");
                        if m != k {
                            pong.bad.fetch_add(1, Ordering::Relaxed);
                        }
                        to_ping.send(k).expect("pong");
                    }
                    pong.finish_one();
                });
                for k in 1..=ping.rounds {
                    let m = ping_in.recv().await.expect("ping: a pong");
                    if m == k {
                        ping.done_rounds[i].store(k, Ordering::Relaxed);
                    }
                    if k < ping.rounds {
                        to_pong.send(k + 1).expect("ping");
                    }
                }
                ping.finish_one();
            });
        }
        root.finish_one();
    });
    rx.recv().expect("ping-pong: the last task's signal");
    if s.bad.load(Ordering::Relaxed) != 0 {
        return (tasks, Some("ping-pong: a pong got a ping out of order".to_string()));
    }
    for i in 0..npairs {
        let d = s.done_rounds[i].load(Ordering::Relaxed);
        if d != rounds {
            return (tasks, Some(format!("ping-pong: pair {} completed {} rounds of {}", i, d, rounds)));
        }
        if third && (s.third_ran[i].load(Ordering::Relaxed) & 0xffff_ffff) != 1 {
            return (tasks, Some(format!("ping-pong: pair {}'s third task did not run once", i)));
        }
    }
    (tasks, None)
}

/// nqueens, every board a task (workloads/nqueens.c with cutoff 0): a board
/// spawns one task per free column of the next row and awaits them all;
/// returns (solutions, boards in the subtree).
fn nq_task(full: u32, cols: u32, left: u32, right: u32) -> Pin<Box<dyn Future<Output = (u64, u64)> + Send>> {
    Box::pin(async move {
        if cols == full {
            return (1, 1);
        }
        let mut free = full & !(cols | left | right);
        let mut kids = Vec::with_capacity(free.count_ones() as usize);
        while free != 0 {
            let bit = free & free.wrapping_neg();
            free ^= bit;
            kids.push(tokio::spawn(nq_task(full, cols | bit, (left | bit) << 1, (right | bit) >> 1)));
        }
        let (mut sum, mut nodes) = (0, 1);
        for k in kids {
            let (s, c) = k.await.expect("nqueens child");
            sum += s;
            nodes += c;
        }
        (sum, nodes)
    })
}

fn run_nqueens(rt: &tokio::runtime::Runtime, p: &Params) -> (u64, Option<String>) {
    let n = param(p, "n");
    if n == 0 || n > 14 {
        return (0, check_nqueens(n, 0, 0));
    }
    let full = (1u32 << n) - 1;
    let (sol, nodes) = rt.block_on(async move { tokio::spawn(nq_task(full, 0, 0, 0)).await.expect("nqueens root") });
    (nodes, check_nqueens(n, sol, nodes))
}

/// open-loop: the harness's schedule (Poisson arrivals at the load, its
/// service distribution; harness/real.c writes it). The main thread,
/// outside the runtime, sleeps to each intended arrival and spawns every
/// request due (Handle::spawn: a remote schedule, as the harness's arrivals
/// are); a request spins its service and records completion minus intended
/// arrival, so a late delivery is charged to it (no coordinated omission).
fn run_open_loop(rt: &tokio::runtime::Runtime, s: &Schedule) -> (u64, Option<String>, String) {
    let n = s.offset.len();
    let lat: Arc<Vec<AtomicU64>> = Arc::new((0..n).map(|_| AtomicU64::new(u64::MAX)).collect());
    let left = Arc::new(AtomicU64::new(n as u64));
    let (tx, rx) = mpsc::sync_channel(1);
    let h = rt.handle();
    // Delivery: how late each request was spawned after its intended arrival
    // (the generator's sleeps and spawns; the harness's late_p99_ns).
    let mut late = Vec::with_capacity(n);
    let start = Instant::now();
    for i in 0..n {
        let due = start + std::time::Duration::from_nanos(s.offset[i]);
        let now = Instant::now();
        if due > now {
            std::thread::sleep(due - now);
        }
        late.push(due.elapsed().as_nanos() as u64);
        let (lat, left, tx, work) = (lat.clone(), left.clone(), tx.clone(), s.service[i]);
        h.spawn(async move {
            spin(work);
            lat[i].store(due.elapsed().as_nanos() as u64, Ordering::Relaxed);
            // AcqRel: the last decrement sees every other request's latency.
            if left.fetch_sub(1, Ordering::AcqRel) == 1 {
                let _ = tx.send(());
            }
        });
    }
    rx.recv().expect("open-loop: the last request's signal");
    let v: Vec<u64> = lat.iter().map(|x| x.load(Ordering::Relaxed)).collect();
    if let Some(i) = v.iter().position(|&x| x == u64::MAX) {
        return (n as u64, Some(format!("open-loop: request {} never completed", i)), String::new());
    }
    let lat = latency_json(v[s.warm..].to_vec());
    (n as u64, None, lat + &late_json(late[s.warm..].to_vec()))
}

/// The runtime's own counters per worker (tokio::runtime::RuntimeMetrics,
/// tokio_unstable), as (name, values per worker), and the remote schedules.
/// A worker hands its counts to these only in `maintenance` (worker.rs:
/// every 61 ticks, and on waking from a park), so a trial's last polls of
/// each worker show in the next trial's figures (peers/README.md).
#[cfg(tokio_unstable)]
fn counters(rt: &tokio::runtime::Runtime) -> (Vec<(&'static str, Vec<u64>)>, u64) {
    let m = rt.metrics();
    let per = |f: &dyn Fn(usize) -> u64| (0..m.num_workers()).map(f).collect::<Vec<u64>>();
    (
        vec![
            ("polls", per(&|i| m.worker_poll_count(i))),
            ("steals", per(&|i| m.worker_steal_count(i))),
            ("parks", per(&|i| m.worker_park_count(i))),
            ("noops", per(&|i| m.worker_noop_count(i))),
            ("local_schedules", per(&|i| m.worker_local_schedule_count(i))),
            ("overflows", per(&|i| m.worker_overflow_count(i))),
            ("busy_ns", per(&|i| m.worker_total_busy_duration(i).as_nanos() as u64)),
        ],
        m.remote_schedule_count(),
    )
}

#[cfg(not(tokio_unstable))]
fn counters(_: &tokio::runtime::Runtime) -> (Vec<(&'static str, Vec<u64>)>, u64) {
    (Vec::new(), 0)
}

fn main() {
    let a = parse_args(
        "tokio",
        &["fib", "spawn-many", "chained-spawn", "yield-many", "ping-pong", "nqueens", "open-loop"],
    );
    let sched = a.schedule.as_ref().map(|p| read_schedule("tokio", p));
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(a.workers)
        .build()
        .unwrap_or_else(|e| fail("tokio", format!("runtime: {}", e)));
    print_header("tokio", "1.24", &a, cfg!(tokio_unstable));
    for t in 0..a.warmup + a.trials {
        let (c0, r0) = counters(&rt);
        let u0 = cpu_ns();
        let t0 = Instant::now();
        let mut lat = String::new();
        let (tasks, why) = match a.workload.as_str() {
            "fib" => run_fib(&rt, &a.params),
            "chained-spawn" => run_chained_spawn(&rt, &a.params),
            "yield-many" => run_yield_many(&rt, &a.params),
            "ping-pong" => run_ping_pong(&rt, &a.params),
            "nqueens" => run_nqueens(&rt, &a.params),
            "open-loop" => {
                let (t, w, l) = run_open_loop(&rt, sched.as_ref().unwrap());
                lat = l;
                (t, w)
            }
            _ => run_spawn_many(&rt, &a.params),
        };
        let ns = t0.elapsed().as_nanos() as u64;
        let u1 = cpu_ns();
        let (c1, r1) = counters(&rt);
        // Each counter's increase over the trial, per worker.
        let per: Vec<String> = c1
            .iter()
            .zip(c0.iter())
            .map(|((name, b), (_, a))| {
                let d: Vec<String> = b.iter().zip(a.iter()).map(|(x, y)| (x - y).to_string()).collect();
                format!("\"{}\":[{}]", name, d.join(","))
            })
            .collect();
        let extra = format!(
            ",\"counters\":{{\"remote_schedules\":{}}},\"per_worker\":{{{}}}{}",
            r1 - r0,
            per.join(","),
            lat
        );
        print_trial(t, &a, ns, tasks, &why, (u1.0 - u0.0, u1.1 - u0.1), &extra);
        if why.is_some() {
            std::process::exit(1);
        }
    }
}
