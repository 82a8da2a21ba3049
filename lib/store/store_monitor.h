#ifndef KB_STORE_MONITOR_H
#define KB_STORE_MONITOR_H

/*
 * The guest's monitors of each boot (lib/store/store_monitor.c,
 * db/0017; lib/monitor.h), stored with the boot (kb_store_boot_put()).
 */

#include <stddef.h>
#include <stdint.h>

#include "monitor.h"

struct kb_err;
struct kb_store;

/* The monitors of one variant's boots, per boot (owned). */
struct kb_store_monitors {
	size_t n;
	struct kb_monitor_row *rows; /* names owned, by boot then name */
	size_t nboots;               /* ok boots with monitors */
};
void kb_store_monitors_release(struct kb_store_monitors *m);

/*
 * The monitors of the ok boots of variant @variant_idx of experiment
 * @exp into *@out: each boot's mean of each guest monitor over the runs
 * (run 1, 2, ...) that stored monitors (a run lacking one counts 0), and
 * each host monitor (run 0, host.*: one value over the boot) as it is.
 * None on a schema older than 17.  Returns 0 or KB_EFAIL; release *@out
 * either way.
 */
int kb_store_monitors(struct kb_store *s, int64_t exp, unsigned variant_idx,
		      struct kb_store_monitors *out, struct kb_err *err);

#endif
