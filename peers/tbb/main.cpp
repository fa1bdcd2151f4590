// peer-tbb: the harness's fork-join workloads on oneTBB (Debian's 2021
// release), a work-stealing runtime the harness has no model of, measured
// beside the models as an outside reference. fib spawns both children
// into a task_group at every node and waits; spawn-many runs n tasks of a
// task_group from inside the arena (from=0) or enqueues each into the arena
// from the main thread (from=1). Speaks the peer protocol of
// peers/README.md: a header line, then one JSON line per trial.
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>
#include <oneapi/tbb/version.h>

#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

using params = std::map<std::string, uint64_t>;

[[noreturn]] static void fail(const std::string &msg)
{
	std::fprintf(stderr, "peer-tbb: %s\n", msg.c_str());
	std::exit(2);
}

static uint64_t fib_serial(uint64_t n)
{
	uint64_t a = 0, b = 1;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t t = a + b;
		a = b;
		b = t;
	}
	return a;
}

// One node of fib(n): a leaf below 2, else both children as tasks of a
// task_group, then a wait (the waiting thread runs or steals meanwhile).
static void fib(uint64_t n, uint64_t *res, uint64_t *nodes)
{
	if (n < 2) {
		*res = n;
		*nodes = 1;
		return;
	}
	uint64_t r[2], c[2];
	tbb::task_group g;
	g.run([&] { fib(n - 1, &r[0], &c[0]); });
	g.run([&] { fib(n - 2, &r[1], &c[1]); });
	g.wait();
	*res = r[0] + r[1];
	*nodes = c[0] + c[1] + 1;
}

static uint64_t run_fib(tbb::task_arena &arena, const params &p, std::string &why)
{
	uint64_t n = p.at("n"), v = 0, nodes = 0;
	arena.execute([&] { fib(n, &v, &nodes); });
	if (v != fib_serial(n))
		why = "fib(" + std::to_string(n) + ") = " + std::to_string(v) + ", want " +
		      std::to_string(fib_serial(n));
	else if (nodes != 2 * fib_serial(n + 1) - 1)
		why = "fib(" + std::to_string(n) + ") ran " + std::to_string(nodes) + " nodes";
	return nodes;
}

// nqueens's known answers, N = 0..14 (workloads/nqueens.c).
static const uint64_t nq_known[15] = { 0, 1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712,
				       365596 };

// The boards of the task tree, as workloads/nqueens.c counts them.
static uint64_t nq_nodes(uint32_t full, uint32_t cols, uint32_t left, uint32_t right)
{
	uint64_t nodes = 1;
	if (cols == full)
		return nodes;
	for (uint32_t free = full & ~(cols | left | right); free;) {
		uint32_t bit = free & -free;
		free ^= bit;
		nodes += nq_nodes(full, cols | bit, (left | bit) << 1, (right | bit) >> 1);
	}
	return nodes;
}

// One board (every board a task, workloads/nqueens.c with cutoff 0): a
// task_group with one task per free column of the next row, then a wait.
static void nq(uint32_t full, uint32_t cols, uint32_t left, uint32_t right, uint64_t *sol,
	       uint64_t *nodes)
{
	if (cols == full) {
		*sol = *nodes = 1;
		return;
	}
	uint64_t s[32] = { 0 }, c[32] = { 0 };
	int k = 0;
	tbb::task_group g;
	for (uint32_t free = full & ~(cols | left | right); free; k++) {
		uint32_t bit = free & -free;
		free ^= bit;
		g.run([=, &s, &c] { nq(full, cols | bit, (left | bit) << 1, (right | bit) >> 1, &s[k], &c[k]); });
	}
	g.wait();
	*sol = 0;
	*nodes = 1;
	for (int j = 0; j < k; j++) {
		*sol += s[j];
		*nodes += c[j];
	}
}

static uint64_t run_nqueens(tbb::task_arena &arena, const params &p, std::string &why)
{
	uint64_t n = p.at("n"), sol = 0, nodes = 0;
	if (n < 1 || n > 14) {
		why = "nqueens: n " + std::to_string(n) + " is not 1..14";
		return 0;
	}
	uint32_t full = (1u << n) - 1;
	arena.execute([&] { nq(full, 0, 0, 0, &sol, &nodes); });
	if (sol != nq_known[n])
		why = "nqueens(" + std::to_string(n) + ") = " + std::to_string(sol) + ", want " +
		      std::to_string(nq_known[n]);
	else if (nodes != nq_nodes(full, 0, 0, 0))
		why = "nqueens(" + std::to_string(n) + ") polled " + std::to_string(nodes) + " boards";
	return nodes;
}

static void spin(uint64_t ns)
{
	if (!ns)
		return;
	auto end = std::chrono::steady_clock::now() + std::chrono::nanoseconds(ns);
	while (std::chrono::steady_clock::now() < end) {
	}
}

static uint64_t run_spawn_many(tbb::task_arena &arena, const params &p, std::string &why)
{
	uint64_t n = p.at("n"), work = p.at("work_ns");
	std::vector<std::atomic<uint32_t>> slots(n);
	for (auto &s : slots)
		s.store(0, std::memory_order_relaxed);
	if (p.at("from") == 0) {
		arena.execute([&] {
			tbb::task_group g;
			for (uint64_t i = 0; i < n; i++)
				g.run([&, i] {
					spin(work);
					slots[i].fetch_add(1, std::memory_order_relaxed);
				});
			g.wait();
		});
	} else {
		std::atomic<uint64_t> left{ n };
		std::mutex m;
		std::condition_variable cv;
		bool done = false;
		for (uint64_t i = 0; i < n; i++)
			arena.enqueue([&, i] {
				spin(work);
				slots[i].fetch_add(1, std::memory_order_relaxed);
				// acq_rel: the last decrement sees every other task's slot write.
				if (left.fetch_sub(1, std::memory_order_acq_rel) == 1) {
					std::lock_guard<std::mutex> l(m);
					done = true;
					cv.notify_one();
				}
			});
		std::unique_lock<std::mutex> l(m);
		cv.wait(l, [&] { return done; });
	}
	for (uint64_t i = 0; i < n; i++)
		if (slots[i].load(std::memory_order_relaxed) != 1) {
			why = "spawn-many: task " + std::to_string(i) + " ran " +
			      std::to_string(slots[i].load()) + " times";
			break;
		}
	return n;
}

static void cpu_ns(uint64_t *user, uint64_t *sys)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	*user = ru.ru_utime.tv_sec * 1000000000ull + ru.ru_utime.tv_usec * 1000ull;
	*sys = ru.ru_stime.tv_sec * 1000000000ull + ru.ru_stime.tv_usec * 1000ull;
}

int main(int argc, char **argv)
{
	std::string wl;
	long workers = 1, trials = 5, warmup = 1;
	std::vector<std::string> sets;
	for (int i = 1; i < argc; i += 2) {
		if (i + 1 >= argc)
			fail(std::string(argv[i]) + " needs a value");
		std::string a = argv[i], v = argv[i + 1];
		char *end;
		long num = std::strtol(v.c_str(), &end, 10);
		bool isnum = !v.empty() && *end == '\0';
		if (a == "--workload")
			wl = v;
		else if (a == "--param")
			sets.push_back(v);
		else if (!isnum)
			fail(a + ": '" + v + "' is not a number");
		else if (a == "--workers")
			workers = num;
		else if (a == "--trials")
			trials = num;
		else if (a == "--warmup")
			warmup = num;
		else
			fail("unknown option " + a);
	}
	params p;
	if (wl == "fib")
		p = { { "n", 30 } };
	else if (wl == "spawn-many")
		p = { { "n", 10000 }, { "work_ns", 0 }, { "from", 0 } };
	else if (wl == "nqueens")
		p = { { "n", 13 } };
	else	// oneTBB has no async tasks: its fork-join shapes and spawn-many only
		fail("no workload '" + wl + "' (valid: fib, spawn-many, nqueens)");
	if (workers < 1 || workers > 1024 || trials < 1 || warmup < 0)
		fail("bad --workers, --trials or --warmup");
	for (auto &s : sets) {
		auto eq = s.find('=');
		if (eq == std::string::npos || !p.count(s.substr(0, eq)))
			fail("workload " + wl + " has no parameter '" + s + "'");
		char *end;
		std::string v = s.substr(eq + 1);
		unsigned long long x = std::strtoull(v.c_str(), &end, 10);
		if (v.empty() || *end || v[0] == '-')
			fail("parameter " + s.substr(0, eq) + ": '" + v + "' is not a non-negative integer");
		p[s.substr(0, eq)] = x;
	}
	// workers slots, one of them the main thread's (execute joins the arena).
	tbb::task_arena arena((int)workers, 1);
	std::printf("{\"peer\":\"tbb\",\"runtime\":\"oneTBB\",\"version\":\"%s\",\"workload\":\"%s\","
		    "\"workers\":%ld,\"params\":{",
		    TBB_VERSION_STRING, wl.c_str(), workers);
	const char *sep = "";
	for (auto &kv : p) {
		std::printf("%s\"%s\":%llu", sep, kv.first.c_str(), (unsigned long long)kv.second);
		sep = ",";
	}
	std::printf("},\"counters_available\":false}\n");
	for (long t = 0; t < warmup + trials; t++) {
		std::string why;
		uint64_t u0, s0, u1, s1;
		cpu_ns(&u0, &s0);
		auto t0 = std::chrono::steady_clock::now();
		uint64_t tasks = wl == "fib"       ? run_fib(arena, p, why)
				 : wl == "nqueens" ? run_nqueens(arena, p, why)
						   : run_spawn_many(arena, p, why);
		auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
				  std::chrono::steady_clock::now() - t0)
				  .count();
		cpu_ns(&u1, &s1);
		std::printf("{\"trial\":%ld,\"warmup\":%s,\"ns\":%lld,\"tasks\":%llu,\"verified\":%s,%s%s%s"
			    "\"cpu_user_ns\":%llu,\"cpu_sys_ns\":%llu,\"counters\":{}}\n",
			    t, t < warmup ? "true" : "false", (long long)ns, (unsigned long long)tasks,
			    why.empty() ? "true" : "false", why.empty() ? "" : "\"why\":\"",
			    why.c_str(), why.empty() ? "" : "\",", (unsigned long long)(u1 - u0),
			    (unsigned long long)(s1 - s0));
		std::fflush(stdout);
		if (!why.empty())
			return 1;
	}
	return 0;
}
