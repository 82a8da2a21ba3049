#ifndef KB_STORE_H
#define KB_STORE_H

#include <stddef.h>
#include <stdint.h>

struct kb_err;

/*
 * The store: one sqlite database holding experiments, their variants and
 * the options of each, builds, boots, samples, analyses, bisection steps
 * and the job queue.  WAL journal, foreign keys on, schema version in
 * PRAGMA user_version, migrations from db/ compiled in.  Views with
 * readable columns (v_variant_summary, v_history) are for people browsing
 * the file.  Every write that belongs together is one transaction, taken
 * inside the call that makes it (lib/store/store_int.h).
 *
 * This is the only module that includes <sqlite3.h>.  A struct kb_store
 * is one connection, for one thread at a time; processes and threads that
 * share the file open their own (writers wait up to 5 s for each other).
 *
 * This header is the core: opening, access modes, closing, the schema
 * version (lib/store/store.c).  Each concern has a header of its own,
 * implemented by the lib/store/store_<concern>.c of its name:
 *
 *	store_exp.h       experiments, their variants and boots
 *	store_owner.h     who runs an experiment
 *	store_build.h     the build cache and builds from source
 *	store_analysis.h  analyses, metrics, texts, query plans
 *	store_bisect.h    bisections and their steps
 *	store_report.h    what a report reads
 *	store_queue.h     the daemon's jobs, leases and progress
 *	store_hosts.h     hosts: assignments, where boots ran, events
 *	store_evidence.h  what was built and booted
 *	store_export.h    every sample of an experiment, streamed
 *	store_trend.h     a variant across experiments of a name
 *	store_monitor.h   the guest's monitors of each boot
 *
 * Each compiles alone (`make headers` checks it).  This header includes
 * them all, for the code written before the split; new code includes only
 * the concern headers it needs, and this one only where it opens or
 * closes the store.  Once nothing relies on it, the includes below go.
 */

struct kb_store;

/* What kb_store_open() may do to the file. */
enum kb_store_access {
	/* read and write; a missing database is created, with its folder */
	KB_STORE_CREATE = 0,
	/* read and write an existing database; one that cannot be written
	 * here (a read-only file, folder or medium) is opened as with
	 * KB_STORE_READ_ONLY instead: kb_store_read_only() says so */
	KB_STORE_EXISTING,
	/* read an existing database; nothing is written to it (but see
	 * kb_store_open() for a database of an older kbisect) */
	KB_STORE_READ_ONLY,
};

struct kb_store_opts {
	/* migrate only up to this schema version (0 = latest); for tests */
	unsigned max_version;
	/* KB_STORE_CREATE unless told otherwise */
	enum kb_store_access access;
};
#define KB_STORE_OPTS_INIT { .max_version = 0, .access = KB_STORE_CREATE }

/*
 * Open the database at @path and migrate it to the latest schema in one
 * transaction.  With KB_STORE_CREATE (and @opts NULL) a missing database
 * is created, with its parent folder; otherwise nothing is created and a
 * missing path (or an empty file) is KB_ENOTFOUND "no database at ...".
 *
 * Ownership and version are checked by reading alone, before anything is
 * written (the journal mode, a migration): a file that is not a database,
 * a database of another program and one from a newer kbisect are refused
 * (KB_EFAIL, naming both versions for the last) and left byte for byte
 * as they were.
 *
 * Read-only, the database is read without being written: through a
 * connection that refuses every change (PRAGMA query_only) when the file
 * and its folder can be written, so that sqlite coordinates with writers
 * and removes the -wal and -shm files it made; else through a read-only
 * connection, or an immutable one when there are no -wal and -shm files
 * (nobody writes it, and they could not be made).  A database of an older
 * kbisect is migrated first when it can be written, and refused when it
 * cannot.
 *
 * @opts may be NULL.  On success *@out is the caller's to kb_store_close().
 */
int kb_store_open(const char *path, const struct kb_store_opts *opts,
		  struct kb_store **out, struct kb_err *err);
void kb_store_close(struct kb_store *s);

/* Is @s open read-only (KB_STORE_READ_ONLY, or KB_STORE_EXISTING on a
 * database that cannot be written here)?  Writes then fail, saying so. */
int kb_store_read_only(const struct kb_store *s);

/*
 * The database's tag: the first KB_STORE_TAG_LEN hex digits of the
 * random id it was given once (db/0012, table meta), which guests are
 * named by (kb_guest_name()) so that two databases booting on one
 * libvirtd never share a name.  Owned by @s; NULL for a database opened
 * read-only before db/0012.
 */
#define KB_STORE_TAG_LEN 6
const char *kb_store_tag(const struct kb_store *s);

/* The path the store was opened at (as given). */
const char *kb_store_path(const struct kb_store *s);

/* The schema version of the open database, and the latest one known. */
unsigned kb_store_version(const struct kb_store *s);
unsigned kb_store_latest_version(void);

/* ---- the concerns (see above) -------------------------------------------- */

#include "store_analysis.h"
#include "store_bisect.h"
#include "store_build.h"
#include "store_evidence.h"
#include "store_exp.h"
#include "store_export.h"
#include "store_hosts.h"
#include "store_owner.h"
#include "store_queue.h"
#include "store_report.h"
#include "store_trend.h"

#endif
