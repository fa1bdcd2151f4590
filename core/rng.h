/*
 * rng.h - the per-worker PRNG: xorshift on two 32-bit words with shift
 * triplet (17, 7, 16), the generator Tokio and Volt use for victim choice,
 * and Lemire's multiply-shift reduction to [0, n) without a division.
 * (Lemire, "Fast Random Integer Generation in an Interval", TOMACS 2019.
 * Without the rejection step the bias is below n / 2^32, far under what a
 * victim choice can notice.)
 */
#ifndef HARNESS_CORE_RNG_H
#define HARNESS_CORE_RNG_H

#include <stdint.h>

struct rng {
	uint32_t one, two;
};

/* splitmix64: spreads a (seed, stream) pair over the whole state. */
static inline uint64_t rng_mix64(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ull;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

static inline void rng_seed(struct rng *r, uint64_t seed, uint64_t stream)
{
	uint64_t s = rng_mix64(seed ^ rng_mix64(stream + 1));
	r->one = (uint32_t)(s >> 32);
	r->two = (uint32_t)s;
	if (r->one == 0 && r->two == 0)	/* the one state xorshift never leaves */
		r->two = 1;
}

static inline uint32_t rng_next(struct rng *r)
{
	uint32_t s1 = r->one;
	uint32_t s0 = r->two;
	s1 ^= s1 << 17;
	s1 = s1 ^ s0 ^ (s1 >> 7) ^ (s0 >> 16);
	r->one = s0;
	r->two = s1;
	return s0 + s1;
}

/* Uniform in [0, n), n >= 1. */
static inline uint32_t rng_below(struct rng *r, uint32_t n)
{
	return (uint32_t)(((uint64_t)rng_next(r) * n) >> 32);
}

#endif
