/*
 * libFuzzer harness for the kbisectd wire protocol: any bytes go through
 * kb_protocol_parse_buffer() as one line.  The parser must either refuse
 * them (KB_EINPUT, a message, a zeroed result) or hand back a message
 * that writes back (kb_protocol_write) as exactly one line, which parses
 * again to the same type, id and texts.  Lines are also fed through
 * kb_protocol_take_line() in two pieces.  A broken invariant traps, which
 * libFuzzer reports as a crash.  See tests/fuzz/README.md.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "buf.h"
#include "err.h"
#include "fuzz.h"
#include "protocol.h"

static int same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static void roundtrip(const struct kb_msg *m)
{
	struct kb_buf b = KB_BUF_INIT;
	struct kb_err err = KB_ERR_INIT;
	struct kb_msg again;
	size_t i;

	kb_protocol_write(&b, m);
	check(b.len > 0 && b.buf[b.len - 1] == '\n');
	check(!memchr(b.buf, '\n', b.len - 1));
	check(kb_protocol_parse_buffer(b.buf, b.len, &again, &err) == 0);
	check(again.type == m->type);
	check(again.id == m->id);
	check(same(again.matrix, m->matrix));
	check(same(again.model, m->model));
	check(same(again.message, m->message));
	check(again.nprogress == m->nprogress);
	for (i = 0; i < m->nprogress; i++) {
		check(again.progress[i].id == m->progress[i].id);
		check(same(again.progress[i].current,
			   m->progress[i].current));
	}
	kb_msg_release(&again);
	kb_buf_release(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	struct kb_err err = KB_ERR_INIT;
	struct kb_buf in = KB_BUF_INIT, line = KB_BUF_INIT;
	struct kb_msg m;
	int ret;

	ret = kb_protocol_parse_buffer(text, size, &m, &err);
	if (ret) {
		check(ret == KB_EINPUT || ret == KB_EFAIL);
		check(err.msg[0] != '\0');
		check(m.type == 0 && !m.matrix && !m.progress);
	} else {
		roundtrip(&m);
		kb_msg_release(&m);
	}

	/* the daemon's reader: half a line, then the rest */
	kb_buf_add(&in, text, size / 2);
	kb_err_clear(&err);
	while ((ret = kb_protocol_take_line(&in, &line, &err)) == 1)
		check(!memchr(line.buf, '\n', line.len));
	kb_buf_add(&in, text + size / 2, size - size / 2);
	while ((ret = kb_protocol_take_line(&in, &line, &err)) == 1)
		check(!memchr(line.buf, '\n', line.len));
	check(ret == 0 || ret == KB_EINPUT);
	check(!memchr(in.buf, '\n', in.len) || ret == KB_EINPUT);
	kb_buf_release(&in);
	kb_buf_release(&line);
	return 0;
}
