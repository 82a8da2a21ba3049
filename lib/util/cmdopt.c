/*
 * Options as data: one parser for every verb of kbisect and for kbisectd
 * (cmdopt.h).  It follows getopt_long's conventions but keeps no global
 * state and prints nothing.
 */
#include <stdint.h>
#include <string.h>

#include "cmdopt.h"
#include "buf.h"
#include "err.h"
#include "banned.h"

/* Understood by every table; not listed in the usage or the options. */
static const struct kb_opt help_opt = KB_OPT_BOOL(
	struct kb_args, help, 'h', "help", "show this help");

/* Labels wider than this do not set the options paragraph's column. */
#define LABEL_MAX 18

static int check_table(const struct kb_opt *opts, size_t size,
		       struct kb_err *err)
{
	const struct kb_opt *o;
	size_t need;

	if (size < sizeof(struct kb_args))
		return kb_err_set(err, KB_EFAIL,
				  "an option struct of %zu bytes cannot hold struct kb_args",
				  size);
	for (o = opts; o && o->name; o++) {
		need = o->kind == KB_OPT_FLAG ? sizeof(int)
					      : sizeof(const char *);
		if (!*o->name || o->offset > size || size - o->offset < need ||
		    (o->kind != KB_OPT_FLAG && o->kind != KB_OPT_VALUE) ||
		    (o->kind == KB_OPT_VALUE && !o->arg))
			return kb_err_set(err, KB_EFAIL,
					  "option '--%s' does not fit its struct",
					  o->name);
	}
	return 0;
}

static void set(const struct kb_opt *o, void *target, const char *value)
{
	char *p = (char *)target + o->offset;

	if (o->kind == KB_OPT_FLAG)
		*(int *)(void *)p = 1;
	else
		*(const char **)(void *)p = value;
}

/*
 * The option called @name (@len bytes), else the one it is a prefix of.
 * When it is a prefix of several, *@other is the second.
 */
static const struct kb_opt *find_long(const struct kb_opt *opts,
				      const char *name, size_t len,
				      const struct kb_opt **other)
{
	const struct kb_opt *o, *hit = NULL;
	size_t i;

	*other = NULL;
	for (i = 0;; i++) {
		o = opts && opts[i].name ? &opts[i] : &help_opt;
		if (!strncmp(o->name, name, len)) {
			if (!o->name[len]) {
				*other = NULL;
				return o;
			}
			if (!hit)
				hit = o;
			else if (!*other)
				*other = o;
		}
		if (o == &help_opt)
			return hit;
	}
}

static const struct kb_opt *find_short(const struct kb_opt *opts, char c)
{
	const struct kb_opt *o;

	for (o = opts; o && o->name; o++)
		if (o->short_name == c)
			return o;
	return c == help_opt.short_name ? &help_opt : NULL;
}

/* --name, --name=value or --name value at argv[*i]. */
static int parse_long(const struct kb_opt *opts, int argc, char **argv,
		      int *i, void *target, struct kb_err *err)
{
	const char *name = argv[*i] + 2, *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	const struct kb_opt *o, *other;

	if (!len) /* "--=x" */
		return kb_err_set(err, KB_EINPUT, "unknown option '%s'",
				  argv[*i]);
	o = find_long(opts, name, len, &other);
	if (other)
		return kb_err_set(err, KB_EINPUT,
				  "option '--%.*s' is ambiguous: '--%s' or '--%s'",
				  (int)len, name, o->name, other->name);
	if (!o)
		return kb_err_set(err, KB_EINPUT, "unknown option '--%.*s'",
				  (int)len, name);
	if (o->kind == KB_OPT_FLAG) {
		if (eq)
			return kb_err_set(err, KB_EINPUT,
					  "option '--%s' takes no value",
					  o->name);
		set(o, target, NULL);
		return 0;
	}
	if (eq) {
		set(o, target, eq + 1);
		return 0;
	}
	if (*i + 1 >= argc)
		return kb_err_set(err, KB_EINPUT, "option '--%s' needs a value",
				  o->name);
	set(o, target, argv[++*i]);
	return 0;
}

/* -q, a cluster -qh, -xVALUE or -x VALUE at argv[*i]. */
static int parse_short(const struct kb_opt *opts, int argc, char **argv,
		       int *i, void *target, struct kb_err *err)
{
	const char *s = argv[*i] + 1;
	const struct kb_opt *o;

	for (; *s; s++) {
		if (!(o = find_short(opts, *s)))
			return kb_err_set(err, KB_EINPUT,
					  "unknown option '-%c'", *s);
		if (o->kind == KB_OPT_FLAG) {
			set(o, target, NULL);
			if (o == &help_opt) /* the rest does not matter */
				return 0;
			continue;
		}
		if (s[1]) {
			set(o, target, s + 1);
			return 0;
		}
		if (*i + 1 >= argc)
			return kb_err_set(err, KB_EINPUT,
					  "option '-%c' needs a value", *s);
		set(o, target, argv[++*i]);
		return 0;
	}
	return 0;
}

/* The next word of @s at or after *@p: its start and length, or 0. */
static size_t next_word(const char *s, size_t *p, const char **word)
{
	size_t len = 0;

	while (s[*p] == ' ')
		(*p)++;
	*word = s + *p;
	while (s[*p] && s[*p] != ' ') {
		(*p)++;
		len++;
	}
	return len;
}

/* Check the count of positional arguments @npos against spec @args. */
static int check_positional(const char *args, char **pos, size_t npos,
			    struct kb_err *err)
{
	const char *w, *missing = NULL;
	size_t p = 0, len, missing_len = 0, n = 0, min = 0, max = 0;

	while (args && (len = next_word(args, &p, &w))) {
		if (w[0] != '[') {
			if (n == npos && !missing) {
				missing = w;
				missing_len = len;
			}
			min++;
		}
		if (len >= 3 && !strncmp(w + len - 3, "...", 3))
			max = SIZE_MAX;
		else if (max != SIZE_MAX)
			max++;
		n++;
	}
	if (npos < min)
		return kb_err_set(err, KB_EINPUT, "missing %.*s",
				  (int)missing_len, missing);
	if (npos > max)
		return kb_err_set(err, KB_EINPUT, "unexpected argument '%s'",
				  pos[max]);
	return 0;
}

int kb_cmdopt_help_asked(int argc, char **argv)
{
	int i;

	for (i = 0; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return 1;
	return 0;
}

int kb_cmdopt_parse(const struct kb_opt *opts, const char *args, int argc,
		    char **argv, void *target, size_t size,
		    struct kb_err *err)
{
	struct kb_args *a = target;
	size_t npos = 0;
	int i, ret;

	if ((ret = check_table(opts, size, err)))
		return ret;
	if (kb_cmdopt_help_asked(argc, argv)) {
		a->help = 1;
		return 0;
	}
	for (i = 0; i < argc; i++) {
		const char *s = argv[i];

		if (!strcmp(s, "--")) {
			while (++i < argc)
				argv[npos++] = argv[i];
			break;
		}
		if (s[0] != '-' || !s[1]) {
			argv[npos++] = argv[i];
			continue;
		}
		ret = s[1] == '-'
			      ? parse_long(opts, argc, argv, &i, target, err)
			      : parse_short(opts, argc, argv, &i, target, err);
		if (ret)
			return ret;
		if (a->help)
			return 0;
	}
	a->pos = argv;
	a->npos = npos;
	return check_positional(args, argv, npos, err);
}

/* The column @b's last line ends at. */
static size_t column(const struct kb_buf *b)
{
	size_t i = b->len;

	while (i && b->buf[i - 1] != '\n')
		i--;
	return b->len - i;
}

static void spaces(struct kb_buf *b, size_t n)
{
	while (n--)
		kb_buf_addch(b, ' ');
}

/* Append " @word" to @b, first breaking the line to @indent if the word
 * would pass @width (0: never). */
static void add_word(struct kb_buf *b, const char *word, size_t len,
		     size_t indent, size_t width)
{
	size_t col = column(b);

	if (width && col > indent && col + 1 + len > width) {
		kb_buf_addch(b, '\n');
		spaces(b, indent);
	} else if (col) {
		kb_buf_addch(b, ' ');
	}
	kb_buf_add(b, word, len);
}

void kb_cmdopt_usage(struct kb_buf *b, const char *args,
		     const struct kb_opt *opts, size_t width)
{
	struct kb_buf t = KB_BUF_INIT;
	size_t indent = column(b) + 1, p = 0, len;
	const struct kb_opt *o;
	const char *w;

	while (args && (len = next_word(args, &p, &w)))
		add_word(b, w, len, indent, width);
	for (o = opts; o && o->name; o++) {
		int opt = !(o->flags & KB_OPT_REQUIRED);

		if (o->flags & KB_OPT_HIDDEN)
			continue;
		kb_buf_reset(&t);
		kb_buf_addf(&t, "%s--%s%s%s%s", opt ? "[" : "", o->name,
			    o->kind == KB_OPT_VALUE ? " " : "",
			    o->kind == KB_OPT_VALUE ? o->arg : "",
			    opt ? "]" : "");
		add_word(b, t.buf, t.len, indent, width);
	}
	kb_buf_release(&t);
}

/* "-q, --quiet" or "--db PATH" */
static void label(struct kb_buf *b, const struct kb_opt *o)
{
	if (o->short_name)
		kb_buf_addf(b, "-%c, ", o->short_name);
	kb_buf_addf(b, "--%s", o->name);
	if (o->kind == KB_OPT_VALUE)
		kb_buf_addf(b, " %s", o->arg);
}

void kb_cmdopt_help(struct kb_buf *b, const struct kb_opt *opts,
		    size_t width)
{
	struct kb_buf t = KB_BUF_INIT;
	const struct kb_opt *o;
	size_t w = 0, indent, len;
	const char *h;
	int brk;

	for (o = opts; o && o->name; o++) {
		if (o->flags & KB_OPT_HIDDEN)
			continue;
		kb_buf_reset(&t);
		label(&t, o);
		if (t.len <= LABEL_MAX && t.len > w)
			w = t.len;
	}
	indent = 2 + w + 2;
	for (o = opts; o && o->name; o++) {
		if (o->flags & KB_OPT_HIDDEN)
			continue;
		kb_buf_adds(b, "  ");
		label(b, o);
		if (o->help && *o->help && column(b) < indent)
			spaces(b, indent - 1 - column(b));
		else if (o->help && *o->help)
			kb_buf_addch(b, ' ');
		/* the words of the help; a '\n' breaks the line */
		for (h = o->help, brk = 0; h && *h; h += len) {
			len = strcspn(h, " \n");
			if (!len) {
				brk |= *h == '\n';
				len = 1;
				continue;
			}
			if (brk) {
				kb_buf_addch(b, '\n');
				spaces(b, indent - 1);
				brk = 0;
			}
			add_word(b, h, len, indent, width);
		}
		kb_buf_addch(b, '\n');
	}
	kb_buf_release(&t);
}
