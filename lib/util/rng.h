#ifndef KB_RNG_H
#define KB_RNG_H

#include <stdint.h>

/*
 * A small, reproducible pseudo-random number generator: xoshiro256**
 * (Blackman and Vigna, 2018) seeded through splitmix64, so that any 64-bit
 * seed, 0 included, gives a well-mixed state.  It is not cryptographic.
 *
 * Reproducibility is a promise: the same seed yields the same numbers on
 * every platform and in every version of kbisect, because stored
 * experiments (model runs, seeded bootstraps) are replayed from their
 * seeds.  Changing any algorithm here breaks that; don't.
 *
 * The state is a plain value: embed it, copy it, no allocation.  One
 * generator must not be shared between threads without a lock; give each
 * thread (or each independent stream) its own, seeded with
 * kb_rng_seed_from().
 */
struct kb_rng {
	uint64_t s[4];   /* xoshiro256** state, never all zero */
	int have_spare;  /* kb_rng_normal() holds a second deviate */
	double spare;    /* that deviate */
};

/* Seed @r from @seed: the four state words are splitmix64's first outputs. */
void kb_rng_init(struct kb_rng *r, uint64_t seed);

/* The next 64 random bits. */
uint64_t kb_rng_next(struct kb_rng *r);

/*
 * A uniform deviate in the open interval (0, 1): 53 random bits, centred
 * in their slot, so that neither 0 nor 1 can come out (safe for log()).
 */
double kb_rng_uniform(struct kb_rng *r);

/*
 * A uniform integer in [0, @n), without modulo bias (values below
 * 2^64 mod @n are rejected, as in OpenBSD's arc4random_uniform).  Returns
 * 0 when @n is 0.  For bootstrap resampling.
 */
uint64_t kb_rng_below(struct kb_rng *r, uint64_t n);

/*
 * A standard normal deviate (mean 0, standard deviation 1), by the
 * Box-Muller transform: each pair of uniforms gives two deviates, the
 * second kept for the next call.
 */
double kb_rng_normal(struct kb_rng *r);

/*
 * A stream seed derived from a master @seed, a @label (NULL counts as "")
 * and two numbers, e.g. (model seed, variant label, boot, run).  Each
 * input passes through the splitmix64 finaliser in turn, the label as its
 * 64-bit FNV-1a hash; for fixed other inputs, different @a (or @b) always
 * give different seeds.  Streams seeded this way do not depend on the
 * order in which they are drawn.
 */
uint64_t kb_rng_seed_from(uint64_t seed, const char *label, uint64_t a,
			  uint64_t b);

/*
 * A seed no run has had before: 64 bits from the kernel's random source
 * (getrandom(2)), or, where it has none, the clock and the pid mixed.
 * What is drawn from it is reproducible only by storing it.
 */
uint64_t kb_rng_seed_fresh(void);

#endif
