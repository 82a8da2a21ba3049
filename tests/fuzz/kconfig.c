/*
 * libFuzzer harness for the .config parser: any bytes go through
 * kb_kconfig_parse_buffer() as "fuzz.config".  The parser must either
 * refuse them with a message that names the file, or hand back a
 * configuration whose names are sorted and unique, and whose written form
 * (kb_kconfig_write) parses back to the same normalised text.  A broken
 * invariant traps, which libFuzzer reports as a crash.  The first line of
 * the input is also evaluated as a Kconfig expression against the result,
 * which must parse or be refused, never crash.  See tests/fuzz/README.md.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "err.h"
#include "fuzz.h"
#include "kconfig.h"

#define FILE_NAME "fuzz.config"

static void check_config(const struct kb_kconfig *cfg)
{
	struct kb_buf w = KB_BUF_INIT, n1 = KB_BUF_INIT, n2 = KB_BUF_INIT;
	struct kb_err err = KB_ERR_INIT;
	struct kb_kconfig *again = NULL;
	const char *prev = NULL, *name, *value;
	size_t i;

	for (i = 0; (name = kb_kconfig_name_at(cfg, i, &value)); i++) {
		check(*name && *value);
		check(!prev || strcmp(prev, name) < 0);
		check(kb_kconfig_get(cfg, name) == value);
		prev = name;
	}
	check(i == kb_kconfig_count(cfg));
	kb_kconfig_write(cfg, &w);
	check(kb_kconfig_parse_buffer(w.buf, w.len, "again", &again, &err) ==
	      0);
	kb_kconfig_normalised(cfg, &n1);
	kb_kconfig_normalised(again, &n2);
	check(n1.len == n2.len && !memcmp(n1.buf, n2.buf, n1.len));
	kb_kconfig_free(again);
	kb_buf_release(&w);
	kb_buf_release(&n1);
	kb_buf_release(&n2);
}

static void check_expr(const uint8_t *data, size_t size,
		       const struct kb_kconfig *cfg)
{
	const uint8_t *nl = memchr(data, '\n', size);
	size_t len = nl ? (size_t)(nl - data) : size;
	struct kb_err err = KB_ERR_INIT;
	struct kb_buf unmet = KB_BUF_INIT;
	char *expr;
	int level = -1, ret;

	if (len > 4096 || memchr(data, '\0', len))
		return;
	expr = malloc(len + 1);
	if (!expr)
		return;
	memcpy(expr, data, len);
	expr[len] = '\0';
	ret = kb_kconfig_eval(expr, cfg, 2, &level, &unmet, &err);
	if (ret == 0)
		check(level >= 0 && level <= 2);
	else
		check(ret == KB_EINPUT && err.msg[0]);
	kb_buf_release(&unmet);
	free(expr);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_kconfig *cfg = NULL;
	int ret;

	ret = kb_kconfig_parse_buffer((const char *)data, size, FILE_NAME,
				      &cfg, &err);
	if (!check_parsed(ret, &err, cfg, FILE_NAME)) {
		check_expr(data, size, NULL);
		return 0;
	}
	check_config(cfg);
	check_expr(data, size, cfg);
	kb_kconfig_free(cfg);
	return 0;
}
