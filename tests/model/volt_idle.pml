/*
 * volt_idle.pml - a Promela model of volt's sleep protocol (core/idle.c,
 * core/runtime.c rt_idle_notify and rt_idle_unparked, policies/volt.c
 * volt_park and leave_searching), checked with spin by
 * tests/model/run_spin.sh (ctest volt_idle_model). README.md beside it
 * gives the step-by-step correspondence to the C code and what each run
 * proves.
 *
 * N workers, P publishers each injecting one task from outside the workers
 * (volt_schedule_remote: the global queue, then the notify), and at most
 * TMO park timeouts in the whole run. Every Promela statement is one
 * atomic step and interleavings are sequentially consistent: what the
 * protocol's seq_cst RMWs and its two seq_cst fences give the locations
 * involved. A C statement doing two shared loads is two steps here; d_step
 * blocks hold only one shared access, or purely local work.
 *
 * -DDEFECT     the timeout path of Volt's code: test the parked bit, then
 *              clear it and decrement num_parked without looking at either
 *              previous value (volt-timeout-race)
 * -DSKIP_LAST  the last searcher neither notifies nor re-checks
 *              (volt-broken)
 * -DNO_UNDO_RECHECK  a claimer that lost its race and undid the last
 *              searcher count gives up on its stale copy of the bitmap
 *              (the protocol before the fix in core/idle.c claim)
 * -DLIVENESS   adds the claim <> (executed == P)
 */
#ifndef N
#define N 3
#endif
#ifndef P
#define P 2
#endif
#ifndef TMO
#define TMO 1
#endif

#define BIT(i) (1 << (i))

byte q = 0;			/* tasks in the global queue */
byte executed = 0;		/* tasks run */
byte num_searching = 0;
byte num_parked = 0;
byte bm = 0;			/* the parked bitmap, bit i = worker i */
byte permit = 0;		/* bit i: an unpark worker i has not consumed */
byte tmo = TMO;			/* park timeouts left */

/* c = the lowest set bit of x, N if none (pick_lowest: count trailing
 * zeros). Local. */
inline lowest(x, c)
{
	c = 0;
	do
	:: c < N && !(x & BIT(c)) -> c++
	:: else -> break
	od;
	skip	/* the break's target, inside the caller's d_step */
}

/*
 * rt_idle_notify after the publisher's fence: if nobody searches and
 * somebody is parked (idle_should_wake: two loads), claim the lowest
 * parked worker (claim in core/idle.c) and unpark it.
 */
inline notify(c, prev, s)
{
	s = (num_searching == 0);
	if
	:: s && num_parked > 0 ->
		d_step { prev = bm; lowest(prev, c); prev = 0 };
		do
		:: c < N ->
			num_searching++;	/* counted before the bit is taken */
			d_step { prev = bm; bm = bm & ~BIT(c) };	/* fetch_and */
			if
			:: prev & BIT(c) ->
				d_step { assert(num_parked > 0); num_parked--; prev = 0 };
				permit = permit | BIT(c);	/* rt_idle_unpark */
				break
			:: else ->
				/* lost the race: undo the count; the next bit of
				 * what the fetch_and returned, or, if that undo
				 * left nobody searching, of a fresh load (others
				 * stayed quiet on our count) */
				d_step { assert(num_searching > 0); s = (num_searching == 1); num_searching-- };
#ifndef NO_UNDO_RECHECK
				if
				:: s -> d_step { prev = bm; lowest(prev, c); prev = 0; s = 0 }
				:: else -> d_step { prev = prev & ~BIT(c); lowest(prev, c); prev = 0 }
				fi
#else
				d_step { prev = prev & ~BIT(c); lowest(prev, c); prev = 0; s = 0 }
#endif
			fi
		:: else -> break
		od
	:: else -> skip
	fi;
	/* Temporaries back to 0: states that differ only in them merge. */
	atomic { c = 0; prev = 0; s = 0 }
}

proctype publisher()
{
	byte c, prev, s;
	q++;				/* inject_push */
	notify(c, prev, s)
}

proctype worker(byte id)
{
	bool searching = 0, last = 0, wake = 0, parking = 0;
	byte c, prev, s;
loop:
	/* The one notify site: the last searcher that found work, and the
	 * parking worker's re-check (then it goes on to sleep). */
	if
	:: wake -> notify(c, prev, s); wake = 0
	:: else -> skip
	fi;
	if
	:: parking -> parking = 0; goto endpark
	:: else -> skip
	fi;
	if
	:: atomic { q > 0 -> q--; executed++ };	/* find_work: a global task */
		if
		:: searching ->
			/* leave_searching: the last searcher notifies */
			searching = 0;
			d_step { assert(num_searching > 0); last = (num_searching == 1); num_searching-- };
#ifndef SKIP_LAST
			wake = last;
#endif
			last = 0
		:: else -> skip
		fi
	:: q == 0 ->
		/* find_work found nothing: the steal step's searcher entry
		 * (idle_try_become_searcher: load, then add; soft cap 1/2) */
		if
		:: !searching ->
			s = (2 * num_searching < N);
			if
			:: s -> num_searching++; searching = 1
			:: else -> skip
			fi;
			s = 0
		:: else -> skip
		fi;
		/* volt_park */
		if
		:: q > 0 -> skip	/* the re-check found work: do not park */
		:: else ->
			/* idle_mark_parked */
			num_parked++;
			bm = bm | BIT(id);
			if
			:: searching ->
				d_step { assert(num_searching > 0); last = (num_searching == 1); num_searching-- }
			:: else -> skip
			fi;
			searching = 0;
#ifndef SKIP_LAST
			/* idle_fence_recheck, then the last searcher (or any
			 * worker while nobody searches) re-checks the queues */
			wake = last || num_searching == 0;
			wake = wake && q > 0;
#endif
			last = 0;
			parking = 1
		fi
	fi;
	goto loop;

	/* the engine's park: an unpark, or a timeout */
endpark:
	if
	:: d_step { permit & BIT(id) -> permit = permit & ~BIT(id) }
	:: d_step { tmo > 0 -> tmo-- }
	fi;
#ifdef DEFECT
	/* Scheduler.zig parkWorker: isWorkerParked, then on a set bit
	 * fetchAnd and fetchSub, unchecked */
	if
	:: bm & BIT(id) ->
		bm = bm & ~BIT(id);
		d_step { assert(num_parked > 0); num_parked-- }
	:: else -> searching = 1
	fi;
#else
	/* rt_idle_unparked -> idle_wake_was_claim */
	d_step { prev = bm; bm = bm & ~BIT(id) };
	if
	:: !(prev & BIT(id)) -> searching = 1	/* claimed: counted */
	:: else -> d_step { assert(num_parked > 0); num_parked-- }
	fi;
	prev = 0;
#endif
	goto loop
}

/* Nobody can move (every worker parked for good, the publishers done):
 * fine only once every task ran. */
active proctype deadlock_check()
{
	timeout -> assert(executed == P && q == 0)
}

init
{
	byte i;
	atomic {
		i = 0;
		do
		:: i < N -> run worker(i); i++
		:: else -> break
		od;
		i = 0;
		do
		:: i < P -> run publisher(); i++
		:: else -> break
		od
	}
}

#ifdef LIVENESS
ltl all_run { <> (executed == P) }
#endif
