#ifndef KB_SPREAD_H
#define KB_SPREAD_H

#include <stddef.h>
#include <stdint.h>

struct kb_matrix;

/*
 * The spread: which host of a matrix's hosts: list each boot runs on
 * (docs/guests.md, "Several hosts").  The host is a blocking factor of
 * the experiment: so that it never stands in for a variant, every
 * variant's boots are spread over every host as evenly as the counts
 * allow, and the hosts' totals too; which boot goes where is drawn from
 * a seeded stream, so that a slow or a drifting host is not always the
 * one that runs a variant's first boots.
 *
 * A boot's host is the live host with the fewest boots of its variant,
 * then the fewest boots in all, then the first in a random order of the
 * hosts drawn for the variant (kb_rng_seed_from(seed, "spread",
 * variant, 0)).  Boots already run, or already given a host, are counted
 * first (kb_spread_count()), so that a resumed experiment or the boots
 * of a drained host are spread over what each variant has already.  The
 * same seed, counts and calls give the same hosts on every machine.
 *
 * Not thread-safe: one caller at a time.
 */

#define KB_SPREAD_MAX_HOSTS 64

/* Boot failures of a host's own in a row that drain it (default). */
#define KB_SPREAD_DRAIN_AFTER 3
/* The seconds a host that failed a boot waits before its next one,
 * doubled for each failure in a row (1 s, 2 s: a host is drained after
 * 3 failures over 3 s at least, not in the same second) */
#define KB_SPREAD_RETRY_S 1.0

/*
 * Count one failure of a host's own, for @reason (NULL: "unknown"):
 * *@streak grows by one and *@last (owned, replaced) keeps the reason.
 * Returns, once *@streak reached @after (0: KB_SPREAD_DRAIN_AFTER), what
 * to say as the host @uri is drained, "host URI drained after N
 * infrastructure failures: LAST" (caller frees), else NULL.  The caller
 * resets *@streak on a boot that ends.  Shared by run's engine and the
 * one-boot-at-a-time executor, so both drain by one rule.
 */
char *kb_spread_strike(unsigned *streak, char **last, const char *uri,
		       const char *reason, unsigned after);

struct kb_spread;

/*
 * A spread of the boots of @nvariants variants over @nhosts hosts (1 to
 * KB_SPREAD_MAX_HOSTS), all live, seeded with @seed.  Caller frees with
 * kb_spread_free().
 */
struct kb_spread *kb_spread_new(size_t nvariants, size_t nhosts,
				uint64_t seed);
void kb_spread_free(struct kb_spread *sp);

/*
 * Make room for the boots of variants 0 to @nvariants - 1, when the spread
 * has fewer (variants added as they come: a bisection's probes); the new
 * ones have no boots.  The others keep their counts and orders.
 */
void kb_spread_grow(struct kb_spread *sp, size_t nvariants);

/* Count a boot of variant @variant on host @host (already run or given). */
void kb_spread_count(struct kb_spread *sp, size_t variant, size_t host);

/*
 * The host for the next boot of @variant, counted; or (size_t)-1 when no
 * host is live.
 */
size_t kb_spread_pick(struct kb_spread *sp, size_t variant);

/* Take host @host out (drained): it is picked no more. */
void kb_spread_drain(struct kb_spread *sp, size_t host);

/* Whether host @host is live; how many are. */
int kb_spread_live(const struct kb_spread *sp, size_t host);
size_t kb_spread_nlive(const struct kb_spread *sp);

/*
 * The seed of an experiment's spread: from the text of its matrix, so
 * that `run`, `resume` and the daemon spread one matrix alike.
 */
uint64_t kb_spread_seed(const char *matrix_text);

/*
 * Whether kernel builds run while guests boot (builds overlap boots), for
 * matrix @m on the model (@model) or on real guests: build.overlap when
 * the matrix sets it; else yes for the model and when every host is
 * another machine (its URI names a host), no when a guest boots on this
 * machine, whose cores a build takes from timed guests.
 */
int kb_spread_overlap(const struct kb_matrix *m, int model);

/*
 * Whether libvirt URI @uri names another machine: DRIVER[+T]://HOST/...
 * with HOST neither this machine's name, "localhost", a loopback
 * address (127.0.0.0/8, ::1; a port or a user does not change that), nor
 * behind the local socket transport (+unix).
 */
int kb_spread_uri_remote(const char *uri);

#endif
