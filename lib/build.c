#include "build.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "err.h"
#include "fsutil.h"
#include "program.h"
#include "kconfig.h"
#include "matrix.h"
#include "mem.h"
#include "paths.h"
#include "plan.h"
#include "banned.h"


#define LOG_TAIL_LINES 50
#define MAX_LOG (256u << 20)    /* build logs read back at most this big */
#define MAX_CMD_FILE (8u << 20) /* one .cmd file */
#define MAX_SCAN_DEPTH 32

static int is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

char *kb_build_default_cache_dir(void)
{
	return kb_cache_dir("builds");
}

char *kb_build_default_objdir(const char *tree_id)
{
	char hex[KB_SHA256_HEX_LEN + 1];
	char *sub, *dir;

	kb_sha256_hex(tree_id, strlen(tree_id), hex);
	hex[16] = '\0';
	sub = kb_asprintf("objdirs/%s", hex);
	dir = kb_cache_dir(sub);
	free(sub);
	return dir;
}

/* ---- keys ------------------------------------------------------------- */

/* ---- running programs ------------------------------------------------- */

/*
 * Start @argv (make, or the compiler) in make's environment with stdin
 * from /dev/null and stdout+stderr into a pipe whose read end is returned
 * in *@fd.
 */
static int spawn_piped(char *const argv[], pid_t *pid, int *fd,
		       struct kb_err *err)
{
	char **env = kb_program_make_env();
	struct kb_program prog = {
		.argv = (const char *const *)argv,
		.envp = env,
		.out = KB_PROGRAM_PIPE,
		.err = KB_PROGRAM_PIPE,
	};
	int ret = kb_program_start(&prog, pid, fd, err);

	free(env);
	return ret;
}

/* ---- weights ---------------------------------------------------------- */

struct weight {
	char *sym;
	unsigned units;
};

struct kb_build_weights {
	struct weight *slots; /* open addressing, nslots a power of two */
	size_t nslots, n;
};

static size_t hash_str(const char *s, size_t len)
{
	size_t h = 1469598103934665603ull;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

struct kb_build_weights *kb_build_weights_new(void)
{
	struct kb_build_weights *w = kb_calloc(1, sizeof(*w));

	w->nslots = 256;
	w->slots = kb_calloc(w->nslots, sizeof(*w->slots));
	return w;
}

void kb_build_weights_free(struct kb_build_weights *w)
{
	size_t i;

	if (!w)
		return;
	for (i = 0; i < w->nslots; i++)
		free(w->slots[i].sym);
	free(w->slots);
	free(w);
}

static struct weight *find_slot(const struct kb_build_weights *w,
				const char *sym, size_t len)
{
	size_t i = hash_str(sym, len) & (w->nslots - 1);

	while (w->slots[i].sym && (strlen(w->slots[i].sym) != len ||
				   memcmp(w->slots[i].sym, sym, len)))
		i = (i + 1) & (w->nslots - 1);
	return &w->slots[i];
}

static void grow(struct kb_build_weights *w)
{
	struct weight *old = w->slots;
	size_t i, n = w->nslots;

	w->nslots *= 2;
	w->slots = kb_calloc(w->nslots, sizeof(*w->slots));
	for (i = 0; i < n; i++)
		if (old[i].sym)
			*find_slot(w, old[i].sym, strlen(old[i].sym)) = old[i];
	free(old);
}

/* The slot of @sym (@len bytes), created with 0 units when new. */
static struct weight *weight_at(struct kb_build_weights *w, const char *sym,
				size_t len)
{
	struct weight *s;

	if ((w->n + 1) * 2 > w->nslots)
		grow(w);
	s = find_slot(w, sym, len);
	if (!s->sym) {
		s->sym = kb_strndup(sym, len);
		s->units = 0;
		w->n++;
	}
	return s;
}

void kb_build_weights_set(struct kb_build_weights *w, const char *sym,
			  unsigned units)
{
	weight_at(w, sym, strlen(sym))->units = units;
}

unsigned kb_build_weights_get(const struct kb_build_weights *w,
			      const char *sym)
{
	const struct weight *s;

	if (!w)
		return 1;
	s = find_slot(w, sym, strlen(sym));
	return s->sym && s->units > 1 ? s->units : 1;
}

size_t kb_build_weights_count(const struct kb_build_weights *w)
{
	return w->n;
}

static int is_sym_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
	       (c >= 'a' && c <= 'z');
}

/* Count the include/config/SYM dependencies of one .cmd file. */
static void scan_cmd_file(struct kb_build_weights *w, const char *text)
{
	static const char marker[] = "include/config/";
	const char *p = text;

	/* fixdep lists each symbol once per unit */
	while ((p = strstr(p, marker))) {
		const char *s = p + sizeof(marker) - 1, *e = s;

		while (is_sym_char(*e))
			e++;
		if (e > s && (*e == ')' || *e == ' ' || *e == '\n'))
			weight_at(w, s, (size_t)(e - s))->units++;
		p = e;
	}
}

static int has_suffix(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

static int scan_dir(struct kb_build_weights *w, const char *dir,
		    unsigned depth, struct kb_err *err)
{
	DIR *d;
	struct dirent *e;
	int ret = 0;

	if (depth > MAX_SCAN_DEPTH || !(d = opendir(dir)))
		return 0;
	while (!ret && (e = readdir(d))) {
		struct stat st;
		char *path;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		/* include/config holds only the stamps themselves */
		if (depth == 0 && !strcmp(e->d_name, "include"))
			continue;
		path = kb_asprintf("%s/%s", dir, e->d_name);
		if (lstat(path, &st) == 0) {
			if (S_ISDIR(st.st_mode)) {
				ret = scan_dir(w, path, depth + 1, err);
			} else if (S_ISREG(st.st_mode) && e->d_name[0] == '.' &&
				   has_suffix(e->d_name, ".o.cmd")) {
				struct kb_buf b = KB_BUF_INIT;

				if (kb_buf_read_file(&b, path, MAX_CMD_FILE,
						     err) == 0)
					scan_cmd_file(w, b.buf);
				else
					kb_err_clear(err);
				kb_buf_release(&b);
			}
		}
		free(path);
	}
	closedir(d);
	return ret;
}

int kb_build_weights_scan(const char *objdir, struct kb_build_weights **out,
			  struct kb_err *err)
{
	struct kb_build_weights *w = kb_build_weights_new();
	int ret;

	*out = NULL;
	if ((ret = scan_dir(w, objdir, 0, err))) {
		kb_build_weights_free(w);
		return ret;
	}
	*out = w;
	return 0;
}

/* ---- distance and order ---------------------------------------------- */

struct opt {
	const char *name, *value; /* into the parsed copy */
	size_t idx;               /* line order, so that the last one wins */
};

struct parsed {
	char *text;
	struct opt *opts;
	size_t n;
};

static int cmp_opt(const void *a, const void *b)
{
	const struct opt *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int valid_name(const char *s, size_t len)
{
	size_t i;

	if (len == 0)
		return 0;
	for (i = 0; i < len; i++)
		if (!((s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_' ||
		      (s[i] >= 'a' && s[i] <= 'z')))
			return 0;
	return 1;
}

static void parse_config(const char *text, struct parsed *p)
{
	char *line, *next;
	size_t alloc = 0, i, j;

	memset(p, 0, sizeof(*p));
	p->text = kb_strdup(text ? text : "");
	for (line = p->text; line && *line; line = next) {
		char *eq, *name = NULL, *value = NULL;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!strncmp(line, "# CONFIG_", 9) &&
		    has_suffix(line, " is not set")) {
			name = line + 9;
			line[strlen(line) - 11] = '\0';
			value = "n";
		} else if (*line != '#' && (eq = strchr(line, '='))) {
			*eq = '\0';
			name = line;
			if (!strncmp(name, "CONFIG_", 7))
				name += 7;
			value = eq + 1;
		}
		if (!name || !valid_name(name, strlen(name)))
			continue;
		if (p->n == alloc) {
			alloc = alloc ? alloc * 2 : 256;
			p->opts = kb_reallocarray(p->opts, alloc,
						  sizeof(*p->opts));
		}
		p->opts[p->n].name = name;
		p->opts[p->n].value = value;
		p->opts[p->n].idx = p->n;
		p->n++;
	}
	/* sort by name, then line: the last of duplicates wins */
	if (p->n)
		qsort(p->opts, p->n, sizeof(*p->opts), cmp_opt);
	for (i = 0, j = 0; i < p->n; i++) {
		if (j && !strcmp(p->opts[j - 1].name, p->opts[i].name))
			p->opts[j - 1] = p->opts[i];
		else
			p->opts[j++] = p->opts[i];
	}
	p->n = j;
}

static void parsed_release(struct parsed *p)
{
	free(p->text);
	free(p->opts);
}

static int is_n(const char *v)
{
	return !v || !strcmp(v, "n") || !*v;
}

static unsigned long distance(const struct parsed *a, const struct parsed *b,
			      const struct kb_build_weights *w)
{
	unsigned long d = 0;
	size_t i = 0, j = 0;

	while (i < a->n || j < b->n) {
		int c = i == a->n   ? 1
			: j == b->n ? -1
				    : strcmp(a->opts[i].name, b->opts[j].name);
		const char *name, *va, *vb;

		if (c < 0) {
			name = a->opts[i].name;
			va = a->opts[i++].value;
			vb = NULL;
		} else if (c > 0) {
			name = b->opts[j].name;
			va = NULL;
			vb = b->opts[j++].value;
		} else {
			name = a->opts[i].name;
			va = a->opts[i++].value;
			vb = b->opts[j++].value;
		}
		if (is_n(va) && is_n(vb))
			continue;
		if (va && vb && !strcmp(va, vb))
			continue;
		d += kb_build_weights_get(w, name);
	}
	return d;
}

unsigned long kb_build_distance(const char *a, const char *b,
				const struct kb_build_weights *w)
{
	struct parsed pa, pb;
	unsigned long d;

	parse_config(a, &pa);
	parse_config(b, &pb);
	d = distance(&pa, &pb, w);
	parsed_release(&pa);
	parsed_release(&pb);
	return d;
}

void kb_build_order(const char *const *configs, size_t n, const char *start,
		    const struct kb_build_weights *w, size_t *order)
{
	struct parsed *p = kb_calloc(n + 1, sizeof(*p));
	unsigned char *done = kb_calloc(n + 1, 1);
	size_t i, k, cur = n; /* p[n] is the start config */

	for (i = 0; i < n; i++)
		parse_config(configs[i], &p[i]);
	parse_config(start, &p[n]);
	for (k = 0; k < n; k++) {
		size_t best = n;
		unsigned long bestd = 0;

		if (cur == n && !start) {
			best = 0;
		} else {
			for (i = 0; i < n; i++) {
				unsigned long d;

				if (done[i])
					continue;
				d = distance(&p[cur], &p[i], w);
				if (best == n || d < bestd) {
					best = i;
					bestd = d;
				}
			}
		}
		order[k] = best;
		done[best] = 1;
		cur = best;
	}
	for (i = 0; i <= n; i++)
		parsed_release(&p[i]);
	free(p);
	free(done);
}

/* ---- logs -------------------------------------------------------------- */

char *kb_build_tail(const char *text, size_t len, unsigned n)
{
	size_t i = len;
	unsigned lines = 0;

	if (i && text[i - 1] == '\n')
		i--;
	while (i > 0) {
		if (text[i - 1] == '\n' && ++lines == n)
			break;
		i--;
	}
	return kb_strndup(text + i, len - i);
}

static int is_unit_line(const char *s, size_t len)
{
	return len >= 5 && !memcmp(s, "  CC ", 5);
}

unsigned kb_build_count_units(const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	unsigned n = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);

		n += is_unit_line(p, l);
		p += l + 1;
	}
	return n;
}

/* ---- artifacts ------------------------------------------------------------ */

/* The value of "KEY value" line @key in the record text, or NULL. */
static char *record_get(const char *text, const char *key)
{
	size_t klen = strlen(key);
	const char *p = text;

	while (p && *p) {
		const char *nl = strchr(p, '\n');

		if (!strncmp(p, key, klen) && p[klen] == ' ')
			return nl ? kb_strndup(p + klen + 1,
					       (size_t)(nl - p - klen - 1))
				  : kb_strdup(p + klen + 1);
		p = nl ? nl + 1 : NULL;
	}
	return NULL;
}

static const char *srcarch(const char *arch)
{
	if (!strcmp(arch, "x86_64") || !strcmp(arch, "i386"))
		return "x86";
	return arch;
}

static void fill_paths(const char *dir, struct kb_build_info *info)
{
	info->artifacts_dir = kb_strdup(dir);
	info->config_path = kb_asprintf("%s/.config", dir);
	info->log_path = kb_asprintf("%s/build.log", dir);
}

/* An ok build of this key already in the cache? */
static int from_cache(const char *dir, const char *target,
		      struct kb_build_result *out, struct kb_build_info *info)
{
	struct kb_buf rec = KB_BUF_INIT;
	struct kb_err ignored = KB_ERR_INIT;
	char *path = kb_asprintf("%s/kbisect-build.txt", dir);
	char *status = NULL, *v;
	int found = 0;

	if (kb_buf_read_file(&rec, path, 65536, &ignored))
		goto out;
	status = record_get(rec.buf, "status");
	if (!status || strcmp(status, "ok"))
		goto out;
	memset(out, 0, sizeof(*out));
	out->status = KB_BUILD_OK;
	out->image = kb_asprintf("%s/%s", dir, target);
	if (!is_file(out->image)) {
		kb_build_result_release(out);
		goto out;
	}
	if ((v = record_get(rec.buf, "duration_s"))) {
		out->duration_s = strtod(v, NULL);
		free(v);
	}
	fill_paths(dir, info);
	if ((v = record_get(rec.buf, "units"))) {
		info->units_compiled = (unsigned)strtoul(v, NULL, 10);
		free(v);
	}
	if ((v = record_get(rec.buf, "full"))) {
		info->full = !strcmp(v, "1");
		free(v);
	}
	if ((v = record_get(rec.buf, "objdir"))) {
		info->objdir = v;
	}
	info->cached = 1;
	found = 1;
out:
	free(status);
	free(path);
	kb_buf_release(&rec);
	return found;
}

void kb_build_info_release(struct kb_build_info *i)
{
	if (!i)
		return;
	free(i->artifacts_dir);
	free(i->config_path);
	free(i->log_path);
	free(i->objdir);
	memset(i, 0, sizeof(*i));
}

/* Write @config as objdir/.config unless it already holds exactly that. */
static int put_config(const char *objdir, const char *config,
		      struct kb_err *err)
{
	struct kb_buf old = KB_BUF_INIT;
	struct kb_err ignored = KB_ERR_INIT;
	char *path = kb_asprintf("%s/.config", objdir);
	int ret = 0;

	if (kb_buf_read_file(&old, path, 64u << 20, &ignored) ||
	    strcmp(old.buf, config))
		ret = kb_write_atomic_text(path, config, err);
	kb_buf_release(&old);
	free(path);
	return ret;
}

static unsigned read_units_full(const char *objdir)
{
	struct kb_buf b = KB_BUF_INIT;
	struct kb_err ignored = KB_ERR_INIT;
	char *path = kb_asprintf("%s/.kbisect-units-full", objdir);
	unsigned n = 0;

	if (kb_buf_read_file(&b, path, 64, &ignored) == 0)
		n = (unsigned)strtoul(b.buf, NULL, 10);
	kb_buf_release(&b);
	free(path);
	return n;
}

/* Run make, teeing its output into @log_fd and reporting progress. */
static int run_make(const struct kb_build_opts *o, char *const argv[],
		    int log_fd, const char *key, const char *label,
		    unsigned units_full, int *status, unsigned *units,
		    double *seconds, struct kb_err *err)
{
	struct kb_build_progress ev;
	char chunk[8192], line[512];
	size_t linelen = 0;
	double t0 = kb_monotime(), last = 0;
	pid_t pid;
	int fd, ret;

	memset(&ev, 0, sizeof(ev));
	ev.label = label;
	ev.key = key;
	ev.units_full = units_full;
	*units = 0;
	if ((ret = spawn_piped(argv, &pid, &fd, err)))
		return ret;
	for (;;) {
		struct pollfd pfd = { fd, POLLIN, 0 };
		ssize_t r = 0, i;
		int pr = poll(&pfd, 1, 1000);

		if (pr < 0 && errno != EINTR)
			break;
		if (pr > 0) {
			r = read(fd, chunk, sizeof(chunk));
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				break;
			if (write(log_fd, chunk, (size_t)r) != r)
				ret = kb_err_set(err, KB_EFAIL,
						 "cannot write the build log: %s",
						 strerror(errno));
			for (i = 0; i < r; i++) {
				if (chunk[i] != '\n') {
					if (linelen < sizeof(line))
						line[linelen++] = chunk[i];
					continue;
				}
				*units += is_unit_line(line, linelen);
				linelen = 0;
			}
		}
		if (o->progress && kb_monotime() - last >= 1.0) {
			last = kb_monotime();
			ev.elapsed_s = last - t0;
			ev.units = *units;
			o->progress(&ev, o->arg);
		}
	}
	*units += is_unit_line(line, linelen);
	close(fd);
	*status = kb_program_wait(pid);
	*seconds = kb_monotime() - t0;
	if (o->progress) {
		ev.elapsed_s = *seconds;
		ev.units = *units;
		ev.done = 1;
		o->progress(&ev, o->arg);
	}
	return ret;
}

static char **make_argv(const struct kb_build_opts *o, const char *objdir,
			const char *arch)
{
	char **argv = kb_calloc(o->nmake_args + 8, sizeof(*argv));
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned jobs = o->jobs ? o->jobs : cpus > 0 ? (unsigned)cpus : 1;
	size_t n = 0, i;

	argv[n++] = kb_strdup(o->make ? o->make : "make");
	argv[n++] = kb_asprintf("-C%s", o->tree);
	argv[n++] = kb_asprintf("O=%s", objdir);
	argv[n++] = kb_asprintf("ARCH=%s", arch);
	argv[n++] = kb_asprintf("-j%u", jobs);
	for (i = 0; i < o->nmake_args; i++)
		argv[n++] = kb_strdup(o->make_args[i]);
	argv[n++] = kb_strdup(o->target ? o->target : "bzImage");
	argv[n] = NULL;
	return argv;
}

static void free_argv(char **argv)
{
	size_t i;

	for (i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}

/* Copy what the build made into @dir and write its record last. */
static int keep_artifacts(const struct kb_build_opts *o, const char *objdir,
			  const char *dir, const char *key, const char *image,
			  const char *target, const struct kb_build_info *info,
			  double seconds, struct kb_err *err)
{
	char *to = kb_asprintf("%s/%s", dir, target);
	char *cfg = kb_asprintf("%s/.config", objdir);
	char *map = kb_asprintf("%s/System.map", objdir);
	char *mapto = kb_asprintf("%s/System.map", dir);
	char *rec = NULL, *recpath = NULL;
	int ret;

	if ((ret = kb_copy_atomic(image, to, err)) ||
	    (ret = kb_copy_atomic(cfg, info->config_path, err)))
		goto out;
	if (is_file(map) && (ret = kb_copy_atomic(map, mapto, err)))
		goto out;
	rec = kb_asprintf("status ok\nkey %s\ntree_id %s\nunits %u\n"
			  "duration_s %.3f\nfull %d\nobjdir %s\n",
			  key, o->tree_id, info->units_compiled, seconds,
			  info->full, objdir);
	recpath = kb_asprintf("%s/kbisect-build.txt", dir);
	ret = kb_write_atomic_text(recpath, rec, err);
out:
	free(rec);
	free(recpath);
	free(to);
	free(cfg);
	free(map);
	free(mapto);
	return ret;
}

/* The evidence of a build (db/0007): the config it was built from and,
 * when ok, its image's SHA-256. */
static int keep_evidence(const char *config, struct kb_build_result *out,
			 struct kb_err *err)
{
	char hex[KB_SHA256_HEX_LEN + 1];
	int ret;

	out->config_text = config ? kb_strdup(config) : NULL;
	if (out->status != KB_BUILD_OK || !out->image)
		return 0;
	if ((ret = kb_sha256_file(out->image, hex, err)))
		return ret;
	out->image_sha256 = kb_strdup(hex);
	return 0;
}

int kb_build_run(const struct kb_build_opts *o, const char *key,
		 const char *config, const char *label,
		 struct kb_build_result *out, struct kb_build_info *info,
		 struct kb_err *err)
{
	const char *arch = o->arch ? o->arch : "x86_64";
	const char *target = o->target ? o->target : "bzImage";
	char *cache = NULL, *dir = NULL, *objdir = NULL, *image = NULL;
	char *vmlinux = NULL, *full_path = NULL, **argv = NULL;
	struct kb_buf log = KB_BUF_INIT;
	unsigned units_full;
	double seconds = 0;
	int ret, lock = -1, log_fd = -1, status = 0;

	memset(out, 0, sizeof(*out));
	memset(info, 0, sizeof(*info));
	cache = o->cache_dir ? kb_strdup(o->cache_dir)
			     : kb_build_default_cache_dir();
	dir = kb_asprintf("%s/%s", cache, key);
	if (from_cache(dir, target, out, info)) {
		ret = 0;
		goto out;
	}
	objdir = o->objdir ? kb_strdup(o->objdir)
			   : kb_build_default_objdir(o->tree_id);
	if ((ret = kb_mkdir_p(dir, err)) || (ret = kb_mkdir_p(objdir, err)) ||
	    (ret = kb_lock_dir(objdir, &lock, err)) ||
	    (ret = put_config(objdir, config, err)))
		goto out;
	fill_paths(dir, info);
	info->objdir = kb_strdup(objdir);
	vmlinux = kb_asprintf("%s/vmlinux", objdir);
	info->full = !is_file(vmlinux);
	units_full = read_units_full(objdir);
	log_fd = open(info->log_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (log_fd < 0) {
		ret = kb_err_set(err, KB_EFAIL, "cannot create '%s': %s",
				 info->log_path, strerror(errno));
		goto out;
	}
	argv = make_argv(o, objdir, arch);
	if ((ret = run_make(o, argv, log_fd, key, label, units_full, &status,
			    &info->units_compiled, &seconds, err)))
		goto out;
	close(log_fd);
	log_fd = -1;
	out->duration_s = seconds;
	image = !strcmp(target, "vmlinux")
			? kb_asprintf("%s/vmlinux", objdir)
			: kb_asprintf("%s/arch/%s/boot/%s", objdir,
				      srcarch(arch), target);
	if (status != 0 || !is_file(image)) {
		struct kb_err ignored = KB_ERR_INIT;

		out->status = KB_BUILD_FAILED;
		out->reason = status ? kb_asprintf("make exited with status %d (log: %s)",
						   status, info->log_path)
				     : kb_asprintf("make made no '%s'", image);
		if (kb_buf_read_file(&log, info->log_path, MAX_LOG,
				     &ignored) == 0)
			out->log_tail = kb_build_tail(log.buf, log.len,
						      LOG_TAIL_LINES);
		ret = 0;
		goto out;
	}
	if (info->full) {
		char n[32];

		snprintf(n, sizeof(n), "%u\n", info->units_compiled);
		full_path = kb_asprintf("%s/.kbisect-units-full", objdir);
		if ((ret = kb_write_atomic_text(full_path, n, err)))
			goto out;
	}
	if ((ret = keep_artifacts(o, objdir, dir, key, image, target, info,
				  seconds, err)))
		goto out;
	out->status = KB_BUILD_OK;
	out->image = kb_asprintf("%s/%s", dir, target);
out:
	if (ret == 0)
		ret = keep_evidence(config, out, err);
	if (log_fd >= 0)
		close(log_fd);
	kb_unlock(lock);
	if (ret) {
		kb_build_result_release(out);
		kb_build_info_release(info);
	}
	free_argv(argv);
	kb_buf_release(&log);
	free(full_path);
	free(vmlinux);
	free(image);
	free(objdir);
	free(dir);
	free(cache);
	return ret;
}

/* ---- variants of a matrix ------------------------------------------------- */

void kb_build_opts_from_matrix(const struct kb_matrix *m, const char *tree,
			       const char *tree_id, struct kb_build_opts *o)
{
	const struct kb_build_cfg *b = kb_matrix_build(m);

	o->tree = tree;
	o->tree_id = tree_id;
	o->jobs = b->jobs;
	o->nmake_args = b->nmake_args;
	o->make_args = b->make_args;
}

int kb_build_plan_variant(const struct kb_plan *p, size_t i, const char *label,
			  void (*progress)(const struct kb_build_progress *bp,
					   void *arg),
			  void *arg, struct kb_build_result *out,
			  struct kb_build_info *info, struct kb_err *err)
{
	const struct kb_variant *v = kb_plan_variant(p, i);
	const struct kb_plan_tree *t = kb_plan_variant_tree(p, i);
	const struct kb_kconfig_resolution *res = kb_plan_resolution(p, i);
	struct kb_build_opts bo = KB_BUILD_OPTS_INIT;
	struct kb_build_info own;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!v || !t || !res)
		return kb_err_set(err, KB_EINPUT,
				  "%s: variant %zu is not resolved against a kernel tree: nothing to build it from",
				  kb_matrix_file(kb_plan_matrix(p)), i);
	kb_build_opts_from_matrix(kb_plan_matrix(p), t->dir, t->id, &bo);
	bo.progress = progress;
	bo.arg = arg;
	if (!info)
		info = &own;
	ret = kb_build_run(&bo, v->build_key, res->config_text,
			   label ? label : v->label, out, info, err);
	if (ret == 0)
		out->cached = info->cached;
	if (info == &own && ret == 0)
		kb_build_info_release(&own);
	return ret;
}

/* Order the @n variants @idx of one tree; appends to @order at *@k. */
static void order_tree(const struct kb_plan *p, const char *tree_id,
		       const size_t *idx, size_t n, size_t *order, size_t *k)
{
	const char **configs = kb_calloc(n + 1, sizeof(*configs));
	size_t *sub = kb_calloc(n + 1, sizeof(*sub));
	struct kb_build_weights *w = NULL;
	struct kb_buf start = KB_BUF_INIT;
	struct kb_err ignored = KB_ERR_INIT;
	char *objdir = kb_build_default_objdir(tree_id);
	char *path = kb_asprintf("%s/.config", objdir);
	int have_start;
	size_t i;

	for (i = 0; i < n; i++)
		configs[i] = kb_plan_resolution(p, idx[i])->config_text;
	have_start = kb_buf_read_file(&start, path, 64u << 20, &ignored) == 0;
	kb_err_clear(&ignored);
	if (kb_build_weights_scan(objdir, &w, &ignored))
		w = NULL;
	kb_build_order(configs, n, have_start ? start.buf : NULL, w, sub);
	for (i = 0; i < n; i++)
		order[(*k)++] = idx[sub[i]];
	kb_build_weights_free(w);
	kb_buf_release(&start);
	free(path);
	free(objdir);
	free(sub);
	free(configs);
}

void kb_build_plan_order(const struct kb_plan *p, size_t *order)
{
	size_t i, j, n = kb_plan_nvariants(p), k = 0;
	size_t *idx;
	unsigned char *placed;

	if (!kb_plan_is_resolved(p)) {
		for (i = 0; i < n; i++)
			order[i] = i;
		return;
	}
	idx = kb_calloc(n + 1, sizeof(*idx));
	placed = kb_calloc(n + 1, 1);
	for (i = 0; i < n; i++) {
		const struct kb_plan_tree *t = kb_plan_variant_tree(p, i);
		size_t m = 0;

		if (placed[i])
			continue;
		for (j = i; j < n; j++) {
			if (placed[j] || kb_plan_variant_tree(p, j) != t)
				continue;
			idx[m++] = j;
			placed[j] = 1;
		}
		order_tree(p, t->id, idx, m, order, &k);
	}
	free(placed);
	free(idx);
}
