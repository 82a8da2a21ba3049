#include <stdio.h>
#include <stdlib.h>

#include "kbisect.h"
#include "open.h"
#include "paths.h"
#include "banned.h"

static const struct kb_opt db_opts[] = {
	KB_OPT_DB,
	KB_OPT_END,
};

static int cmd_db(const struct kb_args *args);

const struct cmd cmd_db_entry = {
	.name = "db",
	.rank = 80,
	.opts = db_opts,
	.fn = cmd_db,
	.summary = "print the path of the database kbisect uses",
	.help = "Without --db: $KBISECT_DB, else the database of the kbisectd\n"
		"that answers at $KBISECT_SOCKET (else the default socket), where\n"
		"what you submit goes, else $XDG_DATA_HOME/kbisect/kbisect.db.\n"
		"Every verb that reads or stores experiments uses the same one.\n"
		"Open it with the sqlite3 shell or DB Browser for SQLite; start\n"
		"with the views v_history and v_variant_summary.\n",
};

static int cmd_db(const struct kb_args *args)
{
	const char *given = args->db;
	char *path;

	path = given ? NULL : cmd_default_db();
	printf("%s\n", given ? given : path);
	free(path);
	return 0;
}
