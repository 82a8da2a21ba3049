#ifndef KBISECT_CMD_MONITORS_H
#define KBISECT_CMD_MONITORS_H

#include <stdint.h>

struct kb_err;
struct kb_json;
struct kb_store;

/*
 * The changed monitors of variants @ia and @ib of experiment @exp
 * (lib/monitor.h, kb_monitor_compare() at @alpha), as `compare` shows
 * them beside its verdicts: into @j as "monitors" when @j is not NULL,
 * else printed, LKP's way (%change between the two means, each with its
 * ±%stddev), when either variant has boots with monitors.  Returns 0 or
 * the store's error.
 */
int cmd_compare_monitors(struct kb_store *s, int64_t exp, int ia, int ib,
			 double alpha, struct kb_json *j, struct kb_err *err);

#endif
