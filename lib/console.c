/*
 * The guest console: a streaming parser for the result frames the guest's
 * /init prints among kernel log lines (see console.h for the protocol).
 *
 * Every byte but CR goes to the line assembler (for the tail, and to spot
 * a panic anywhere); between frames, complete lines are checked for
 * markers.  Inside a frame the bytes also go to the payload, counted and
 * checksummed as they come, until the announced length is reached; then
 * the next line must be the frame's END line.
 */
#include "console.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "cmdwork.h"
#include "err.h"
#include "fio.h"
#include "matrix.h"
#include "mem.h"
#include "monitor.h"
#include "profile.h"
#include "variant.h"
#include "banned.h"

#define TAIL_MAX (64u << 10)
#define JUDGE_TAIL_LINES 50
#define PANIC_TEXT "Kernel panic - not syncing"
#define PREFIX "KBISECT-"

/* What a frame carries. */
enum side {
	SIDE_RESULT,   /* KBISECT-BEGIN: the run's result */
	SIDE_MONITORS, /* KBISECT-MONITORS (lib/monitor.h) */
	SIDE_PROFILE,  /* KBISECT-PROFILE (lib/profile.h) */
};

enum mode {
	LINES,    /* between frames */
	PAYLOAD,  /* inside a frame's payload */
	WANT_END, /* payload complete, the END line comes next */
};

struct kb_console {
	size_t max_bytes;
	size_t total;
	enum kb_console_state state;
	int started;
	int panicked;
	unsigned runs;
	char *reason;

	char line[KB_CONSOLE_MAX_LINE + 1];
	size_t line_len;
	int line_split; /* the current line continues a split long line */

	enum mode mode;
	enum side side;     /* what the frame being read is */
	unsigned run;       /* of the frame being read */
	size_t want;        /* its announced length */
	uint32_t want_crc;  /* its announced checksum */
	uint32_t crc;       /* running CRC of the payload so far */
	struct kb_buf payload;

	size_t nframes;
	struct kb_console_frame *frames;
	size_t nmonitors;   /* monitors frames, at most one per run */
	struct kb_console_frame *monitors;
	size_t nprofiles;   /* profile frames, at most one per run */
	struct kb_console_frame *profiles;

	struct kb_buf tail;
};

/*
 * CRC-32 as zlib, gzip and busybox's crc32 applet compute it: reflected
 * polynomial 0xEDB88320, initial value and final xor 0xFFFFFFFF.
 */
static uint32_t crc_table[256];

static void crc_init(void)
{
	uint32_t i, j, c;

	if (crc_table[1])
		return;
	for (i = 0; i < 256; i++) {
		c = i;
		for (j = 0; j < 8; j++)
			c = (c & 1) ? (c >> 1) ^ 0xEDB88320u : c >> 1;
		crc_table[i] = c;
	}
}

static uint32_t crc_byte(uint32_t crc, unsigned char b)
{
	return (crc >> 8) ^ crc_table[(crc ^ b) & 0xff];
}

struct kb_console *kb_console_new(size_t max_bytes)
{
	struct kb_console *c = kb_calloc(1, sizeof(*c));

	crc_init();
	c->max_bytes = max_bytes ? max_bytes : KB_CONSOLE_DEFAULT_MAX;
	kb_buf_init(&c->payload);
	kb_buf_init(&c->tail);
	return c;
}

void kb_console_free(struct kb_console *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->nframes; i++)
		free((char *)c->frames[i].data);
	free(c->frames);
	for (i = 0; i < c->nmonitors; i++)
		free((char *)c->monitors[i].data);
	free(c->monitors);
	for (i = 0; i < c->nprofiles; i++)
		free((char *)c->profiles[i].data);
	free(c->profiles);
	free(c->reason);
	kb_buf_release(&c->payload);
	kb_buf_release(&c->tail);
	free(c);
}

static int final_state(const struct kb_console *c)
{
	return c->state == KB_CONSOLE_DONE || c->state == KB_CONSOLE_PANIC ||
	       c->state == KB_CONSOLE_BAD;
}

static void bad(struct kb_console *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void bad(struct kb_console *c, const char *fmt, ...)
{
	struct kb_buf b = KB_BUF_INIT;
	va_list ap;

	if (final_state(c))
		return;
	va_start(ap, fmt);
	kb_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	free(c->reason);
	c->reason = kb_buf_detach(&b);
	c->state = KB_CONSOLE_BAD;
}

/* A printable copy of @s for messages, cut at 80 bytes. */
static void quote(char *out, size_t size, const char *s)
{
	size_t i, j = 0;

	for (i = 0; s[i] && j + 1 < size && i < 80; i++)
		out[j++] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
	out[j] = '\0';
}

/* Parse an unsigned decimal number at *@p, then a space or the end. */
static int num(const char **p, size_t *out, int last)
{
	const char *s = *p;
	size_t v = 0;

	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (v > (SIZE_MAX - 9) / 10)
			return -1;
		v = v * 10 + (size_t)(*s - '0');
	}
	if (last ? *s != '\0' : *s != ' ')
		return -1;
	*p = last ? s : s + 1;
	*out = v;
	return 0;
}

static int hex32(const char *s, uint32_t *out)
{
	uint32_t v = 0;
	size_t i;

	for (i = 0; i < 8; i++) {
		char ch = s[i];

		if (ch >= '0' && ch <= '9')
			v = v << 4 | (uint32_t)(ch - '0');
		else if (ch >= 'a' && ch <= 'f')
			v = v << 4 | (uint32_t)(ch - 'a' + 10);
		else
			return -1;
	}
	if (s[8])
		return -1;
	*out = v;
	return 0;
}

static const char *const side_names[] = { "frame", "monitors frame",
					  "profile frame" };

/* The frames of side @side read so far, and their count. */
static struct kb_console_frame **side_frames(struct kb_console *c,
					     enum side side, size_t **n)
{
	switch (side) {
	case SIDE_MONITORS:
		*n = &c->nmonitors;
		return &c->monitors;
	case SIDE_PROFILE:
		*n = &c->nprofiles;
		return &c->profiles;
	case SIDE_RESULT:
		break;
	}
	*n = &c->nframes;
	return &c->frames;
}

/* A BEGIN line (@side SIDE_RESULT), a MONITORS or a PROFILE line. */
static void on_begin(struct kb_console *c, const char *args, const char *line,
		     enum side side)
{
	const char *what = side_names[side];
	struct kb_console_frame **v;
	char q[96];
	size_t run, len, *n;
	uint32_t crc;

	quote(q, sizeof(q), line);
	if (num(&args, &run, 0) || num(&args, &len, 0) || hex32(args, &crc)) {
		bad(c, "malformed %s header '%s'", what, q);
		return;
	}
	if (!c->started) {
		bad(c, "%s for run %zu before KBISECT-START", what, run);
		return;
	}
	if (run != c->nframes + 1 || run > c->runs) {
		bad(c, "%s for run %zu where run %zu of %u was due", what, run,
		    c->nframes + 1, c->runs);
		return;
	}
	v = side_frames(c, side, &n);
	if (side != SIDE_RESULT && *n && (*v)[*n - 1].run == run) {
		bad(c, "a second %s for run %zu", what, run);
		return;
	}
	if (len == 0 || len > KB_CONSOLE_MAX_FRAME) {
		bad(c, "%s for run %zu announces %zu bytes (1 to %u allowed)",
		    what, run, len, KB_CONSOLE_MAX_FRAME);
		return;
	}
	c->mode = PAYLOAD;
	c->side = side;
	c->run = (unsigned)run;
	c->want = len;
	c->want_crc = crc;
	c->crc = 0xFFFFFFFFu;
	kb_buf_reset(&c->payload);
}

static void on_end(struct kb_console *c, const char *args)
{
	struct kb_console_frame *f, **v;
	size_t run, *n;

	if (c->mode != WANT_END) {
		bad(c, "KBISECT-END without a frame");
		return;
	}
	if (num(&args, &run, 1) || run != c->run) {
		bad(c, "frame for run %u ends with a wrong END line", c->run);
		return;
	}
	v = side_frames(c, c->side, &n);
	*v = kb_reallocarray(*v, *n + 1, sizeof(**v));
	f = &(*v)[(*n)++];
	f->run = c->run;
	f->len = c->payload.len;
	f->data = kb_buf_detach(&c->payload);
	c->mode = LINES;
}

/* A complete line between frames (or the line after a payload). */
static void on_line(struct kb_console *c, const char *line)
{
	const char *args;
	char q[96];
	size_t n;

	if (strstr(line, PANIC_TEXT)) {
		quote(q, sizeof(q), strstr(line, PANIC_TEXT));
		free(c->reason);
		c->reason = kb_asprintf("guest kernel panic: %s", q);
		c->panicked = 1;
		c->state = KB_CONSOLE_PANIC;
		return;
	}
	if (c->mode == PAYLOAD)
		return;
	if (strncmp(line, PREFIX, strlen(PREFIX)) != 0) {
		if (c->mode == WANT_END)
			bad(c, "frame for run %u is longer than announced or has no END line",
			    c->run);
		return;
	}
	quote(q, sizeof(q), line);
	args = line + strlen(PREFIX);
	if (c->mode == WANT_END && strncmp(args, "END ", 4) != 0) {
		bad(c, "frame for run %u is not followed by its END line",
		    c->run);
		return;
	}
	if (!strncmp(args, "START ", 6)) {
		args += 6;
		if (c->started || num(&args, &n, 1) || n == 0 ||
		    n > KB_MATRIX_MAX_RUNS) {
			bad(c, "malformed or repeated start line '%s'", q);
			return;
		}
		c->runs = (unsigned)n;
		c->started = 1;
		c->state = KB_CONSOLE_RUNNING;
	} else if (!strncmp(args, "BEGIN ", 6)) {
		on_begin(c, args + 6, line, SIDE_RESULT);
	} else if (!strncmp(args, "MONITORS ", 9)) {
		on_begin(c, args + 9, line, SIDE_MONITORS);
	} else if (!strncmp(args, "PROFILE ", 8)) {
		on_begin(c, args + 8, line, SIDE_PROFILE);
	} else if (!strncmp(args, "END ", 4)) {
		on_end(c, args + 4);
	} else if (!strncmp(args, "ERROR ", 6)) {
		bad(c, "the guest reports an error: %s", q + strlen(PREFIX) + 6);
	} else if (!strncmp(args, "DONE ", 5)) {
		args += 5;
		if (!c->started || num(&args, &n, 1) || n != c->runs) {
			bad(c, "malformed done line '%s'", q);
			return;
		}
		if (c->nframes != c->runs) {
			bad(c, "the guest finished with %zu of %u result frames",
			    c->nframes, c->runs);
			return;
		}
		c->state = KB_CONSOLE_DONE;
	} else {
		bad(c, "unknown marker line '%s'", q);
	}
}

static void end_line(struct kb_console *c, int split)
{
	c->line[c->line_len] = '\0';
	if (!c->line_split) {
		on_line(c, c->line);
	} else if (strstr(c->line, PANIC_TEXT)) {
		c->line_split = 0;
		on_line(c, c->line);
	}
	c->line_len = 0;
	c->line_split = split;
}

static void payload_byte(struct kb_console *c, char ch)
{
	kb_buf_addch(&c->payload, ch);
	c->crc = crc_byte(c->crc, (unsigned char)ch);
	if (c->payload.len < c->want)
		return;
	if (ch != '\n') {
		bad(c, "payload of run %u does not end with a newline", c->run);
		return;
	}
	if ((c->crc ^ 0xFFFFFFFFu) != c->want_crc) {
		bad(c, "checksum mismatch in the frame for run %u (%zu bytes)",
		    c->run, c->payload.len);
		return;
	}
	c->mode = WANT_END;
}

static void add_tail(struct kb_console *c, const char *data, size_t len)
{
	kb_buf_add(&c->tail, data, len);
	if (c->tail.len > 2 * TAIL_MAX) {
		memmove(c->tail.buf, c->tail.buf + c->tail.len - TAIL_MAX,
			TAIL_MAX);
		c->tail.len = TAIL_MAX;
		c->tail.buf[TAIL_MAX] = '\0';
	}
}

enum kb_console_state kb_console_feed(struct kb_console *c, const void *data,
				      size_t len)
{
	const char *p = data;
	size_t i, start = 0;
	int in_payload;

	for (i = 0; i < len; i++) {
		char ch = p[i];

		if (!final_state(c) && c->total++ >= c->max_bytes)
			bad(c, "the console sent more than %zu bytes",
			    c->max_bytes);
		if (ch == '\r') {
			add_tail(c, p + start, i - start);
			start = i + 1;
			continue;
		}
		if (final_state(c))
			continue;
		/* the mode before this byte: a BEGIN line's newline is not
		 * payload, a payload's last newline is */
		in_payload = c->mode == PAYLOAD;
		if (ch == '\n') {
			end_line(c, 0);
		} else {
			c->line[c->line_len++] = ch;
			if (c->line_len == KB_CONSOLE_MAX_LINE)
				end_line(c, 1);
		}
		if (in_payload && !final_state(c))
			payload_byte(c, ch);
	}
	add_tail(c, p + start, len - start);
	return c->state;
}

enum kb_console_state kb_console_state(const struct kb_console *c)
{
	return c->state;
}

int kb_console_started(const struct kb_console *c)
{
	return c->started;
}

int kb_console_panicked(const struct kb_console *c)
{
	return c->panicked;
}

const char *kb_console_reason(const struct kb_console *c)
{
	return c->state == KB_CONSOLE_BAD || c->panicked ? c->reason : NULL;
}

unsigned kb_console_runs(const struct kb_console *c)
{
	return c->runs;
}

size_t kb_console_nframes(const struct kb_console *c)
{
	return c->nframes;
}

const struct kb_console_frame *kb_console_frame(const struct kb_console *c,
						size_t i)
{
	return i < c->nframes ? &c->frames[i] : NULL;
}

size_t kb_console_nmonitors(const struct kb_console *c)
{
	return c->nmonitors;
}

const struct kb_console_frame *kb_console_monitors(const struct kb_console *c,
						   size_t i)
{
	return i < c->nmonitors ? &c->monitors[i] : NULL;
}

size_t kb_console_nprofiles(const struct kb_console *c)
{
	return c->nprofiles;
}

const struct kb_console_frame *kb_console_profile(const struct kb_console *c,
						  size_t i)
{
	return i < c->nprofiles ? &c->profiles[i] : NULL;
}

char *kb_console_tail(const struct kb_console *c, size_t nlines)
{
	const char *b = c->tail.buf, *p = b + c->tail.len;
	size_t seen = 0;

	if (c->tail.len > TAIL_MAX)
		b = p - TAIL_MAX;

	if (nlines == 0)
		return kb_strdup("");
	/* a final newline ends the last line; it does not start one */
	if (p > b && p[-1] == '\n')
		p--;
	while (p > b) {
		if (p[-1] == '\n' && ++seen == nlines)
			break;
		p--;
	}
	return kb_strndup(p, (size_t)(c->tail.buf + c->tail.len - p));
}

int kb_console_parse_buffer(const char *data, size_t len, const char *file,
			    struct kb_console **out, struct kb_err *err)
{
	struct kb_console *c = kb_console_new(0);

	*out = NULL;
	if (kb_console_feed(c, data, len) == KB_CONSOLE_BAD) {
		kb_err_set(err, KB_EINPUT, "%s: %s", file, c->reason);
		kb_console_free(c);
		return KB_EINPUT;
	}
	*out = c;
	return 0;
}

static void judged(struct kb_boot_result *out, enum kb_boot_status status,
		   char *reason)
{
	out->status = status;
	free(out->reason);
	out->reason = reason;
}

/* One copy's payload (a command report, fio's JSON) into @out. */
static int parse_one(const char *data, size_t len, const char *file,
		     const struct kb_workload *w, struct kb_sample *out,
		     struct kb_err *err)
{
	if (w->kind == KB_WORKLOAD_COMMAND)
		return kb_cmdwork_parse_workload(data, len, file, w, out, err);
	return kb_fio_parse_buffer_devices(data, len, file, w->per_device, out,
					   err);
}

/* A number ending at a space or newline; advances *@p past it. */
static int header_num(const char **p, const char *end, char stop,
		      size_t *out)
{
	const char *s = *p;
	size_t v = 0;

	if (s >= end || *s < '0' || *s > '9')
		return -1;
	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		if (v > KB_CONSOLE_MAX_FRAME)
			return -1;
		v = v * 10 + (size_t)(*s - '0');
	}
	if (s >= end || *s != stop)
		return -1;
	*p = s + 1;
	*out = v;
	return 0;
}

/*
 * A run of w->copies copies (guests/init): "kbisect-copies N", then per
 * copy "copy K LEN" and LEN bytes of its payload; the run's sample is
 * kb_sample_copies() of the copies' samples.
 */
static int parse_copies(const char *data, size_t len, const char *file,
			const struct kb_workload *w, struct kb_sample *out,
			struct kb_err *err)
{
	static const char magic[] = "kbisect-copies ";
	const char *p = data, *end = data + len;
	struct kb_sample *each = NULL;
	size_t n, k, want, clen;
	char name[80];
	int ret;

	memset(out, 0, sizeof(*out));
	if (len < sizeof(magic) - 1 || memcmp(p, magic, sizeof(magic) - 1))
		return kb_err_set(err, KB_EINPUT,
				  "%s: expected the output of %u copies ('%s%u')",
				  file, w->copies, magic, w->copies);
	p += sizeof(magic) - 1;
	if (header_num(&p, end, '\n', &n) || n != w->copies)
		return kb_err_set(err, KB_EINPUT,
				  "%s: the guest ran another number of copies than the %u asked (stale initramfs?)",
				  file, w->copies);
	each = kb_calloc(n, sizeof(*each));
	for (k = 0; k < n; k++) {
		if ((size_t)(end - p) < 5 || memcmp(p, "copy ", 5) ||
		    (p += 5, header_num(&p, end, ' ', &want)) ||
		    want != k + 1 || header_num(&p, end, '\n', &clen) ||
		    clen > (size_t)(end - p)) {
			ret = kb_err_set(err, KB_EINPUT,
					 "%s: malformed header of copy %zu",
					 file, k + 1);
			goto out;
		}
		snprintf(name, sizeof(name), "%s copy %zu", file, k + 1);
		if ((ret = parse_one(p, clen, name, w, &each[k], err)))
			goto out;
		p += clen;
	}
	while (p < end && *p == '\n')
		p++;
	if (p != end) {
		ret = kb_err_set(err, KB_EINPUT,
				 "%s: data after the last copy's output", file);
		goto out;
	}
	if (kb_sample_copies(w, each, n, out)) {
		ret = kb_err_set(err, KB_EINPUT,
				 "%s: the copies yield more metrics than a sample holds (%d)",
				 file, KB_SAMPLE_MAX_METRICS);
		goto out;
	}
	ret = 0;
out:
	free(each);
	return ret;
}

/* Parse every frame into out->runs; 0, or -1 with the reason set. */
static int samples(const struct kb_console *c, const struct kb_workload *w,
		   struct kb_boot_result *out)
{
	struct kb_sample *runs = kb_calloc(c->nframes, sizeof(*runs));
	size_t i;

	for (i = 0; i < c->nframes; i++) {
		const struct kb_console_frame *f = &c->frames[i];
		struct kb_err err = KB_ERR_INIT;
		char file[32];
		int ret;

		snprintf(file, sizeof(file), "run %u", f->run);
		if (w->copies > 1)
			ret = parse_copies(f->data, f->len, file, w, &runs[i],
					   &err);
		else if (w->copies_factor) { /* one copy: named as N would be */
			struct kb_sample one;

			ret = parse_one(f->data, f->len, file, w, &one, &err);
			if (!ret && kb_sample_copies(w, &one, 1, &runs[i]))
				ret = kb_err_set(&err, KB_EINPUT,
						 "%s: too many metrics", file);
		} else
			ret = parse_one(f->data, f->len, file, w, &runs[i],
					&err);
		if (ret) {
			judged(out, KB_BOOT_BAD_OUTPUT,
			       kb_asprintf("guest output: %s", err.msg));
			free(runs);
			return -1;
		}
	}
	free(out->runs);
	out->runs = runs;
	out->nruns = c->nframes;
	return 0;
}

/*
 * The monitors frames into out->monitors.  A frame that does not parse
 * is left out: the monitors never decide a boot's result.
 */
static void monitors(const struct kb_console *c, struct kb_boot_result *out)
{
	size_t i;

	free(out->monitors);
	out->monitors = NULL;
	out->nmonitors = 0;
	for (i = 0; i < c->nmonitors; i++) {
		const struct kb_console_frame *f = &c->monitors[i];
		char file[48];

		snprintf(file, sizeof(file), "monitors of run %u", f->run);
		kb_monitor_parse_buffer(f->data, f->len, file, f->run,
					&out->monitors, &out->nmonitors, NULL);
	}
}

/*
 * The profile frames into out->profile, as the monitors: a frame that
 * does not parse is left out (the boot then stores no profile for that
 * run, which `compare` counts).
 */
static void profiles(const struct kb_console *c, struct kb_boot_result *out)
{
	size_t i;

	kb_profile_stacks_free(out->profile, out->nprofile);
	out->profile = NULL;
	out->nprofile = 0;
	for (i = 0; i < c->nprofiles; i++) {
		const struct kb_console_frame *f = &c->profiles[i];
		char file[48];

		snprintf(file, sizeof(file), "profile of run %u", f->run);
		kb_profile_parse_buffer(f->data, f->len, file, f->run,
					&out->profile, &out->nprofile, NULL);
	}
}

int kb_console_judge(const struct kb_console *c, const struct kb_workload *w,
		     unsigned runs, int timed_out, struct kb_boot_result *out,
		     struct kb_err *err)
{
	(void)err;
	free(out->console_tail);
	out->console_tail = kb_console_tail(c, JUDGE_TAIL_LINES);
	if (c->panicked) {
		judged(out, KB_BOOT_PANIC, kb_strdup(c->reason));
	} else if (c->state == KB_CONSOLE_BAD) {
		judged(out, KB_BOOT_BAD_OUTPUT, kb_strdup(c->reason));
	} else if (c->state == KB_CONSOLE_DONE) {
		if (c->runs != runs)
			judged(out, KB_BOOT_BAD_OUTPUT,
			       kb_asprintf("the guest ran the workload %u times, %u were asked (stale initramfs?)",
					   c->runs, runs));
		else if (samples(c, w, out) == 0) {
			judged(out, KB_BOOT_OK, NULL);
			monitors(c, out);
			profiles(c, out);
		}
	} else if (timed_out) {
		if (c->started)
			judged(out, KB_BOOT_WORKLOAD_TIMEOUT,
			       kb_asprintf("the workload did not finish in time: %zu of %u runs reported",
					   c->nframes, c->runs));
		else
			judged(out, KB_BOOT_TIMEOUT,
			       kb_strdup("the guest did not start the workload in time"));
	} else if (c->started) {
		if (c->mode == PAYLOAD)
			judged(out, KB_BOOT_BAD_OUTPUT,
			       kb_asprintf("the console ended inside the frame for run %u (%zu of %zu bytes)",
					   c->run, c->payload.len, c->want));
		else
			judged(out, KB_BOOT_BAD_OUTPUT,
			       kb_asprintf("the guest stopped after %zu of %u runs",
					   c->nframes, c->runs));
	} else {
		judged(out, KB_BOOT_FAILED,
		       kb_strdup("the guest stopped before the workload started"));
	}
	return 0;
}
