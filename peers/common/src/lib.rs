//! What the Rust peers (peers/tokio, peers/rayon) share: the command line of
//! the peer protocol (peers/README.md), the workloads' parameters and
//! answers, the process's CPU time, and the JSON lines they print.

use std::time::{Duration, Instant};

/// A workload's parameters, in the order the header prints them.
pub type Params = Vec<(&'static str, u64)>;

pub fn param(p: &Params, name: &str) -> u64 {
    p.iter().find(|(k, _)| *k == name).map(|(_, v)| *v).unwrap()
}

/// The command line: --workload W --workers N --trials T --warmup K
/// [--param NAME=VALUE]...
pub struct Args {
    pub workload: String,
    pub workers: usize,
    pub trials: usize,
    pub warmup: usize,
    pub params: Params,
}

pub fn fail(peer: &str, msg: String) -> ! {
    eprintln!("peer-{}: {}", peer, msg);
    std::process::exit(2)
}

/// The command line, checked before any work: one line on stderr and exit
/// status 2 for anything wrong. The workloads every peer knows, with the
/// harness's defaults (workloads/fib.c, workloads/spawn_many.c).
pub fn parse_args(peer: &str) -> Args {
    let mut a = Args { workload: String::new(), workers: 1, trials: 5, warmup: 1, params: Vec::new() };
    let mut sets: Vec<String> = Vec::new();
    let mut it = std::env::args().skip(1);
    while let Some(opt) = it.next() {
        let v = it.next().unwrap_or_else(|| fail(peer, format!("{} needs a value", opt)));
        let num = |v: &str| {
            v.parse::<usize>().unwrap_or_else(|_| fail(peer, format!("{}: '{}' is not a number", opt, v)))
        };
        match opt.as_str() {
            "--workload" => a.workload = v,
            "--workers" => a.workers = num(&v),
            "--trials" => a.trials = num(&v),
            "--warmup" => a.warmup = num(&v),
            "--param" => sets.push(v),
            _ => fail(peer, format!("unknown option {}", opt)),
        }
    }
    a.params = match a.workload.as_str() {
        "fib" => vec![("n", 30)],
        "spawn-many" => vec![("n", 10000), ("work_ns", 0), ("from", 0)],
        _ => fail(peer, format!("no workload '{}' (valid: fib, spawn-many)", a.workload)),
    };
    if a.workers < 1 || a.workers > 1024 || a.trials < 1 {
        fail(peer, "--workers must be 1..1024 and --trials at least 1".to_string());
    }
    for s in &sets {
        let (k, v) = s.split_once('=').unwrap_or_else(|| fail(peer, format!("--param {}: not NAME=VALUE", s)));
        let v: u64 = v.parse().unwrap_or_else(|_| {
            fail(peer, format!("parameter {}: '{}' is not a non-negative integer", k, v))
        });
        match a.params.iter_mut().find(|(name, _)| *name == k) {
            Some(e) => e.1 = v,
            None => fail(peer, format!("workload {} has no parameter '{}'", a.workload, k)),
        }
    }
    a
}

/// The header line: which runtime, which workload, with which parameters.
pub fn print_header(peer: &str, version: &str, a: &Args, counters: bool) {
    let ps: Vec<String> = a.params.iter().map(|(k, v)| format!("\"{}\":{}", k, v)).collect();
    println!(
        "{{\"peer\":\"{}\",\"runtime\":\"{}\",\"version\":\"{}\",\"workload\":\"{}\",\"workers\":{},\"params\":{{{}}},\"counters_available\":{}}}",
        peer, peer, version, a.workload, a.workers, ps.join(","), counters
    );
}

/// One trial's line; `extra` is more JSON members (each with its leading
/// comma), the runtime's own counters.
pub fn print_trial(t: usize, a: &Args, ns: u64, tasks: u64, why: &Option<String>, cpu: (u64, u64), extra: &str) {
    println!(
        "{{\"trial\":{},\"warmup\":{},\"ns\":{},\"tasks\":{},\"verified\":{},{}\"cpu_user_ns\":{},\"cpu_sys_ns\":{}{}}}",
        t,
        t < a.warmup,
        ns,
        tasks,
        why.is_none(),
        why.as_ref().map(|w| format!("\"why\":\"{}\",", w)).unwrap_or_default(),
        cpu.0,
        cpu.1,
        extra
    );
}

pub fn fib_serial(n: u64) -> u64 {
    let (mut a, mut b) = (0u64, 1u64);
    for _ in 0..n {
        let t = a + b;
        a = b;
        b = t;
    }
    a
}

/// fib's answer: the value, and the node count 2 fib(n+1) - 1 (a lost or
/// doubled task changes it), as workloads/fib.c verifies.
pub fn check_fib(n: u64, v: u64, nodes: u64) -> Option<String> {
    if v != fib_serial(n) {
        return Some(format!("fib({}) = {}, want {}", n, v, fib_serial(n)));
    }
    let want = 2 * fib_serial(n + 1) - 1;
    if nodes != want {
        return Some(format!("fib({}) ran {} nodes, want {}", n, nodes, want));
    }
    None
}

/// spawn-many's answer: every task ran exactly once.
pub fn check_slots(counts: impl Iterator<Item = u32>) -> Option<String> {
    for (i, c) in counts.enumerate() {
        if c != 1 {
            return Some(format!("spawn-many: task {} ran {} times", i, c));
        }
    }
    None
}

/// Spend ns of CPU, as the harness's compute does on threads.
pub fn spin(ns: u64) {
    if ns == 0 {
        return;
    }
    let end = Instant::now() + Duration::from_nanos(ns);
    while Instant::now() < end {}
}

/// The process's (user, system) CPU time in ns.
pub fn cpu_ns() -> (u64, u64) {
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    let ns = |t: libc::timeval| t.tv_sec as u64 * 1_000_000_000 + t.tv_usec as u64 * 1000;
    (ns(ru.ru_utime), ns(ru.ru_stime))
}
