/*
 * YAML parsing benchmark: the largest documents the parser accepts
 * (KB_YDOC_MAX_NODES nodes) must parse in time close to linear in their
 * size: O(n) for a list (its arrays double when full), O(n log n) for a
 * mapping (each key looked up in a search tree of the earlier ones).
 * Issue 12 measured 11 to 44 s for a mapping of 49,000 keys, when each
 * key was compared with every earlier one and arrays grew one item at a
 * time.  Figures, each the best of 3:
 *
 *   - a mapping of 49,999 keys (with their values, the node cap: a
 *     50,000-key mapping is one node too many), and the same mapping with
 *     its last key a repeat of the first, refused at the end;
 *   - a list of 99,999 items (the cap again, with the list itself);
 *   - a matrix whose workload.fio has 49,996 options, through the whole
 *     matrix loader.
 *
 * Exits 1 when one takes more than LIMIT_S: linear parsing takes tens of
 * milliseconds here, quadratic took seconds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "err.h"
#include "fsutil.h"
#include "matrix.h"
#include "ydoc.h"

#define LIMIT_S 2.0
#define TRIES 3

/* Parse @b (as a plain YAML document, or a matrix when @matrix); the best
 * time of TRIES in seconds, or -1 when the outcome is not @expect. */
static double best_time(const struct kb_buf *b, int matrix, int expect)
{
	double best = -1;
	int i;

	for (i = 0; i < TRIES; i++) {
		struct kb_err err = KB_ERR_INIT;
		struct kb_ydoc *doc = NULL;
		struct kb_matrix *m = NULL;
		double t0 = kb_monotime(), t;
		int ret;

		if (matrix)
			ret = kb_matrix_parse_buffer(b->buf, b->len,
						     "bench.yaml", &m, &err);
		else
			ret = kb_ydoc_parse_buffer(b->buf, b->len,
						   "bench.yaml", &doc, &err);
		t = kb_monotime() - t0;
		kb_matrix_free(m);
		kb_ydoc_free(doc);
		if (ret != expect) {
			fprintf(stderr, "bench ydoc: unexpected outcome %d: %s\n",
				ret, err.msg);
			return -1;
		}
		if (best < 0 || t < best)
			best = t;
	}
	return best;
}

static int report(const char *what, size_t bytes, double t)
{
	if (t < 0)
		return 1;
	printf("%-44s %8zu KB %9.1f ms%s\n", what, bytes / 1024, t * 1e3,
	       t > LIMIT_S ? "  TOO SLOW" : "");
	return t > LIMIT_S;
}

int main(void)
{
	struct kb_buf b = KB_BUF_INIT;
	int bad = 0;
	size_t i;

	printf("== ydoc: the largest YAML documents parse in about linear time (limit %.1f s)\n",
	       LIMIT_S);
	for (i = 0; i < 49999; i++)
		kb_buf_addf(&b, "key%zu: %zu\n", i, i);
	bad |= report("mapping of 49,999 keys", b.len,
		      best_time(&b, 0, 0));

	kb_buf_reset(&b);
	for (i = 0; i < 49998; i++)
		kb_buf_addf(&b, "key%zu: %zu\n", i, i);
	kb_buf_adds(&b, "key0: again\n");
	bad |= report("... with the last key a repeat of the first", b.len,
		      best_time(&b, 0, KB_EINPUT));

	kb_buf_reset(&b);
	for (i = 0; i < 99999; i++)
		kb_buf_addf(&b, "- %zu\n", i);
	bad |= report("list of 99,999 items", b.len, best_time(&b, 0, 0));

	kb_buf_reset(&b);
	kb_buf_adds(&b, "workload:\n  metric: read_iops\n  fio:\n");
	for (i = 0; i < 49996; i++)
		kb_buf_addf(&b, "    o%zu: v%zu\n", i, i);
	bad |= report("matrix with 49,996 fio options", b.len,
		      best_time(&b, 1, 0));

	kb_buf_release(&b);
	return bad;
}
