/*
 * The changed monitors beside compare's verdicts (monitors.h).
 */
#include "monitors.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "json.h"
#include "print.h"
#include "monitor.h"
#include "store_monitor.h"
#include "banned.h"

static void json_change(struct kb_json *j, const struct kb_monitor_change *c)
{
	kb_json_object_begin(j);
	kb_json_kv_string(j, "name", c->name);
	kb_json_kv_number(j, "a_mean", c->a.mean);
	kb_json_kv_number(j, "a_stddev_pct", 100 * fabs(c->a.cv));
	kb_json_kv_number(j, "b_mean", c->b.mean);
	kb_json_kv_number(j, "b_stddev_pct", 100 * fabs(c->b.cv));
	kb_json_kv_number(j, "change_pct", c->change_pct);
	kb_json_kv_number(j, "p", c->p);
	kb_json_kv_number(j, "p_holm", c->p_holm);
	kb_json_object_end(j);
}

int cmd_compare_monitors(struct kb_store *s, int64_t exp, int ia, int ib,
			 double alpha, struct kb_json *j, struct kb_err *err)
{
	struct kb_store_monitors ma, mb;
	struct kb_monitor_change *c = NULL;
	size_t n = 0, nchanged, tested, i;
	int ret;

	memset(&mb, 0, sizeof(mb));
	if ((ret = kb_store_monitors(s, exp, (unsigned)ia, &ma, err)) ||
	    (ret = kb_store_monitors(s, exp, (unsigned)ib, &mb, err)))
		goto out;
	nchanged = kb_monitor_compare(ma.rows, ma.n, mb.rows, mb.n, alpha, &c,
				      &n);
	tested = kb_monitor_tested(c, n);
	if (j) {
		kb_json_key(j, "monitors");
		kb_json_object_begin(j);
		kb_json_kv_int(j, "boots_a", (long long)ma.nboots);
		kb_json_kv_int(j, "boots_b", (long long)mb.nboots);
		kb_json_kv_int(j, "monitors", (long long)n);
		kb_json_kv_int(j, "tested", (long long)tested);
		kb_json_kv_string(j, "test", "welch-t");
		kb_json_kv_string(j, "adjust", "holm");
		kb_json_kv_number(j, "alpha", alpha);
		kb_json_key(j, "changed");
		kb_json_array_begin(j);
		for (i = 0; i < nchanged; i++)
			json_change(j, &c[i]);
		kb_json_array_end(j);
		kb_json_object_end(j);
		goto out;
	}
	if (!ma.nboots && !mb.nboots)
		goto out;
	printf("\nmonitors: %zu of %zu changed (Welch's t per monitor, Holm over the %zu tested, alpha %g; %zu vs %zu boots with monitors)\n",
	       nchanged, n, tested, alpha, ma.nboots, mb.nboots);
	if (!nchanged)
		goto out;
	printf("%14s %6s %11s %14s %6s   %s\n", "A mean", "±%sd", "%change",
	       "B mean", "±%sd", "monitor");
	for (i = 0; i < nchanged; i++) {
		char sa[CMD_SPREAD_LEN], sb[CMD_SPREAD_LEN];

		printf("%14.6g %6s %11s %14.6g %6s   %s\n", c[i].a.mean,
		       cmd_spread(sa, &c[i].a),
		       kb_format_pct(c[i].change_pct, 1).s, c[i].b.mean,
		       cmd_spread(sb, &c[i].b), c[i].name);
	}
out:
	free(c);
	kb_store_monitors_release(&ma);
	kb_store_monitors_release(&mb);
	return ret;
}
