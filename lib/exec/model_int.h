#ifndef KB_MODEL_INT_H
#define KB_MODEL_INT_H

/*
 * What the performance model's files share (lib/exec/model.c lists
 * them, each calling only those below it): the object, the validation
 * context and the helpers of each file that the files above it call.
 * Private to the model module: included by lib/exec/model*.c alone.
 */

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "variant.h"
#include "ycheck.h"
#include "ydoc.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

enum stage {
	STAGE_NONE,  /* an effect */
	STAGE_BUILD,
	STAGE_BOOT,
};

/* One "NAME: level" (or "NAME: [level, ...]", any of) of a when-clause. */
struct cond {
	char *name;  /* "DEBUG_SPINLOCK" (no CONFIG_), "guest.vcpus" */
	size_t nvalues; /* the levels, any of which holds (at least one) */
	char **values;  /* each as text: "y", "4", "0,0,1,1" */
	int kconfig; /* a Kconfig option: absent from the variant means n */
};

/* An effect (factor) or a failure (stage). */
struct rule {
	size_t ncond;
	struct cond *cond;
	double factor;    /* effects: multiplies the value */
	enum stage stage; /* failures: where the variant fails */
	char *text;       /* "A=y B=n", for reasons */
};

/* One entry of "depends": @name holds only when every @on[] is y. */
struct dep {
	char *name;  /* the option, without CONFIG_ */
	size_t n;
	char **on;   /* the options it depends on */
	long *on_idx; /* index of each @on[] in the model's deps, or -1 */
};

/* hosts: a host's factor, and where it fails (docs/model.md). */
struct model_host {
	char *uri;
	double factor;       /* multiplies the values of its boots */
	unsigned fail_after; /* boots after which it fails them: libvirt
			      * errors, as a host that is lost */
	int fails;           /* fail_after was given */
};

/* One monitor of the model (docs/model.md, "monitors"): a counter's
 * value per run, with noise and effects as the metric's. */
struct model_monitor {
	char *name;       /* "vmstat.pgfault" */
	double base;
	double boot_sigma, run_sigma;
	size_t neffects;
	struct rule *effects;
};

/* One stack of the model's profile (docs/model.md, "profile"): its
 * weight among the stacks, with noise and effects as a monitor's. */
struct model_stack {
	char *stack;      /* "a;b;c" */
	double weight;
	double boot_sigma, run_sigma;
	size_t neffects;
	struct rule *effects;
};

struct kb_model {
	char *file;
	char *text;
	char *metric;
	double base;
	double boot_cv, run_cv;
	double boot_sigma, run_sigma; /* of the log-normal noise */
	size_t neffects;
	struct rule *effects;
	size_t nfailures;
	struct rule *failures;
	size_t ndeps;
	struct dep *deps;
	struct kb_model_time time;
	uint64_t seed;
	size_t nhosts;
	struct model_host *hosts;
	size_t nmonitors;
	struct model_monitor *monitors;
	unsigned profile_samples;     /* a run's samples; 0: no profile */
	size_t nstacks;
	struct model_stack *stacks;
	atomic_uint *booted; /* per host: boots begun on it, by every
			      * executor of the model (fail_after) */
	/* drift (docs/model.md): over the experiment's boots in the order
	 * they run, t = seq / total (or seq / over) */
	struct {
		int on;
		double linear;      /* the factor at t = 1 is 1 + linear */
		double step, at;    /* x (1 + step) from t = at on */
		double phi, ar_cv;  /* AR(1) on the log, stationary sd ar_cv */
		unsigned over;      /* boots the run counts (0: its plan's) */
	} drift;
};

/* Validation context: the model being filled and where errors go. */
struct ctx {
	struct kb_ycheck y;
	struct kb_model *m;
};

/* The input error "file:line:col: message" at node @n (lib/ycheck.h). */
#define fail(c, ...) kb_ycheck_fail(&(c)->y, __VA_ARGS__)

/* ---- lib/exec/model_core.c: what every part of the model is made of ----- */

/* Free the @n rules at @r and their conditions (NULL is fine). */
void kb_model__rules_free(struct rule *r, size_t n);

/* The effects (@effects 1: stage NONE) or failures list at @n into
 * *@rules and *@nrules (a monitor's or a stack's effects too).  What it
 * filled in is counted in *@nrules, for the model to free, also when it
 * fails. */
int kb_model__rules(struct ctx *c, const struct kb_ynode *n, int effects,
		    struct rule **rules, size_t *nrules);

/* The model's noise: { boot_cv, run_cv } at @n. */
int kb_model__noise(struct ctx *c, const struct kb_ynode *n);

/* A noise mapping { boot_cv, run_cv } at @n (NULL or null: none) into
 * the two sigmas of the log-normal; what it leaves out stays as it was. */
int kb_model__sigmas(struct ctx *c, const struct kb_ynode *n,
		     double *boot_sigma, double *run_sigma);

/* depends: { OPTION: OTHER, OPTION2: [A, B] }, refusing cycles. */
int kb_model__depends(struct ctx *c, const struct kb_ynode *n);

/* A fresh memo for kb_model__holds() (the caller frees it), or NULL
 * when the model has no "depends". */
unsigned char *kb_model__memo_new(const struct kb_model *m);

/* Whether every condition of @r holds for @v; @memo from
 * kb_model__memo_new() (shared by the calls on one variant). */
int kb_model__holds(const struct kb_model *m, const struct rule *r,
		    const struct kb_variant *v, unsigned char *memo);

/* A log-normal deviate with mean 1 and log-sd @sigma from the stream
 * seeded by @stream (1 when @sigma is 0). */
double kb_model__lognormal(double sigma, uint64_t stream);

/* ---- lib/exec/model_monitor.c: the monitors ----------------------------- */

/* monitors: NAME -> { base, noise, effects } (docs/model.md) */
int kb_model__monitors(struct ctx *c, const struct kb_ynode *n);

/* ---- lib/exec/model_profile.c: the profile ------------------------------ */

/* profile: { samples, noise, stacks: STACK -> weight | {...} } */
int kb_model__profile(struct ctx *c, const struct kb_ynode *n);

#endif
