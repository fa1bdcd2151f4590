//! peer-tokio: the harness's workloads on Tokio's multi-threaded runtime, so
//! that the tokio-1.28 model can be measured beside the scheduler it models
//! (Debian's Tokio 1.24: a fixed global-queue interval of 61, an uncapped
//! LIFO slot, one task per inject pop). Speaks the peer protocol of
//! peers/README.md: a header line, then one JSON line per trial. Built with
//! `--cfg tokio_unstable` for the runtime's own per-worker counters.

use peer_common::{check_fib, check_slots, cpu_ns, fail, param, parse_args, print_header, print_trial, spin, Params};
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
    let a = parse_args("tokio");
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(a.workers)
        .build()
        .unwrap_or_else(|e| fail("tokio", format!("runtime: {}", e)));
    print_header("tokio", "1.24", &a, cfg!(tokio_unstable));
    for t in 0..a.warmup + a.trials {
        let (c0, r0) = counters(&rt);
        let u0 = cpu_ns();
        let t0 = Instant::now();
        let (tasks, why) = match a.workload.as_str() {
            "fib" => run_fib(&rt, &a.params),
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
        let extra = format!(",\"counters\":{{\"remote_schedules\":{}}},\"per_worker\":{{{}}}", r1 - r0, per.join(","));
        print_trial(t, &a, ns, tasks, &why, (u1.0 - u0.0, u1.1 - u0.1), &extra);
        if why.is_some() {
            std::process::exit(1);
        }
    }
}
