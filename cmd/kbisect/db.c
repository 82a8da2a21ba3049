#include <stdio.h>
#include <stdlib.h>

#include "kbisect.h"
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
	.help = "Open it with the sqlite3 shell or DB Browser for SQLite; start\n"
		"with the views v_history and v_variant_summary.\n",
};

static int cmd_db(const struct kb_args *args)
{
	const char *given = args->db;
	char *path;

	path = given ? NULL : kb_paths_default_db();
	printf("%s\n", given ? given : path);
	free(path);
	return 0;
}
