#include "ydoc.h"

#include <search.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "buf.h"
#include "err.h"
#include "mem.h"
#include "banned.h"

struct kb_ydoc {
	char *file;
	char *text;
	struct kb_ynode *root;
	size_t nodes;
};

static void node_free(struct kb_ynode *n)
{
	size_t i;

	if (!n)
		return;
	for (i = 0; i < n->n; i++) {
		node_free(n->items[i]);
		if (n->keys)
			node_free(n->keys[i]);
	}
	free(n->items);
	free(n->keys);
	free((char *)n->str);
	free(n);
}

void kb_ydoc_free(struct kb_ydoc *doc)
{
	if (!doc)
		return;
	node_free(doc->root);
	free(doc->file);
	free(doc->text);
	free(doc);
}

const struct kb_ynode *kb_ydoc_root(const struct kb_ydoc *doc)
{
	return doc->root;
}

const char *kb_ydoc_file(const struct kb_ydoc *doc)
{
	return doc->file;
}

const char *kb_ydoc_text(const struct kb_ydoc *doc)
{
	return doc->text;
}

const struct kb_ynode *kb_ynode_get(const struct kb_ynode *map,
				    const char *key)
{
	size_t i;

	if (!map || map->type != KB_Y_MAP)
		return NULL;
	for (i = 0; i < map->n; i++)
		if (strcmp(map->keys[i]->str, key) == 0)
			return map->items[i];
	return NULL;
}

const char *kb_ynode_kind(const struct kb_ynode *node)
{
	if (!node)
		return "nothing";
	switch (node->type) {
	case KB_Y_SCALAR:
		return "a scalar";
	case KB_Y_SEQ:
		return "a list";
	case KB_Y_MAP:
		return "a mapping";
	}
	return "?";
}

int kb_ynode_is_null(const struct kb_ynode *node)
{
	const char *s = node->str;

	return node->type == KB_Y_SCALAR && !node->quoted &&
	       (!node->len || !strcmp(s, "~") || !strcmp(s, "null") ||
		!strcmp(s, "Null") || !strcmp(s, "NULL"));
}

struct parse {
	yaml_parser_t parser;
	yaml_event_t ev;
	int have_ev;
	struct kb_ydoc *doc;
	struct kb_err *err;
};

static int next(struct parse *p)
{
	if (p->have_ev) {
		yaml_event_delete(&p->ev);
		p->have_ev = 0;
	}
	if (!yaml_parser_parse(&p->parser, &p->ev)) {
		const char *ctx = p->parser.context;

		return kb_err_at(p->err, p->doc->file,
				 (unsigned)p->parser.problem_mark.line + 1,
				 (unsigned)p->parser.problem_mark.column + 1,
				 "YAML syntax error: %s%s%s",
				 p->parser.problem ? p->parser.problem
						   : "cannot parse",
				 ctx ? " " : "", ctx ? ctx : "");
	}
	p->have_ev = 1;
	return 0;
}

static struct kb_ynode *new_node(struct parse *p, enum kb_ynode_type type)
{
	struct kb_ynode *n = kb_calloc(1, sizeof(*n));

	n->type = type;
	n->line = (unsigned)p->ev.start_mark.line + 1;
	n->col = (unsigned)p->ev.start_mark.column + 1;
	p->doc->nodes++;
	return n;
}

/*
 * Add an item to @parent, whose arrays hold *@cap items: the capacity
 * doubles when full, so that a list or mapping of n items costs O(n)
 * copies, not O(n^2).
 */
static void append(struct kb_ynode *parent, size_t *cap, struct kb_ynode *key,
		   struct kb_ynode *value)
{
	if (parent->n == *cap) {
		*cap = *cap ? 2 * *cap : 4;
		parent->items = kb_reallocarray(parent->items, *cap,
						sizeof(*parent->items));
		if (parent->type == KB_Y_MAP)
			parent->keys = kb_reallocarray(parent->keys, *cap,
						       sizeof(*parent->keys));
	}
	parent->items[parent->n] = value;
	if (parent->type == KB_Y_MAP)
		parent->keys[parent->n] = key;
	parent->n++;
}

/*
 * The keys of the mapping being parsed are kept in a balanced search
 * tree (POSIX tsearch: red-black in glibc, AVL in musl), so that checking
 * each new key against the earlier ones costs O(log n) whatever the keys
 * are: a mapping of n keys is checked in O(n log n), with no hash that
 * chosen keys could make collide.
 */
static int cmp_key(const void *a, const void *b)
{
	return strcmp(((const struct kb_ynode *)a)->str,
		      ((const struct kb_ynode *)b)->str);
}

/* Empty the tree @root of mapping @map's keys. */
static void keys_forget(void **root, const struct kb_ynode *map)
{
	size_t i;

	for (i = 0; i < map->n && *root; i++)
		tdelete(map->keys[i], root, cmp_key);
}

/* Parse the node whose first event is in p->ev; on success *out owns it. */
static int parse_node(struct parse *p, unsigned depth, struct kb_ynode **out)
{
	struct kb_ynode *n = NULL, *key = NULL, *value = NULL;
	const char *file = p->doc->file;
	void *seen = NULL; /* a mapping's keys so far (cmp_key) */
	size_t cap = 0;    /* n's items and keys allocated (append) */
	int ret;

	*out = NULL;
	if (depth > KB_YDOC_MAX_DEPTH)
		return kb_err_at(p->err, file,
				 (unsigned)p->ev.start_mark.line + 1,
				 (unsigned)p->ev.start_mark.column + 1,
				 "nesting deeper than %d levels",
				 KB_YDOC_MAX_DEPTH);
	if (p->doc->nodes >= KB_YDOC_MAX_NODES)
		return kb_err_at(p->err, file,
				 (unsigned)p->ev.start_mark.line + 1,
				 (unsigned)p->ev.start_mark.column + 1,
				 "more than %d YAML nodes", KB_YDOC_MAX_NODES);

	switch (p->ev.type) {
	case YAML_ALIAS_EVENT:
		return kb_err_at(p->err, file,
				 (unsigned)p->ev.start_mark.line + 1,
				 (unsigned)p->ev.start_mark.column + 1,
				 "YAML aliases ('*%s') are not supported",
				 (const char *)p->ev.data.alias.anchor);
	case YAML_SCALAR_EVENT:
		n = new_node(p, KB_Y_SCALAR);
		n->str = kb_strndup((const char *)p->ev.data.scalar.value,
				    p->ev.data.scalar.length);
		n->len = p->ev.data.scalar.length;
		n->quoted = p->ev.data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
		*out = n;
		return 0;
	case YAML_SEQUENCE_START_EVENT:
		n = new_node(p, KB_Y_SEQ);
		for (;;) {
			if ((ret = next(p)) < 0)
				goto fail;
			if (p->ev.type == YAML_SEQUENCE_END_EVENT)
				break;
			if ((ret = parse_node(p, depth + 1, &value)) < 0)
				goto fail;
			append(n, &cap, NULL, value);
			value = NULL;
		}
		*out = n;
		return 0;
	case YAML_MAPPING_START_EVENT:
		n = new_node(p, KB_Y_MAP);
		for (;;) {
			struct kb_ynode *const *first;

			if ((ret = next(p)) < 0)
				goto fail;
			if (p->ev.type == YAML_MAPPING_END_EVENT)
				break;
			if (p->ev.type != YAML_SCALAR_EVENT) {
				ret = kb_err_at(
					p->err, file,
					(unsigned)p->ev.start_mark.line + 1,
					(unsigned)p->ev.start_mark.column + 1,
					"expected a scalar key, found a %s",
					p->ev.type == YAML_MAPPING_START_EVENT
						? "mapping"
						: "list or alias");
				goto fail;
			}
			if ((ret = parse_node(p, depth + 1, &key)) < 0)
				goto fail;
			if (strlen(key->str) != key->len) {
				ret = kb_err_at(p->err, file, key->line,
						key->col,
						"a key contains a NUL byte");
				goto fail;
			}
			if ((first = tfind(key, &seen, cmp_key))) {
				ret = kb_err_at(
					p->err, file, key->line, key->col,
					"duplicate key '%s' (first at line %u)",
					key->str, (*first)->line);
				goto fail;
			}
			if ((ret = next(p)) < 0)
				goto fail;
			if ((ret = parse_node(p, depth + 1, &value)) < 0)
				goto fail;
			append(n, &cap, key, value);
			key = value = NULL;
			if (!tsearch(n->keys[n->n - 1], &seen, cmp_key)) {
				ret = kb_err_set(p->err, KB_EFAIL,
						 "out of memory");
				goto fail;
			}
		}
		keys_forget(&seen, n);
		*out = n;
		return 0;
	default:
		return kb_err_at(p->err, file,
				 (unsigned)p->ev.start_mark.line + 1,
				 (unsigned)p->ev.start_mark.column + 1,
				 "unexpected YAML event");
	}
fail:
	if (n && n->type == KB_Y_MAP)
		keys_forget(&seen, n);
	node_free(key);
	node_free(value);
	node_free(n);
	return ret;
}

int kb_ydoc_parse_buffer(const char *data, size_t len, const char *file,
			 struct kb_ydoc **out, struct kb_err *err)
{
	struct parse p;
	int ret;

	*out = NULL;
	memset(&p, 0, sizeof(p));
	p.err = err;
	p.doc = kb_calloc(1, sizeof(*p.doc));
	p.doc->file = kb_strdup(file);
	p.doc->text = kb_strndup(data, len);
	if (len > KB_YDOC_MAX_FILE) {
		ret = kb_err_at(err, file, 0, 0, "larger than %d bytes",
				KB_YDOC_MAX_FILE);
		goto out;
	}
	if (memchr(data, '\0', len)) {
		ret = kb_err_at(err, file, 0, 0,
				"contains a NUL byte: not a YAML text file");
		goto out;
	}
	if (!yaml_parser_initialize(&p.parser)) {
		ret = kb_err_set(err, KB_EFAIL, "cannot initialise libyaml");
		goto out;
	}
	yaml_parser_set_input_string(&p.parser, (const unsigned char *)data,
				     len);

	/* STREAM-START, then DOCUMENT-START or STREAM-END. */
	if ((ret = next(&p)) < 0 || (ret = next(&p)) < 0)
		goto out_parser;
	if (p.ev.type == YAML_STREAM_END_EVENT)
		goto done;
	if ((ret = next(&p)) < 0)
		goto out_parser;
	if ((ret = parse_node(&p, 1, &p.doc->root)) < 0)
		goto out_parser;
	if ((ret = next(&p)) < 0) /* DOCUMENT-END */
		goto out_parser;
	if ((ret = next(&p)) < 0)
		goto out_parser;
	if (p.ev.type != YAML_STREAM_END_EVENT) {
		ret = kb_err_at(err, file, (unsigned)p.ev.start_mark.line + 1,
				(unsigned)p.ev.start_mark.column + 1,
				"only one YAML document is allowed");
		goto out_parser;
	}
done:
	*out = p.doc;
	p.doc = NULL;
	ret = 0;
out_parser:
	if (p.have_ev)
		yaml_event_delete(&p.ev);
	yaml_parser_delete(&p.parser);
out:
	kb_ydoc_free(p.doc);
	return ret;
}

int kb_ydoc_load_file(const char *path, struct kb_ydoc **out,
		      struct kb_err *err)
{
	struct kb_buf b = KB_BUF_INIT;
	int ret;

	*out = NULL;
	ret = kb_buf_read_file(&b, path, KB_YDOC_MAX_FILE, err);
	if (ret == 0)
		ret = kb_ydoc_parse_buffer(b.buf, b.len, path, out, err);
	kb_buf_release(&b);
	return ret;
}
