#ifndef KB_MACHLOCK_H
#define KB_MACHLOCK_H

#include <signal.h>

struct kb_err;

/*
 * A machine is booted once at a time, whoever asks (issue 26: two `run`s
 * and the daemon included): a boot holds its machine's lock from the
 * choice of its kernel until the machine is off again.  The lock is a
 * POSIX record lock on "kbisect-machine-NAME.lock" in the lock folder
 * ($KBISECT_LOCK_DIR, else /run/lock, else /tmp), so it goes with the
 * process that held it, however that ends, and a mutex within this
 * process (the daemon's steps run in threads, which record locks do not
 * tell apart).
 */

struct kb_machlock;

/*
 * Take machine @name's lock, waiting while another holds it: @wait, when
 * not NULL, is told once, with @arg, who does ("machine box1 is booted by
 * process 1234; waiting for it").  Gives up once *@stop is nonzero.
 * Returns 0 with *@out (kb_machlock_release() frees it), KB_EFAIL when
 * the lock file cannot be opened (naming it), or KB_EFAIL "stopped".
 */
int kb_machlock_take(const char *name, const volatile sig_atomic_t *stop,
		     void (*wait)(const char *line, void *arg), void *arg,
		     struct kb_machlock **out, struct kb_err *err);

/* Let the machine go; NULL-safe. */
void kb_machlock_release(struct kb_machlock *l);

#endif
