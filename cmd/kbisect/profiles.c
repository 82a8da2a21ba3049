/*
 * The differential profile beside the verdicts (profiles.h).
 */
#include "profiles.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "print.h"
#include "profile.h"
#include "store_profile.h"
#include "banned.h"

static void json_change(struct kb_json *j, const struct kb_profile_change *c)
{
	kb_json_object_begin(j);
	kb_json_kv_string(j, "function", c->func);
	kb_json_kv_number(j, "a_share_pct", c->a.mean);
	kb_json_kv_number(j, "a_stddev_pct", 100 * fabs(c->a.cv));
	kb_json_kv_number(j, "b_share_pct", c->b.mean);
	kb_json_kv_number(j, "b_stddev_pct", 100 * fabs(c->b.cv));
	kb_json_kv_number(j, "a_self_pct", c->self_a);
	kb_json_kv_number(j, "b_self_pct", c->self_b);
	kb_json_kv_number(j, "diff_pts", c->diff);
	kb_json_kv_number(j, "diff_low", c->lo);
	kb_json_kv_number(j, "diff_high", c->hi);
	kb_json_kv_number(j, "change_pct", c->change_pct);
	kb_json_kv_number(j, "p", c->p);
	kb_json_kv_number(j, "p_holm", c->p_holm);
	kb_json_object_end(j);
}

int cmd_compare_profiles(struct kb_store *s, int64_t exp, int ia, int ib,
			 double alpha, struct kb_json *j, struct kb_err *err)
{
	return cmd_compare_profiles_named(s, exp, ia, NULL, ib, NULL, alpha, j,
					  err);
}

int cmd_compare_profiles_named(struct kb_store *s, int64_t exp, int ia,
			       const char *a, int ib, const char *b,
			       double alpha, struct kb_json *j,
			       struct kb_err *err)
{
	struct kb_store_profiles pa, pb;
	struct kb_profile_change *c = NULL;
	size_t n = 0, nchanged, tested, i;
	int ret;

	memset(&pb, 0, sizeof(pb));
	if ((ret = kb_store_profiles(s, exp, (unsigned)ia, &pa, err)) ||
	    (ret = kb_store_profiles(s, exp, (unsigned)ib, &pb, err)))
		goto out;
	if (!pa.nboots && !pb.nboots)
		goto out;
	nchanged = kb_profile_compare(pa.rows, pa.n, pb.rows, pb.n, alpha, &c,
				      &n);
	tested = kb_profile_tested(c, n);
	if (j) {
		kb_json_key(j, "profile");
		kb_json_object_begin(j);
		kb_json_kv_int(j, "boots_a", (long long)pa.nboots);
		kb_json_kv_int(j, "boots_b", (long long)pb.nboots);
		kb_json_kv_int(j, "samples_a", (long long)pa.samples);
		kb_json_kv_int(j, "samples_b", (long long)pb.samples);
		kb_json_kv_int(j, "functions", (long long)n);
		kb_json_kv_int(j, "tested", (long long)tested);
		kb_json_kv_string(j, "test", "welch-t");
		kb_json_kv_string(j, "adjust", "holm");
		kb_json_kv_number(j, "alpha", alpha);
		if (a && b) {
			kb_json_kv_int(j, "a_variant", ia);
			kb_json_kv_string(j, "a", a);
			kb_json_kv_int(j, "b_variant", ib);
			kb_json_kv_string(j, "b", b);
		}
		kb_json_key(j, "changed");
		kb_json_array_begin(j);
		for (i = 0; i < nchanged; i++)
			json_change(j, &c[i]);
		kb_json_array_end(j);
		kb_json_object_end(j);
		goto out;
	}
	printf("\nprofile: %zu of %zu functions changed their share of the samples (Welch's t per function,\n"
	       "Holm over the %zu tested, alpha %g; %zu vs %zu boots with a profile, %llu vs %llu samples)\n",
	       nchanged, n, tested, alpha, pa.nboots, pb.nboots, pa.samples,
	       pb.samples);
	if (a && b)
		printf("A = variant %d, %s; B = variant %d, %s\n", ia, a, ib,
		       b);
	if (pa.nboots < 2 || pb.nboots < 2)
		printf("a side with fewer than 2 boots with a profile: nothing is tested; boot more (compare --adaptive, run)\n");
	if (!nchanged)
		goto out;
	printf("%8s %6s %8s %6s %22s   %s\n", "A share", "±%sd", "B share",
	       "±%sd", "change [95% interval]", "function");
	for (i = 0; i < nchanged && i < CMD_PROFILE_TOP; i++) {
		char sa[CMD_SPREAD_LEN], sb[CMD_SPREAD_LEN], ch[48];

		snprintf(ch, sizeof(ch), "%+.2f [%+.2f, %+.2f]", c[i].diff,
			 c[i].lo, c[i].hi);
		printf("%7.2f%% %6s %7.2f%% %6s %22s   %s\n", c[i].a.mean,
		       cmd_spread(sa, &c[i].a), c[i].b.mean,
		       cmd_spread(sb, &c[i].b), ch, c[i].func);
	}
	if (nchanged > CMD_PROFILE_TOP)
		printf("%zu more changed (%s--json lists them all)\n",
		       nchanged - CMD_PROFILE_TOP, a && b ? "" : "compare ");
	printf("shares are a function's samples on any stack (children included), in %% of a boot's; the change is in points, its interval unadjusted\n");
out:
	free(c);
	kb_store_profiles_release(&pa);
	kb_store_profiles_release(&pb);
	return ret;
}
