#ifndef KB_TREEEXEC_H
#define KB_TREEEXEC_H

struct kb_err;
struct kb_executor;
struct kb_matrix;

/*
 * The tree executor: another executor (the performance model's) behind a
 * kernel tree's own Kconfig, so that what it builds and boots is what a
 * kernel would be built from.  Option bisection with --model on a matrix
 * with source.tree (docs/model.md, "On a kernel tree"): the changes come
 * from the tree, builds and boots from the model.
 *
 * Build: the variant's Kconfig settings (a probe's changes) are resolved
 * from @base_config with the tree's `make olddefconfig`, exactly as the
 * real executor resolves a probe (kb_plan_new_variant() and
 * kb_plan_resolve() on matrix @m, at the variant's kernel.rev when it
 * sets one; the resolution cache makes a repeat cheap).  A variant whose
 * settings do not all hold is not built: KB_BUILD_FAILED with the reason
 * of kb_kconfig_not_held(), "config does not hold: ...", as on real
 * kernels.  Otherwise the inner executor builds the resolved variant:
 * the same variant (index, label, build key, guest) whose Kconfig
 * settings are every option of the resolved .config (the settings that
 * are not Kconfig options kept after them); the build result carries the
 * resolved .config (kb_build_result.config_text), stored with the build.
 *
 * Boot: the inner executor boots the resolved variant, read back from
 * the build's config_text (a build got from the store too); a build
 * without one (or a failed build) is handed on as it is.
 *
 * @m and @inner are borrowed and must outlive the executor; @base_config
 * is copied.  Named as @inner.  Returns 0 with *@out (kb_executor_free()),
 * or KB_EINPUT when @m has no source.tree.
 */
int kb_treeexec_new(const struct kb_matrix *m, struct kb_executor *inner,
		    const char *base_config, struct kb_executor **out,
		    struct kb_err *err);

#endif
