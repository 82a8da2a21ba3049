#ifndef KB_STORE_OWNER_H
#define KB_STORE_OWNER_H

/*
 * Who runs an experiment (lib/store/store_owner.c, db/0006): the process
 * that owns a "running" experiment, whether it still runs, and taking
 * over the experiments whose owner is gone.
 */

#include <stddef.h>
#include <stdint.h>

struct kb_err;
struct kb_store;

/*
 * Whether experiment @id is running in a process that still runs: *@alive
 * is 1 when it is "running" and its owner is alive (kb_proc_alive(): the
 * same pid with the same start time since the same boot, or a process on
 * another host, which cannot be checked), 0 when it is not running, is
 * the daemon's (no owner), or its owner is gone.  KB_ENOTFOUND when there
 * is no experiment @id.  Reads only.
 */
int kb_store_experiment_owner_alive(struct kb_store *s, int64_t id,
				    int *alive, struct kb_err *err);

/*
 * Mark "interrupted" every experiment stored "running" whose owner is
 * gone, with the error "its kbisect process (pid N on HOST) is gone", in
 * one transaction.  The daemon's experiments (no owner) are left alone.
 * *@n (may be NULL): how many.  For commands that write anyway.
 */
int kb_store_experiments_interrupt_gone(struct kb_store *s, unsigned *n,
					struct kb_err *err);

/*
 * Take experiment @id over to resume it in this process: in one
 * transaction check that it is neither done, nor the daemon's, nor
 * running in a process that is alive (each KB_EINPUT with a message
 * saying which), then make it "running" owned by this process, its error
 * and end time cleared.
 */
int kb_store_experiment_take(struct kb_store *s, int64_t id,
			     struct kb_err *err);

#endif
