/*
 * protocol: the kbisectd wire format (protocol.h, docs/protocol.md) and
 * the client's side of a connection.
 */
#include "protocol.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <json-c/json.h>

#include "buf.h"
#include "err.h"
#include "fsutil.h"
#include "json.h"
#include "mem.h"
#include "banned.h"

/* The longest KBISECT_TIMEOUT, in seconds: a day. */
#define MAX_TIMEOUT_S 86400

/* Nesting json-c accepts: a PROGRESS line is 3 deep. */
#define MAX_DEPTH 8

static const struct {
	enum kb_msg_type type;
	const char *name;
} types[] = {
	{ KB_MSG_HELLO, "hello" },
	{ KB_MSG_SUBMIT, "submit" },
	{ KB_MSG_STATUS, "status" },
	{ KB_MSG_CANCEL, "cancel" },
	{ KB_MSG_WATCH, "watch" },
	{ KB_MSG_SUBMITTED, "submitted" },
	{ KB_MSG_PROGRESS, "progress" },
	{ KB_MSG_CANCELLING, "cancelling" },
	{ KB_MSG_ERROR, "error" },
};
#define NTYPES (sizeof(types) / sizeof(types[0]))

static const struct {
	int code;
	const char *name;
} codes[] = {
	{ KB_EFAIL, "fail" },
	{ KB_EINPUT, "input" },
	{ KB_ENOTFOUND, "notfound" },
	{ KB_EEXISTS, "exists" },
};
#define NCODES (sizeof(codes) / sizeof(codes[0]))

const char *kb_msg_type_name(enum kb_msg_type type)
{
	size_t i;

	for (i = 0; i < NTYPES; i++)
		if (types[i].type == type)
			return types[i].name;
	return "unknown";
}

const char *kb_protocol_code_name(int code)
{
	size_t i;

	for (i = 0; i < NCODES; i++)
		if (codes[i].code == code)
			return codes[i].name;
	return "fail";
}

int kb_protocol_code(const char *name)
{
	size_t i;

	for (i = 0; name && i < NCODES; i++)
		if (!strcmp(codes[i].name, name))
			return codes[i].code;
	return KB_EFAIL;
}

void kb_msg_progress_release(struct kb_msg_progress *p)
{
	if (!p)
		return;
	free(p->name);
	free(p->state);
	free(p->executor);
	free(p->error);
	free(p->current);
	free(p->hosts);
	memset(p, 0, sizeof(*p));
}

void kb_msg_release(struct kb_msg *m)
{
	size_t i;

	if (!m)
		return;
	free(m->daemon);
	free(m->db);
	free(m->matrix);
	free(m->matrix_path);
	free(m->model);
	free(m->state);
	free(m->message);
	for (i = 0; i < m->nprogress; i++)
		kb_msg_progress_release(&m->progress[i]);
	free(m->progress);
	memset(m, 0, sizeof(*m));
}

/* ---- parsing ------------------------------------------------------------ */

static json_object *member(json_object *o, const char *key)
{
	json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v))
		return NULL;
	return v;
}

/* Whether @s[0..len) is well-formed UTF-8 (Unicode 3.9, table 3-7). */
static int utf8_valid(const unsigned char *s, size_t len)
{
	size_t i = 0;

	while (i < len) {
		unsigned char c = s[i];
		size_t n, k;
		unsigned lo = 0x80, hi = 0xbf;

		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			n = 1;
		else if (c >= 0xe0 && c <= 0xef)
			n = 2;
		else if (c >= 0xf0 && c <= 0xf4)
			n = 3;
		else
			return 0;
		if (c == 0xe0)
			lo = 0xa0;
		else if (c == 0xed)
			hi = 0x9f;
		else if (c == 0xf0)
			lo = 0x90;
		else if (c == 0xf4)
			hi = 0x8f;
		if (len - i <= n)
			return 0;
		for (k = 1; k <= n; k++) {
			unsigned char b = s[i + k];

			if (b < (k == 1 ? lo : 0x80) ||
			    b > (k == 1 ? hi : 0xbf))
				return 0;
		}
		i += n + 1;
	}
	return 1;
}

/*
 * Member @key of @o as a string: *@out stays NULL when it is absent or
 * null; KB_EINPUT when it is another type, holds a NUL character or is
 * not UTF-8 (texts cross the socket unchanged or not at all).
 */
static int get_string(json_object *o, const char *key, int required,
		      char **out, struct kb_err *err)
{
	json_object *v = member(o, key);
	const char *s;
	int len;

	*out = NULL;
	if (!v || json_object_is_type(v, json_type_null)) {
		if (required)
			return kb_err_set(err, KB_EINPUT,
					  "message lacks member '%s'", key);
		return 0;
	}
	if (!json_object_is_type(v, json_type_string))
		return kb_err_set(err, KB_EINPUT,
				  "member '%s' is not a string", key);
	s = json_object_get_string(v);
	len = json_object_get_string_len(v);
	if (len < 0 || memchr(s, '\0', (size_t)len))
		return kb_err_set(err, KB_EINPUT,
				  "member '%s' holds a NUL character", key);
	if (!utf8_valid((const unsigned char *)s, (size_t)len))
		return kb_err_set(err, KB_EINPUT,
				  "member '%s' is not UTF-8", key);
	*out = kb_strndup(s, (size_t)len);
	return 0;
}

/* Member @key as an integer in [@min, @max]; absent leaves *@out alone. */
static int get_int(json_object *o, const char *key, int required,
		   int64_t min, int64_t max, int64_t *out, struct kb_err *err)
{
	json_object *v = member(o, key);
	int64_t x;

	if (!v || json_object_is_type(v, json_type_null)) {
		if (required)
			return kb_err_set(err, KB_EINPUT,
					  "message lacks member '%s'", key);
		return 0;
	}
	if (!json_object_is_type(v, json_type_int))
		return kb_err_set(err, KB_EINPUT,
				  "member '%s' is not an integer", key);
	errno = 0;
	x = json_object_get_int64(v);
	if (errno || x < min || x > max)
		return kb_err_set(err, KB_EINPUT,
				  "member '%s' is out of range", key);
	*out = x;
	return 0;
}

static int get_unsigned(json_object *o, const char *key, unsigned *out,
			struct kb_err *err)
{
	int64_t v = 0;
	int ret = get_int(o, key, 0, 0, UINT32_MAX, &v, err);

	*out = (unsigned)v;
	return ret;
}

/* Member @key as a number; absent or null is NaN. */
static int get_number(json_object *o, const char *key, double *out,
		      struct kb_err *err)
{
	json_object *v = member(o, key);

	*out = NAN;
	if (!v || json_object_is_type(v, json_type_null))
		return 0;
	if (!json_object_is_type(v, json_type_int) &&
	    !json_object_is_type(v, json_type_double))
		return kb_err_set(err, KB_EINPUT,
				  "member '%s' is not a number", key);
	*out = json_object_get_double(v);
	return 0;
}

static int get_bool(json_object *o, const char *key, int *out,
		    struct kb_err *err)
{
	json_object *v = member(o, key);

	*out = 0;
	if (!v || json_object_is_type(v, json_type_null))
		return 0;
	if (!json_object_is_type(v, json_type_boolean))
		return kb_err_set(err, KB_EINPUT,
				  "member '%s' is not true or false", key);
	*out = json_object_get_boolean(v) ? 1 : 0;
	return 0;
}

static int parse_progress(json_object *o, struct kb_msg_progress *p,
			  struct kb_err *err)
{
	int ret;

	memset(p, 0, sizeof(*p));
	if (!json_object_is_type(o, json_type_object))
		return kb_err_set(err, KB_EINPUT,
				  "an experiment's progress is not an object");
	if ((ret = get_int(o, "id", 1, 1, INT64_MAX, &p->id, err)) ||
	    (ret = get_string(o, "name", 0, &p->name, err)) ||
	    (ret = get_string(o, "state", 0, &p->state, err)) ||
	    (ret = get_string(o, "executor", 0, &p->executor, err)) ||
	    (ret = get_string(o, "error", 0, &p->error, err)) ||
	    (ret = get_string(o, "current", 0, &p->current, err)) ||
	    (ret = get_string(o, "hosts", 0, &p->hosts, err)) ||
	    (ret = get_bool(o, "cancel_requested", &p->cancel_requested,
			    err)) ||
	    (ret = get_unsigned(o, "variants_done", &p->variants_done, err)) ||
	    (ret = get_unsigned(o, "variants_total", &p->variants_total,
				err)) ||
	    (ret = get_unsigned(o, "builds_done", &p->builds_done, err)) ||
	    (ret = get_unsigned(o, "builds_total", &p->builds_total, err)) ||
	    (ret = get_unsigned(o, "builds_running", &p->builds_running,
				err)) ||
	    (ret = get_unsigned(o, "boots_done", &p->boots_done, err)) ||
	    (ret = get_unsigned(o, "boots_total", &p->boots_total, err)) ||
	    (ret = get_unsigned(o, "boots_running", &p->boots_running,
				err)) ||
	    (ret = get_number(o, "build_mean_s", &p->build_mean_s, err)) ||
	    (ret = get_number(o, "boot_mean_s", &p->boot_mean_s, err)) ||
	    (ret = get_number(o, "elapsed_s", &p->elapsed_s, err)) ||
	    (ret = get_number(o, "eta_s", &p->eta_s, err)))
		kb_msg_progress_release(p);
	return ret;
}

static int parse_message(json_object *o, struct kb_msg *m,
			 struct kb_err *err)
{
	json_object *list;
	int64_t v = 0;
	size_t i, n;
	char *code = NULL;
	int ret;

	if ((ret = get_int(o, "msg", 1, 0, INT32_MAX, &v, err)))
		return ret;
	m->type = (enum kb_msg_type)v;
	switch (m->type) {
	case KB_MSG_HELLO:
		if ((ret = get_int(o, "version", 1, 1, UINT32_MAX, &v, err)))
			return ret;
		m->version = (unsigned)v;
		if ((ret = get_string(o, "daemon", 0, &m->daemon, err)))
			return ret;
		return get_string(o, "db", 0, &m->db, err);
	case KB_MSG_SUBMIT:
		if ((ret = get_string(o, "matrix", 1, &m->matrix, err)) ||
		    (ret = get_string(o, "matrix_path", 0, &m->matrix_path,
				      err)) ||
		    (ret = get_int(o, "max_boots", 0, 0, INT64_MAX,
				   &m->max_boots, err)) ||
		    (ret = get_int(o, "max_samples", 0, 0, INT64_MAX,
				   &m->max_samples, err)))
			return ret;
		return get_string(o, "model", 0, &m->model, err);
	case KB_MSG_STATUS:
		return get_int(o, "id", 0, 0, INT64_MAX, &m->id, err);
	case KB_MSG_CANCEL:
	case KB_MSG_WATCH:
	case KB_MSG_SUBMITTED:
		return get_int(o, "id", 1, 1, INT64_MAX, &m->id, err);
	case KB_MSG_CANCELLING:
		if ((ret = get_int(o, "id", 1, 1, INT64_MAX, &m->id, err)))
			return ret;
		return get_string(o, "state", 1, &m->state, err);
	case KB_MSG_ERROR:
		if ((ret = get_string(o, "code", 1, &code, err)))
			return ret;
		m->code = kb_protocol_code(code);
		free(code);
		return get_string(o, "message", 1, &m->message, err);
	case KB_MSG_PROGRESS:
		list = member(o, "experiments");
		if (!list || !json_object_is_type(list, json_type_array))
			return kb_err_set(err, KB_EINPUT,
					  "member 'experiments' is not an array");
		n = json_object_array_length(list);
		if (n > KB_PROTOCOL_MAX_PROGRESS)
			return kb_err_set(err, KB_EINPUT,
					  "more than %u experiments in one message",
					  KB_PROTOCOL_MAX_PROGRESS);
		m->progress = kb_calloc(n ? n : 1, sizeof(*m->progress));
		for (i = 0; i < n; i++) {
			ret = parse_progress(json_object_array_get_idx(list, i),
					     &m->progress[i], err);
			if (ret)
				return ret;
			m->nprogress++;
		}
		return 0;
	}
	return kb_err_set(err, KB_EINPUT, "unknown message type %lld",
			  (long long)v);
}

/*
 * What json-c lets through and the protocol refuses, read from the text
 * of a line json-c parsed (strictly, so that there is no comment or
 * other string quote to mind): an integer outside int64_t (json-c
 * saturates it), a \u escape of a lone surrogate (json-c makes it
 * U+FFFD) and, counted here for kb_protocol_parse_buffer() to compare,
 * the members of every object (one ':' each outside strings).  Returns
 * 0 or KB_EINPUT.
 */
static int raw_check(const char *s, size_t len, size_t *members,
		     struct kb_err *err)
{
	size_t i = 0, n = 0;

	while (i < len) {
		char c = s[i];

		if (c == ':') {
			n++;
			i++;
		} else if (c == '-' || (c >= '0' && c <= '9')) {
			size_t start = i, digits = 0, lead;
			int integral = 1;

			if (c == '-')
				i++;
			lead = i;
			while (i < len && strchr("0123456789.eE+-", s[i])) {
				if (s[i] == '.' || s[i] == 'e' || s[i] == 'E')
					integral = 0;
				i++;
			}
			digits = i - lead;
			/* 19 digits: compare with INT64_MAX or its negation */
			if (integral &&
			    (digits > 19 ||
			     (digits == 19 &&
			      memcmp(s + lead,
				     c == '-' ? "9223372036854775808"
					      : "9223372036854775807",
				     19) > 0)))
				return kb_err_set(err, KB_EINPUT,
						  "message holds an integer out of range (%.*s)",
						  (int)(i - start), s + start);
		} else if (c == '"') {
			for (i++; i < len && s[i] != '"'; i++) {
				unsigned long u;
				char hex[5];

				if (s[i] != '\\')
					continue;
				i++;
				if (i >= len || s[i] != 'u' || len - i < 5)
					continue;
				memcpy(hex, s + i + 1, 4);
				hex[4] = '\0';
				u = strtoul(hex, NULL, 16);
				i += 4;
				if (u >= 0xdc00 && u <= 0xdfff)
					return kb_err_set(err, KB_EINPUT,
							  "message holds a lone surrogate \\u%s", hex);
				if (u < 0xd800 || u > 0xdbff)
					continue;
				/* a high surrogate: its low half must follow */
				if (len - i < 7 || s[i + 1] != '\\' ||
				    s[i + 2] != 'u')
					return kb_err_set(err, KB_EINPUT,
							  "message holds a lone surrogate \\u%s", hex);
				memcpy(hex, s + i + 3, 4);
				u = strtoul(hex, NULL, 16);
				if (u < 0xdc00 || u > 0xdfff)
					return kb_err_set(err, KB_EINPUT,
							  "message holds a lone surrogate \\u%.4s",
							  s + i - 3);
				i += 6;
			}
			i++;
		} else {
			i++;
		}
	}
	*members = n;
	return 0;
}

/* The members of @o's objects, all of them, nested ones too. */
static size_t tree_members(json_object *o)
{
	size_t n = 0, i, len;

	if (json_object_is_type(o, json_type_object)) {
		json_object_object_foreach(o, key, v) {
			(void)key;
			n += 1 + tree_members(v);
		}
	} else if (json_object_is_type(o, json_type_array)) {
		len = json_object_array_length(o);
		for (i = 0; i < len; i++)
			n += tree_members(json_object_array_get_idx(o, i));
	}
	return n;
}

/* Whether the @len bytes at @data, refused by the strict parse, hold a
 * value that ends before them: what to say of the error. */
static int data_after(const char *data, size_t len)
{
	struct json_tokener *tok = json_tokener_new_ex(MAX_DEPTH);
	json_object *o;
	int after = 0;

	if (!tok)
		return 0;
	o = json_tokener_parse_ex(tok, data, (int)len);
	if (o && json_tokener_get_error(tok) == json_tokener_success)
		after = (size_t)json_tokener_get_parse_end(tok) < len;
	json_object_put(o);
	json_tokener_free(tok);
	return after;
}

int kb_protocol_parse_buffer(const char *data, size_t len,
			     struct kb_msg *out, struct kb_err *err)
{
	size_t members = 0;
	struct json_tokener *tok = NULL;
	json_object *o = NULL;
	size_t used;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	if (len && data[len - 1] == '\n')
		len--;
	if (len > KB_PROTOCOL_MAX_LINE)
		return kb_err_set(err, KB_EINPUT,
				  "message of %zu bytes is longer than %u", len,
				  KB_PROTOCOL_MAX_LINE);
	if (memchr(data, '\n', len))
		return kb_err_set(err, KB_EINPUT,
				  "message spans more than one line");
	tok = json_tokener_new_ex(MAX_DEPTH);
	if (!tok)
		return kb_err_set(err, KB_EFAIL, "out of memory");
	/* JSON only: no comments, single quotes or trailing commas */
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	/* json-c takes an int length; the limit above keeps it small */
	o = json_tokener_parse_ex(tok, data, (int)len);
	if (!o || json_tokener_get_error(tok) != json_tokener_success) {
		enum json_tokener_error e = json_tokener_get_error(tok);

		if (data_after(data, len))
			ret = kb_err_set(err, KB_EINPUT,
					 "message has data after its JSON object");
		else
			ret = kb_err_set(err, KB_EINPUT,
					 "message is not JSON: %s",
					 e == json_tokener_continue
						 ? "it ends too early"
						 : json_tokener_error_desc(e));
		goto out;
	}
	used = (size_t)json_tokener_get_parse_end(tok);
	while (used < len && strchr(" \t\r", data[used]))
		used++;
	if (used != len) {
		ret = kb_err_set(err, KB_EINPUT,
				 "message has data after its JSON object");
		goto out;
	}
	if (!json_object_is_type(o, json_type_object)) {
		ret = kb_err_set(err, KB_EINPUT,
				 "message is not a JSON object");
		goto out;
	}
	if ((ret = raw_check(data, len, &members, err)))
		goto out;
	/* json-c keeps the last of a repeated member: a member read by
	 * its last value would mean another request than a reader taking
	 * the first ({"msg":11,"msg":12,"id":1}) */
	if (members != tree_members(o)) {
		ret = kb_err_set(err, KB_EINPUT,
				 "message repeats a member");
		goto out;
	}
	ret = parse_message(o, out, err);
out:
	if (ret)
		kb_msg_release(out);
	json_object_put(o);
	json_tokener_free(tok);
	return ret;
}

/* ---- writing ------------------------------------------------------------ */

static void kv_string_opt(struct kb_json *j, const char *key, const char *s)
{
	if (s)
		kb_json_kv_string(j, key, s);
}

/*
 * A number of seconds; null (unknown) when it is not finite or as large
 * as 2^63 (292 billion years): the writer prints such an integral value
 * without exponent, as an integer the reader refuses (raw_check()).
 */
static void kv_seconds(struct kb_json *j, const char *key, double v)
{
	if (fabs(v) >= 9223372036854775808.0)
		v = NAN;
	kb_json_kv_number(j, key, v);
}

static void write_progress(struct kb_json *j, const struct kb_msg_progress *p)
{
	kb_json_object_begin(j);
	kb_json_kv_int(j, "id", p->id);
	kv_string_opt(j, "name", p->name);
	kv_string_opt(j, "state", p->state);
	kv_string_opt(j, "executor", p->executor);
	kv_string_opt(j, "error", p->error);
	kv_string_opt(j, "current", p->current);
	kv_string_opt(j, "hosts", p->hosts);
	kb_json_kv_bool(j, "cancel_requested", p->cancel_requested);
	kb_json_kv_int(j, "variants_done", p->variants_done);
	kb_json_kv_int(j, "variants_total", p->variants_total);
	kb_json_kv_int(j, "builds_done", p->builds_done);
	kb_json_kv_int(j, "builds_total", p->builds_total);
	kb_json_kv_int(j, "builds_running", p->builds_running);
	kb_json_kv_int(j, "boots_done", p->boots_done);
	kb_json_kv_int(j, "boots_total", p->boots_total);
	kb_json_kv_int(j, "boots_running", p->boots_running);
	/* NaN writes null */
	kv_seconds(j, "build_mean_s", p->build_mean_s);
	kv_seconds(j, "boot_mean_s", p->boot_mean_s);
	kv_seconds(j, "elapsed_s", p->elapsed_s);
	kv_seconds(j, "eta_s", p->eta_s);
	kb_json_object_end(j);
}

void kb_protocol_write(struct kb_buf *b, const struct kb_msg *m)
{
	struct kb_json *j = kb_json_new(b, 0);
	size_t i;

	kb_json_object_begin(j);
	kb_json_kv_int(j, "msg", (long long)m->type);
	switch (m->type) {
	case KB_MSG_HELLO:
		kb_json_kv_int(j, "version", m->version);
		kv_string_opt(j, "daemon", m->daemon);
		kv_string_opt(j, "db", m->db);
		break;
	case KB_MSG_SUBMIT:
		kb_json_kv_string(j, "matrix", m->matrix ? m->matrix : "");
		kv_string_opt(j, "matrix_path", m->matrix_path);
		kv_string_opt(j, "model", m->model);
		if (m->max_boots)
			kb_json_kv_int(j, "max_boots", m->max_boots);
		if (m->max_samples)
			kb_json_kv_int(j, "max_samples", m->max_samples);
		break;
	case KB_MSG_STATUS:
		if (m->id)
			kb_json_kv_int(j, "id", m->id);
		break;
	case KB_MSG_CANCEL:
	case KB_MSG_WATCH:
	case KB_MSG_SUBMITTED:
		kb_json_kv_int(j, "id", m->id);
		break;
	case KB_MSG_CANCELLING:
		kb_json_kv_int(j, "id", m->id);
		kb_json_kv_string(j, "state", m->state ? m->state : "");
		break;
	case KB_MSG_ERROR:
		kb_json_kv_string(j, "code", kb_protocol_code_name(m->code));
		kb_json_kv_string(j, "message",
				  m->message ? m->message : "");
		break;
	case KB_MSG_PROGRESS:
		kb_json_key(j, "experiments");
		kb_json_array_begin(j);
		for (i = 0; i < m->nprogress; i++)
			write_progress(j, &m->progress[i]);
		kb_json_array_end(j);
		break;
	}
	kb_json_object_end(j);
	kb_json_finish(j); /* adds the newline */
	kb_json_free(j);
}

/* ---- connections -------------------------------------------------------- */

char *kb_protocol_default_socket(void)
{
	const char *env = getenv("KBISECT_SOCKET");
	const char *run = getenv("XDG_RUNTIME_DIR");

	if (env && *env)
		return kb_strdup(env);
	if (geteuid() == 0)
		return kb_strdup("/run/kbisect/kbisectd.sock");
	if (run && *run == '/')
		return kb_asprintf("%s/kbisect/kbisectd.sock", run);
	return kb_asprintf("/tmp/kbisect-%lu/kbisectd.sock",
			   (unsigned long)geteuid());
}

int kb_protocol_socket_dir_check(const char *socket_path, int create,
				 struct kb_err *err)
{
	struct kb_err why = KB_ERR_INIT;
	const char *slash = strrchr(socket_path, '/');
	char *fallback = kb_asprintf("/tmp/kbisect-%lu",
				     (unsigned long)geteuid());
	int ret = 0;

	if (slash && (size_t)(slash - socket_path) == strlen(fallback) &&
	    !strncmp(socket_path, fallback, strlen(fallback))) {
		ret = kb_dir_private(fallback, create, &why);
		if (ret == KB_ENOTFOUND)
			ret = 0;
		else if (ret)
			ret = kb_err_set(err, KB_EFAIL,
					 "unsafe socket folder: %s; another user could read what is sent to kbisectd there (remove it, or set XDG_RUNTIME_DIR or KBISECT_SOCKET)",
					 why.msg);
	}
	free(fallback);
	return ret;
}

int kb_protocol_timeout_env(int *ms, struct kb_err *err)
{
	const char *s = getenv("KBISECT_TIMEOUT");
	char *end;
	double v;

	*ms = KB_PROTOCOL_TIMEOUT_S * 1000;
	if (!s || !*s)
		return 0;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end || errno || !(v >= 0 && v <= MAX_TIMEOUT_S))
		return kb_err_set(err, KB_EINPUT,
				  "KBISECT_TIMEOUT='%s' is not a number of seconds from 0 to %d (0 waits for ever)",
				  s, MAX_TIMEOUT_S);
	*ms = v > 0 ? (int)ceil(v * 1000) : -1;
	return 0;
}

struct kb_protocol_reader {
	int fd;
	struct kb_buf in;   /* received, not yet handed out */
	struct kb_buf line; /* the line handed out last */
	int timeout_ms;     /* one answer's wait; -1: for ever */
	char *path;         /* the daemon's socket, for messages; or NULL */
	char *db;           /* the daemon's database, as its HELLO said */
};

struct kb_protocol_reader *kb_protocol_reader_new(int fd)
{
	struct kb_protocol_reader *r = kb_calloc(1, sizeof(*r));

	r->fd = fd;
	r->timeout_ms = KB_PROTOCOL_TIMEOUT_S * 1000;
	kb_buf_init(&r->in);
	kb_buf_init(&r->line);
	return r;
}

void kb_protocol_reader_free(struct kb_protocol_reader *r)
{
	if (!r)
		return;
	kb_buf_release(&r->in);
	kb_buf_release(&r->line);
	free(r->path);
	free(r->db);
	free(r);
}

int kb_protocol_reader_timeout(const struct kb_protocol_reader *r,
			       int stream)
{
	int least = 3 * KB_PROTOCOL_HEARTBEAT_S * 1000;

	if (r->timeout_ms < 0 || !stream || r->timeout_ms >= least)
		return r->timeout_ms;
	return least;
}

int kb_protocol_next_line(const struct kb_buf *in, size_t *off,
			  const char **line, size_t *len, struct kb_err *err)
{
	const char *start = in->buf + *off, *nl;
	size_t left = in->len - *off;

	*line = NULL;
	*len = 0;
	/* look no further than a line may go */
	nl = memchr(start, '\n',
		    left > KB_PROTOCOL_MAX_LINE ? KB_PROTOCOL_MAX_LINE + 1
						: left);
	if (!nl) {
		if (left > KB_PROTOCOL_MAX_LINE)
			return kb_err_set(err, KB_EINPUT,
					  "line longer than %u bytes",
					  KB_PROTOCOL_MAX_LINE);
		return 0;
	}
	*line = start;
	*len = (size_t)(nl - start);
	*off += *len + 1;
	return 1;
}

int kb_protocol_take_line(struct kb_buf *in, struct kb_buf *line,
			  struct kb_err *err)
{
	const char *l;
	size_t n, off = 0;
	int ret = kb_protocol_next_line(in, &off, &l, &n, err);

	if (ret != 1)
		return ret;
	kb_buf_reset(line);
	kb_buf_add(line, l, n);
	memmove(in->buf, in->buf + off, in->len - off);
	in->len -= off;
	in->buf[in->len] = '\0';
	return 1;
}

/* "30 s", "0.5 s": a wait for messages */
static void say_wait(char *out, size_t size, int ms)
{
	snprintf(out, size, "%g s", ms / 1000.0);
}

int kb_protocol_read_line(struct kb_protocol_reader *r, int timeout_ms,
			  const char **line, size_t *len, struct kb_err *err)
{
	char chunk[65536];
	int ret;

	*line = NULL;
	*len = 0;
	for (;;) {
		struct pollfd p = { r->fd, POLLIN, 0 };
		ssize_t got;

		ret = kb_protocol_take_line(&r->in, &r->line, err);
		if (ret < 0)
			return ret;
		if (ret == 1) {
			*line = r->line.buf;
			*len = r->line.len;
			return 0;
		}
		ret = poll(&p, 1, timeout_ms);
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret < 0)
			return kb_err_set(err, KB_EFAIL,
					  "cannot wait for the daemon: %s",
					  strerror(errno));
		if (ret == 0) {
			char wait[32];

			say_wait(wait, sizeof(wait), timeout_ms);
			return kb_err_set(err, KB_EFAIL,
					  "kbisectd on '%s' did not answer within %s: is it stopped or stuck? (KBISECT_TIMEOUT=SECONDS waits longer, 0 for ever)",
					  r->path ? r->path : "its socket",
					  wait);
		}
		got = read(r->fd, chunk, sizeof(chunk));
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return kb_err_set(err, KB_EFAIL,
					  "cannot read from the daemon: %s",
					  strerror(errno));
		if (got == 0)
			return kb_err_set(err, KB_ENOTFOUND,
					  "the daemon closed the connection");
		kb_buf_add(&r->in, chunk, (size_t)got);
	}
}

int kb_protocol_send(int fd, const char *data, size_t len,
		     struct kb_err *err)
{
	while (len) {
		ssize_t n = send(fd, data, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return kb_err_set(err, KB_EFAIL,
					  "kbisectd took nothing of the request for too long: is it stopped or stuck? (KBISECT_TIMEOUT=SECONDS waits longer, 0 for ever)");
		if (n < 0)
			return kb_err_set(err, KB_EFAIL,
					  "cannot send to the daemon: %s",
					  strerror(errno));
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Read one message. */
static int receive(struct kb_protocol_reader *r, struct kb_msg *out,
		   struct kb_err *err)
{
	const char *line;
	size_t len;
	int ret;

	memset(out, 0, sizeof(*out));
	if ((ret = kb_protocol_read_line(r, kb_protocol_reader_timeout(r, 0),
					 &line, &len, err)))
		return ret;
	ret = kb_protocol_parse_buffer(line, len, out, err);
	if (ret) {
		/* a bad line from the daemon is not the user's input */
		err->code = KB_EFAIL;
		return KB_EFAIL;
	}
	return 0;
}

int kb_protocol_call(int fd, struct kb_protocol_reader *r,
		     const struct kb_msg *req, struct kb_msg *reply,
		     struct kb_err *err)
{
	struct kb_buf b = KB_BUF_INIT;
	int ret;

	memset(reply, 0, sizeof(*reply));
	kb_protocol_write(&b, req);
	ret = kb_protocol_send(fd, b.buf, b.len, err);
	kb_buf_release(&b);
	if (ret || (ret = receive(r, reply, err)))
		return ret;
	if (reply->type == KB_MSG_ERROR) {
		ret = kb_err_set(err, reply->code ? reply->code : KB_EFAIL,
				 "%s", reply->message ? reply->message : "");
		kb_msg_release(reply);
	}
	return ret;
}

/* connect_wait's @wait_ms: kb_protocol_timeout_env's */
#define WAIT_FROM_ENV INT_MIN

/* kb_protocol_connect, waiting @wait_ms (> 0; -1 for ever; or
 * WAIT_FROM_ENV). */
static int connect_wait(const char *path, int wait_ms, int *fd,
			struct kb_protocol_reader **r, struct kb_err *err)
{
	struct sockaddr_un sa;
	struct kb_protocol_reader *rd = NULL;
	struct kb_msg hello, reply;
	struct timeval tv;
	int s = -1, ret = 0;

	*fd = -1;
	*r = NULL;
	memset(&sa, 0, sizeof(sa));
	memset(&hello, 0, sizeof(hello));
	sa.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa.sun_path))
		return kb_err_set(err, KB_EINPUT,
				  "socket path '%s' is too long", path);
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if ((wait_ms == WAIT_FROM_ENV &&
	     (ret = kb_protocol_timeout_env(&wait_ms, err))) ||
	    (ret = kb_protocol_socket_dir_check(path, 0, err)))
		return ret;
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return kb_err_set(err, KB_EFAIL, "cannot make a socket: %s",
				  strerror(errno));
	/* a connect to a full backlog, and each send, give up after the
	 * wait with EAGAIN (a unix socket's connect honours SO_SNDTIMEO) */
	memset(&tv, 0, sizeof(tv));
	if (wait_ms > 0) {
		tv.tv_sec = wait_ms / 1000;
		tv.tv_usec = (wait_ms % 1000) * 1000;
	}
	setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(s, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		char wait[32];

		say_wait(wait, sizeof(wait), wait_ms);
		if (errno == ENOENT || errno == ECONNREFUSED)
			ret = kb_err_set(err, KB_ENOTFOUND,
					 "no kbisectd listens on '%s' (start one with: kbisectd --socket %s)",
					 path, path);
		else if (errno == EAGAIN || errno == EWOULDBLOCK)
			ret = kb_err_set(err, KB_EFAIL,
					 "kbisectd on '%s' did not take the connection within %s: is it stopped or stuck? (KBISECT_TIMEOUT=SECONDS waits longer, 0 for ever)",
					 path, wait);
		else
			ret = kb_err_set(err, KB_EFAIL,
					 "cannot connect to '%s': %s", path,
					 strerror(errno));
		goto out;
	}
	rd = kb_protocol_reader_new(s);
	rd->timeout_ms = wait_ms;
	rd->path = kb_strdup(path);
	hello.type = KB_MSG_HELLO;
	hello.version = KB_PROTOCOL_VERSION;
	if ((ret = kb_protocol_call(s, rd, &hello, &reply, err)))
		goto out;
	if (reply.type != KB_MSG_HELLO ||
	    reply.version != KB_PROTOCOL_VERSION) {
		ret = kb_err_set(err, KB_EFAIL,
				 "kbisectd on '%s' speaks protocol version %u, this kbisect %u",
				 path, reply.version, KB_PROTOCOL_VERSION);
		kb_msg_release(&reply);
		goto out;
	}
	rd->db = reply.db;
	reply.db = NULL;
	kb_msg_release(&reply);
	*fd = s;
	*r = rd;
	s = -1;
	rd = NULL;
out:
	kb_protocol_reader_free(rd);
	if (s >= 0)
		close(s);
	return ret;
}

int kb_protocol_connect(const char *path, int *fd,
			struct kb_protocol_reader **r, struct kb_err *err)
{
	return connect_wait(path, WAIT_FROM_ENV, fd, r, err);
}

int kb_protocol_daemon_db(const char *path, int wait_ms, char **db,
			  struct kb_err *err)
{
	struct kb_protocol_reader *r = NULL;
	int fd = -1, ret;

	*db = NULL;
	if ((ret = connect_wait(path, wait_ms > 0 ? wait_ms : 1, &fd, &r, err)))
		return ret;
	*db = r->db;
	r->db = NULL;
	kb_protocol_reader_free(r);
	close(fd);
	return 0;
}
