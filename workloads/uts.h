/*
 * uts.h - the splittable random number generator of the Unbalanced Tree
 * Search benchmark (Olivier et al., LCPC 2006), as the UTS reference code
 * defines it on top of SHA-1:
 *
 *   root state    SHA1(16 zero bytes || seed, 4 bytes big-endian)
 *   child i       SHA1(parent state, 20 bytes || i, 4 bytes big-endian)
 *   rand          big-endian u32 of state bytes 16..19, masked 0x7fffffff
 *   probability   rand / 2^31
 *
 * Exposed for tests that check the generator against known vectors.
 */
#ifndef HARNESS_WORKLOADS_UTS_H
#define HARNESS_WORKLOADS_UTS_H

#include <stdint.h>

#define UTS_STATE_BYTES 20

void uts_rng_root(uint8_t out[UTS_STATE_BYTES], uint32_t seed);
void uts_rng_child(const uint8_t parent[UTS_STATE_BYTES], uint32_t i,
		   uint8_t out[UTS_STATE_BYTES]);

static inline uint32_t uts_rng_rand(const uint8_t s[UTS_STATE_BYTES])
{
	uint32_t b = (uint32_t)s[16] << 24 | (uint32_t)s[17] << 16 | (uint32_t)s[18] << 8 |
		     (uint32_t)s[19];
	return b & 0x7fffffffu;
}

static inline double uts_rng_prob(const uint8_t s[UTS_STATE_BYTES])
{
	return (double)uts_rng_rand(s) / 2147483648.0;
}

#endif
