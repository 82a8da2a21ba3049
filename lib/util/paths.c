#include "paths.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "err.h"
#include "fsutil.h"
#include "mem.h"
#include "banned.h"

char *kb_paths_default_db(void)
{
	const char *e = getenv("KBISECT_DB");
	char *home, *path;

	if (e && *e)
		return kb_strdup(e);
	e = getenv("XDG_DATA_HOME");
	if (e && *e == '/')
		return kb_asprintf("%s/kbisect/kbisect.db", e);
	home = kb_home_dir();
	path = kb_asprintf("%s/.local/share/kbisect/kbisect.db", home);
	free(home);
	return path;
}

int kb_mkdir_p(const char *path, struct kb_err *err)
{
	char *p = kb_strdup(path);
	char *s;
	int ret = 0;

	for (s = p + 1; ; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char c = *s;

		*s = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST) {
			ret = kb_err_set(err, KB_EFAIL,
					 "cannot create folder '%s': %s", p,
					 strerror(errno));
			goto out;
		}
		*s = c;
		if (c == '\0')
			break;
	}
out:
	free(p);
	return ret;
}

int kb_mkdir_parent(const char *path, struct kb_err *err)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	int ret;

	if (!slash || slash == path)
		return 0;
	dir = kb_strndup(path, (size_t)(slash - path));
	ret = kb_mkdir_p(dir, err);
	free(dir);
	return ret;
}

char *kb_path_relative_to(const char *base, const char *rel)
{
	const char *slash = strrchr(base, '/');

	if (rel[0] == '/' || !slash)
		return kb_strdup(rel);
	return kb_asprintf("%.*s/%s", (int)(slash - base), base, rel);
}

const char *kb_path_base(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

char *kb_path_absolute(const char *path)
{
	char cwd[PATH_MAX];

	if (path[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		return kb_strdup(path);
	return kb_asprintf("%s/%s", cwd, path);
}
