#ifndef KB_EXECUTOR_H
#define KB_EXECUTOR_H

#include "variant.h"

struct kb_err;

/*
 * The executor: the three stages a variant goes through — build, boot,
 * run the workload — behind one interface, so that the pipeline does not
 * know whether a performance model or real kernels and guests are behind
 * it.  A boot runs the workload @runs times inside one guest and returns
 * every sample (the guest's /init does the same).
 *
 * Stage failures (a build that fails, a guest that times out) are results,
 * returned with status and reason and a return value of 0; a negative
 * return means the executor itself could not work (the experiment stops).
 * Over several hosts a boot's negative return is its host's failure (it
 * runs again, the host is drained after a few), except KB_ELOCAL: what
 * this machine makes for the boot (its initramfs, the guest image, the
 * boot folder, a scratch disk, the domain XML) could not be made, which
 * no host is to blame for, and the experiment stops.
 */
/*
 * Where a boot stands in its experiment's run (lib/order.h): its place
 * among the experiment's boots in the order they start, from 1, and how
 * many boots the experiment plans (0: not known, a bisection's), and
 * its round (block; 0: none).  The performance model drifts by the
 * place (docs/model.md, "drift"); the executor over hosts keeps a
 * round's boots on one host; real guests need not know.
 */
struct kb_boot_at {
	unsigned seq;
	unsigned total;
	unsigned round;
};

struct kb_executor_ops {
	const char *name; /* "model", "libvirt" */
	int (*build)(void *self, const struct kb_variant *v,
		     struct kb_build_result *out, struct kb_err *err);
	int (*boot)(void *self, const struct kb_variant *v,
		    const struct kb_build_result *build, unsigned boot_no,
		    unsigned runs, struct kb_boot_result *out,
		    struct kb_err *err);
	void (*free)(void *self);
	/* may be NULL: boot() told where the boot stands (@at, may be NULL);
	 * without it, boot() is called and the place is not said */
	int (*boot_at)(void *self, const struct kb_variant *v,
		       const struct kb_build_result *build, unsigned boot_no,
		       unsigned runs, const struct kb_boot_at *at,
		       struct kb_boot_result *out, struct kb_err *err);
};

struct kb_executor;

/* Wrap an implementation; @self is freed by ops->free on kb_executor_free. */
struct kb_executor *kb_executor_new(const struct kb_executor_ops *ops,
				    void *self);
void kb_executor_free(struct kb_executor *ex);
const char *kb_executor_name(const struct kb_executor *ex);

/* Nonzero when @ex is the performance model, whose results are a function
 * of its inputs: what it runs may be drawn from them (an order's seed)
 * and repeat.  On real hosts such draws are fresh each time. */
int kb_executor_replays(const struct kb_executor *ex);

/* Build variant @v.  *@out is filled (caller releases) when 0 is returned. */
int kb_executor_build(struct kb_executor *ex, const struct kb_variant *v,
		      struct kb_build_result *out, struct kb_err *err);

/*
 * Boot @v from @build (boot number @boot_no, from 1) and run the workload
 * @runs times.  *@out is filled (caller releases) when 0 is returned.
 */
int kb_executor_boot(struct kb_executor *ex, const struct kb_variant *v,
		     const struct kb_build_result *build, unsigned boot_no,
		     unsigned runs, struct kb_boot_result *out,
		     struct kb_err *err);
/* kb_executor_boot(), saying where the boot stands in its run (@at; may
 * be NULL: not known). */
int kb_executor_boot_at(struct kb_executor *ex, const struct kb_variant *v,
			const struct kb_build_result *build, unsigned boot_no,
			unsigned runs, const struct kb_boot_at *at,
			struct kb_boot_result *out, struct kb_err *err);

#endif
