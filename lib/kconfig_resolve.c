#include "kconfig.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "err.h"
#include "fsutil.h"
#include "mem.h"
#include "program.h"
#include "paths.h"
#include "sha256.h"
#include "toolchain.h"
#include "variant.h"
#include "banned.h"

/*
 * Resolution: base, fragments and a variant's settings through
 * `make olddefconfig`, read back and compared with what was asked;
 * results cached by what decides them.
 */

/* ==== resolution ======================================================== */

#define LOG_TAIL_LINES 20

void kb_kconfig_outcome_release(struct kb_kconfig_outcome *o)
{
	free(o->name);
	free(o->requested);
	free(o->resolved);
	free(o->reason);
	free(o->fix);
	memset(o, 0, sizeof(*o));
}

size_t kb_kconfig_compare(const struct kb_setting *settings,
			  size_t nsettings, const struct kb_kconfig *resolved,
			  const struct kb_ksyms *syms,
			  struct kb_kconfig_outcome *out)
{
	size_t i, n = 0;

	for (i = 0; i < nsettings; i++) {
		const struct kb_setting *s = &settings[i];
		struct kb_kconfig_outcome *o;
		const char *res;

		if (s->kind != KB_FACTOR_KCONFIG)
			continue;
		o = &out[n++];
		res = kb_kconfig_get(resolved, s->name);
		memset(o, 0, sizeof(*o));
		o->name = kb_strdup(s->name);
		o->requested = kb_strdup(s->value);
		o->resolved = kb_strdup(res ? res : "n");
		o->held = kb_kconfig_value_matches(s->value, res);
		if (!o->held) {
			struct kb_buf b = KB_BUF_INIT;

			kb_kconfig_explain(syms, resolved, s->name, s->value,
					   &b);
			o->reason = kb_buf_detach(&b);
			kb_kconfig_suggest_fix(syms, resolved, s->name,
					       s->value, &b);
			o->fix = b.len ? kb_buf_detach(&b) : NULL;
			kb_buf_release(&b);
		}
	}
	return n;
}

char *kb_kconfig_not_held(const struct kb_kconfig_resolution *res)
{
	struct kb_buf b = KB_BUF_INIT;
	size_t i, n = 0;

	for (i = 0; i < res->noutcomes; i++) {
		const struct kb_kconfig_outcome *o = &res->outcomes[i];

		if (o->held)
			continue;
		kb_buf_addf(&b, "%sCONFIG_%s=%s (resolved %s%s%s)",
			    n++ ? ", " : "config does not hold: ", o->name,
			    o->requested, o->resolved, o->reason ? ": " : "",
			    o->reason ? o->reason : "");
	}
	return n ? kb_buf_detach(&b) : NULL;
}

char *kb_kconfig_default_cache_dir(void)
{
	return kb_cache_dir("configs");
}

void kb_kconfig_resolution_free(struct kb_kconfig_resolution *r)
{
	size_t i;

	if (!r)
		return;
	kb_kconfig_free(r->config);
	free(r->config_text);
	for (i = 0; i < r->noutcomes; i++)
		kb_kconfig_outcome_release(&r->outcomes[i]);
	free(r->outcomes);
	free(r);
}

/* The last @n lines of file @path, into @out. */
static void file_tail(const char *path, unsigned n, struct kb_buf *out)
{
	struct kb_buf b = KB_BUF_INIT;
	size_t i;
	unsigned seen = 0;

	if (kb_buf_read_file(&b, path, 64u << 20, NULL)) {
		kb_buf_release(&b);
		return;
	}
	for (i = b.len; i > 0; i--)
		if (b.buf[i - 1] == '\n' && i != b.len && ++seen == n)
			break;
	kb_buf_adds(out, b.buf + i);
	kb_buf_release(&b);
}

/*
 * The make variables Kconfig reads, itself or through the tools they
 * name: the compiler and linker it probes for features (CC, LD;
 * CROSS_COMPILE and LLVM, which name them; LLVM_IAS, which sets their
 * flags), the binutils, Rust and pahole versions it checks, the user
 * flags of its CC_CAN_LINK test and the host compilers its programs are
 * built with.  A "NAME=value" item of
 * build.make_args naming one goes on make's command line here as it does
 * for the build, and into the cache key.
 */
static const char *const kconfig_make_vars[] = {
	"CC", "LD", "CROSS_COMPILE", "LLVM", "LLVM_IAS", "AR", "NM",
	"OBJCOPY", "RUSTC", "BINDGEN", "PAHOLE", "USERCFLAGS", "USERLDFLAGS",
	"HOSTCC", "HOSTCXX",
};

static int affects_kconfig(const char *arg)
{
	size_t i, n;

	for (i = 0; i < sizeof(kconfig_make_vars) /
			    sizeof(kconfig_make_vars[0]); i++) {
		n = strlen(kconfig_make_vars[i]);
		if (!strncmp(arg, kconfig_make_vars[i], n) && arg[n] == '=')
			return 1;
	}
	return 0;
}

/*
 * Run `make -C tree O=@odir ARCH=arch [Kconfig's make_args] @target` with
 * stdin from /dev/null and its output appended to @log.  Returns 0 when
 * it exits 0, else KB_EFAIL with the log's last lines.
 */
static int make(const struct kb_kconfig_resolve_opts *o, const char *odir,
		const char *log, const char *target, struct kb_err *err)
{
	char *arch = kb_asprintf("ARCH=%s", o->arch ? o->arch : "x86_64");
	char *oarg = kb_asprintf("O=%s", odir);
	const char **argv = kb_calloc(o->nmake_args + 7, sizeof(*argv));
	char **env = kb_program_make_env();
	struct kb_program prog = {
		.argv = NULL,
		.envp = env,
		.out = KB_PROGRAM_LOG,
		.err = KB_PROGRAM_LOG,
		.log = log,
	};
	size_t i, n = 0;
	int status, ret;

	argv[n++] = o->make ? o->make : "make";
	argv[n++] = "-C";
	argv[n++] = o->tree;
	argv[n++] = oarg;
	argv[n++] = arch;
	for (i = 0; i < o->nmake_args; i++)
		if (affects_kconfig(o->make_args[i]))
			argv[n++] = o->make_args[i];
	argv[n++] = target;
	argv[n] = NULL;
	prog.argv = argv;
	ret = kb_program_capture(&prog, NULL, 1u << 20, &status, err);
	if (ret == 0 && status != 0) {
		struct kb_buf tail = KB_BUF_INIT;

		file_tail(log, LOG_TAIL_LINES, &tail);
		ret = kb_err_set(err, KB_EFAIL,
				 "make %s failed (%s %d); the end of %s:\n%s",
				 target,
				 status > 128 ? "signal" : "exit status",
				 status > 128 ? status - 128 : status, log,
				 tail.buf);
		kb_buf_release(&tail);
	}
	free(env);
	free(argv);
	free(arch);
	free(oarg);
	return ret;
}

/*
 * Add what Kconfig sees of the toolchain to @key: the version line of the
 * compiler build.make_args names (lib/toolchain.h), and the make
 * variables passed to make.  Returns 0, or the probe's error.
 */
static int toolchain_identity(const struct kb_kconfig_resolve_opts *o,
			      struct kb_buf *key, struct kb_err *err)
{
	char *version = NULL;
	size_t i;
	int ret;

	if ((ret = kb_toolchain_cc_version(o->make_args, o->nmake_args,
					   &version, err)))
		return ret;
	kb_buf_addf(key, "cc=%s\n", version);
	for (i = 0; i < o->nmake_args; i++)
		if (affects_kconfig(o->make_args[i]))
			kb_buf_addf(key, "make-arg=%s\n", o->make_args[i]);
	free(version);
	return 0;
}

/* Add the tree's identity to @b: its id, or its path and Makefile mtime. */
static void tree_identity(const struct kb_kconfig_resolve_opts *o,
			  struct kb_buf *b)
{
	struct stat st;
	char *mk;

	if (o->tree_id) {
		kb_buf_addf(b, "tree-id=%s\n", o->tree_id);
		return;
	}
	mk = kb_asprintf("%s/Makefile", o->tree);
	if (stat(mk, &st) < 0)
		memset(&st, 0, sizeof(st));
	kb_buf_addf(b, "tree-path=%s\nmakefile-mtime=%lld\n", o->tree,
		    (long long)st.st_mtime);
	free(mk);
}

/* Read a base or fragment file, checking its syntax. */
static int read_config_file(const char *path, struct kb_buf *out,
			    struct kb_err *err)
{
	struct kb_buf b = KB_BUF_INIT;
	struct kb_kconfig *cfg = NULL;
	int ret;

	if ((ret = kb_buf_read_file(&b, path, KB_KCONFIG_MAX_FILE, err)) ||
	    (ret = kb_kconfig_parse_buffer(b.buf, b.len, path, &cfg, err)))
		goto out;
	kb_buf_add(out, b.buf, b.len);
	if (b.len && b.buf[b.len - 1] != '\n')
		kb_buf_addch(out, '\n');
out:
	kb_kconfig_free(cfg);
	kb_buf_release(&b);
	return ret;
}

static int finish(struct kb_kconfig_resolution *r, const char *text,
		  size_t len, const char *file,
		  const struct kb_setting *settings, size_t nsettings,
		  const struct kb_ksyms *syms, struct kb_err *err)
{
	int ret;

	r->config_text = kb_strndup(text, len);
	if ((ret = kb_kconfig_parse_buffer(text, len, file, &r->config, err)))
		return ret;
	kb_kconfig_digest(r->config, r->digest);
	r->outcomes = kb_calloc(nsettings ? nsettings : 1,
				sizeof(*r->outcomes));
	r->noutcomes = kb_kconfig_compare(settings, nsettings, r->config,
					  syms, r->outcomes);
	return 0;
}

int kb_kconfig_resolve(const struct kb_kconfig_resolve_opts *o,
		       const struct kb_setting *settings, size_t nsettings,
		       const struct kb_ksyms *syms,
		       struct kb_kconfig_resolution **out,
		       struct kb_err *err)
{
	struct kb_kconfig_resolution *r = kb_calloc(1, sizeof(*r));
	struct kb_buf key = KB_BUF_INIT, text = KB_BUF_INIT, res = KB_BUF_INIT;
	struct kb_buf basekey = KB_BUF_INIT;
	char hex[KB_SHA256_HEX_LEN + 1], basehex[KB_SHA256_HEX_LEN + 1];
	char *cache_dir = NULL, *cached = NULL, *base_cached = NULL;
	char *cfgpath = NULL, *log = NULL;
	double t0 = kb_monotime();
	int ret, lockfd = -1;
	size_t i;

	*out = NULL;
	if (!o->cache_dir)
		cache_dir = kb_kconfig_default_cache_dir();
	else if (*o->cache_dir)
		cache_dir = kb_strdup(o->cache_dir);

	/* what decides the result: the cache key */
	kb_buf_adds(&key, "kbisect-kconfig-resolve-v1\n");
	tree_identity(o, &key);
	kb_buf_addf(&key, "arch=%s\n", o->arch ? o->arch : "x86_64");
	if ((ret = toolchain_identity(o, &key, err)))
		goto out;
	kb_buf_add(&basekey, key.buf, key.len);
	if (o->base && o->base_is_target) {
		kb_buf_addf(&key, "base-target=%s\n", o->base);
		kb_buf_addf(&basekey, "base-target=%s\n", o->base);
	} else if (o->base) {
		kb_buf_adds(&key, "base-file\n");
		if ((ret = read_config_file(o->base, &text, err)))
			goto out;
	}
	for (i = 0; i < o->nfragments; i++)
		if ((ret = read_config_file(o->fragments[i], &text, err)))
			goto out;
	for (i = 0; i < nsettings; i++) {
		const struct kb_setting *s = &settings[i];

		if (s->kind != KB_FACTOR_KCONFIG)
			continue;
		if (!strcmp(s->value, "n"))
			kb_buf_addf(&text, "# CONFIG_%s is not set\n", s->name);
		else
			kb_buf_addf(&text, "CONFIG_%s=%s\n", s->name, s->value);
	}
	kb_buf_addf(&key, "text=%zu\n", text.len);
	kb_buf_add(&key, text.buf, text.len);
	kb_sha256_hex(key.buf, key.len, hex);
	kb_sha256_hex(basekey.buf, basekey.len, basehex);

	if (cache_dir) {
		struct kb_buf c = KB_BUF_INIT;

		cached = kb_asprintf("%s/%s.config", cache_dir, hex);
		if (!kb_buf_read_file(&c, cached, KB_KCONFIG_MAX_FILE, NULL)) {
			ret = finish(r, c.buf, c.len, cached, settings,
				     nsettings, syms, err);
			kb_buf_release(&c);
			if (ret)
				goto out;
			r->cached = 1;
			goto done;
		}
		kb_buf_release(&c);
		base_cached = kb_asprintf("%s/base-%s.config", cache_dir,
					  basehex);
		if ((ret = kb_mkdir_p(cache_dir, err)))
			goto out;
	}

	if ((ret = kb_mkdir_p(o->odir, err)) ||
	    (ret = kb_lock_dir(o->odir, &lockfd, err)))
		goto out;
	cfgpath = kb_asprintf("%s/.config", o->odir);
	log = kb_asprintf("%s/kbisect-kconfig.log", o->odir);
	unlink(log);
	if (o->base && o->base_is_target) {
		struct kb_buf b = KB_BUF_INIT;

		if (!base_cached ||
		    kb_buf_read_file(&b, base_cached, KB_KCONFIG_MAX_FILE,
				     NULL)) {
			kb_buf_reset(&b);
			if ((ret = make(o, o->odir, log, o->base, err)) ||
			    (ret = kb_buf_read_file(&b, cfgpath,
						    KB_KCONFIG_MAX_FILE, err))) {
				kb_buf_release(&b);
				goto out;
			}
			if (base_cached &&
			    (ret = kb_write_atomic(base_cached, b.buf, b.len,
						    0644, err))) {
				kb_buf_release(&b);
				goto out;
			}
		}
		kb_buf_add(&res, b.buf, b.len);
		if (res.len && res.buf[res.len - 1] != '\n')
			kb_buf_addch(&res, '\n');
		kb_buf_release(&b);
	}
	kb_buf_add(&res, text.buf, text.len);
	if ((ret = kb_write_atomic(cfgpath, res.buf, res.len, 0644, err)) ||
	    (ret = make(o, o->odir, log, "olddefconfig", err)))
		goto out;
	kb_buf_reset(&res);
	if ((ret = kb_buf_read_file(&res, cfgpath, KB_KCONFIG_MAX_FILE, err)) ||
	    (ret = finish(r, res.buf, res.len, cfgpath, settings, nsettings,
			  syms, err)))
		goto out;
	if (cached &&
	    (ret = kb_write_atomic(cached, res.buf, res.len, 0644, err)))
		goto out;
	r->seconds = kb_monotime() - t0;
done:
	*out = r;
	r = NULL;
	ret = 0;
out:
	kb_unlock(lockfd);
	kb_kconfig_resolution_free(r);
	kb_buf_release(&key);
	kb_buf_release(&basekey);
	kb_buf_release(&text);
	kb_buf_release(&res);
	free(cache_dir);
	free(cached);
	free(base_cached);
	free(cfgpath);
	free(log);
	return ret;
}
