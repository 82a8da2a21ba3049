#define _DEFAULT_SOURCE /* setgroups */
#include <dirent.h>
#include <grp.h>
#include <math.h>
#include <pwd.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"
#include "buf.h"
#include "err.h"
#include "fsutil.h"
#include "mem.h"
#include "store.h"
#include "store_int.h"
#include "store_monitor.h"
#include "variant.h"

/*
 * Each test gets its own folder under /tmp with a database path in it;
 * teardown removes the folder.  Tests look behind the store's back with a
 * second sqlite3 connection.
 */
struct fixture {
	char dir[64];
	char *path;
};

static int setup(void **state)
{
	struct fixture *f = kb_calloc(1, sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "/tmp/kb-store-XXXXXX");
	if (!mkdtemp(f->dir)) {
		free(f);
		return -1;
	}
	f->path = kb_asprintf("%s/sub/kbisect.db", f->dir);
	*state = f;
	return 0;
}

static void remove_tree(const char *path)
{
	struct stat st;
	struct dirent *d;
	DIR *dir;

	if (lstat(path, &st) < 0)
		return;
	if (!S_ISDIR(st.st_mode)) {
		unlink(path);
		return;
	}
	dir = opendir(path);
	while (dir && (d = readdir(dir))) {
		char *sub;

		if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0)
			continue;
		sub = kb_asprintf("%s/%s", path, d->d_name);
		remove_tree(sub);
		free(sub);
	}
	if (dir)
		closedir(dir);
	rmdir(path);
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	remove_tree(f->dir);
	free(f->path);
	free(f);
	return 0;
}

static struct kb_store *open_ok(const char *path, unsigned max_version)
{
	struct kb_store_opts opts = KB_STORE_OPTS_INIT;
	struct kb_err err = KB_ERR_INIT;
	struct kb_store *s = NULL;

	opts.max_version = max_version;
	if (kb_store_open(path, &opts, &s, &err))
		fail_msg("cannot open store: %s", err.msg);
	assert_non_null(s);
	return s;
}

/* A second, raw connection to the database. */
static sqlite3 *raw_open(const char *path)
{
	sqlite3 *db = NULL;

	if (sqlite3_open(path, &db) != SQLITE_OK)
		fail_msg("sqlite3_open '%s': %s", path, sqlite3_errmsg(db));
	sqlite3_busy_timeout(db, 5000);
	return db;
}

static void raw_exec(sqlite3 *db, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("'%s': %s", sql, msg);
}

/* The first column of the first row of @sql, as an integer. */
static long long raw_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	long long v;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW)
		fail_msg("'%s': %s", sql, sqlite3_errmsg(db));
	v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static long long count_in(const char *path, const char *sql)
{
	sqlite3 *db = raw_open(path);
	long long v = raw_int(db, sql);

	sqlite3_close(db);
	return v;
}

/* Three variants of two factors: A (kconfig) and guest.vcpus. */
#define A(l) { "A", l, KB_FACTOR_KCONFIG }
#define VCPUS(l) { "guest.vcpus", l, KB_FACTOR_GUEST }
static const struct kb_setting settings[3][2] = {
	{ A("y"), VCPUS("1") },
	{ A("n"), VCPUS("1") },
	{ A("y"), VCPUS("4") },
};

static const struct kb_variant variants[3] = {
	{ 0, "A=y guest.vcpus=1", 2, settings[0], "key-y", { 0 }, 0 },
	{ 1, "A=n guest.vcpus=1", 2, settings[1], "key-n", { 0 }, 0 },
	{ 2, "A=y guest.vcpus=4", 2, settings[2], "key-y", { 0 }, 0 },
};

static int64_t create_ok(struct kb_store *s, const char *name)
{
	struct kb_store_experiment e = {
		.name = name,
		.matrix_path = "/m/x.yaml",
		.matrix_text = "name: x\n",
		.model_text = "metric: read_iops\n",
		.executor = "model",
		.design = "full",
		.metric = "read_iops",
		.boots = 3,
		.runs_per_boot = 2,
		.nvariants = 3,
		.variants = variants,
	};
	struct kb_err err = KB_ERR_INIT;
	int64_t id = 0;

	if (kb_store_experiment_create(s, &e, &id, &err))
		fail_msg("cannot create experiment: %s", err.msg);
	assert_true(id > 0);
	return id;
}

/* A boot result whose runs have read_iops = @values[i] and lat_us = 7. */
static struct kb_boot_result boot_result(enum kb_boot_status status,
					 const char *reason,
					 const double *values, size_t n)
{
	struct kb_boot_result r = { 0 };
	size_t i;

	r.status = status;
	r.reason = reason ? kb_strdup(reason) : NULL;
	r.host = kb_strdup("model");
	r.duration_s = 1.5;
	r.nruns = n;
	r.runs = n ? kb_calloc(n, sizeof(*r.runs)) : NULL;
	for (i = 0; i < n; i++) {
		assert_int_equal(kb_sample_set(&r.runs[i], "read_iops",
					       values[i]), 0);
		assert_int_equal(kb_sample_set(&r.runs[i], "lat_us", 7), 0);
	}
	return r;
}

static void put_boot(struct kb_store *s, int64_t exp, unsigned idx,
		     unsigned boot_no, enum kb_boot_status status,
		     const char *reason, const double *values, size_t n)
{
	struct kb_boot_result r = boot_result(status, reason, values, n);
	struct kb_err err = KB_ERR_INIT;

	if (kb_store_boot_put(s, exp, idx, boot_no, 0, &r, &err))
		fail_msg("cannot put boot: %s", err.msg);
	kb_boot_result_release(&r);
}

static void test_store__open_creates_and_migrates_to_latest(void **state)
{
	struct fixture *f = *state;
	struct kb_store *s = open_ok(f->path, 0);

	assert_true(kb_store_latest_version() >= 2);
	assert_int_equal(kb_store_version(s), kb_store_latest_version());
	kb_store_close(s);
	assert_int_equal(count_in(f->path, "PRAGMA user_version"),
			 kb_store_latest_version());
	/* tables and views of both migrations are there */
	assert_int_equal(count_in(f->path,
				  "SELECT count(*) FROM sqlite_master"
				  " WHERE name IN ('experiments', 'variants',"
				  " 'variant_options', 'builds', 'boots',"
				  " 'samples', 'analyses', 'bisections',"
				  " 'bisection_steps', 'jobs', 'v_boot_means',"
				  " 'v_variant_summary', 'v_history')"),
			 13);
}

static void test_store__reopen_is_a_no_op(void **state)
{
	struct fixture *f = *state;
	struct kb_store *s = open_ok(f->path, 0);
	int64_t id = create_ok(s, "keep");

	kb_store_close(s);
	s = open_ok(f->path, 0);
	assert_int_equal(kb_store_version(s), kb_store_latest_version());
	kb_store_close(s);
	assert_int_equal(count_in(f->path, "SELECT count(*) FROM experiments"),
			 1);
	assert_int_equal(count_in(f->path, "SELECT max(id) FROM experiments"),
			 id);
}

static void test_store__newer_version_is_refused(void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_store *s = open_ok(f->path, 0);
	char sql[64], newer[16], latest[32];
	sqlite3 *db;

	kb_store_close(s);
	s = NULL;
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %u",
		 kb_store_latest_version() + 5);
	db = raw_open(f->path);
	raw_exec(db, sql);
	sqlite3_close(db);

	assert_int_equal(kb_store_open(f->path, NULL, &s, &err), KB_EFAIL);
	assert_null(s);
	snprintf(newer, sizeof(newer), "version %u,",
		 kb_store_latest_version() + 5);
	snprintf(latest, sizeof(latest), "understands (%u)",
		 kb_store_latest_version());
	assert_msg_contains(err.msg, newer);
	assert_msg_contains(err.msg, latest);
	assert_msg_contains(err.msg, f->path);
	assert_msg_contains(err.msg, "upgrade kbisect");
}

/* ---- what opening leaves as it was ----------------------------------- */

/* A file's bytes, modification time and the folder's entries. */
struct snapshot {
	struct kb_buf bytes;
	struct timespec mtime;
	int nentries;
};

static int count_entries(const char *dir)
{
	struct dirent *d;
	DIR *dp = opendir(dir);
	int n = 0;

	while (dp && (d = readdir(dp)))
		n++;
	if (dp)
		closedir(dp);
	return n;
}

static char *dir_of(const char *path)
{
	return kb_strndup(path, (size_t)(strrchr(path, '/') - path));
}

static void snap(const char *path, struct snapshot *sn)
{
	struct kb_err err = KB_ERR_INIT;
	struct stat st;
	char *dir = dir_of(path);

	kb_buf_init(&sn->bytes);
	if (kb_buf_read_file(&sn->bytes, path, 64u << 20, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(stat(path, &st), 0);
	sn->mtime = st.st_mtim;
	sn->nentries = count_entries(dir);
	free(dir);
}

/* @path is byte for byte as @before, not touched, and nothing was made
 * beside it (no -wal, -shm or journal). */
static void assert_unchanged(const char *path, struct snapshot *before)
{
	struct snapshot now;

	snap(path, &now);
	assert_int_equal(now.bytes.len, before->bytes.len);
	assert_memory_equal(now.bytes.buf, before->bytes.buf, now.bytes.len);
	assert_int_equal(now.mtime.tv_sec, before->mtime.tv_sec);
	assert_int_equal(now.mtime.tv_nsec, before->mtime.tv_nsec);
	assert_int_equal(now.nentries, before->nentries);
	kb_buf_release(&now.bytes);
}

static int open_as(const char *path, enum kb_store_access access,
		   struct kb_store **s, struct kb_err *err)
{
	struct kb_store_opts opts = KB_STORE_OPTS_INIT;

	opts.access = access;
	return kb_store_open(path, &opts, s, err);
}

static const enum kb_store_access all_access[] = {
	KB_STORE_CREATE, KB_STORE_EXISTING, KB_STORE_READ_ONLY,
};

/* Each way of opening refuses @path with @code and @msg and leaves it
 * as it was, in its rollback journal mode too. */
static void assert_refused_untouched(const char *path, int code,
				     const char *msg)
{
	struct snapshot before;
	size_t i;

	snap(path, &before);
	for (i = 0; i < 3; i++) {
		struct kb_err err = KB_ERR_INIT;
		struct kb_store *s = NULL;
		sqlite3 *db;

		assert_int_equal(open_as(path, all_access[i], &s, &err), code);
		assert_null(s);
		assert_msg_contains(err.msg, msg);
		assert_msg_contains(err.msg, path);
		assert_unchanged(path, &before);
		/* the journal mode is in the header: unchanged, but ask */
		db = raw_open(path);
		assert_int_equal(raw_int(db, "SELECT count(*) FROM"
					     " pragma_journal_mode"
					     " WHERE journal_mode = 'delete'"),
				 1);
		sqlite3_close(db);
		assert_unchanged(path, &before);
	}
	kb_buf_release(&before.bytes);
}

static void test_store__foreign_database_is_left_as_it_was(void **state)
{
	struct fixture *f = *state;
	char *plain = kb_asprintf("%s/contacts.db", f->dir);
	char *tagged = kb_asprintf("%s/tagged.db", f->dir);
	sqlite3 *db;

	/* another program's file: tables and no application id ... */
	db = raw_open(plain);
	raw_exec(db, "CREATE TABLE contacts (name TEXT);"
		     " INSERT INTO contacts VALUES ('ada')");
	sqlite3_close(db);
	assert_refused_untouched(plain, KB_EFAIL, "another program");
	/* ... or an application id of its own, still empty */
	db = raw_open(tagged);
	raw_exec(db, "PRAGMA application_id = 42");
	sqlite3_close(db);
	assert_refused_untouched(tagged, KB_EFAIL, "another program");
	free(plain);
	free(tagged);
}

static void test_store__newer_version_is_left_as_it_was(void **state)
{
	struct fixture *f = *state;
	struct kb_store *s = open_ok(f->path, 0);
	char sql[96];
	sqlite3 *db;

	create_ok(s, "from the future");
	kb_store_close(s);
	/* a newer kbisect that went back to a rollback journal */
	snprintf(sql, sizeof(sql),
		 "PRAGMA journal_mode = DELETE; PRAGMA user_version = %u",
		 kb_store_latest_version() + 5);
	db = raw_open(f->path);
	raw_exec(db, sql);
	sqlite3_close(db);
	assert_refused_untouched(f->path, KB_EFAIL, "newer than this kbisect");
}

static void test_store__missing_database_is_not_created(void **state)
{
	struct fixture *f = *state;
	char *sub = dir_of(f->path);
	char *in_dir = kb_asprintf("%s/x.db", f->dir);
	size_t i;

	for (i = 1; i < 3; i++) {
		struct kb_err err = KB_ERR_INIT, err2 = KB_ERR_INIT;
		struct kb_store *s = NULL;

		/* in a folder that does not exist either */
		assert_int_equal(open_as(f->path, all_access[i], &s, &err),
				 KB_ENOTFOUND);
		assert_null(s);
		assert_msg_contains(err.msg, "no database at");
		assert_msg_contains(err.msg, f->path);
		assert_int_equal(access(sub, F_OK), -1);
		/* in one that does */
		assert_int_equal(open_as(in_dir, all_access[i], &s, &err2),
				 KB_ENOTFOUND);
		assert_null(s);
		assert_int_equal(count_entries(f->dir), 2);
	}
	free(sub);
	free(in_dir);
}

static void test_store__empty_file_is_no_database_to_read(void **state)
{
	struct fixture *f = *state;
	char *path = kb_asprintf("%s/empty.db", f->dir);
	struct snapshot before;
	FILE *fp = fopen(path, "w");
	size_t i;

	assert_non_null(fp);
	fclose(fp);
	snap(path, &before);
	for (i = 1; i < 3; i++) {
		struct kb_err err = KB_ERR_INIT;
		struct kb_store *s = NULL;

		assert_int_equal(open_as(path, all_access[i], &s, &err),
				 KB_ENOTFOUND);
		assert_msg_contains(err.msg, "the file is empty");
		assert_unchanged(path, &before);
	}
	kb_buf_release(&before.bytes);
	free(path);
}

static void test_store__read_only_open_writes_nothing(void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_store *s = open_ok(f->path, 0);
	struct kb_store_experiment e = { .name = "no", .matrix_text = "x" };
	struct kb_store_info *h = NULL;
	struct snapshot before;
	size_t n = 0;
	int64_t id;

	create_ok(s, "kept");
	assert_int_equal(kb_store_read_only(s), 0);
	kb_store_close(s);
	snap(f->path, &before);

	assert_int_equal(open_as(f->path, KB_STORE_READ_ONLY, &s, &err), 0);
	assert_int_equal(kb_store_read_only(s), 1);
	assert_int_equal(kb_store_version(s), kb_store_latest_version());
	assert_int_equal(kb_store_history(s, &h, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_string_equal(h[0].name, "kept");
	kb_store_info_release(&h[0]);
	free(h);
	assert_int_equal(kb_store_experiment_create(s, &e, &id, &err),
			 KB_EFAIL);
	assert_msg_contains(err.msg, "read-only");
	kb_store_close(s);
	assert_unchanged(f->path, &before);

	/* a writable database opened "existing" is written as ever */
	assert_int_equal(open_as(f->path, KB_STORE_EXISTING, &s, &err), 0);
	assert_int_equal(kb_store_read_only(s), 0);
	create_ok(s, "added");
	kb_store_close(s);
	assert_int_equal(count_in(f->path, "SELECT count(*) FROM experiments"),
			 2);
	kb_buf_release(&before.bytes);
}

static void test_store__read_only_open_migrates_an_older_database(void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_store *s = open_ok(f->path, 1);

	create_ok(s, "old");
	kb_store_close(s);
	/* it can be written here: migrated as any verb would, then read */
	assert_int_equal(open_as(f->path, KB_STORE_READ_ONLY, &s, &err), 0);
	assert_int_equal(kb_store_version(s), kb_store_latest_version());
	assert_int_equal(kb_store_read_only(s), 1);
	kb_store_close(s);
	assert_int_equal(count_in(f->path, "PRAGMA user_version"),
			 kb_store_latest_version());
}

/*
 * In a child that cannot write @path nor its folder: as this user when
 * it is not root, else as "nobody" (root writes whatever the mode says).
 * Returns the child's exit status, or -1 when there is nobody to be.
 */
static int as_reader(void (*fn)(const char *), const char *path)
{
	struct passwd *pw = NULL;
	pid_t pid;
	int status;

	if (geteuid() == 0 && !(pw = getpwnam("nobody")))
		return -1;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (pw && (setgroups(0, NULL) < 0 || setgid(pw->pw_gid) < 0 ||
			   setuid(pw->pw_uid) < 0))
			_exit(3);
		if (access(path, W_OK) == 0)
			_exit(4); /* not a read-only condition */
		fn(path);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static void read_everything(const char *path)
{
	static const enum kb_store_access ways[] = { KB_STORE_READ_ONLY,
						     KB_STORE_EXISTING };
	size_t i;

	for (i = 0; i < 2; i++) {
		struct kb_err err = KB_ERR_INIT;
		struct kb_store *s = NULL;
		struct kb_store_info *h = NULL;
		size_t n = 0;

		if (open_as(path, ways[i], &s, &err) ||
		    !kb_store_read_only(s) ||
		    kb_store_history(s, &h, &n, &err) || n != 1) {
			fprintf(stderr, "reader: %s\n", err.msg);
			_exit(1);
		}
		kb_store_info_release(&h[0]);
		free(h);
		kb_store_close(s);
	}
}

static void refuse_older(const char *path)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_store *s = NULL;

	if (open_as(path, KB_STORE_READ_ONLY, &s, &err) != KB_EFAIL ||
	    !strstr(err.msg, "older than this kbisect")) {
		fprintf(stderr, "reader: '%s'\n", err.msg);
		_exit(1);
	}
}

/* A WAL database closed cleanly (no -wal, -shm), 0444 in a 0555 folder. */
static void read_only_place(struct fixture *f, unsigned version,
			    void (*fn)(const char *))
{
	struct kb_store *s = open_ok(f->path, version);
	char *sub = dir_of(f->path);
	struct snapshot before;
	int status;

	create_ok(s, "on a read-only medium");
	kb_store_close(s);
	assert_int_equal(chmod(f->dir, 0755), 0);
	assert_int_equal(chmod(f->path, 0444), 0);
	assert_int_equal(chmod(sub, 0555), 0);
	snap(f->path, &before);
	status = as_reader(fn, f->path);
	assert_unchanged(f->path, &before);
	chmod(sub, 0755);
	kb_buf_release(&before.bytes);
	free(sub);
	if (status < 0) {
		print_message("no user 'nobody' to read as: skipped\n");
		skip();
	}
	assert_int_equal(status, 0);
}

static void test_store__read_only_file_and_folder_can_be_read(void **state)
{
	read_only_place(*state, 0, read_everything);
}

static void test_store__read_only_older_database_is_refused(void **state)
{
	read_only_place(*state, 1, refuse_older);
}

static void test_store__migration_from_version_1_keeps_data(void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_store_variant *v = NULL;
	struct kb_store_info info;
	struct kb_store *s = open_ok(f->path, 1);
	const double vals[] = { 10, 20 };
	size_t n = 0, i;
	int64_t id;

	assert_int_equal(kb_store_version(s), 1);
	id = create_ok(s, "old");
	put_boot(s, id, 1, 1, KB_BOOT_OK, NULL, vals, 2);
	kb_store_close(s);
	assert_int_equal(count_in(f->path, "PRAGMA user_version"), 1);
	assert_int_equal(count_in(f->path,
				  "SELECT count(*) FROM sqlite_master"
				  " WHERE name = 'jobs'"),
			 0);

	s = open_ok(f->path, 0);
	assert_int_equal(kb_store_version(s), kb_store_latest_version());
	assert_int_equal(kb_store_experiment_get(s, id, &info, &err), 0);
	assert_string_equal(info.name, "old");
	assert_int_equal(info.nvariants, 3);
	assert_int_equal(info.nboots_done, 1);
	assert_int_equal(info.nsamples, 2);
	kb_store_info_release(&info);
	assert_int_equal(kb_store_variants(s, id, "read_iops", &v, &n, &err),
			 0);
	assert_int_equal(n, 3);
	assert_int_equal(v[1].nboots, 1);
	assert_true(v[1].boot_means[0] == 15.0);
	for (i = 0; i < n; i++)
		kb_store_variant_release(&v[i]);
	free(v);
	kb_store_close(s);
	assert_int_equal(count_in(f->path, "SELECT count(*) FROM jobs"), 0);
}

/* The kind of option @factor of variant 0 of experiment @exp. */
static char *option_kind(const char *path, long long exp, const char *factor)
{
	sqlite3 *db = raw_open(path);
	sqlite3_stmt *st = NULL;
	char *kind;

	if (sqlite3_prepare_v2(db,
			       "SELECT o.kind FROM variant_options o"
			       " JOIN variants v ON v.id = o.variant_id"
			       " WHERE v.experiment_id = ? AND v.idx = 0"
			       " AND o.factor = ?",
			       -1, &st, NULL) != SQLITE_OK)
		fail_msg("prepare: %s", sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, exp);
	sqlite3_bind_text(st, 2, factor, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_ROW)
		fail_msg("no option '%s'", factor);
	kind = kb_strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_close(db);
	return kind;
}

static void assert_kind(const char *path, long long exp, const char *factor,
			const char *want)
{
	char *kind = option_kind(path, exp, factor);

	assert_string_equal(kind, want);
	free(kind);
}

/* Workload, cmdline and sysctl factors are stored with their own kind,
 * and db/0011 gives the rows stored as 'guest' before theirs by name. */
static void test_store__option_kinds_are_exact(void **state)
{
	static const struct kb_setting rt[5] = {
		{ "A", "y", KB_FACTOR_KCONFIG },
		{ "guest.vcpus", "2", KB_FACTOR_GUEST },
		{ "workload.copies", "2", KB_FACTOR_WORKLOAD },
		{ "cmdline.mitigations", "off", KB_FACTOR_CMDLINE },
		{ "sysctl.vm.swappiness", "10", KB_FACTOR_SYSCTL },
	};
	static const struct kb_variant rv[1] = {
		{ 0, "runtime", 5, rt, "key-r", { 0 }, 0 },
	};
	struct fixture *f = *state;
	struct kb_store_experiment e = {
		.name = "kinds", .matrix_path = "/m/k.yaml",
		.matrix_text = "name: k\n", .model_text = "metric: x\n",
		.executor = "model", .design = "full", .metric = "x",
		.boots = 1, .runs_per_boot = 1, .nvariants = 1, .variants = rv,
	};
	struct kb_err err = KB_ERR_INIT;
	struct kb_store *s = open_ok(f->path, 10);
	sqlite3 *db;
	int64_t old, id = 0;

	/* version 10, as a kbisect before db/0011 stored them */
	old = create_ok(s, "old");
	kb_store_close(s);
	db = raw_open(f->path);
	raw_exec(db, "INSERT INTO variant_options (variant_id, factor, kind,"
		     " level) SELECT id, 'workload.copies', 'guest', '2'"
		     " FROM variants WHERE idx = 0;"
		     "INSERT INTO variant_options (variant_id, factor, kind,"
		     " level) SELECT id, 'cmdline.mitigations', 'guest', 'off'"
		     " FROM variants WHERE idx = 0;"
		     "INSERT INTO variant_options (variant_id, factor, kind,"
		     " level) SELECT id, 'sysctl.vm.swappiness', 'guest', '10'"
		     " FROM variants WHERE idx = 0;");
	sqlite3_close(db);

	s = open_ok(f->path, 0);
	assert_kind(f->path, old, "A", "kconfig");
	assert_kind(f->path, old, "guest.vcpus", "guest");
	assert_kind(f->path, old, "workload.copies", "workload");
	assert_kind(f->path, old, "cmdline.mitigations", "cmdline");
	assert_kind(f->path, old, "sysctl.vm.swappiness", "sysctl");

	if (kb_store_experiment_create(s, &e, &id, &err))
		fail_msg("cannot create experiment: %s", err.msg);
	kb_store_close(s);
	assert_kind(f->path, id, "guest.vcpus", "guest");
	assert_kind(f->path, id, "workload.copies", "workload");
	assert_kind(f->path, id, "cmdline.mitigations", "cmdline");
	assert_kind(f->path, id, "sysctl.vm.swappiness", "sysctl");
	/* every row came through the rebuild, none twice */
	assert_int_equal(count_in(f->path,
				  "SELECT count(*) FROM variant_options"),
			 3 * 2 + 3 + 5);
}

/* A database's tag (db/0012): hex, the same at every open, another in
 * another database, given once to a database migrated from before. */
static void test_store__tag_is_the_databases_own(void **state)
{
	struct fixture *f = *state;
	char *other = kb_asprintf("%s.other", f->path);
	struct kb_store *s = open_ok(f->path, 11), *t;
	char tag[KB_STORE_TAG_LEN + 1];
	size_t i;

	/* version 11: no id yet */
	assert_null(kb_store_tag(s));
	kb_store_close(s);
	s = open_ok(f->path, 0);
	assert_non_null(kb_store_tag(s));
	assert_int_equal(strlen(kb_store_tag(s)), KB_STORE_TAG_LEN);
	for (i = 0; i < KB_STORE_TAG_LEN; i++)
		assert_non_null(strchr("0123456789abcdef", kb_store_tag(s)[i]));
	snprintf(tag, sizeof(tag), "%s", kb_store_tag(s));
	kb_store_close(s);
	s = open_ok(f->path, 0);
	assert_string_equal(kb_store_tag(s), tag);
	t = open_ok(other, 0);
	assert_non_null(kb_store_tag(t));
	assert_string_not_equal(kb_store_tag(t), tag);
	kb_store_close(t);
	kb_store_close(s);
	assert_int_equal(count_in(f->path, "SELECT count(*) FROM meta"), 1);
	unlink(other);
	free(other);
}

/* Free @n variants read with kb_store_variants(). */
static void free_variants(struct kb_store_variant *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		kb_store_variant_release(&v[i]);
	free(v);
}

/* The sentinel (db/0014): marked in the variants it is one of; every
 * variant stored before the column, and a database kept at 13, has none */
static void test_store__the_sentinel_is_marked(void **state)
{
	struct fixture *f = *state;
	struct kb_variant sv[4] = { variants[0], variants[1], variants[2],
				    variants[0] };
	struct kb_store_experiment e = {
		.name = "aa", .matrix_path = "/m/aa.yaml",
		.matrix_text = "name: aa\n", .model_text = "metric: x\n",
		.executor = "model", .design = "full", .metric = "read_iops",
		.boots = 1, .runs_per_boot = 1, .nvariants = 4, .variants = sv,
	};
	struct kb_err err = KB_ERR_INIT;
	struct kb_store *s = open_ok(f->path, 13);
	struct kb_store_variant *v = NULL;
	int64_t old, id = 0, kept = 0;
	size_t n = 0, i;

	sv[3].idx = 3;
	sv[3].label = "sentinel";
	sv[3].sentinel = 1;
	old = create_ok(s, "old");
	/* kept at 13: stored without its mark, read without one */
	if (kb_store_experiment_create(s, &e, &kept, &err))
		fail_msg("cannot create experiment: %s", err.msg);
	assert_int_equal(kb_store_variants(s, kept, "read_iops", &v, &n, &err),
			 0);
	assert_int_equal(n, 4);
	for (i = 0; i < n; i++)
		assert_false(v[i].sentinel);
	free_variants(v, n);
	kb_store_close(s);

	s = open_ok(f->path, 0);
	if (kb_store_experiment_create(s, &e, &id, &err))
		fail_msg("cannot create experiment: %s", err.msg);
	assert_int_equal(kb_store_variants(s, id, "read_iops", &v, &n, &err),
			 0);
	assert_int_equal(n, 4);
	assert_false(v[0].sentinel);
	assert_false(v[2].sentinel);
	assert_true(v[3].sentinel);
	assert_string_equal(v[3].label, "sentinel");
	assert_string_equal(v[3].build_key, v[0].build_key);
	free_variants(v, n);
	assert_int_equal(kb_store_variants(s, old, "read_iops", &v, &n, &err),
			 0);
	assert_int_equal(n, 3);
	for (i = 0; i < n; i++)
		assert_false(v[i].sentinel);
	free_variants(v, n);
	kb_store_close(s);
	assert_int_equal(count_in(f->path, "SELECT count(*) FROM variants"
					   " WHERE sentinel = 1"),
			 1);
}

/* A finished bisection's answer (db/0015): kept and found by its inputs
 * and kind, the latest done one; a database kept at 14 keeps none and
 * finds none, and its bisections answer nothing once upgraded. */
static void test_store__bisection_answer_kept_and_found(void **state)
{
	struct fixture *f = *state;
	struct kb_store_bisection_answer a;
	struct kb_err err = KB_ERR_INIT;
	struct kb_store *s = open_ok(f->path, 14);
	const char *in = "0123456789abcdef";
	int64_t exp, old = 0, b1 = 0, b2 = 0, b3 = 0;

	exp = create_ok(s, "bisect");
	assert_int_equal(kb_store_bisection_create(s, exp, "options", "g",
						   "b", &old, &err),
			 0);
	/* kept at 14: no place for it, nothing kept, nothing found */
	assert_int_equal(kb_store_bisection_answer_put(s, old, in, "x", &err),
			 0);
	assert_int_equal(kb_store_bisection_finish(s, old, "done", "r", &err),
			 0);
	assert_int_equal(kb_store_bisection_answer_find(s, "options", in, &a,
							&err),
			 KB_ENOTFOUND);
	kb_store_close(s);

	s = open_ok(f->path, 0);
	assert_int_equal(kb_store_version(s), kb_store_latest_version());
	/* the one stored before answers nothing */
	assert_int_equal(kb_store_bisection_answer_find(s, "options", in, &a,
							&err),
			 KB_ENOTFOUND);
	assert_int_equal(kb_store_bisection_create(s, exp, "options", "g",
						   "b", &b1, &err),
			 0);
	assert_int_equal(kb_store_bisection_create(s, exp, "options", "g",
						   "b", &b2, &err),
			 0);
	assert_int_equal(kb_store_bisection_create(s, exp, "commits", "g",
						   "b", &b3, &err),
			 0);
	assert_int_equal(kb_store_bisection_answer_put(s, b1, in, "one", &err),
			 0);
	assert_int_equal(kb_store_bisection_answer_put(s, b2, in, "two", &err),
			 0);
	assert_int_equal(kb_store_bisection_answer_put(s, b3, in, "c", &err),
			 0);
	assert_int_equal(kb_store_bisection_finish(s, b1, "done", "r", &err),
			 0);
	assert_int_equal(kb_store_bisection_finish(s, b2, "failed", "r", &err),
			 0);
	/* b2 did not finish: b1 answers; the commits one is not done */
	assert_int_equal(kb_store_bisection_answer_find(s, "options", in, &a,
							&err),
			 0);
	assert_int_equal(a.id, b1);
	assert_int_equal(a.experiment_id, exp);
	assert_string_equal(a.answer, "one");
	assert_non_null(a.created_at);
	kb_store_bisection_answer_release(&a);
	assert_int_equal(kb_store_bisection_answer_find(s, "commits", in, &a,
							&err),
			 KB_ENOTFOUND);
	assert_int_equal(kb_store_bisection_answer_find(s, "options", "other",
							&a, &err),
			 KB_ENOTFOUND);
	assert_int_equal(kb_store_bisection_finish(s, b2, "done", "r", &err),
			 0);
	assert_int_equal(kb_store_bisection_answer_find(s, "options", in, &a,
							&err),
			 0);
	assert_int_equal(a.id, b2);
	assert_string_equal(a.answer, "two");
	kb_store_bisection_answer_release(&a);
	kb_store_close(s);
	/* the rows kept: looked up by the index */
	assert_int_equal(count_in(f->path, "SELECT count(*) FROM sqlite_master"
					   " WHERE name = 'bisections_inputs'"),
			 1);
	assert_int_equal(count_in(f->path, "SELECT count(*) FROM bisections"
					   " WHERE inputs IS NULL"),
			 1);
}

static void test_store__failed_migration_changes_nothing(void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_store *s = open_ok(f->path, 1);
	sqlite3 *db;

	kb_store_close(s);
	s = NULL;
	/* a table in the way of the second migration */
	db = raw_open(f->path);
	raw_exec(db, "CREATE TABLE jobs (x)");
	sqlite3_close(db);

	assert_int_equal(kb_store_open(f->path, NULL, &s, &err), KB_EFAIL);
	assert_null(s);
	assert_msg_contains(err.msg, "migration '0002-");
	assert_msg_contains(err.msg, "already exists");
	db = raw_open(f->path);
	assert_int_equal(raw_int(db, "PRAGMA user_version"), 1);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM sqlite_master"
				     " WHERE name = 'analyses'"),
			 0);
	sqlite3_close(db);
}

static void test_store__wal_and_foreign_keys_are_on(void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_store *s = open_ok(f->path, 0);
	const double vals[] = { 1 };
	struct kb_boot_result r = boot_result(KB_BOOT_OK, NULL, vals, 1);
	int64_t id = create_ok(s, "fk");
	sqlite3 *db;
	sqlite3_stmt *st = NULL;

	/* build 999 does not exist: the store's connection enforces keys */
	assert_int_equal(kb_store_boot_put(s, id, 0, 1, 999, &r, &err),
			 KB_EFAIL);
	assert_msg_contains(err.msg, "FOREIGN KEY");
	kb_boot_result_release(&r);
	kb_store_close(s);
	assert_int_equal(count_in(f->path, "SELECT count(*) FROM boots"), 0);

	db = raw_open(f->path);
	assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1,
					    &st, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(st, 0), "wal");
	sqlite3_finalize(st);
	sqlite3_close(db);
}

static void test_store__experiment_create_writes_variants_and_options(
	void **state)
{
	struct fixture *f = *state;
	struct kb_store *s = open_ok(f->path, 0);
	int64_t id = create_ok(s, "exp");
	sqlite3 *db;
	sqlite3_stmt *st = NULL;
	int i = 0;

	kb_store_close(s);
	db = raw_open(f->path);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM variants"), 3);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM variant_options"),
			 6);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM experiments"
				     " WHERE state = 'running'"
				     " AND matrix_yaml = 'name: x\n'"
				     " AND boots = 3 AND runs_per_boot = 2"),
			 1);
	assert_int_equal(sqlite3_prepare_v2(
				 db,
				 "SELECT v.experiment_id, v.idx, v.label,"
				 " v.build_key, o.factor, o.kind, o.level"
				 " FROM variants v JOIN variant_options o"
				 " ON o.variant_id = v.id"
				 " ORDER BY v.idx, o.factor",
				 -1, &st, NULL),
			 SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		/* factors sort "A" before "guest.vcpus" */
		const struct kb_variant *v = &variants[i / 2];
		const struct kb_setting *o = &v->settings[i % 2];

		assert_int_equal(sqlite3_column_int64(st, 0), id);
		assert_int_equal(sqlite3_column_int(st, 1), v->idx);
		assert_string_equal(sqlite3_column_text(st, 2), v->label);
		assert_string_equal(sqlite3_column_text(st, 3), v->build_key);
		assert_string_equal(sqlite3_column_text(st, 4), o->name);
		assert_string_equal(sqlite3_column_text(st, 5),
				    i % 2 ? "guest" : "kconfig");
		assert_string_equal(sqlite3_column_text(st, 6), o->value);
		i++;
	}
	assert_int_equal(i, 6);
	sqlite3_finalize(st);
	sqlite3_close(db);
}

static void test_store__failed_experiment_create_writes_nothing(void **state)
{
	struct fixture *f = *state;
	struct kb_store_experiment e = {
		.name = "broken",
		.matrix_text = "name: broken\n",
		.metric = "read_iops",
		.nvariants = 3,
		.variants = variants,
	};
	struct kb_err err = KB_ERR_INIT;
	struct kb_store *s = open_ok(f->path, 0);
	int64_t id = 0;
	sqlite3 *db = raw_open(f->path);

	raw_exec(db, "CREATE TRIGGER fail_third BEFORE INSERT"
		     " ON variant_options"
		     " WHEN (SELECT count(*) FROM variant_options) >= 2"
		     " BEGIN SELECT RAISE(ABORT, 'injected failure'); END");
	assert_int_equal(kb_store_experiment_create(s, &e, &id, &err),
			 KB_EFAIL);
	assert_int_equal(id, 0);
	assert_msg_contains(err.msg, "injected failure");
	assert_msg_contains(err.msg, "variant 1");
	assert_int_equal(raw_int(db, "SELECT count(*) FROM experiments"), 0);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM variants"), 0);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM variant_options"),
			 0);

	/* the store is still usable once the cause is gone */
	raw_exec(db, "DROP TRIGGER fail_third");
	create_ok(s, "fine");
	assert_int_equal(raw_int(db, "SELECT count(*) FROM variant_options"),
			 6);
	sqlite3_close(db);
	kb_store_close(s);
}

static void test_store__boot_put_stores_all_samples(void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_store *s = open_ok(f->path, 0);
	const double vals[] = { 100, 110, 120 };
	int64_t id = create_ok(s, "samples");
	int exists = -1;
	sqlite3 *db;

	assert_int_equal(kb_store_boot_exists(s, id, 2, 1, &exists, &err), 0);
	assert_int_equal(exists, 0);
	put_boot(s, id, 2, 1, KB_BOOT_OK, NULL, vals, 3);
	assert_int_equal(kb_store_boot_exists(s, id, 2, 1, &exists, &err), 0);
	assert_int_equal(exists, 1);
	assert_int_equal(kb_store_boot_exists(s, id, 1, 1, &exists, &err), 0);
	assert_int_equal(exists, 0);
	kb_store_close(s);

	db = raw_open(f->path);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM samples"), 6);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM samples"
				     " WHERE metric = 'lat_us' AND value = 7"),
			 3);
	assert_int_equal(raw_int(db, "SELECT sum(run_no * value) FROM samples"
				     " WHERE metric = 'read_iops'"),
			 100 * 1 + 110 * 2 + 120 * 3);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM boots b"
				     " JOIN variants v ON v.id = b.variant_id"
				     " WHERE v.idx = 2 AND b.boot_no = 1"
				     " AND b.status = 'ok' AND b.host = 'model'"
				     " AND b.build_id IS NULL"),
			 1);
	sqlite3_close(db);
}

static void test_store__duplicate_boot_is_refused(void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_store *s = open_ok(f->path, 0);
	const double first[] = { 1, 2 }, second[] = { 3, 4, 5 };
	struct kb_boot_result r = boot_result(KB_BOOT_OK, NULL, second, 3);
	int64_t id = create_ok(s, "dup");

	put_boot(s, id, 0, 1, KB_BOOT_OK, NULL, first, 2);
	assert_int_equal(kb_store_boot_put(s, id, 0, 1, 0, &r, &err),
			 KB_EEXISTS);
	assert_msg_contains(err.msg, "boot 1 of variant 0");
	kb_boot_result_release(&r);
	kb_store_close(s);
	assert_int_equal(count_in(f->path, "SELECT count(*) FROM boots"), 1);
	assert_int_equal(count_in(f->path, "SELECT count(*) FROM samples"), 4);
}

static void test_store__boot_with_nan_is_refused(void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_store *s = open_ok(f->path, 0);
	const double vals[] = { 1, NAN };
	struct kb_boot_result r = boot_result(KB_BOOT_OK, NULL, vals, 2);
	int64_t id = create_ok(s, "nan");

	assert_int_equal(kb_store_boot_put(s, id, 0, 1, 0, &r, &err),
			 KB_EFAIL);
	assert_msg_contains(err.msg, "'read_iops' of run 2 of boot 1");
	kb_boot_result_release(&r);
	kb_store_close(s);
	assert_int_equal(count_in(f->path, "SELECT count(*) FROM boots"), 0);
}

static void test_store__boot_with_an_infinity_is_refused(void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_store *s = open_ok(f->path, 0);
	const double vals[] = { INFINITY, 1 };
	struct kb_boot_result r = boot_result(KB_BOOT_OK, NULL, vals, 2);
	int64_t id = create_ok(s, "inf");

	assert_int_equal(kb_store_boot_put(s, id, 0, 1, 0, &r, &err),
			 KB_EFAIL);
	assert_msg_contains(err.msg, "'read_iops' of run 1 of boot 1");
	assert_msg_contains(err.msg, "not a finite number (inf)");
	kb_boot_result_release(&r);
	kb_store_close(s);
	assert_int_equal(count_in(f->path, "SELECT count(*) FROM boots"), 0);
	assert_int_equal(count_in(f->path, "SELECT count(*) FROM samples"), 0);
}

static void test_store__boot_of_unknown_variant_is_not_found(void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_store *s = open_ok(f->path, 0);
	struct kb_boot_result r = boot_result(KB_BOOT_OK, NULL, NULL, 0);
	int64_t id = create_ok(s, "nf");

	assert_int_equal(kb_store_boot_put(s, id, 7, 1, 0, &r, &err),
			 KB_ENOTFOUND);
	assert_msg_contains(err.msg, "no variant 7");
	kb_boot_result_release(&r);
	kb_store_close(s);
}

static void test_store__build_put_get_round_trip(void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_store *s = open_ok(f->path, 0);
	struct kb_build_result in = { 0 }, out = { 0 };
	int64_t bid = 0, got = 0;

	assert_int_equal(kb_store_build_get(s, "k1", &out, &got, &err),
			 KB_ENOTFOUND);
	kb_err_clear(&err);

	in.status = KB_BUILD_FAILED;
	in.reason = kb_strdup("make exited with status 2");
	in.log_tail = kb_strdup("error: x\n");
	in.duration_s = 42.5;
	assert_int_equal(kb_store_build_put(s, "k1", "model", &in, &bid, &err),
			 0);
	assert_true(bid > 0);
	assert_int_equal(kb_store_build_get(s, "k1", &out, &got, &err), 0);
	assert_int_equal(got, bid);
	assert_int_equal(out.status, KB_BUILD_FAILED);
	assert_string_equal(out.reason, "make exited with status 2");
	assert_string_equal(out.log_tail, "error: x\n");
	assert_null(out.image);
	assert_true(out.duration_s == 42.5);
	kb_build_result_release(&out);

	assert_int_equal(kb_store_build_put(s, "k1", "model", &in, &got, &err),
			 KB_EEXISTS);
	kb_err_clear(&err);
	kb_build_result_release(&in);

	in.status = KB_BUILD_OK;
	in.image = kb_strdup("/cache/k2/bzImage");
	assert_int_equal(kb_store_build_put(s, "k2", "model", &in, &bid, &err),
			 0);
	assert_int_equal(kb_store_build_get(s, "k2", &out, &got, &err), 0);
	assert_int_equal(got, bid);
	assert_int_equal(out.status, KB_BUILD_OK);
	assert_null(out.reason);
	assert_string_equal(out.image, "/cache/k2/bzImage");
	kb_build_result_release(&out);
	kb_build_result_release(&in);
	kb_store_close(s);
}

static void test_store__history_is_newest_first_with_counts(void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_store *s = open_ok(f->path, 0);
	struct kb_store_info *h = NULL;
	const double vals[] = { 1, 2 };
	int64_t a = create_ok(s, "first"), b = create_ok(s, "second");
	size_t n = 0, i;

	put_boot(s, a, 0, 1, KB_BOOT_OK, NULL, vals, 2);
	put_boot(s, a, 0, 2, KB_BOOT_OK, NULL, vals, 2);
	put_boot(s, a, 1, 1, KB_BOOT_PANIC, "oops", NULL, 0);
	assert_int_equal(kb_store_experiment_finish(s, a, "failed", "boom",
						    &err),
			 0);
	assert_int_equal(kb_store_experiment_finish(s, 999, "done", NULL,
						    &err),
			 KB_ENOTFOUND);
	kb_err_clear(&err);

	assert_int_equal(kb_store_history(s, &h, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_int_equal(h[0].id, b);
	assert_string_equal(h[0].name, "second");
	assert_string_equal(h[0].state, "running");
	assert_null(h[0].finished_at);
	assert_int_equal(h[0].nboots_done, 0);
	assert_int_equal(h[1].id, a);
	assert_string_equal(h[1].name, "first");
	assert_string_equal(h[1].state, "failed");
	assert_string_equal(h[1].error, "boom");
	assert_non_null(h[1].finished_at);
	/* 2024-05-01T12:34:56Z */
	assert_int_equal(strlen(h[1].created_at), 20);
	assert_string_equal(h[1].executor, "model");
	assert_string_equal(h[1].design, "full");
	assert_string_equal(h[1].metric, "read_iops");
	assert_int_equal(h[1].boots, 3);
	assert_int_equal(h[1].runs_per_boot, 2);
	assert_int_equal(h[1].nvariants, 3);
	assert_int_equal(h[1].nboots_done, 3);
	assert_int_equal(h[1].nsamples, 4); /* read_iops only, not lat_us */
	for (i = 0; i < n; i++)
		kb_store_info_release(&h[i]);
	free(h);
	kb_store_close(s);
}

static void test_store__variants_have_boot_means_and_failures(void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_store *s = open_ok(f->path, 0);
	struct kb_store_variant *v = NULL;
	const double b1[] = { 100, 110 }, b2[] = { 200, 220 };
	int64_t id = create_ok(s, "means");
	size_t n = 0, i;

	put_boot(s, id, 0, 1, KB_BOOT_OK, NULL, b1, 2);
	put_boot(s, id, 0, 3, KB_BOOT_BUILD_FAILED, "oops", NULL, 0);
	put_boot(s, id, 0, 2, KB_BOOT_OK, NULL, b2, 2);
	put_boot(s, id, 0, 4, KB_BOOT_TIMEOUT, "no console", NULL, 0);
	put_boot(s, id, 2, 1, KB_BOOT_PANIC, NULL, NULL, 0);

	assert_int_equal(kb_store_variants(s, id, "read_iops", &v, &n, &err),
			 0);
	assert_int_equal(n, 3);
	assert_int_equal(v[0].idx, 0);
	assert_string_equal(v[0].label, "A=y guest.vcpus=1");
	assert_string_equal(v[0].build_key, "key-y");
	assert_int_equal(v[0].nboots, 2);
	assert_true(v[0].boot_means[0] == 105.0);
	assert_true(v[0].boot_means[1] == 210.0);
	assert_int_equal(v[0].nfailed, 2);
	assert_string_equal(v[0].last_failure, "boot-timeout: no console");
	assert_int_equal(v[1].idx, 1);
	assert_int_equal(v[1].nboots, 0);
	assert_int_equal(v[1].nfailed, 0);
	assert_null(v[1].last_failure);
	assert_int_equal(v[2].nboots, 0);
	assert_int_equal(v[2].nfailed, 1);
	assert_string_equal(v[2].last_failure, "panic");
	for (i = 0; i < n; i++)
		kb_store_variant_release(&v[i]);
	free(v);

	/* another metric, and an experiment that does not exist */
	assert_int_equal(kb_store_variants(s, id, "lat_us", &v, &n, &err), 0);
	assert_int_equal(v[0].nboots, 2);
	assert_true(v[0].boot_means[0] == 7.0);
	for (i = 0; i < n; i++)
		kb_store_variant_release(&v[i]);
	free(v);
	assert_int_equal(kb_store_variants(s, 999, "read_iops", &v, &n, &err),
			 0);
	assert_int_equal(n, 0);
	assert_null(v);
	kb_store_close(s);
}

static void test_store__variants_pair_reads_two_variants_alone(void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_store *s = open_ok(f->path, 0);
	struct kb_store_variant *v = NULL;
	const double b1[] = { 100, 110 }, b2[] = { 200, 220 };
	int64_t id = create_ok(s, "pair");
	size_t n = 0, i;

	put_boot(s, id, 0, 1, KB_BOOT_OK, NULL, b1, 2);
	put_boot(s, id, 1, 1, KB_BOOT_OK, NULL, b2, 2);
	put_boot(s, id, 1, 2, KB_BOOT_PANIC, "oops", NULL, 0);
	put_boot(s, id, 2, 1, KB_BOOT_OK, NULL, b2, 2);
	put_boot(s, id, 2, 2, KB_BOOT_PANIC, NULL, NULL, 0);

	/* every variant is listed; the boots are those of #0 and #2 */
	assert_int_equal(kb_store_variants_pair(s, id, "read_iops", 2, 0, &v,
						&n, &err),
			 0);
	assert_int_equal(n, 3);
	assert_int_equal(v[0].nboots, 1);
	assert_true(v[0].boot_means[0] == 105.0);
	assert_int_equal(v[1].idx, 1);
	assert_string_equal(v[1].label, "A=n guest.vcpus=1");
	assert_int_equal(v[1].nboots, 0);
	assert_int_equal(v[1].nfailed, 0);
	assert_null(v[1].last_failure);
	assert_int_equal(v[2].nboots, 1);
	assert_true(v[2].boot_means[0] == 210.0);
	assert_int_equal(v[2].nfailed, 1);
	assert_string_equal(v[2].last_failure, "panic");
	for (i = 0; i < n; i++)
		kb_store_variant_release(&v[i]);
	free(v);
	kb_store_close(s);
}

static void test_store__variant_summary_view_has_stats(void **state)
{
	struct fixture *f = *state;
	struct kb_store *s = open_ok(f->path, 0);
	const double b1[] = { 100, 110 }, b2[] = { 200, 220 },
		     b3[] = { 150, 150 };
	int64_t id = create_ok(s, "summary");
	sqlite3_stmt *st = NULL;
	sqlite3 *db;

	put_boot(s, id, 1, 1, KB_BOOT_OK, NULL, b1, 2);
	put_boot(s, id, 1, 2, KB_BOOT_OK, NULL, b2, 2);
	put_boot(s, id, 1, 3, KB_BOOT_OK, NULL, b3, 2);
	put_boot(s, id, 1, 4, KB_BOOT_PANIC, "x", b3, 1); /* not counted */
	put_boot(s, id, 2, 1, KB_BOOT_OK, NULL, b3, 2);
	kb_store_close(s);

	db = raw_open(f->path);
	assert_int_equal(sqlite3_prepare_v2(
				 db,
				 "SELECT experiment, variant, n, mean, stddev,"
				 " min, max FROM v_variant_summary"
				 " WHERE metric = 'read_iops'"
				 " ORDER BY variant_idx",
				 -1, &st, NULL),
			 SQLITE_OK);
	/* boot means 105, 210, 150: mean 155, sample sd sqrt(2775) */
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal(sqlite3_column_text(st, 0), "summary");
	assert_string_equal(sqlite3_column_text(st, 1), "A=n guest.vcpus=1");
	assert_int_equal(sqlite3_column_int(st, 2), 3);
	assert_true(fabs(sqlite3_column_double(st, 3) - 155.0) < 1e-9);
	assert_true(fabs(sqlite3_column_double(st, 4) - sqrt(2775.0)) < 1e-9);
	assert_true(sqlite3_column_double(st, 5) == 105.0);
	assert_true(sqlite3_column_double(st, 6) == 210.0);
	/* a single boot has no standard deviation */
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(st, 2), 1);
	assert_int_equal(sqlite3_column_type(st, 4), SQLITE_NULL);
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);

	assert_int_equal(raw_int(db, "SELECT samples FROM v_history"), 9);
	sqlite3_close(db);
}

static void test_store__concurrent_opens_migrate_once(void **state)
{
	struct fixture *f = *state;
	pid_t pids[6];
	int status;
	size_t i;

	for (i = 0; i < 6; i++) {
		pids[i] = fork();
		assert_true(pids[i] >= 0);
		if (pids[i] == 0) {
			struct kb_store_experiment e = {
				.name = "child", .matrix_text = "x",
			};
			struct kb_err err = KB_ERR_INIT;
			struct kb_store *s = NULL;
			int64_t id;

			if (kb_store_open(f->path, NULL, &s, &err) ||
			    kb_store_experiment_create(s, &e, &id, &err)) {
				fprintf(stderr, "child: %s\n", err.msg);
				_exit(1);
			}
			kb_store_close(s);
			_exit(0);
		}
	}
	for (i = 0; i < 6; i++) {
		assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
	assert_int_equal(count_in(f->path, "SELECT count(*) FROM experiments"),
			 6);
	assert_int_equal(count_in(f->path, "PRAGMA user_version"),
			 kb_store_latest_version());
}

static void test_store__non_database_file_is_refused(void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_store *s = NULL;
	char *path = kb_asprintf("%s/notes.txt", f->dir);
	FILE *fp = fopen(path, "w");
	int i;

	assert_non_null(fp);
	for (i = 0; i < 100; i++)
		fputs("this is a text file, not a database at all\n", fp);
	fclose(fp);
	assert_int_equal(kb_store_open(path, NULL, &s, &err), KB_EFAIL);
	assert_null(s);
	assert_msg_contains(err.msg, path);
	assert_msg_contains(err.msg, "not a database");
	free(path);
}

static void test_store__foreign_database_is_refused(void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_store *s = NULL;
	char *path = kb_asprintf("%s/other.db", f->dir);
	sqlite3 *db = raw_open(path);

	raw_exec(db, "CREATE TABLE contacts (name TEXT)");
	sqlite3_close(db);
	assert_int_equal(kb_store_open(path, NULL, &s, &err), KB_EFAIL);
	assert_null(s);
	assert_msg_contains(err.msg, "another program");
	assert_int_equal(count_in(path, "SELECT count(*) FROM sqlite_master"),
			 1);
	free(path);
}

/* ---- owners (db/0006) ------------------------------------------------- */

/* The pid of a child that has ended and been reaped: a process gone. */
static long gone_pid(void)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	return (long)pid;
}

/* Make experiment @id's owner @pid (with a start time it never had when
 * @pid is ours) on @host, behind the store's back. */
static void set_owner(const char *path, int64_t id, const char *host,
		      long pid)
{
	sqlite3 *db = raw_open(path);
	char *sql = kb_asprintf("UPDATE experiments SET owner_host = '%s',"
				" owner_pid = %ld, owner_start = 12345"
				" WHERE id = %lld",
				host, pid, (long long)id);

	raw_exec(db, sql);
	free(sql);
	sqlite3_close(db);
}

static char *this_host(void)
{
	char h[256];

	kb_host_name(h, sizeof(h));
	return kb_strdup(h);
}

static void test_store__experiment_records_this_process_as_owner(
	void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_store *s = open_ok(f->path, 0);
	int64_t id = create_ok(s, "mine");
	struct kb_store_info i;
	char *host = this_host(), *sql;
	int alive = 0;

	assert_int_equal(kb_store_experiment_get(s, id, &i, &err), 0);
	assert_string_equal(i.state, "running");
	assert_string_equal(i.owner_host, host);
	assert_int_equal(i.owner_pid, (long)getpid());
	assert_int_equal(i.owner_alive, 1);
	assert_int_equal(i.daemon, 0);
	kb_store_info_release(&i);
	assert_int_equal(kb_store_experiment_owner_alive(s, id, &alive, &err),
			 0);
	assert_int_equal(alive, 1);
	kb_store_close(s);
	sql = kb_asprintf("SELECT count(*) FROM experiments WHERE owner_pid = %ld"
			  " AND owner_start > 0 AND owner_host = '%s'",
			  (long)getpid(), host);
	assert_int_equal(count_in(f->path, sql), 1);
	free(sql);
	free(host);
}

static void test_store__gone_owner_reads_interrupted_and_nothing_is_written(
	void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_store *s = open_ok(f->path, 0);
	int64_t id = create_ok(s, "killed");
	struct kb_store_info i, *h = NULL;
	struct kb_store_progress p;
	char *host = this_host();
	size_t n = 0;
	int alive = 1;

	set_owner(f->path, id, host, gone_pid());
	assert_int_equal(kb_store_experiment_get(s, id, &i, &err), 0);
	assert_string_equal(i.state, "interrupted");
	assert_int_equal(i.owner_alive, 0);
	kb_store_info_release(&i);
	assert_int_equal(kb_store_history(s, &h, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_string_equal(h[0].state, "interrupted");
	kb_store_info_release(&h[0]);
	free(h);
	assert_int_equal(kb_store_experiment_owner_alive(s, id, &alive, &err),
			 0);
	assert_int_equal(alive, 0);
	/* what kbisectd's status shows for it: not "running, ETA 0" */
	assert_int_equal(kb_store_progress_get(s, id, &p, &err), 0);
	assert_string_equal(p.state, "interrupted");
	assert_int_equal(p.boots_total, 3 * 3);
	assert_int_equal(p.boots_done, 0);
	assert_int_equal(p.variants_done, 0);
	kb_store_progress_release(&p);
	/* and cancel says what to do */
	assert_int_equal(kb_store_experiment_cancel(s, id, &err), KB_EINPUT);
	assert_msg_contains(err.msg, "kbisect resume");
	kb_store_close(s);
	/* reading wrote nothing */
	assert_int_equal(count_in(f->path, "SELECT count(*) FROM experiments"
					   " WHERE state = 'running'"),
			 1);
	free(host);
}

static void test_store__owner_on_another_host_is_never_gone(void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_store *s = open_ok(f->path, 0);
	int64_t id = create_ok(s, "elsewhere");
	struct kb_store_info i;
	unsigned n = 9;

	set_owner(f->path, id, "kb-other-host.invalid", gone_pid());
	assert_int_equal(kb_store_experiment_get(s, id, &i, &err), 0);
	assert_string_equal(i.state, "running");
	assert_int_equal(i.owner_alive, 1);
	kb_store_info_release(&i);
	assert_int_equal(kb_store_experiments_interrupt_gone(s, &n, &err), 0);
	assert_int_equal(n, 0);
	assert_int_equal(kb_store_experiment_take(s, id, &err), KB_EINPUT);
	assert_msg_contains(err.msg, "still running");
	assert_msg_contains(err.msg, "kb-other-host.invalid");
	kb_store_close(s);
}

/* A daemon experiment with one boot job, made "running" as a claim
 * would. */
static int64_t submit_running(struct kb_store *s, const char *path)
{
	struct kb_store_experiment e = {
		.name = "daemon",
		.matrix_text = "name: daemon\n",
		.executor = "model",
		.metric = "read_iops",
		.boots = 1,
		.runs_per_boot = 1,
		.nvariants = 1,
		.variants = variants,
	};
	struct kb_store_job_spec job = {
		.kind = KB_STORE_JOB_BOOT, .variant_idx = 0, .boot_no = 1,
		.seq = 0,
	};
	struct kb_err err = KB_ERR_INIT;
	int64_t id = 0;
	sqlite3 *db;

	if (kb_store_experiment_submit(s, &e, &job, 1, &id, &err))
		fail_msg("submit: %s", err.msg);
	db = raw_open(path);
	raw_exec(db, "UPDATE experiments SET state = 'running'"
		     " WHERE name = 'daemon'");
	sqlite3_close(db);
	return id;
}

static void test_store__interrupt_gone_marks_only_runs_whose_process_is_gone(
	void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_store *s = open_ok(f->path, 0);
	int64_t alive = create_ok(s, "alive");
	int64_t dead = create_ok(s, "dead");
	int64_t daemon = submit_running(s, f->path);
	char *host = this_host();
	struct kb_store_info i;
	unsigned n = 0;

	set_owner(f->path, dead, host, gone_pid());
	assert_int_equal(kb_store_experiments_interrupt_gone(s, &n, &err), 0);
	assert_int_equal(n, 1);
	kb_store_close(s);
	assert_int_equal(count_in(f->path,
				  "SELECT count(*) FROM experiments WHERE"
				  " state = 'interrupted' AND error LIKE"
				  " 'its kbisect process (pid % on %) is gone'"
				  " AND finished_at IS NOT NULL"),
			 1);
	s = open_ok(f->path, 0);
	assert_int_equal(kb_store_experiment_get(s, dead, &i, &err), 0);
	assert_string_equal(i.state, "interrupted");
	kb_store_info_release(&i);
	assert_int_equal(kb_store_experiment_get(s, alive, &i, &err), 0);
	assert_string_equal(i.state, "running");
	kb_store_info_release(&i);
	/* the daemon's experiment has no owner: kbisectd resumes it */
	assert_int_equal(kb_store_experiment_get(s, daemon, &i, &err), 0);
	assert_string_equal(i.state, "running");
	assert_int_equal(i.daemon, 1);
	assert_null(i.owner_host);
	kb_store_info_release(&i);
	kb_store_close(s);
	free(host);
}

static void test_store__take_refuses_done_daemon_and_live_experiments(
	void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_store *s = open_ok(f->path, 0);
	int64_t live = create_ok(s, "live");
	int64_t done = create_ok(s, "done");
	int64_t dead = create_ok(s, "dead");
	int64_t daemon = submit_running(s, f->path);
	char *host = this_host();
	struct kb_store_info i;

	assert_int_equal(kb_store_experiment_finish(s, done, "done", NULL,
						    &err),
			 0);
	assert_int_equal(kb_store_experiment_take(s, done, &err), KB_EINPUT);
	assert_msg_contains(err.msg, "is done");
	kb_err_clear(&err);
	assert_int_equal(kb_store_experiment_take(s, daemon, &err), KB_EINPUT);
	assert_msg_contains(err.msg, "kbisectd");
	kb_err_clear(&err);
	assert_int_equal(kb_store_experiment_take(s, live, &err), KB_EINPUT);
	assert_msg_contains(err.msg, "still running");
	kb_err_clear(&err);
	assert_int_equal(kb_store_experiment_take(s, 999, &err),
			 KB_ENOTFOUND);
	kb_err_clear(&err);

	/* a run whose process is gone is taken over: running, ours */
	set_owner(f->path, dead, host, gone_pid());
	assert_int_equal(kb_store_experiment_finish(s, dead, "interrupted",
						    "interrupted by SIGTERM",
						    &err),
			 0);
	assert_int_equal(kb_store_experiment_take(s, dead, &err), 0);
	assert_int_equal(kb_store_experiment_get(s, dead, &i, &err), 0);
	assert_string_equal(i.state, "running");
	assert_null(i.error);
	assert_null(i.finished_at);
	assert_int_equal(i.owner_pid, (long)getpid());
	assert_int_equal(i.owner_alive, 1);
	kb_store_info_release(&i);
	/* and a second taker finds it running in this live process */
	assert_int_equal(kb_store_experiment_take(s, dead, &err), KB_EINPUT);
	kb_store_close(s);
	free(host);
}

static void test_store__migration_to_6_interrupts_old_runs_keeps_the_daemons(
	void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_store *s = open_ok(f->path, 5);
	const double vals[] = { 10, 20 };
	struct kb_store_info i;
	int64_t run, daemon;
	sqlite3 *db;

	assert_int_equal(kb_store_version(s), 5);
	run = create_ok(s, "old run");
	put_boot(s, run, 1, 1, KB_BOOT_OK, NULL, vals, 2);
	daemon = submit_running(s, f->path);
	kb_store_close(s);

	s = open_ok(f->path, 0);
	assert_int_equal(kb_store_version(s), kb_store_latest_version());
	assert_int_equal(kb_store_experiment_get(s, run, &i, &err), 0);
	assert_string_equal(i.state, "interrupted");
	assert_msg_contains(i.error, "recorded no owner");
	assert_int_equal(i.nboots_done, 1);
	assert_int_equal(i.nsamples, 2);
	kb_store_info_release(&i);
	assert_int_equal(kb_store_experiment_get(s, daemon, &i, &err), 0);
	assert_string_equal(i.state, "running");
	kb_store_info_release(&i);
	kb_store_close(s);
	db = raw_open(f->path);
	/* the rebuilt table kept its rows, jobs and views still work */
	assert_int_equal(raw_int(db, "SELECT count(*) FROM jobs j JOIN"
				     " experiments e ON e.id = j.experiment_id"),
			 1);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM v_history"), 2);
	assert_int_equal(raw_int(db, "SELECT n FROM v_variant_summary"
				     " WHERE metric = 'read_iops'"),
			 1);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM v_jobs"), 1);
	sqlite3_close(db);
}

/* ---- evidence (db/0007) ------------------------------------------------ */

#define SHA_A "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"

/* Store a build "kb" with evidence (when @evidence) under @key. */
static int64_t put_build(struct kb_store *s, const char *key, int evidence)
{
	struct kb_build_result b = { 0 };
	struct kb_err err = KB_ERR_INIT;
	int64_t id = 0;

	b.status = KB_BUILD_OK;
	b.image = kb_strdup("/cache/kb/bzImage");
	b.duration_s = 3;
	if (evidence) {
		b.config_text = kb_strdup("CONFIG_A=y\n# CONFIG_B is not set\n");
		b.image_sha256 = kb_strdup(SHA_A);
	}
	if (kb_store_build_put(s, key, "libvirt", &b, &id, &err))
		fail_msg("cannot put build: %s", err.msg);
	kb_build_result_release(&b);
	return id;
}

/* Store boot @boot_no of variant @idx booting build @bid, with domain XML
 * "<domain>@xml</domain>" (none when @xml is NULL). */
static void put_evidence_boot(struct kb_store *s, int64_t exp, unsigned idx,
			      unsigned boot_no, int64_t bid,
			      enum kb_boot_status status, const char *xml)
{
	const double vals[] = { 1.5 };
	struct kb_boot_result r = boot_result(status, status == KB_BOOT_OK
							      ? NULL
							      : "it broke",
					      vals, status == KB_BOOT_OK);
	struct kb_err err = KB_ERR_INIT;

	free(r.host);
	r.host = kb_strdup("qemu:///system");
	if (xml) {
		r.domain_xml = kb_asprintf("<domain>%s</domain>", xml);
		r.workload_text = kb_strdup("[kbisect]\nrw=randread\n");
	}
	if (kb_store_boot_put(s, exp, idx, boot_no, bid, &r, &err))
		fail_msg("cannot put boot: %s", err.msg);
	kb_boot_result_release(&r);
}

static void test_store__build_evidence_round_trip(void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_store *s = open_ok(f->path, 0);
	struct kb_build_result out = { 0 };
	int64_t bid = put_build(s, "ke", 1), got = 0;

	put_build(s, "kn", 0);
	assert_int_equal(kb_store_build_get(s, "ke", &out, &got, &err), 0);
	assert_int_equal(got, bid);
	assert_string_equal(out.config_text,
			    "CONFIG_A=y\n# CONFIG_B is not set\n");
	assert_string_equal(out.image_sha256, SHA_A);
	kb_build_result_release(&out);
	assert_int_equal(kb_store_build_get(s, "kn", &out, &got, &err), 0);
	assert_null(out.config_text);
	assert_null(out.image_sha256);
	kb_build_result_release(&out);
	kb_store_close(s);
}

static void test_store__evidence_is_the_latest_ok_boot_with_its_build(
	void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_store *s = open_ok(f->path, 0);
	int64_t exp = create_ok(s, "ev");
	int64_t bid = put_build(s, "key-y", 1);
	struct kb_store_evidence e;

	put_evidence_boot(s, exp, 0, 1, bid, KB_BOOT_OK, "one");
	put_evidence_boot(s, exp, 0, 2, bid, KB_BOOT_OK, "two");
	put_evidence_boot(s, exp, 0, 3, bid, KB_BOOT_PANIC, "three");
	assert_int_equal(kb_store_evidence_get(s, exp, 0, &e, &err), 0);
	assert_int_equal(e.boot_no, 2);
	assert_string_equal(e.status, "ok");
	assert_null(e.reason);
	assert_string_equal(e.host, "qemu:///system");
	assert_string_equal(e.domain_xml, "<domain>two</domain>");
	assert_string_equal(e.workload_text, "[kbisect]\nrw=randread\n");
	assert_int_equal(e.build_id, bid);
	assert_string_equal(e.build_key, "key-y");
	assert_string_equal(e.image, "/cache/kb/bzImage");
	assert_string_equal(e.image_sha256, SHA_A);
	assert_string_equal(e.config_text,
			    "CONFIG_A=y\n# CONFIG_B is not set\n");
	kb_store_evidence_release(&e);
	assert_null(e.domain_xml);
	kb_store_evidence_release(NULL);
	kb_store_close(s);
	assert_int_equal(count_in(f->path,
				  "SELECT count(*) FROM v_boot_evidence"
				  " WHERE has_domain_xml AND has_workload"
				  " AND has_config AND image_sha256 = '" SHA_A
				  "'"),
			 3);
}

static void test_store__evidence_of_a_failing_variant_is_its_latest_boot(
	void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_store *s = open_ok(f->path, 0);
	int64_t exp = create_ok(s, "ev");
	int64_t bid = put_build(s, "key-n", 0);
	struct kb_store_evidence e;

	put_evidence_boot(s, exp, 1, 1, bid, KB_BOOT_TIMEOUT, "one");
	put_evidence_boot(s, exp, 1, 2, bid, KB_BOOT_PANIC, "two");
	put_evidence_boot(s, exp, 1, 3, bid, KB_BOOT_LIBVIRT_ERROR, NULL);
	assert_int_equal(kb_store_evidence_get(s, exp, 1, &e, &err), 0);
	assert_int_equal(e.boot_no, 2);
	assert_string_equal(e.status, "panic");
	assert_string_equal(e.reason, "it broke");
	assert_null(e.config_text);
	assert_null(e.image_sha256);
	kb_store_evidence_release(&e);
	kb_store_close(s);
}

static void test_store__no_evidence_is_not_found(void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_store *s = open_ok(f->path, 0);
	int64_t exp = create_ok(s, "ev");
	const double vals[] = { 1, 2 };
	struct kb_store_evidence e;

	/* a model boot stores no XML */
	put_boot(s, exp, 0, 1, KB_BOOT_OK, NULL, vals, 2);
	assert_int_equal(kb_store_evidence_get(s, exp, 0, &e, &err),
			 KB_ENOTFOUND);
	assert_msg_contains(err.msg,
			    "variant 0 of experiment 1 has no boot with a domain XML");
	assert_null(e.domain_xml);
	kb_err_clear(&err);
	assert_int_equal(kb_store_evidence_get(s, exp, 9, &e, &err),
			 KB_ENOTFOUND);
	kb_store_close(s);
}

static void test_store__migration_to_7_keeps_builds_and_boots(void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_store *s = open_ok(f->path, 6);
	struct kb_build_result out = { 0 };
	struct kb_store_evidence e;
	int64_t exp, old_bid, new_bid, got = 0;

	/* a kbisect of schema 6 stores what it knows: no evidence */
	assert_int_equal(kb_store_version(s), 6);
	exp = create_ok(s, "old");
	old_bid = put_build(s, "key-y", 1);
	put_evidence_boot(s, exp, 0, 1, old_bid, KB_BOOT_OK, "old");
	assert_int_equal(kb_store_evidence_get(s, exp, 0, &e, &err),
			 KB_ENOTFOUND);
	assert_msg_contains(err.msg, "(schema 6) stores no domain XML");
	kb_err_clear(&err);
	kb_store_close(s);
	assert_int_equal(count_in(f->path, "SELECT count(*) FROM sqlite_master"
					   " WHERE name = 'v_boot_evidence'"),
			 0);

	s = open_ok(f->path, 0);
	assert_int_equal(kb_store_version(s), kb_store_latest_version());
	assert_int_equal(kb_store_build_get(s, "key-y", &out, &got, &err), 0);
	assert_int_equal(got, old_bid);
	assert_string_equal(out.image, "/cache/kb/bzImage");
	assert_null(out.config_text);
	assert_null(out.image_sha256);
	kb_build_result_release(&out);
	assert_int_equal(kb_store_evidence_get(s, exp, 0, &e, &err),
			 KB_ENOTFOUND);
	kb_err_clear(&err);
	/* new rows in the migrated database have it */
	new_bid = put_build(s, "key-n", 1);
	put_evidence_boot(s, exp, 1, 1, new_bid, KB_BOOT_OK, "new");
	assert_int_equal(kb_store_evidence_get(s, exp, 1, &e, &err), 0);
	assert_string_equal(e.domain_xml, "<domain>new</domain>");
	assert_string_equal(e.image_sha256, SHA_A);
	kb_store_evidence_release(&e);
	kb_store_close(s);
	assert_int_equal(count_in(f->path, "SELECT count(*) FROM samples"), 4);
	assert_int_equal(count_in(f->path, "SELECT count(*) FROM v_boot_evidence"
					   " WHERE has_domain_xml"),
			 1);
	assert_int_equal(count_in(f->path, "SELECT count(*) FROM v_history"),
			 1);
}

/* The boot means of variant @idx of @exp as the view v_boot_means has
 * them, in boot order; *@n of them (at most @max). */
static void view_means(sqlite3 *db, int64_t exp, unsigned idx,
		       const char *metric, double *out, size_t max, size_t *n)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(db,
			       "SELECT value FROM v_boot_means"
			       " WHERE experiment_id = ?1 AND metric = ?3"
			       " AND variant_id = (SELECT id FROM variants"
			       " WHERE experiment_id = ?1 AND idx = ?2)"
			       " ORDER BY boot_no",
			       -1, &st, NULL) != SQLITE_OK)
		fail_msg("v_boot_means: %s", sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, exp);
	sqlite3_bind_int64(st, 2, idx);
	sqlite3_bind_text(st, 3, metric, -1, SQLITE_STATIC);
	*n = 0;
	while (sqlite3_step(st) == SQLITE_ROW && *n < max)
		out[(*n)++] = sqlite3_column_double(st, 0);
	sqlite3_finalize(st);
}

static void test_store__boot_means_are_the_views_to_the_bit(void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_store *s = open_ok(f->path, 0);
	struct kb_store_variant *v = NULL;
	/* sums that round differently in another order */
	const double r1[] = { 1e16, 1, -1e16, 3.3, 0.1 },
		     r2[] = { 0.1, 0.2, 0.3, 1e-17, 7e15 }, r3[] = { 42 };
	int64_t a = create_ok(s, "a"), b = create_ok(s, "b");
	double want[8];
	size_t n = 0, nwant, i, k;
	sqlite3 *db;

	/* boots stored out of order, interleaved with another experiment's,
	 * failures between them */
	put_boot(s, a, 1, 3, KB_BOOT_OK, NULL, r2, 5);
	put_boot(s, b, 1, 1, KB_BOOT_OK, NULL, r3, 1);
	put_boot(s, a, 1, 1, KB_BOOT_OK, NULL, r1, 5);
	put_boot(s, a, 0, 2, KB_BOOT_PANIC, "oops", r3, 1);
	put_boot(s, a, 0, 1, KB_BOOT_OK, NULL, r2, 4);
	put_boot(s, a, 1, 2, KB_BOOT_OK, NULL, r3, 1);
	put_boot(s, b, 0, 1, KB_BOOT_OK, NULL, r1, 3);
	put_boot(s, a, 2, 1, KB_BOOT_OK, NULL, r1, 3);
	db = raw_open(f->path);
	for (k = 0; k < 2; k++) {
		const char *metric = k ? "lat_us" : "read_iops";

		assert_int_equal(kb_store_variants(s, a, metric, &v, &n, &err),
				 0);
		assert_int_equal(n, 3);
		for (i = 0; i < n; i++) {
			view_means(db, a, v[i].idx, metric, want, 8, &nwant);
			assert_int_equal(v[i].nboots, nwant);
			assert_memory_equal(v[i].boot_means, want,
					    nwant * sizeof(double));
			kb_store_variant_release(&v[i]);
		}
		free(v);
	}
	sqlite3_close(db);
	kb_store_close(s);
}

/* The plan of read @name in @p[0..n). */
static const char *read_plan(const struct kb_store_read_plan *p, size_t n,
			     const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(p[i].name, name))
			return p[i].plan;
	fail_msg("no read '%s'", name);
	return NULL;
}

static void test_store__reads_of_an_experiment_search_indexes(void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_store *s = open_ok(f->path, 0);
	struct kb_store_read_plan *p = NULL;
	const double vals[] = { 1, 2 };
	int64_t a = create_ok(s, "a"), b = create_ok(s, "b");
	size_t n = 0, i;

	put_boot(s, a, 0, 1, KB_BOOT_OK, NULL, vals, 2);
	put_boot(s, a, 1, 1, KB_BOOT_PANIC, "oops", NULL, 0);
	put_boot(s, b, 2, 1, KB_BOOT_OK, NULL, vals, 2);
	assert_int_equal(kb_store_read_plans(s, &p, &n, &err), 0);
	assert_true(n >= 7);
	/* a SCAN (of boots, samples or any table) makes a read of one
	 * experiment cost the whole database, and one per variant made
	 * results quadratic (issue 16): every step must be a SEARCH */
	for (i = 0; i < n; i++) {
		if (strstr(p[i].plan, "SCAN"))
			fail_msg("the read '%s' scans a table:\n%s", p[i].name,
				 p[i].plan);
		assert_non_null(strstr(p[i].plan, "SEARCH"));
	}
	/* db/0008's indexes: the boots side of the means is the index
	 * alone, and only failed boots are visited for the failures */
	assert_non_null(strstr(read_plan(p, n, "boot-means"),
			       "COVERING INDEX boots_variant_status"));
	assert_non_null(strstr(read_plan(p, n, "failures"), "boots_failed"));
	assert_non_null(strstr(read_plan(p, n, "boot-means"),
			       "INDEX sqlite_autoindex_samples_1"));
	/* db/0015: a rerun finds its answer by the inputs' index */
	assert_non_null(strstr(read_plan(p, n, "bisection-answer"),
			       "INDEX bisections_inputs"));
	kb_store_read_plans_free(p, n);
	kb_store_close(s);
}

static void test_store__migration_to_8_keeps_boots_and_their_means(
	void **state)
{
	struct fixture *f = *state;
	struct kb_err err = KB_ERR_INIT;
	struct kb_store *s = open_ok(f->path, 7);
	struct kb_store_variant *v = NULL;
	const double b1[] = { 100, 110 }, b2[] = { 200, 220 };
	int64_t exp;
	size_t n = 0, i;

	assert_int_equal(kb_store_version(s), 7);
	exp = create_ok(s, "old");
	put_boot(s, exp, 0, 1, KB_BOOT_OK, NULL, b1, 2);
	put_boot(s, exp, 0, 2, KB_BOOT_OK, NULL, b2, 2);
	put_boot(s, exp, 2, 1, KB_BOOT_PANIC, "oops", NULL, 0);
	kb_store_close(s);
	assert_int_equal(count_in(f->path, "SELECT count(*) FROM sqlite_master"
					   " WHERE name IN ('boots_variant_status',"
					   " 'boots_failed')"),
			 0);

	s = open_ok(f->path, 0);
	assert_int_equal(kb_store_version(s), kb_store_latest_version());
	assert_int_equal(kb_store_variants(s, exp, "read_iops", &v, &n, &err),
			 0);
	assert_int_equal(n, 3);
	assert_int_equal(v[0].nboots, 2);
	assert_true(v[0].boot_means[0] == 105.0);
	assert_true(v[0].boot_means[1] == 210.0);
	assert_int_equal(v[2].nfailed, 1);
	assert_string_equal(v[2].last_failure, "panic: oops");
	for (i = 0; i < n; i++)
		kb_store_variant_release(&v[i]);
	free(v);
	kb_store_close(s);
	assert_int_equal(count_in(f->path, "SELECT count(*) FROM sqlite_master"
					   " WHERE name IN ('boots_variant_status',"
					   " 'boots_failed')"),
			 2);
	assert_int_equal(count_in(f->path, "SELECT count(*) FROM samples"), 8);
}

static void add_monitor(struct kb_boot_result *r, unsigned run,
			const char *name, double value)
{
	struct kb_monitor_value *m;

	r->monitors = kb_reallocarray(r->monitors, r->nmonitors + 1,
				      sizeof(*r->monitors));
	m = &r->monitors[r->nmonitors++];
	memset(m, 0, sizeof(*m));
	m->run = run;
	snprintf(m->name, sizeof(m->name), "%s", name);
	m->value = value;
}

static double row_value(const struct kb_store_monitors *m, long long boot,
			const char *name)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (m->rows[i].boot == boot && !strcmp(m->rows[i].name, name))
			return m->rows[i].value;
	return NAN;
}

/*
 * Per boot, a guest monitor is its mean over the runs that stored
 * monitors and a host monitor (run 0, over the boot) its value: run 0
 * is not one more run to divide by.  A run's 0 is not stored, a host
 * monitor's 0 (a load of 0.00) is.
 */
static void test_store__monitors_per_boot_take_run_zero_as_it_is(
	void **state)
{
	static const double v[] = { 10, 11 };
	struct fixture *f = *state;
	struct kb_store *s = open_ok(f->path, 0);
	struct kb_err err = KB_ERR_INIT;
	struct kb_store_monitors m;
	struct kb_boot_result r;
	long long b1, b2;
	int64_t id = create_ok(s, "host");

	r = boot_result(KB_BOOT_OK, NULL, v, 2);
	add_monitor(&r, 0, "host.cpu_busy_pct", 60);
	add_monitor(&r, 0, "host.loadavg_start", 0);
	add_monitor(&r, 1, "irq.x", 4);
	add_monitor(&r, 1, "vmstat.pgfault", 10);
	add_monitor(&r, 2, "vmstat.pgfault", 30);
	add_monitor(&r, 2, "vmstat.nothing", 0);
	assert_int_equal(kb_store_boot_put(s, id, 0, 1, 0, &r, &err), 0);
	kb_boot_result_release(&r);
	/* a boot whose guest had no monitors: the host's alone */
	r = boot_result(KB_BOOT_OK, NULL, v, 2);
	add_monitor(&r, 0, "host.cpu_busy_pct", 40);
	assert_int_equal(kb_store_boot_put(s, id, 0, 2, 0, &r, &err), 0);
	kb_boot_result_release(&r);
	assert_int_equal(count_in(f->path, "SELECT count(*) FROM monitors"),
			 6);
	assert_int_equal(kb_store_monitors(s, id, 0, &m, &err), 0);
	assert_int_equal(m.nboots, 2);
	assert_int_equal(m.n, 5);
	b1 = m.rows[0].boot;
	b2 = m.rows[m.n - 1].boot;
	assert_true(b1 != b2);
	assert_true(row_value(&m, b1, "host.cpu_busy_pct") == 60);
	assert_true(row_value(&m, b1, "host.loadavg_start") == 0);
	assert_true(row_value(&m, b1, "vmstat.pgfault") == 20);
	assert_true(row_value(&m, b1, "irq.x") == 2);
	assert_true(row_value(&m, b2, "host.cpu_busy_pct") == 40);
	kb_store_monitors_release(&m);
	kb_store_close(s);
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

/* Statements alive on @db, cached or not. */
static int count_stmts(sqlite3 *db)
{
	sqlite3_stmt *st = NULL;
	int n = 0;

	while ((st = sqlite3_next_stmt(db, st)))
		n++;
	return n;
}

/*
 * The statement cache (store_int.h, the store's inside): one statement
 * per text for the life of the connection, handed back reset and
 * unbound; a fresh one, finalized after use, while it is held; another
 * text at an address used before compiled anew.  kb_store_close()
 * finalizes the cache (else sqlite cannot close the connection, which
 * the sanitizer build finds leaked).
 */
static void test_store__statements_are_prepared_once_per_connection(
	void **state)
{
	static const char sql[] = "SELECT count(*) FROM experiments";
	static const char bound[] = "SELECT ?1";
	struct fixture *f = *state;
	struct kb_store *s = open_ok(f->path, 0);
	struct kb_err err = KB_ERR_INIT;
	sqlite3_stmt *a = NULL, *b = NULL, *c = NULL;
	char text[32];
	int n;

	assert_int_equal(store_stmt(s, sql, &a, &err), 0);
	assert_int_equal(sqlite3_step(a), SQLITE_ROW);
	store_stmt_done(s, a);
	assert_int_equal(store_stmt(s, sql, &b, &err), 0);
	assert_ptr_equal(a, b);
	assert_false(sqlite3_stmt_busy(b));
	/* held: another user gets a statement of its own, for one use */
	n = count_stmts(s->db);
	assert_int_equal(store_stmt(s, sql, &c, &err), 0);
	assert_ptr_not_equal(b, c);
	assert_int_equal(sqlite3_step(c), SQLITE_ROW);
	store_stmt_done(s, c);
	assert_int_equal(count_stmts(s->db), n);
	store_stmt_done(s, b);
	/* another text at the same address is not taken for the first */
	snprintf(text, sizeof(text), "SELECT 1");
	assert_int_equal(store_stmt(s, text, &a, &err), 0);
	assert_int_equal(sqlite3_step(a), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(a, 0), 1);
	store_stmt_done(s, a);
	snprintf(text, sizeof(text), "SELECT 2");
	assert_int_equal(store_stmt(s, text, &a, &err), 0);
	assert_int_equal(sqlite3_step(a), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(a, 0), 2);
	store_stmt_done(s, a);
	/* bindings do not outlive a use */
	assert_int_equal(store_stmt(s, bound, &a, &err), 0);
	sqlite3_bind_int(a, 1, 7);
	assert_int_equal(sqlite3_step(a), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(a, 0), 7);
	store_stmt_done(s, a);
	assert_int_equal(store_stmt(s, bound, &b, &err), 0);
	assert_ptr_equal(a, b);
	assert_int_equal(sqlite3_step(b), SQLITE_ROW);
	assert_int_equal(sqlite3_column_type(b, 0), SQLITE_NULL);
	store_stmt_done(s, b);
	/* a bad text: an error, nothing cached */
	n = count_stmts(s->db);
	assert_int_equal(store_stmt(s, "SELECT nonsense FROM", &a, &err),
			 KB_EFAIL);
	assert_null(a);
	assert_int_equal(count_stmts(s->db), n);
	kb_store_close(s);
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

static const struct CMUnitTest tests[] = {
	T(test_store__open_creates_and_migrates_to_latest),
	T(test_store__monitors_per_boot_take_run_zero_as_it_is),
	T(test_store__reopen_is_a_no_op),
	T(test_store__newer_version_is_refused),
	T(test_store__foreign_database_is_left_as_it_was),
	T(test_store__newer_version_is_left_as_it_was),
	T(test_store__missing_database_is_not_created),
	T(test_store__empty_file_is_no_database_to_read),
	T(test_store__read_only_open_writes_nothing),
	T(test_store__read_only_open_migrates_an_older_database),
	T(test_store__read_only_file_and_folder_can_be_read),
	T(test_store__read_only_older_database_is_refused),
	T(test_store__migration_from_version_1_keeps_data),
	T(test_store__failed_migration_changes_nothing),
	T(test_store__option_kinds_are_exact),
	T(test_store__tag_is_the_databases_own),
	T(test_store__the_sentinel_is_marked),
	T(test_store__bisection_answer_kept_and_found),
	T(test_store__wal_and_foreign_keys_are_on),
	T(test_store__experiment_create_writes_variants_and_options),
	T(test_store__failed_experiment_create_writes_nothing),
	T(test_store__boot_put_stores_all_samples),
	T(test_store__duplicate_boot_is_refused),
	T(test_store__boot_with_nan_is_refused),
	T(test_store__boot_of_unknown_variant_is_not_found),
	T(test_store__build_put_get_round_trip),
	T(test_store__history_is_newest_first_with_counts),
	T(test_store__variants_have_boot_means_and_failures),
	T(test_store__variants_pair_reads_two_variants_alone),
	T(test_store__variant_summary_view_has_stats),
	T(test_store__concurrent_opens_migrate_once),
	T(test_store__non_database_file_is_refused),
	T(test_store__foreign_database_is_refused),
	T(test_store__boot_with_an_infinity_is_refused),
	T(test_store__experiment_records_this_process_as_owner),
	T(test_store__gone_owner_reads_interrupted_and_nothing_is_written),
	T(test_store__owner_on_another_host_is_never_gone),
	T(test_store__interrupt_gone_marks_only_runs_whose_process_is_gone),
	T(test_store__take_refuses_done_daemon_and_live_experiments),
	T(test_store__migration_to_6_interrupts_old_runs_keeps_the_daemons),
	T(test_store__build_evidence_round_trip),
	T(test_store__evidence_is_the_latest_ok_boot_with_its_build),
	T(test_store__evidence_of_a_failing_variant_is_its_latest_boot),
	T(test_store__no_evidence_is_not_found),
	T(test_store__migration_to_7_keeps_builds_and_boots),
	T(test_store__boot_means_are_the_views_to_the_bit),
	T(test_store__reads_of_an_experiment_search_indexes),
	T(test_store__migration_to_8_keeps_boots_and_their_means),
	T(test_store__statements_are_prepared_once_per_connection),
};

KB_TEST_MAIN(tests)
