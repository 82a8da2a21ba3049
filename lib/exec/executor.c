#include "executor.h"

#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "mem.h"
#include "banned.h"

struct kb_executor {
	const struct kb_executor_ops *ops;
	void *self;
};

struct kb_executor *kb_executor_new(const struct kb_executor_ops *ops,
				    void *self)
{
	struct kb_executor *ex = kb_calloc(1, sizeof(*ex));

	ex->ops = ops;
	ex->self = self;
	return ex;
}

void kb_executor_free(struct kb_executor *ex)
{
	if (!ex)
		return;
	if (ex->ops->free)
		ex->ops->free(ex->self);
	free(ex);
}

const char *kb_executor_name(const struct kb_executor *ex)
{
	return ex->ops->name;
}

int kb_executor_replays(const struct kb_executor *ex)
{
	return !strcmp(ex->ops->name, "model");
}

int kb_executor_build(struct kb_executor *ex, const struct kb_variant *v,
		      struct kb_build_result *out, struct kb_err *err)
{
	int ret;

	memset(out, 0, sizeof(*out));
	ret = ex->ops->build(ex->self, v, out, err);
	if (ret < 0)
		kb_build_result_release(out);
	return ret;
}

int kb_executor_boot_at(struct kb_executor *ex, const struct kb_variant *v,
			const struct kb_build_result *build, unsigned boot_no,
			unsigned runs, const struct kb_boot_at *at,
			struct kb_boot_result *out, struct kb_err *err)
{
	int ret;

	memset(out, 0, sizeof(*out));
	if (ex->ops->boot_at)
		ret = ex->ops->boot_at(ex->self, v, build, boot_no, runs, at,
				       out, err);
	else
		ret = ex->ops->boot(ex->self, v, build, boot_no, runs, out,
				    err);
	if (ret < 0)
		kb_boot_result_release(out);
	return ret;
}

int kb_executor_boot(struct kb_executor *ex, const struct kb_variant *v,
		     const struct kb_build_result *build, unsigned boot_no,
		     unsigned runs, struct kb_boot_result *out,
		     struct kb_err *err)
{
	return kb_executor_boot_at(ex, v, build, boot_no, runs, NULL, out,
				   err);
}
