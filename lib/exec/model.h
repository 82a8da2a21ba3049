#ifndef KB_MODEL_H
#define KB_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "variant.h"

struct kb_err;
struct kb_executor;

/*
 * The performance model: a YAML description of what a variant would
 * measure (a base value, multiplicative effects of factor levels, log-normal
 * boot and run noise) and where it would fail (build or boot), standing in
 * for build+boot+workload so that the pipeline and the analysis can be
 * tested against known truth and an experiment's cost planned.  The format
 * is in docs/model.md.
 *
 * A condition ("when") holds for a variant when every level in it holds:
 * a Kconfig option's level is the variant's setting, or n when the variant
 * does not set it; a guest.* or kernel.* factor the variant does not set
 * never holds.  Levels compare as text.  For a kernel.* or guest.* factor
 * a list of levels means any of them ({ kernel.rev: [sha1, sha2] }; for
 * guest.pin a list of lists), and
 * a kernel.rev level of 7 to 40 hex digits also holds for the full commit
 * id it abbreviates.
 *
 * An optional "depends" mapping says which options an option needs: an
 * option set to anything but n whose dependencies are not all y (each
 * with its own dependencies met) counts as n, as `make olddefconfig`
 * drops it.
 *
 * An optional "hosts" mapping gives a host of the matrix's hosts: list a
 * factor that multiplies the values of the boots that run on it (a
 * slower machine), and may make it fail every boot after its first N
 * (fail_after: a host that is lost), for experiments spread over several
 * hosts (lib/spread.h).
 *
 * A loaded model is read-only but for the count of boots begun on each
 * host (atomic), so one model (and its executors) may be used from
 * several threads at once.
 */

/* Limits: larger values are refused. */
#define KB_MODEL_MAX_RULES 1024         /* effects, and failures, each */
#define KB_MODEL_MAX_WHEN 64            /* levels in one "when" */
#define KB_MODEL_MAX_ANY 4096           /* levels in one "any of" list */
#define KB_MODEL_MAX_CV 10.0            /* a coefficient of variation */
#define KB_MODEL_MAX_TIME_S 604800.0    /* one simulated stage: a week */
#define KB_MODEL_MAX_TIME_SCALE 1000.0  /* see kb_model_executor_new() */
#define KB_MODEL_MAX_HOSTS 64           /* entries of "hosts" */
#define KB_MODEL_MAX_MONITORS 1024      /* entries of "monitors" */
#define KB_MODEL_MAX_STACKS 4096        /* entries of "profile.stacks" */
#define KB_MODEL_MAX_PROFILE_SAMPLES 10000000 /* "profile.samples" */
/* The range of base times any combination of effects' factors: the noise
 * on top (at most about 1e14 either way) leaves every sample finite and
 * above 0, so that no infinity reaches the store. */
#define KB_MODEL_MAX_VALUE 1e100
#define KB_MODEL_MIN_VALUE 1e-100

/* Simulated durations of the stages, in seconds (all 0 when not given). */
struct kb_model_time {
	double build_s; /* one build */
	double boot_s;  /* one boot, before the first run */
	double run_s;   /* one workload run */
};

struct kb_model;

/*
 * Read and validate the model at @path.  On success *@out holds a model
 * the caller frees with kb_model_free().  Returns 0, KB_EINPUT with
 * "file:line:col: ..." in @err, or KB_ENOTFOUND/KB_EFAIL when the file
 * cannot be read.
 */
int kb_model_load(const char *path, struct kb_model **out,
		  struct kb_err *err);

/*
 * Validate @len bytes at @data as a model; @file names it in messages.
 * Same results as kb_model_load().  For tests and the fuzzer.
 */
int kb_model_parse_buffer(const char *data, size_t len, const char *file,
			  struct kb_model **out, struct kb_err *err);

/* Free @m (NULL is fine).  Executors made from @m must be freed first. */
void kb_model_free(struct kb_model *m);

/* The metric the model produces ("read_iops"); owned by @m. */
const char *kb_model_metric(const struct kb_model *m);

/*
 * Check that @m produces @metric (the matrix's workload.metric): returns
 * 0, or KB_EINPUT with "MODEL-FILE: the model produces 'x' but the
 * matrix's workload.metric is 'y'".
 */
int kb_model_check_metric(const struct kb_model *m, const char *metric,
			  struct kb_err *err);

/* The YAML text exactly as read, for storing with the experiment. */
const char *kb_model_text(const struct kb_model *m);

/* The seed (0 when not given). */
uint64_t kb_model_seed(const struct kb_model *m);

/* The simulated stage durations (for planning an experiment's cost). */
const struct kb_model_time *kb_model_time(const struct kb_model *m);

/*
 * The options @option (with or without CONFIG_) depends on in the model's
 * "depends" mapping: returns their number and points *@on at their names
 * (owned by @m), or returns 0 with *@on NULL when it has none.
 */
size_t kb_model_depends(const struct kb_model *m, const char *option,
			const char *const **on);

/*
 * The noise-free value of variant @v: base times the factor of every
 * effect whose condition holds.
 */
double kb_model_expected(const struct kb_model *m, const struct kb_variant *v);

/* The model's boot-to-boot and run-to-run coefficients of variation
 * (noise.boot_cv, noise.run_cv) into *@boot_cv and *@run_cv. */
void kb_model_noise(const struct kb_model *m, double *boot_cv,
		    double *run_cv);

/*
 * One noisy measurement: run @run_no (from 1) of boot @boot_no (from 1) of
 * @v, expected × boot noise × run noise.  Each noise is log-normal with
 * mean 1 and the model's coefficient of variation; the boot noise comes
 * from a stream seeded with kb_rng_seed_from(seed, label, boot_no, 0), the
 * run noise from kb_rng_seed_from(seed, label, boot_no, run_no), so the
 * value depends only on (model, variant label, boot_no, run_no), never on
 * the order of calls: re-running a boot gives the same numbers.  A @run_no
 * of 0 counts as 1.
 */
double kb_model_sample(const struct kb_model *m, const struct kb_variant *v,
		       unsigned boot_no, unsigned run_no);

/*
 * The model's monitors (docs/model.md, "monitors"): their number, the
 * name of monitor @i (owned by @m; NULL past them), and one noisy value
 * of monitor @i in run @run_no of boot @boot_no of @v: its base times the
 * factor of each of its effects that holds, times a boot and a run noise
 * as kb_model_sample()'s, from streams of the model's seed, the
 * monitor's name, @v's label, @boot_no and @run_no.  Hosts and drift
 * leave monitors alone.
 */
size_t kb_model_nmonitors(const struct kb_model *m);
const char *kb_model_monitor_name(const struct kb_model *m, size_t i);
double kb_model_monitor_sample(const struct kb_model *m, size_t i,
			       const struct kb_variant *v, unsigned boot_no,
			       unsigned run_no);

/*
 * The model's profile of run @run_no of boot @boot_no of @v (docs/model.md,
 * "profile"): each stack's weight times the factor of each of its effects
 * that holds, times a boot and a run noise (streams of the model's seed,
 * the stack, @v's label, @boot_no and @run_no), as a share of the sum of
 * the weights, times profile.samples, with Poisson sampling noise (a
 * normal of its mean and variance), rounded; stacks of no sample are left
 * out.  Into *@out (*@nout stacks, in the model's order; the caller frees
 * with kb_profile_stacks_free()); none without a profile.  Returns 0.
 */
struct kb_profile_stack;
int kb_model_profile(const struct kb_model *m, const struct kb_variant *v,
		     unsigned boot_no, unsigned run_no,
		     struct kb_profile_stack **out, size_t *nout);

/*
 * Make an executor (kb_executor_build/kb_executor_boot) driven by @m,
 * which it borrows: @m must outlive it.  @time_scale multiplies the
 * simulated durations the executor really sleeps: 0 is instant, 1 real
 * time; it must lie in [0, KB_MODEL_MAX_TIME_SCALE].  The results report
 * the simulated (unscaled) durations.  Build: KB_BUILD_FAILED when a
 * build failure rule holds, with the reason "model: build fails when
 * A=y B=n".  Boot: KB_BOOT_BUILD_FAILED when @build failed, KB_BOOT_FAILED
 * when a boot failure rule holds, else KB_BOOT_OK with @runs samples of
 * the model's metric (kb_model_sample()), each run's monitors
 * (kb_model_monitor_sample()) and host "model".  Returns 0, or
 * KB_EINPUT for a bad @time_scale (*@out is NULL then).
 */
int kb_model_executor_new(const struct kb_model *m, double time_scale,
			  struct kb_executor **out);

/*
 * kb_model_executor_new() whose boots run on host @host (a URI of the
 * matrix's hosts, copied; NULL: none): each records @host as where it
 * ran (instead of "model"), its values are multiplied by the model's
 * factor for @host (hosts:, 1 when it names none), and once @host has
 * begun its fail_after boots, by any executor of @m, every later boot on
 * it is KB_BOOT_LIBVIRT_ERROR "model: host URI is lost after N boots
 * (fail_after)", as a host whose libvirt connection is gone.
 */
int kb_model_executor_on(const struct kb_model *m, double time_scale,
			 const char *host, struct kb_executor **out);

/*
 * Read the time scale from $KBISECT_MODEL_TIME_SCALE into *@out: 1 (real
 * time) when unset or empty.  Returns 0, or KB_EINPUT when the value is
 * not a number in [0, KB_MODEL_MAX_TIME_SCALE].
 */
int kb_model_time_scale_env(double *out, struct kb_err *err);

/*
 * The factor model @m's drift (docs/model.md, "drift") puts on the
 * boot at place @seq (from 1) of a run of @total boots (drift.over
 * instead when the model gives it): 1 without a drift, or when the
 * place is not known (@seq or the count 0).  Over the boots in the
 * order they run, continuing past the end into boots added later.
 */
double kb_model_drift(const struct kb_model *m, unsigned seq,
		      unsigned total);

#endif
