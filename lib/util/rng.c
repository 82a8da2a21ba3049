#include "rng.h"

#include <math.h>
#include <stddef.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "banned.h"

#define GOLDEN 0x9e3779b97f4a7c15ULL
#define FNV_OFFSET 0xcbf29ce484222325ULL
#define FNV_PRIME 0x100000001b3ULL
#define TWO_PI 6.283185307179586476925286766559

/* The splitmix64 finaliser: a bijection on 64-bit words. */
static uint64_t mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t splitmix64(uint64_t *state)
{
	*state += GOLDEN;
	return mix(*state);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

void kb_rng_init(struct kb_rng *r, uint64_t seed)
{
	uint64_t state = seed;
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = splitmix64(&state);
	/* splitmix64 is a bijection, so four zero words cannot come out */
	r->have_spare = 0;
	r->spare = 0.0;
}

uint64_t kb_rng_next(struct kb_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

double kb_rng_uniform(struct kb_rng *r)
{
	/* (k + 0.5) / 2^53 for k in [0, 2^53): never 0, never 1 */
	return ((double)(kb_rng_next(r) >> 11) + 0.5) * 0x1.0p-53;
}

uint64_t kb_rng_below(struct kb_rng *r, uint64_t n)
{
	uint64_t threshold, x;

	if (n == 0)
		return 0;
	threshold = (0 - n) % n; /* 2^64 mod n */
	do
		x = kb_rng_next(r);
	while (x < threshold);
	return x % n;
}

double kb_rng_normal(struct kb_rng *r)
{
	double u1, u2, radius, angle;

	if (r->have_spare) {
		r->have_spare = 0;
		return r->spare;
	}
	u1 = kb_rng_uniform(r);
	u2 = kb_rng_uniform(r);
	radius = sqrt(-2.0 * log(u1));
	angle = TWO_PI * u2;
	r->spare = radius * sin(angle);
	r->have_spare = 1;
	return radius * cos(angle);
}

uint64_t kb_rng_seed_from(uint64_t seed, const char *label, uint64_t a,
			  uint64_t b)
{
	uint64_t h = FNV_OFFSET, out;
	const unsigned char *p;

	for (p = (const unsigned char *)(label ? label : ""); *p; p++)
		h = (h ^ *p) * FNV_PRIME;
	out = mix(seed + GOLDEN);
	out = mix((out ^ h) + GOLDEN);
	out = mix((out ^ a) + GOLDEN);
	out = mix((out ^ b) + GOLDEN);
	return out;
}

uint64_t kb_rng_seed_fresh(void)
{
	struct timespec ts = { 0, 0 };
	uint64_t v = 0;

	if (getrandom(&v, sizeof(v), 0) == (ssize_t)sizeof(v))
		return v;
	clock_gettime(CLOCK_REALTIME, &ts);
	return kb_rng_seed_from((uint64_t)ts.tv_sec, NULL,
				(uint64_t)ts.tv_nsec, (uint64_t)getpid());
}
