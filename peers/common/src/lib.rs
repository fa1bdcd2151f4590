//! What the Rust peers (peers/tokio, peers/rayon) share: the command line of
//! the peer protocol (peers/README.md), the workloads' parameters and
//! answers, the process's CPU time, and the JSON lines they print.

use std::time::{Duration, Instant};

/// A workload's parameters, in the order the header prints them: numbers,
/// as the harness has them (open-loop's load and service are not integers).
pub type Params = Vec<(&'static str, f64)>;

/// An integer parameter (parse_args checked that it is one).
pub fn param(p: &Params, name: &str) -> u64 {
    paramf(p, name) as u64
}

pub fn paramf(p: &Params, name: &str) -> f64 {
    p.iter().find(|(k, _)| *k == name).map(|(_, v)| *v).unwrap()
}

/// The parameters open-loop takes that are not integers.
const REAL_PARAMS: [&str; 2] = ["load", "service_us"];

/// Every workload a peer may know, with the harness's defaults
/// (workloads/*.c). open-loop's schedule comes from --schedule.
pub fn defaults(workload: &str) -> Option<Params> {
    Some(match workload {
        "fib" => vec![("n", 30.0)],
        "spawn-many" => vec![("n", 10000.0), ("work_ns", 0.0), ("from", 0.0)],
        "chained-spawn" => vec![("n", 1000.0)],
        "yield-many" => vec![("tasks", 200.0), ("yields", 1000.0)],
        "ping-pong" => vec![("pairs", 1000.0), ("rounds", 10.0), ("third", 1.0)],
        "nqueens" => vec![("n", 13.0)],
        "open-loop" => vec![("load", 0.5), ("service_us", 100.0)],
        _ => return None,
    })
}

/// The command line: --workload W --workers N --trials T --warmup K
/// [--param NAME=VALUE]...
pub struct Args {
    pub workload: String,
    pub workers: usize,
    pub trials: usize,
    pub warmup: usize,
    pub params: Params,
    /// open-loop: the schedule file the harness wrote (peers/README.md).
    pub schedule: Option<String>,
}

pub fn fail(peer: &str, msg: String) -> ! {
    eprintln!("peer-{}: {}", peer, msg);
    std::process::exit(2)
}

/// The command line, checked before any work: one line on stderr and exit
/// status 2 for anything wrong. `known`: the workloads this peer runs.
pub fn parse_args(peer: &str, known: &[&str]) -> Args {
    let mut a = Args { workload: String::new(), workers: 1, trials: 5, warmup: 1, params: Vec::new(), schedule: None };
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
            "--schedule" => a.schedule = Some(v),
            _ => fail(peer, format!("unknown option {}", opt)),
        }
    }
    a.params = match defaults(&a.workload) {
        Some(p) if known.contains(&a.workload.as_str()) => p,
        _ => fail(peer, format!("no workload '{}' (valid: {})", a.workload, known.join(", "))),
    };
    if (a.workload == "open-loop") != a.schedule.is_some() {
        fail(peer, "--schedule PATH is open-loop's, and open-loop needs it".to_string());
    }
    if a.workers < 1 || a.workers > 1024 || a.trials < 1 {
        fail(peer, "--workers must be 1..1024 and --trials at least 1".to_string());
    }
    for s in &sets {
        let (k, v) = s.split_once('=').unwrap_or_else(|| fail(peer, format!("--param {}: not NAME=VALUE", s)));
        let integer = !REAL_PARAMS.contains(&k);
        let v: f64 = match v.parse::<f64>() {
            Ok(x) if x.is_finite() && x >= 0.0 && (!integer || x.fract() == 0.0) => x,
            _ => fail(peer, format!("parameter {}: '{}' is not a non-negative {}", k, v,
                                    if integer { "integer" } else { "number" })),
        };
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

/// open-loop's schedule as the harness wrote it (harness/real.c): a line
/// "n warm", then n lines "offset_ns service_ns", offsets from the trial's
/// start, sorted. Requests [0, warm) run but are not recorded.
pub struct Schedule {
    pub warm: usize,
    pub offset: Vec<u64>,
    pub service: Vec<u64>,
}

pub fn read_schedule(peer: &str, path: &str) -> Schedule {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| fail(peer, format!("{}: {}", path, e)));
    let mut nums = text.split_ascii_whitespace().map(|w| {
        w.parse::<u64>().unwrap_or_else(|_| fail(peer, format!("{}: '{}' is not a number", path, w)))
    });
    let mut next = || nums.next().unwrap_or_else(|| fail(peer, format!("{}: too short", path)));
    let (n, warm) = (next() as usize, next() as usize);
    let mut s = Schedule { warm, offset: Vec::with_capacity(n), service: Vec::with_capacity(n) };
    for _ in 0..n {
        s.offset.push(next());
        s.service.push(next());
    }
    if n == 0 || warm >= n || s.offset.windows(2).any(|w| w[0] > w[1]) {
        fail(peer, format!("{}: not a schedule (n {}, warm {}, offsets sorted)", path, n, warm));
    }
    s
}

/// The recorded latencies' percentiles (p50, p90, p99, p99.9, p99.99:
/// core/pctci.h's levels), nearest rank, as a JSON object member.
pub fn latency_json(mut v: Vec<u64>) -> String {
    v.sort_unstable();
    let names = ["p50", "p90", "p99", "p99_9", "p99_99"];
    let levels = [50.0, 90.0, 99.0, 99.9, 99.99];
    let items: Vec<String> = names
        .iter()
        .zip(levels.iter())
        .map(|(k, q)| {
            let rank = ((q / 100.0 * v.len() as f64).ceil() as usize).clamp(1, v.len());
            format!("\"{}\":{}", k, v[rank - 1])
        })
        .collect();
    format!(",\"latency_ns\":{{{}}},\"latency_samples\":{}", items.join(","), v.len())
}

/// open-loop's delivery: how late each recorded request was handed to the
/// runtime after its intended arrival, p50 and p99 (nearest rank).
pub fn late_json(mut v: Vec<u64>) -> String {
    v.sort_unstable();
    let at = |q: f64| v[((q * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1];
    format!(",\"late_ns\":{{\"p50\":{},\"p99\":{}}}", at(0.5), at(0.99))
}

/// nqueens's known answers, N = 0..14 (workloads/nqueens.c, docs/sources.md).
pub const NQ_KNOWN: [u64; 15] = [0, 1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596];

/// The boards of the nqueens task tree (every board a task): as
/// workloads/nqueens.c's nq_rec counts them.
pub fn nq_nodes(full: u32, cols: u32, left: u32, right: u32) -> u64 {
    let mut nodes = 1;
    if cols == full {
        return nodes;
    }
    let mut free = full & !(cols | left | right);
    while free != 0 {
        let bit = free & free.wrapping_neg();
        free ^= bit;
        nodes += nq_nodes(full, cols | bit, (left | bit) << 1, (right | bit) >> 1);
    }
    nodes
}

/// nqueens's answer: the solution count against the known one, and the
/// boards polled against the tree's (a lost or doubled task changes it).
pub fn check_nqueens(n: u64, solutions: u64, nodes: u64) -> Option<String> {
    if n as usize >= NQ_KNOWN.len() || n == 0 {
        return Some(format!("nqueens: n {} is not 1..14", n));
    }
    if solutions != NQ_KNOWN[n as usize] {
        return Some(format!("nqueens({}) = {}, want {}", n, solutions, NQ_KNOWN[n as usize]));
    }
    let full = (1u32 << n) - 1;
    let want = nq_nodes(full, 0, 0, 0);
    if nodes != want {
        return Some(format!("nqueens({}) polled {} boards, want {}", n, nodes, want));
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
