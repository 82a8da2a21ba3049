#ifndef KB_PATHS_H
#define KB_PATHS_H

struct kb_err;

/*
 * Where things live by default, and small path helpers.
 */

/*
 * The database path: $KBISECT_DB, else $XDG_DATA_HOME/kbisect/kbisect.db,
 * else $HOME/.local/share/kbisect/kbisect.db.  Caller frees.
 */
char *kb_paths_default_db(void);

/* Create folder @path and its parents (mode 0755 before umask). */
int kb_mkdir_p(const char *path, struct kb_err *err);

/* Create the parent folders of file @path. */
int kb_mkdir_parent(const char *path, struct kb_err *err);

/*
 * @rel resolved against the folder of file @base: absolute paths are
 * returned unchanged, "x" relative to "dir/m.yaml" becomes "dir/x".
 * Caller frees.
 */
char *kb_path_relative_to(const char *base, const char *rel);

/*
 * @path made absolute against the current folder ("m.yaml" in /home/u
 * becomes "/home/u/m.yaml"; nothing is looked up or simplified), for
 * paths stored for later, which must not depend on the folder of the
 * process that reads them.  Absolute paths are returned unchanged, and so
 * is @path when the current folder cannot be told.  Caller frees.
 */
char *kb_path_absolute(const char *path);

/* The last component of @path ("b" for "a/b"), a pointer into it. */
const char *kb_path_base(const char *path);

#endif
