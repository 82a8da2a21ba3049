/*
 * kbisect watch: live progress of one experiment from kbisectd, a bar per
 * phase (builds, boots) redrawn in place on a terminal, one line per
 * change otherwise, until the experiment ends.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kbisect.h"
#include "buf.h"
#include "mem.h"
#include "protocol.h"
#include "banned.h"

#define BAR_WIDTH 30

static void bar(FILE *f, const char *what, unsigned done, unsigned total,
		unsigned running, double eta_s)
{
	unsigned fill = total ? (unsigned)((double)done * BAR_WIDTH / total)
			      : BAR_WIDTH;
	char *eta = cmd_duration(eta_s);
	unsigned i;

	fprintf(f, "\r\033[K%-6s [", what);
	for (i = 0; i < BAR_WIDTH; i++)
		fputc(i < fill ? '#' : i == fill && running ? '>' : '-', f);
	fprintf(f, "] %u/%u", done, total);
	if (done < total)
		fprintf(f, "  ETA %s", eta);
	fputc('\n', f);
	free(eta);
}

static int ended(const struct kb_msg_progress *p)
{
	return p->state && strcmp(p->state, "queued") &&
	       strcmp(p->state, "running");
}

/* The lines drawn last on the terminal, to move back over. */
static int draw(FILE *f, const struct kb_msg_progress *p, int drawn)
{
	double build_eta = NAN;
	char *el = cmd_duration(p->elapsed_s);
	struct kb_buf b = KB_BUF_INIT; /* what the daemon stored */

	if (p->builds_done == p->builds_total)
		build_eta = 0;
	else if (!isnan(p->build_mean_s))
		build_eta = (p->builds_total - p->builds_done) *
			    p->build_mean_s;
	if (drawn)
		fprintf(f, "\033[%dA", drawn);
	fprintf(f, "\r\033[K#%lld %s: %s, %u/%u variants, elapsed %s\n",
		(long long)p->id, p->name ? cmd_printable(p->name, 0, &b) : "?",
		p->state ? p->state : "?", p->variants_done,
		p->variants_total, el);
	bar(f, "builds", p->builds_done, p->builds_total, p->builds_running,
	    build_eta);
	bar(f, "boots", p->boots_done, p->boots_total, p->boots_running,
	    p->eta_s);
	fprintf(f, "\r\033[K%s%s\n", p->current ? "now: " : "",
		p->current ? cmd_printable(p->current, 0, &b)
			   : ended(p) ? "" : "waiting");
	fflush(f);
	kb_buf_release(&b);
	free(el);
	return 4;
}

static void line(FILE *f, const struct kb_msg_progress *p)
{
	char *el = cmd_duration(p->elapsed_s), *eta = cmd_duration(p->eta_s);
	struct kb_buf b = KB_BUF_INIT;

	fprintf(f, "#%lld %s: builds %u/%u, boots %u/%u, elapsed %s",
		(long long)p->id, p->state ? p->state : "?", p->builds_done,
		p->builds_total, p->boots_done, p->boots_total, el);
	if (!ended(p))
		fprintf(f, ", ETA %s", eta);
	if (p->current)
		fprintf(f, "; now: %s", cmd_printable(p->current, 0, &b));
	fputc('\n', f);
	fflush(f);
	kb_buf_release(&b);
	free(el);
	free(eta);
}

static const struct kb_opt watch_opts[] = {
	KB_OPT_SOCKET,
	KB_OPT_END,
};

static int cmd_watch(const struct kb_args *args);

const struct cmd cmd_watch_entry = {
	.name = "watch",
	.rank = 170,
	.args = "ID",
	.opts = watch_opts,
	.fn = cmd_watch,
	.summary = "follow an experiment's progress until it ends",
	.help = "A progress bar per phase (builds, boots) with counts, elapsed time\n"
		"and the time left, redrawn in place on a terminal; otherwise one\n"
		"line per change.  Exit status 0 when the experiment ends done, 1\n"
		"when it failed or was cancelled.\n",
	.epilog = "Example:\n  kbisect watch 3\n",
};

static int cmd_watch(const struct kb_args *args)
{
	struct kb_err err = KB_ERR_INIT;
	struct kb_protocol_reader *r = NULL;
	struct kb_buf out = KB_BUF_INIT;
	struct kb_msg req, msg;
	const char *sock = args->socket;
	int fd = -1, ret, tty = isatty(STDOUT_FILENO), drawn = 0;

	memset(&req, 0, sizeof(req));
	memset(&msg, 0, sizeof(msg));
	req.type = KB_MSG_WATCH;
	if (cmd_parse_id(args->pos[0], &req.id))
		return cmd_usage_error("watch", "'%s' is not an experiment id",
				       args->pos[0]);
	if ((ret = cmd_daemon_connect(sock, &fd, &r, &err)))
		goto fail;
	kb_protocol_write(&out, &req);
	if ((ret = kb_protocol_send(fd, out.buf, out.len, &err)))
		goto fail;
	for (;;) {
		const char *l;
		size_t len;

		kb_msg_release(&msg);
		if ((ret = kb_protocol_read_line(r,
						 kb_protocol_reader_timeout(r, 1),
						 &l, &len, &err)))
			goto fail;
		if ((ret = kb_protocol_parse_buffer(l, len, &msg, &err))) {
			err.code = KB_EFAIL;
			goto fail;
		}
		if (msg.type == KB_MSG_ERROR) {
			ret = kb_err_set(&err, msg.code, "%s",
					 msg.message ? msg.message : "");
			goto fail;
		}
		if (msg.type != KB_MSG_PROGRESS || msg.nprogress != 1)
			continue;
		if (tty)
			drawn = draw(stdout, &msg.progress[0], drawn);
		else
			line(stdout, &msg.progress[0]);
		if (ended(&msg.progress[0]))
			break;
	}
	if (msg.progress[0].error) {
		struct kb_buf b = KB_BUF_INIT;

		fprintf(stderr, "kbisect: experiment %lld failed: %s\n",
			(long long)msg.progress[0].id,
			cmd_printable(msg.progress[0].error, 1, &b));
		kb_buf_release(&b);
	}
	ret = strcmp(msg.progress[0].state, "done") ? 1 : 0;
	goto out;
fail:
	ret = cmd_fail(&err);
out:
	kb_msg_release(&msg);
	kb_buf_release(&out);
	kb_protocol_reader_free(r);
	if (fd >= 0)
		close(fd);
	return ret;
}
