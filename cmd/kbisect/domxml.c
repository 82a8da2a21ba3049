#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kbisect.h"
#include "matrix.h"
#include "plan.h"
#include "realexec.h"
#include "store.h"
#include "variant.h"
#include "banned.h"

struct domxml_args {
	struct kb_args common; /* first: CMD_ARGS */
	const char *variant;
};

static const struct kb_opt domxml_opts[] = {
	KB_OPT_STRING(struct domxml_args, variant, 0, "variant", "N",
		      "the variant to show, as `kbisect plan` numbers it (default 0)"),
	KB_OPT_DB,
	KB_OPT_QUIET("no progress on stderr while the config is resolved"),
	KB_OPT_END,
};

static int cmd_domxml(const struct kb_args *args);

const struct cmd cmd_domxml_entry = {
	.name = "domxml",
	.rank = 100,
	.args = "MATRIX",
	.opts = domxml_opts,
	.size = sizeof(struct domxml_args),
	.fn = cmd_domxml,
	.summary = "print the libvirt domain XML a variant would boot with",
	.help = "Plans MATRIX and prints the domain XML of variant N (default 0,\n"
		"the baseline) as `kbisect run` would start it: hypervisor and\n"
		"mode, vCPUs and pinning, memory, PCI passthrough, disks, console.\n"
		"What is made at boot time (the initramfs, the boot folder with the\n"
		"scratch disk and console log, a kernel not built yet) has a\n"
		"placeholder path, said in a comment at the top.  A kernel built\n"
		"from source.tree shows its path once built: the variant's config is\n"
		"resolved as `kbisect plan` does, and its build looked up in the\n"
		"build cache, then in the database.  See docs/guests.md.\n",
	.epilog = "Example:\n"
		  "  kbisect domxml kconfig-matrix/xen-pvops-spinlocks.yaml --variant 3\n",
};

/*
 * The kernel image the database holds for variant @v's build key, when
 * it is an ok build whose image is still a file; else NULL (no database
 * is no error: domxml needs none).  Caller frees.
 */
static char *stored_image(const char *db, const struct kb_variant *v)
{
	struct kb_err ignored = KB_ERR_INIT;
	struct kb_store *s = NULL;
	struct kb_build_result b;
	struct stat st;
	int64_t id;
	char *image = NULL;

	if (!v->build_key ||
	    cmd_open_store_as(db, KB_STORE_READ_ONLY, &s, &ignored))
		return NULL;
	memset(&b, 0, sizeof(b));
	if (kb_store_build_get(s, v->build_key, &b, &id, &ignored) == 0) {
		if (b.status == KB_BUILD_OK && b.image &&
		    stat(b.image, &st) == 0 && S_ISREG(st.st_mode)) {
			image = b.image;
			b.image = NULL;
		}
		kb_build_result_release(&b);
	}
	kb_store_close(s);
	return image;
}

static int cmd_domxml(const struct kb_args *args)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_matrix *m = NULL;
	struct kb_plan *p = NULL;
	const char *variant = CMD_ARGS(struct domxml_args, args)->variant;
	unsigned long idx;
	char *xml = NULL, *end, *built = NULL;
	int ret;

	if (!variant)
		variant = "0";
	if (*variant == '#')
		variant++;
	errno = 0;
	idx = strtoul(variant, &end, 10);
	if (*variant < '0' || *variant > '9' || *end || errno)
		return cmd_usage_error("domxml",
				       "invalid variant '%s': expected its number, as `kbisect plan` lists it",
				       variant);
	if ((ret = kb_matrix_load(args->pos[0], &m, &err)) ||
	    (ret = kb_plan_new(m, &p, &err)))
		goto fail;
	if (idx >= kb_plan_nvariants(p)) {
		kb_err_set(&err, KB_EINPUT,
			   "'%s' has variants 0 to %zu, not %lu", args->pos[0],
			   kb_plan_nvariants(p) - 1, idx);
		goto fail;
	}
	if (!kb_realexec_prebuilt(m, kb_plan_variant(p, idx))) {
		/* built from source: its key once its config is resolved;
		 * a tree that cannot resolve leaves the placeholder */
		struct kb_err rerr = KB_ERR_INIT;

		if (cmd_plan_resolve(p, args->quiet, &rerr))
			fprintf(stderr,
				"kbisect: note: %s: the kernel path is a placeholder\n",
				rerr.msg);
		else
			built = stored_image(args->db,
					     kb_plan_variant(p, idx));
	}
	if ((ret = kb_realexec_domxml(m, kb_plan_variant(p, idx), built, &xml,
				      &err)))
		goto fail;
	fputs(xml, stdout);
	ret = 0;
	goto out;
fail:
	ret = cmd_fail(&err);
out:
	free(built);
	free(xml);
	kb_plan_free(p);
	kb_matrix_free(m);
	return ret;
}
