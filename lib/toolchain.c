#include "toolchain.h"

#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "err.h"
#include "mem.h"
#include "program.h"
#include "banned.h"

#define MAX_VERSION_OUTPUT (64u << 10)

/* The value of make variable @name: its last NAME= item of @make_args,
 * else the environment's (make sees it too), else NULL. */
static const char *make_var(const char *const *make_args, size_t nargs,
			    const char *name)
{
	size_t i, len = strlen(name);
	const char *v = NULL;

	for (i = 0; i < nargs; i++)
		if (!strncmp(make_args[i], name, len) &&
		    make_args[i][len] == '=')
			v = make_args[i] + len + 1;
	return v ? v : getenv(name);
}

char *kb_toolchain_cc(const char *const *make_args, size_t nargs)
{
	const char *cc = NULL, *llvm, *cross;
	size_t i;

	/* only the command line overrides the Makefile's CC; $CC does not */
	for (i = 0; i < nargs; i++)
		if (!strncmp(make_args[i], "CC=", 3))
			cc = make_args[i] + 3;
	if (cc && *cc)
		return kb_strdup(cc);
	llvm = make_var(make_args, nargs, "LLVM");
	if (llvm && *llvm && strcmp(llvm, "0")) {
		size_t n = strlen(llvm);

		if (llvm[n - 1] == '/')
			return kb_asprintf("%sclang", llvm);
		if (llvm[0] == '-')
			return kb_asprintf("clang%s", llvm);
		return kb_strdup("clang");
	}
	cross = make_var(make_args, nargs, "CROSS_COMPILE");
	return kb_asprintf("%sgcc", cross ? cross : "");
}

/* Split @s on spaces and tabs into a NULL-terminated argv of owned strings,
 * with room for @extra more entries; *@n is the count of words. */
static char **words(const char *s, size_t extra, size_t *n)
{
	char **v = kb_calloc(strlen(s) + extra + 2, sizeof(*v));
	const char *p = s;

	*n = 0;
	while (*p) {
		const char *start;

		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		start = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		v[(*n)++] = kb_strndup(start, (size_t)(p - start));
	}
	return v;
}

static void words_free(char **v)
{
	size_t i;

	for (i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

int kb_toolchain_cc_version(const char *const *make_args, size_t nargs,
			    char **out, struct kb_err *err)
{
	char *cc = kb_toolchain_cc(make_args, nargs);
	char **env = kb_program_make_env();
	struct kb_buf b = KB_BUF_INIT;
	struct kb_program prog = {
		.argv = NULL,
		.envp = env,
		.out = KB_PROGRAM_PIPE,
		.err = KB_PROGRAM_PIPE,
	};
	char **argv, *nl;
	size_t n;
	int ret, status;

	*out = NULL;
	argv = words(cc, 1, &n);
	if (n == 0) {
		ret = kb_err_set(err, KB_EINPUT, "empty compiler '%s'", cc);
		goto out;
	}
	argv[n] = kb_strdup("--version");
	prog.argv = (const char *const *)argv;
	if ((ret = kb_program_capture(&prog, &b, MAX_VERSION_OUTPUT, &status,
				      err)))
		goto out;
	nl = strchr(b.buf, '\n');
	if (nl)
		*nl = '\0';
	if (status != 0 || !*b.buf) {
		ret = kb_err_set(err, KB_EFAIL,
				 "cannot read the compiler version: '%s --version' exited with status %d",
				 cc, status);
		goto out;
	}
	*out = kb_strdup(b.buf);
out:
	words_free(argv);
	kb_buf_release(&b);
	free(env);
	free(cc);
	return ret;
}

void kb_toolchain_build_key(const char *tree_id, const char *config,
			    size_t config_len, const char *compiler,
			    char out[KB_SHA256_HEX_LEN + 1])
{
	struct kb_buf b = KB_BUF_INIT;

	kb_buf_addf(&b, "kbisect-build-v1\ntree %s\ncompiler %s\nconfig %zu\n",
		    tree_id, compiler, config_len);
	kb_buf_add(&b, config, config_len);
	kb_sha256_hex(b.buf, b.len, out);
	kb_buf_release(&b);
}
