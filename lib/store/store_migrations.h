#ifndef KB_STORE_MIGRATIONS_H
#define KB_STORE_MIGRATIONS_H

/*
 * The schema migrations of db/, compiled in by tools/embed.  Migration i
 * (0-based) takes a database from user_version i to i + 1.
 */
struct kb_migration {
	const char *name; /* file name, e.g. "0001-initial.sql" */
	const char *sql;  /* its statements */
};

extern const struct kb_migration kb_migrations[];
extern const unsigned kb_migrations_count;

#endif
