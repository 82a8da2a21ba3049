#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "kbisect.h"
#include "paths.h"
#include "banned.h"

int cmd_db(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 },
	};
	const char *given = NULL;
	char *path;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c != 'd')
			return cmd_usage_error("db", "unknown option");
		given = optarg;
	}
	if (optind != argc)
		return cmd_usage_error("db", "unexpected argument '%s'",
				       argv[optind]);
	path = given ? NULL : kb_paths_default_db();
	printf("%s\n", given ? given : path);
	free(path);
	return 0;
}
