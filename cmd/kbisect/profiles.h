#ifndef KBISECT_CMD_PROFILES_H
#define KBISECT_CMD_PROFILES_H

#include <stddef.h>
#include <stdint.h>

struct kb_err;
struct kb_json;
struct kb_store;

/* Lines of changed functions printed; the rest are in --json. */
#define CMD_PROFILE_TOP 10

/*
 * The differential profile of variants @ia and @ib of experiment @exp
 * (lib/profile.h, kb_profile_compare() at @alpha), as `compare`, `why`
 * and `bisect options` show it after their verdicts: into @j as
 * "profile" when @j is not NULL (every changed function), else the top
 * CMD_PROFILE_TOP changed functions printed LKP's way, each side's mean
 * share with its ±%stddev, the change in points of share and its
 * interval, when either variant has boots with a profile.  Returns 0 or
 * the store's error.
 */
int cmd_compare_profiles(struct kb_store *s, int64_t exp, int ia, int ib,
			 double alpha, struct kb_json *j, struct kb_err *err);

/*
 * As cmd_compare_profiles(), saying what the two sides are: @a names
 * variant @ia and @b variant @ib (as "the good end (good.config)"), for
 * a caller whose variants are no matrix's, `bisect options` profiling
 * the culprits alone against the good end.  The text says "A = variant
 * N, @a; B = ..." under the profile line; JSON carries a_variant, a,
 * b_variant and b in "profile".  Nothing is printed without profiles.
 */
int cmd_compare_profiles_named(struct kb_store *s, int64_t exp, int ia,
			       const char *a, int ib, const char *b,
			       double alpha, struct kb_json *j,
			       struct kb_err *err);

#endif
