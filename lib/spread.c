/*
 * spread: which host each boot runs on, balanced per variant and in all,
 * in a seeded random order (spread.h, docs/guests.md "Several hosts").
 */
#include "spread.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "matrix.h"
#include "mem.h"
#include "rng.h"
#include "banned.h"

struct kb_spread {
	size_t nvariants, nhosts;
	uint64_t seed;
	unsigned *count;     /* [variant * nhosts + host]: boots there */
	unsigned *load;      /* [host]: boots there, all variants */
	unsigned char *live; /* [host] */
	unsigned char *rank; /* [variant * nhosts + host]: its place in the
			      * variant's random order; 0: not drawn yet */
};

struct kb_spread *kb_spread_new(size_t nvariants, size_t nhosts,
				uint64_t seed)
{
	struct kb_spread *sp = kb_calloc(1, sizeof(*sp));
	size_t cells;

	if (nhosts > KB_SPREAD_MAX_HOSTS)
		nhosts = KB_SPREAD_MAX_HOSTS;
	if (!nhosts)
		nhosts = 1;
	cells = (nvariants ? nvariants : 1) * nhosts;
	sp->nvariants = nvariants;
	sp->nhosts = nhosts;
	sp->seed = seed;
	sp->count = kb_calloc(cells, sizeof(*sp->count));
	sp->rank = kb_calloc(cells, 1);
	sp->load = kb_calloc(nhosts, sizeof(*sp->load));
	sp->live = kb_calloc(nhosts, 1);
	memset(sp->live, 1, nhosts);
	return sp;
}

void kb_spread_free(struct kb_spread *sp)
{
	if (!sp)
		return;
	free(sp->count);
	free(sp->rank);
	free(sp->load);
	free(sp->live);
	free(sp);
}

void kb_spread_grow(struct kb_spread *sp, size_t nvariants)
{
	size_t had = (sp->nvariants ? sp->nvariants : 1) * sp->nhosts;
	size_t cells = nvariants * sp->nhosts;

	if (nvariants <= sp->nvariants)
		return;
	if (cells > had) {
		sp->count = kb_reallocarray(sp->count, cells,
					    sizeof(*sp->count));
		sp->rank = kb_reallocarray(sp->rank, cells, 1);
		memset(sp->count + had, 0, (cells - had) * sizeof(*sp->count));
		memset(sp->rank + had, 0, cells - had);
	}
	sp->nvariants = nvariants;
}

void kb_spread_count(struct kb_spread *sp, size_t variant, size_t host)
{
	if (variant >= sp->nvariants || host >= sp->nhosts)
		return;
	sp->count[variant * sp->nhosts + host]++;
	sp->load[host]++;
}

/* The variant's random order of the hosts, drawn once: rank 1 first. */
static const unsigned char *ranks(struct kb_spread *sp, size_t variant)
{
	unsigned char *r = sp->rank + variant * sp->nhosts;
	unsigned char order[KB_SPREAD_MAX_HOSTS];
	struct kb_rng rng;
	size_t i, j;

	if (r[0])
		return r;
	for (i = 0; i < sp->nhosts; i++)
		order[i] = (unsigned char)i;
	/* Fisher-Yates */
	kb_rng_init(&rng, kb_rng_seed_from(sp->seed, "spread", variant, 0));
	for (i = sp->nhosts; i > 1; i--) {
		unsigned char t;

		j = (size_t)kb_rng_below(&rng, i);
		t = order[i - 1];
		order[i - 1] = order[j];
		order[j] = t;
	}
	for (i = 0; i < sp->nhosts; i++)
		r[order[i]] = (unsigned char)(i + 1);
	return r;
}

size_t kb_spread_pick(struct kb_spread *sp, size_t variant)
{
	const unsigned char *rank;
	const unsigned *count;
	size_t h, best = (size_t)-1;

	if (variant >= sp->nvariants)
		return best;
	rank = ranks(sp, variant);
	count = sp->count + variant * sp->nhosts;
	for (h = 0; h < sp->nhosts; h++) {
		if (!sp->live[h])
			continue;
		if (best == (size_t)-1 || count[h] < count[best] ||
		    (count[h] == count[best] &&
		     (sp->load[h] < sp->load[best] ||
		      (sp->load[h] == sp->load[best] &&
		       rank[h] < rank[best]))))
			best = h;
	}
	if (best != (size_t)-1)
		kb_spread_count(sp, variant, best);
	return best;
}

void kb_spread_drain(struct kb_spread *sp, size_t host)
{
	if (host < sp->nhosts)
		sp->live[host] = 0;
}

int kb_spread_live(const struct kb_spread *sp, size_t host)
{
	return host < sp->nhosts && sp->live[host];
}

size_t kb_spread_nlive(const struct kb_spread *sp)
{
	size_t h, n = 0;

	for (h = 0; h < sp->nhosts; h++)
		n += sp->live[h];
	return n;
}

uint64_t kb_spread_seed(const char *matrix_text)
{
	return kb_rng_seed_from(0, matrix_text, 0, 0);
}

/*
 * Whether host name @h (@n bytes, no port, brackets taken off) is this
 * machine: "localhost" (and its ".localdomain"), an address of
 * 127.0.0.0/8, "::1", or the machine's own name.
 */
static int local_name(const char *h, size_t n)
{
	char self[256];
	size_t i, dots = 0;

	if ((n == 9 && !strncasecmp(h, "localhost", 9)) ||
	    (n == 21 && !strncasecmp(h, "localhost.localdomain", 21)) ||
	    (n == 3 && !strncmp(h, "::1", 3)) ||
	    (n == 15 && !strncasecmp(h, "0:0:0:0:0:0:0:1", 15)))
		return 1;
	if (n >= 4 && !strncmp(h, "127.", 4)) {
		/* 127.D.D.D: every address of the loopback net */
		for (i = 0; i < n; i++) {
			if (h[i] == '.')
				dots++;
			else if (h[i] < '0' || h[i] > '9')
				break;
		}
		if (i == n && dots == 3)
			return 1;
	}
	if (gethostname(self, sizeof(self)) == 0) {
		self[sizeof(self) - 1] = 0;
		if (strlen(self) == n && !strncasecmp(h, self, n))
			return 1;
	}
	return 0;
}

int kb_spread_uri_remote(const char *uri)
{
	const char *p = uri ? strstr(uri, "://") : NULL;
	const char *plus, *h, *end, *at;
	size_t n;

	/* qemu+ssh://host/system names one; qemu:///system, test:///default
	 * are this machine's (or no machine's) */
	if (!p || !p[3] || p[3] == '/')
		return 0;
	/* a local socket is this machine's, whatever name follows */
	plus = memchr(uri, '+', (size_t)(p - uri));
	if (plus && (size_t)(p - plus) == 5 && !strncmp(plus, "+unix", 5))
		return 0;
	h = p + 3;
	end = h + strcspn(h, "/?#");
	/* [user@]host[:port], host maybe [an IPv6 address] */
	for (at = end; at > h && at[-1] != '@'; at--)
		;
	if (at > h)
		h = at;
	if (*h == '[') {
		const char *close = memchr(h, ']', (size_t)(end - h));

		if (!close)
			return 1;
		h++;
		n = (size_t)(close - h);
	} else {
		const char *colon = memchr(h, ':', (size_t)(end - h));

		n = (size_t)((colon ? colon : end) - h);
	}
	return n && !local_name(h, n);
}

int kb_spread_overlap(const struct kb_matrix *m, int model)
{
	size_t i;

	switch (kb_matrix_build(m)->overlap) {
	case KB_OVERLAP_YES:
		return 1;
	case KB_OVERLAP_NO:
		return 0;
	case KB_OVERLAP_AUTO:
		break;
	}
	if (model)
		return 1;
	for (i = 0; i < kb_matrix_nhosts(m); i++)
		if (!kb_spread_uri_remote(kb_matrix_host(m, i)->uri))
			return 0;
	return 1;
}

char *kb_spread_strike(unsigned *streak, char **last, const char *uri,
		       const char *reason, unsigned after)
{
	free(*last);
	*last = kb_strdup(reason ? reason : "unknown");
	++*streak;
	if (*streak < (after ? after : KB_SPREAD_DRAIN_AFTER))
		return NULL;
	return kb_asprintf("host %s drained after %u infrastructure failures: %s",
			   uri, *streak, *last);
}
