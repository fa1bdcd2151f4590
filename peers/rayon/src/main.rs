//! peer-rayon: the harness's workloads on Rayon's thread pool (Debian's
//! Rayon 1.6, rayon-core 1.10), so that the rayon model can be measured
//! beside the scheduler it models. Rayon has no async tasks: fib is its
//! fork-join form (`rayon::join` at every node), spawn-many is `scope.spawn`
//! from inside the pool (from=0) or `ThreadPool::spawn` from the main thread
//! (from=1). Speaks the peer protocol of peers/README.md.

use peer_common::{
    check_fib, check_nqueens, check_slots, cpu_ns, fail, param, parse_args, print_header, print_trial, spin, Params,
};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Instant;

/// One node of fib(n): a leaf below 2, else both children through
/// rayon::join (the second one stealable). Returns (value, nodes).
fn fib(n: u64) -> (u64, u64) {
    if n < 2 {
        return (n, 1);
    }
    let ((x, cx), (y, cy)) = rayon::join(|| fib(n - 1), || fib(n - 2));
    (x + y, cx + cy + 1)
}

fn run_fib(pool: &rayon::ThreadPool, p: &Params) -> (u64, Option<String>) {
    let n = param(p, "n");
    let (v, nodes) = pool.install(|| fib(n));
    (nodes, check_fib(n, v, nodes))
}

/// nqueens in Rayon's fork-join form (Rayon has no async tasks): a board
/// spawns one scope task per free column of the next row, each adding its
/// subtree's solutions and boards to the board's totals; the scope's end is
/// the join. Returns (solutions, boards in the subtree).
fn nq(full: u32, cols: u32, left: u32, right: u32) -> (u64, u64) {
    if cols == full {
        return (1, 1);
    }
    let sum = AtomicU64::new(0);
    let nodes = AtomicU64::new(1);
    let mut free = full & !(cols | left | right);
    rayon::scope(|s| {
        while free != 0 {
            let bit = free & free.wrapping_neg();
            free ^= bit;
            let (sum, nodes) = (&sum, &nodes);
            s.spawn(move |_| {
                let (x, c) = nq(full, cols | bit, (left | bit) << 1, (right | bit) >> 1);
                // Relaxed: the scope's end orders these adds before the loads below.
                sum.fetch_add(x, Ordering::Relaxed);
                nodes.fetch_add(c, Ordering::Relaxed);
            });
        }
    });
    (sum.into_inner(), nodes.into_inner())
}

fn run_nqueens(pool: &rayon::ThreadPool, p: &Params) -> (u64, Option<String>) {
    let n = param(p, "n");
    if n == 0 || n > 14 {
        return (0, check_nqueens(n, 0, 0));
    }
    let full = (1u32 << n) - 1;
    let (sol, nodes) = pool.install(|| nq(full, 0, 0, 0));
    (nodes, check_nqueens(n, sol, nodes))
}

fn run_spawn_many(pool: &rayon::ThreadPool, p: &Params) -> (u64, Option<String>) {
    let n = param(p, "n") as usize;
    let work = param(p, "work_ns");
    let slots: Arc<Vec<AtomicU32>> = Arc::new((0..n).map(|_| AtomicU32::new(0)).collect());
    if param(p, "from") == 0 {
        pool.install(|| {
            rayon::scope(|s| {
                for i in 0..n {
                    let slots = &slots;
                    s.spawn(move |_| {
                        spin(work);
                        slots[i].fetch_add(1, Ordering::Relaxed);
                    });
                }
            })
        });
    } else {
        let left = Arc::new(AtomicU64::new(n as u64));
        let (tx, rx) = mpsc::sync_channel(1);
        for i in 0..n {
            let (slots, left, tx) = (slots.clone(), left.clone(), tx.clone());
            pool.spawn(move || {
                spin(work);
                slots[i].fetch_add(1, Ordering::Relaxed);
                // AcqRel: the last decrement sees every other task's slot write.
                if left.fetch_sub(1, Ordering::AcqRel) == 1 {
                    let _ = tx.send(());
                }
            });
        }
        rx.recv().expect("spawn-many: the last task's signal");
    }
    (n as u64, check_slots(slots.iter().map(|s| s.load(Ordering::Relaxed))))
}

fn main() {
    // Rayon has no async tasks: its fork-join shapes and spawn-many only.
    let a = parse_args("rayon", &["fib", "spawn-many", "nqueens"]);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(a.workers)
        .build()
        .unwrap_or_else(|e| fail("rayon", format!("thread pool: {}", e)));
    print_header("rayon", "1.6", &a, false);
    for t in 0..a.warmup + a.trials {
        let u0 = cpu_ns();
        let t0 = Instant::now();
        let (tasks, why) = match a.workload.as_str() {
            "fib" => run_fib(&pool, &a.params),
            "nqueens" => run_nqueens(&pool, &a.params),
            _ => run_spawn_many(&pool, &a.params),
        };
        let ns = t0.elapsed().as_nanos() as u64;
        let u1 = cpu_ns();
        print_trial(t, &a, ns, tasks, &why, (u1.0 - u0.0, u1.1 - u0.1), ",\"counters\":{}");
        if why.is_some() {
            std::process::exit(1);
        }
    }
}
