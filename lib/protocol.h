#ifndef KB_PROTOCOL_H
#define KB_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>

struct kb_buf;
struct kb_err;

/*
 * The kbisectd protocol (docs/protocol.md): over a unix stream socket,
 * one JSON object per line each way, each with a numbered message type
 * "msg" from enum kb_msg_type.  The client speaks first with HELLO and
 * its version; the daemon answers HELLO with its own, or ERROR and closes
 * when the versions differ.  Then the client sends requests, each
 * answered by one message, except WATCH, answered by PROGRESS lines until
 * the experiment ends.  Members a reader does not know are ignored, so
 * that a later version may add some without a version change; removing
 * or changing one needs a new KB_PROTOCOL_VERSION.
 *
 * Parsing (json-c) and writing (lib/util/json.h) live here; this is the only
 * module besides fio.c that includes <json-c/...>.
 */

#define KB_PROTOCOL_VERSION 1

/* Longest line either side accepts, newline excluded (matrix + model). */
#define KB_PROTOCOL_MAX_LINE (4u << 20)
/* Most experiments in one PROGRESS message. */
#define KB_PROTOCOL_MAX_PROGRESS 256
/* Seconds a client waits for the daemon unless KBISECT_TIMEOUT says. */
#define KB_PROTOCOL_TIMEOUT_S 30
/* Longest silence towards a watcher: the daemon repeats PROGRESS at
 * least this often (seconds), so that a client can tell a stopped
 * daemon from an experiment whose step runs long. */
#define KB_PROTOCOL_HEARTBEAT_S 10

/* Message types: numbers are part of the protocol, never reuse one. */
enum kb_msg_type {
	KB_MSG_HELLO = 1,       /* both ways, first: version, daemon */
	KB_MSG_SUBMIT = 10,     /* client: matrix, matrix_path, model,
				 * max_boots, max_samples */
	KB_MSG_STATUS = 11,     /* client: id (absent or 0: recent ones) */
	KB_MSG_CANCEL = 12,     /* client: id */
	KB_MSG_WATCH = 13,      /* client: id */
	KB_MSG_SUBMITTED = 20,  /* daemon: id */
	KB_MSG_PROGRESS = 21,   /* daemon: experiments[] */
	KB_MSG_CANCELLING = 22, /* daemon: id, state */
	KB_MSG_ERROR = 30,      /* daemon: code, message */
};

/* One experiment's progress, as PROGRESS carries it. */
struct kb_msg_progress {
	int64_t id;
	char *name, *state, *executor; /* owned; may be NULL */
	char *error;                   /* why it failed, or NULL */
	char *current;                 /* the running steps, or NULL */
	int cancel_requested;
	unsigned variants_done, variants_total;
	unsigned builds_done, builds_total, builds_running;
	unsigned boots_done, boots_total, boots_running;
	double build_mean_s, boot_mean_s; /* measured; NaN: none yet */
	double elapsed_s;                 /* NaN: unknown */
	double eta_s;                     /* NaN: unknown */
	char *hosts; /* boots done per host, "URI 12, URI 11", when on more
		      * than one; or NULL (optional: a later member) */
};

/* One message; which members count depends on @type. */
struct kb_msg {
	enum kb_msg_type type;
	unsigned version;   /* HELLO */
	int64_t id;         /* STATUS, CANCEL, WATCH, SUBMITTED, CANCELLING */
	char *daemon;       /* HELLO from the daemon: its instance id */
	char *db;           /* HELLO from the daemon: its database's path */
	char *matrix;       /* SUBMIT: the matrix YAML text */
	char *matrix_path;  /* SUBMIT: where it was read (relative paths) */
	char *model;        /* SUBMIT: the model YAML text, or NULL */
	int64_t max_boots;  /* SUBMIT: the caps on the plan the client raised */
	int64_t max_samples; /* (--max-boots, --max-samples); 0: defaults */
	char *state;        /* CANCELLING: the experiment's state */
	int code;           /* ERROR: a KB_E* code */
	char *message;      /* ERROR */
	size_t nprogress;   /* PROGRESS */
	struct kb_msg_progress *progress;
};

/* Free what @m owns and zero it; NULL is accepted. */
void kb_msg_release(struct kb_msg *m);
void kb_msg_progress_release(struct kb_msg_progress *p);

/*
 * Parse one line (@len bytes at @data, an optional trailing newline
 * included) into *@out, which the caller releases on success.  Returns
 * 0, or KB_EINPUT with a message: not one JSON object (strict JSON: no
 * comments, single quotes or trailing commas), an unknown "msg", a
 * member of the wrong type, a member repeated in any object, an integer
 * outside int64_t, a string holding NUL or a lone surrogate (\ud800), a
 * required member missing, a line longer than KB_PROTOCOL_MAX_LINE.
 * *@out is zeroed on failure.
 */
int kb_protocol_parse_buffer(const char *data, size_t len,
			     struct kb_msg *out, struct kb_err *err);

/* Append @m to @b as one line of compact JSON ending in "\n". */
void kb_protocol_write(struct kb_buf *b, const struct kb_msg *m);

/* The name of @type ("submit"), or "unknown". */
const char *kb_msg_type_name(enum kb_msg_type type);

/* The protocol's name of a KB_E* code ("input") and back (KB_EFAIL for
 * a name it does not know). */
const char *kb_protocol_code_name(int code);
int kb_protocol_code(const char *name);

/*
 * The socket path when none is given: $KBISECT_SOCKET when set, else
 * /run/kbisect/kbisectd.sock for root, else
 * $XDG_RUNTIME_DIR/kbisect/kbisectd.sock, else
 * /tmp/kbisect-<uid>/kbisectd.sock.  Caller frees.
 */
char *kb_protocol_default_socket(void);

/*
 * When @socket_path lies in the fallback folder /tmp/kbisect-<euid>,
 * which anyone could have made first: with @create, make it mode 0700
 * if missing; then refuse it (KB_EFAIL, saying what is wrong and what
 * to set instead) unless it is a real folder of this user's with mode
 * 0700 (kb_dir_private, as tmux and ssh-agent check theirs).  A missing
 * folder without @create is fine (nobody listens there).  Any other
 * folder is the user's or the administrator's choice and is not
 * checked.  The daemon calls it before binding, kb_protocol_connect
 * before connecting.
 */
int kb_protocol_socket_dir_check(const char *socket_path, int create,
				 struct kb_err *err);

/*
 * How long a client waits for the daemon, in milliseconds, into *@ms:
 * $KBISECT_TIMEOUT seconds when set (0: for ever, -1 in *@ms), else
 * KB_PROTOCOL_TIMEOUT_S.  KB_EINPUT when the variable is not a number
 * of seconds from 0 to 86400.
 */
int kb_protocol_timeout_env(int *ms, struct kb_err *err);

/*
 * Buffered reading of lines from a socket.  kb_protocol_read_line()
 * waits up to @timeout_ms (-1: forever) and sets *@line (owned by @r,
 * valid until the next call; without its newline).  Returns 0,
 * KB_ENOTFOUND at end of file, KB_EINPUT for a line over the limit,
 * KB_EFAIL on an error or timeout (the message says how long it waited
 * and that KBISECT_TIMEOUT sets it).
 */
struct kb_protocol_reader;
struct kb_protocol_reader *kb_protocol_reader_new(int fd);
void kb_protocol_reader_free(struct kb_protocol_reader *r);
int kb_protocol_read_line(struct kb_protocol_reader *r, int timeout_ms,
			  const char **line, size_t *len, struct kb_err *err);

/*
 * The wait, in milliseconds (-1: for ever), for one answer on @r's
 * connection (@stream 0: kb_protocol_timeout_env's, as
 * kb_protocol_connect found it; KB_PROTOCOL_TIMEOUT_S for a reader made
 * with kb_protocol_reader_new), or for the next line of a stream such
 * as WATCH's (@stream 1: the same, but never less than three
 * heartbeats, since the daemon may rightly say nothing that long).
 */
int kb_protocol_reader_timeout(const struct kb_protocol_reader *r,
			       int stream);

/*
 * Take a complete line out of @in (bytes received so far), if there is
 * one: returns 1 and moves it (without its newline) into @line, 0 when
 * none is complete yet, KB_EINPUT when @in holds more than
 * KB_PROTOCOL_MAX_LINE bytes without a newline.  For the daemon's
 * non-blocking reads.
 */
int kb_protocol_take_line(struct kb_buf *in, struct kb_buf *line,
			  struct kb_err *err);

/*
 * The next complete line of @in from offset *@off, in place: returns 1
 * with *@line pointing at it inside @in (without its newline, not
 * NUL-terminated; valid until @in changes), *@len its length, and *@off
 * moved past its newline; 0 when no complete line starts at *@off;
 * KB_EINPUT when the bytes from *@off hold more than
 * KB_PROTOCOL_MAX_LINE before a newline or without one.  Taking every
 * line of @in costs O(its length), where kb_protocol_take_line moves the
 * rest each time: the daemon's way with a client that sends many lines
 * at once.  The caller drops the bytes before *@off when it likes.
 */
int kb_protocol_next_line(const struct kb_buf *in, size_t *off,
			  const char **line, size_t *len, struct kb_err *err);

/* Write all of @len bytes at @data to @fd.  Returns 0 or KB_EFAIL. */
int kb_protocol_send(int fd, const char *data, size_t len,
		     struct kb_err *err);

/*
 * Connect to the daemon at @path and exchange HELLO.  Returns 0 with
 * *@fd and *@r (caller closes and frees), KB_ENOTFOUND when no daemon
 * listens there (the message says how to start one), KB_EFAIL when the
 * versions differ, the socket fails, the fallback socket folder is not
 * private (kb_protocol_socket_dir_check), or the daemon does not accept,
 * take or answer within kb_protocol_timeout_env's wait (a stopped
 * daemon; the wait holds for every later send and kb_protocol_call on
 * *@fd and *@r too), KB_EINPUT for a bad KBISECT_TIMEOUT.
 */
int kb_protocol_connect(const char *path, int *fd,
			struct kb_protocol_reader **r, struct kb_err *err);

/*
 * The database of the daemon at @path, as its HELLO says it: *@db (the
 * caller frees) is its absolute path, or NULL when the daemon does not
 * say.  Waits @wait_ms at most for each step (a stopped daemon is
 * skipped, not waited for).  Returns 0 or an error as
 * kb_protocol_connect's.
 */
int kb_protocol_daemon_db(const char *path, int wait_ms, char **db,
			  struct kb_err *err);

/*
 * Send @req on @fd and read one reply into *@reply (caller releases),
 * waiting kb_protocol_reader_timeout(@r, 0) at most.  An ERROR reply is
 * returned as its code with its message in @err (*@reply released).
 * Returns 0 or a negative KB_E* code.
 */
int kb_protocol_call(int fd, struct kb_protocol_reader *r,
		     const struct kb_msg *req, struct kb_msg *reply,
		     struct kb_err *err);

#endif
