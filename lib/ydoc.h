#ifndef KB_YDOC_H
#define KB_YDOC_H

#include <stddef.h>

struct kb_err;

/*
 * A YAML document as a tree of nodes that remember where they were
 * written, so that validators (the matrix, the performance model) can
 * report "file:line:column: message".  This is the only module that talks
 * to libyaml.
 *
 * Limits: nesting depth KB_YDOC_MAX_DEPTH, KB_YDOC_MAX_NODES nodes, files
 * of KB_YDOC_MAX_FILE bytes.  Aliases are refused (they allow exponential
 * documents); a mapping with a repeated key is refused; only one document
 * per stream.
 */

#define KB_YDOC_MAX_DEPTH 32
#define KB_YDOC_MAX_NODES 100000
#define KB_YDOC_MAX_FILE (1024 * 1024)

enum kb_ynode_type {
	KB_Y_SCALAR,
	KB_Y_SEQ,
	KB_Y_MAP,
};

struct kb_ynode {
	enum kb_ynode_type type;
	unsigned line;           /* 1-based line of the node's first character */
	unsigned col;            /* 1-based column */
	const char *str;         /* scalar text (NUL-terminated); NULL otherwise */
	size_t len;              /* scalar length in bytes */
	int quoted;              /* scalar was single/double quoted or a block */
	size_t n;                /* number of items (seq) or pairs (map) */
	struct kb_ynode **items; /* sequence items, or mapping values */
	struct kb_ynode **keys;  /* mapping keys (always scalars); NULL for seq */
};

struct kb_ydoc;

/*
 * Parse @len bytes at @data.  @file names the input in messages.  On
 * success *@out holds a document the caller frees with kb_ydoc_free();
 * an empty stream yields a document whose root is NULL.  Returns 0 or
 * KB_EINPUT with "file:line:col: ..." in @err.
 */
int kb_ydoc_parse_buffer(const char *data, size_t len, const char *file,
			 struct kb_ydoc **out, struct kb_err *err);

/* Read @path (at most KB_YDOC_MAX_FILE bytes) and parse it. */
int kb_ydoc_load_file(const char *path, struct kb_ydoc **out,
		      struct kb_err *err);

void kb_ydoc_free(struct kb_ydoc *doc);

/* The root node, or NULL for an empty document. */
const struct kb_ynode *kb_ydoc_root(const struct kb_ydoc *doc);

/* The name given at parse time. */
const char *kb_ydoc_file(const struct kb_ydoc *doc);

/* The source text the document was parsed from (NUL-terminated). */
const char *kb_ydoc_text(const struct kb_ydoc *doc);

/* The value of @key in mapping @map, or NULL (also when @map is no map). */
const struct kb_ynode *kb_ynode_get(const struct kb_ynode *map,
				    const char *key);

/* "a mapping", "a list" or "a scalar", for messages. */
const char *kb_ynode_kind(const struct kb_ynode *node);

/*
 * Whether @node is YAML's null: an unquoted empty scalar (a key written
 * without a value), ~, null, Null or NULL.  A quoted "null" is a string.
 */
int kb_ynode_is_null(const struct kb_ynode *node);

#endif
