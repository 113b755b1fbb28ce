/*
 * bench_keys.h - the benchmarks' keys: key i is splitmix64's output for state
 * seed + i * gamma, so distinct i give distinct keys (and runs repeat).
 */
#ifndef BENCH_KEYS_H
#define BENCH_KEYS_H

#include <stdint.h>

#define KEY_SEED    UINT64_C(0x0123456789abcdef)    /* fixed: runs are repeatable */

/*
 * The output function is a bijection and gamma is odd, so distinct i give
 * distinct keys: a benchmark takes present keys from one range of i and
 * absent ones from a disjoint range, and an "absent" key is never present.
 */
static inline uint64_t
key_at(uint64_t i)
{
	uint64_t	z = KEY_SEED + i * UINT64_C(0x9e3779b97f4a7c15);

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

#endif							/* BENCH_KEYS_H */
