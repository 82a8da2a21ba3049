#include "order.h"

#include <stdlib.h>

#include "build.h"
#include "matrix.h"
#include "mem.h"
#include "plan.h"
#include "banned.h"

size_t kb_order_run(const struct kb_plan *p, const unsigned char *stored,
		    struct kb_order_boot *out)
{
	const struct kb_repeat *rep = kb_matrix_repeat(kb_plan_matrix(p));
	size_t i, k = 0, n = kb_plan_nvariants(p);
	size_t *order = kb_calloc(n ? n : 1, sizeof(*order));
	unsigned b;

	kb_build_plan_order(p, order);
	for (i = 0; i < n; i++) {
		const struct kb_variant *v = kb_plan_variant(p, order[i]);

		for (b = 1; b <= rep->boots; b++) {
			if (stored && stored[v->idx * rep->boots + b - 1])
				continue;
			out[k].variant_idx = v->idx;
			out[k++].boot_no = b;
		}
	}
	free(order);
	return k;
}

size_t kb_order_rounds(const struct kb_plan *p, struct kb_order_boot *out)
{
	const struct kb_repeat *rep = kb_matrix_repeat(kb_plan_matrix(p));
	size_t i, k = 0, n = kb_plan_nvariants(p);
	size_t *order = kb_calloc(n ? n : 1, sizeof(*order));
	unsigned b;

	kb_build_plan_order(p, order);
	for (b = 1; b <= rep->boots; b++)
		for (i = 0; i < n; i++) {
			out[k].variant_idx = kb_plan_variant(p, order[i])->idx;
			out[k++].boot_no = b;
		}
	free(order);
	return k;
}

void kb_order_added(unsigned variant_idx, unsigned last, unsigned n,
		    struct kb_order_boot *out)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		out[i].variant_idx = variant_idx;
		out[i].boot_no = last + 1 + i;
	}
}
