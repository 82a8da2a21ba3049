/*
 * The machine executor (machine.h): a whole machine booted through the
 * matrix's power, console and boot commands.
 */
#include "machine.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bootrec.h"
#include "buf.h"
#include "console.h"
#include "err.h"
#include "executor.h"
#include "fsutil.h"
#include "guestimage.h"
#include "initramfs.h"
#include "json.h"
#include "machlock.h"
#include "matrix.h"
#include "mem.h"
#include "program.h"
#include "realexec.h"
#include "variant.h"
#include "banned.h"

/* How long a power or boot command may run. */
#define CMD_TIMEOUT_S 300.0
/* How long one `ssh ... true` may run, and how often it is tried while
 * a machine comes up. */
#define UP_TRY_S 20.0
#define UP_POLL_S 3.0
/* Where the ssh methods ship a boot's files on the machine: kexec's
 * anywhere, grub-reboot's where GRUB reads them (its /boot) */
#define KEXEC_DIR "/var/tmp/kbisect"
#define GRUB_DIR "/boot/kbisect"
/* kbisect's part of a machine kernel's command line: natively, and as
 * Xen's dom0 (its console Xen's, which Xen puts on its serial line) */
#define MACHINE_CMDLINE "console=ttyS0,115200 panic=-1"
#define DOM0_CMDLINE "console=hvc0 panic=-1"
/* kbisect's part of Xen's command line: its console on the first serial
 * port */
#define XEN_CMDLINE "console=com1 com1=115200,8n1"
/* The text a known-good system shows when up, unless known_good.ready. */
#define DEFAULT_READY "login:"

struct machine {
	const struct kb_matrix *m;
	const struct kb_machine *mc;
	struct kb_realexec_opts o;
	char *uri; /* "machine:NAME" */
	char *image; /* guest.image, got at the first boot that needs it */
	/* the boot in progress: its console command and what it said */
	pid_t console_pid;
	int console_fd;
	int console_eof;
};

static int stopping(const struct machine *x)
{
	return x->o.stop && *x->o.stop;
}

/* The end of process @pid: waited for @grace_s, then killed. */
static int reap(pid_t pid, double grace_s)
{
	double until = kb_monotime() + grace_s;
	struct timespec nap = { 0, 20 * 1000 * 1000 };
	int st;

	while (waitpid(pid, &st, WNOHANG) == 0) {
		if (kb_monotime() >= until) {
			kill(pid, SIGKILL);
			return kb_program_wait(pid);
		}
		nanosleep(&nap, NULL);
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* "power.cycle [prog arg ...]", for messages. */
static char *cmd_text(const char *what, const char *const *argv)
{
	struct kb_buf b = KB_BUF_INIT;
	size_t i;

	kb_buf_addf(&b, "%s [", what);
	for (i = 0; argv[i]; i++)
		kb_buf_addf(&b, "%s%s", i ? " " : "", argv[i]);
	kb_buf_adds(&b, "]");
	return kb_buf_detach(&b);
}

/* The last line of @b (for a failed command's message), or "". */
static const char *last_line(struct kb_buf *b)
{
	char *s;

	while (b->len && (b->buf[b->len - 1] == '\n' ||
			  b->buf[b->len - 1] == '\r'))
		b->buf[--b->len] = '\0';
	if (!b->len)
		return "";
	s = strrchr(b->buf, '\n');
	return s ? s + 1 : b->buf;
}

/*
 * Run machine command @argv (@what names it) with @extra appended (may
 * be NULL), to its end or CMD_TIMEOUT_S.  Its output is read until it
 * exits, not until the pipe closes: a power command may leave a
 * process behind that holds it.  0 when it exits 0, else KB_EFAIL
 * naming it, its status and its last line of output.
 */
static int run_cmd_in(struct machine *x, const char *what,
		      const char *const *argv, const char *const *extra,
		      const char *in, double timeout_s, struct kb_err *err)
{
	struct kb_program p = { NULL, NULL, KB_PROGRAM_PIPE, KB_PROGRAM_PIPE,
				NULL, in };
	struct kb_buf out = KB_BUF_INIT;
	const char **all;
	size_t n = 0, i;
	double until = kb_monotime() + timeout_s;
	char *text = cmd_text(what, argv), chunk[4096];
	pid_t pid;
	int fd, st = -1, ret = 0, done = 0;

	for (i = 0; argv[i]; i++)
		n++;
	for (i = 0; extra && extra[i]; i++)
		n++;
	all = kb_calloc(n + 1, sizeof(*all));
	for (n = 0, i = 0; argv[i]; i++)
		all[n++] = argv[i];
	for (i = 0; extra && extra[i]; i++)
		all[n++] = extra[i];
	p.argv = all;
	if ((ret = kb_program_start(&p, &pid, &fd, err)))
		goto out;
	while (!done) {
		struct pollfd pfd = { fd, POLLIN, 0 };
		ssize_t r;
		int w;

		if (poll(&pfd, 1, 100) > 0) {
			r = read(fd, chunk, sizeof(chunk));
			if (r > 0 && out.len < 65536)
				kb_buf_add(&out, chunk, (size_t)r);
		}
		if ((w = waitpid(pid, &st, WNOHANG)) == pid) {
			st = WIFEXITED(st) ? WEXITSTATUS(st)
					   : 128 + WTERMSIG(st);
			done = 1;
		} else if (kb_monotime() >= until) {
			kill(pid, SIGKILL);
			kb_program_wait(pid);
			close(fd);
			ret = kb_err_set(err, KB_EFAIL,
					 "machine %s: %s ran over %.0f s",
					 kb_machine_name(x->mc), text,
					 timeout_s);
			goto out;
		}
	}
	close(fd);
	if (st != 0)
		ret = kb_err_set(err, KB_EFAIL,
				 "machine %s: %s exited with status %d%s%s",
				 kb_machine_name(x->mc), text, st,
				 *last_line(&out) ? ": " : "",
				 last_line(&out));
out:
	kb_buf_release(&out);
	free(all);
	free(text);
	return ret;
}

static int run_cmd(struct machine *x, const char *what,
		   const char *const *argv, const char *const *extra,
		   struct kb_err *err)
{
	return run_cmd_in(x, what, argv, extra, NULL, CMD_TIMEOUT_S, err);
}

/* Whether the machine is booted by kexec or grub-reboot, through ssh. */
static int by_ssh(const struct machine *x)
{
	return kb_machine_boot_method(x->mc) != KB_MACHINE_COMMAND;
}

/* @s as one word of a POSIX shell's command: single-quoted, each '
 * as '\'' , then a space. */
static void sh_word(struct kb_buf *b, const char *s)
{
	kb_buf_adds(b, "'");
	for (; *s; s++)
		if (*s == '\'')
			kb_buf_adds(b, "'\\''");
		else
			kb_buf_add(b, s, 1);
	kb_buf_adds(b, "' ");
}

/*
 * Run @remote, one shell command line, on the machine: boot.ssh with it
 * appended as one argument (ssh hands the machine's shell that string;
 * every word of ours in it is quoted by sh_word()).  @in: the file its
 * stdin reads, or NULL.
 */
static int ssh_run(struct machine *x, const char *what, const char *remote,
		   const char *in, double timeout_s, struct kb_err *err)
{
	const char *extra[2] = { remote, NULL };

	return run_cmd_in(x, what, kb_machine_boot_ssh(x->mc), extra, in,
			  timeout_s, err);
}

/* Whether the machine answers `ssh ... true` (is up on its own system). */
static int ssh_up(struct machine *x)
{
	struct kb_err e = KB_ERR_INIT;

	return ssh_run(x, "boot.ssh", "true", NULL, UP_TRY_S, &e) == 0;
}

/* Ship local file @path to the machine as @dir/@name: written to
 * NAME.tmp, then renamed, so a half-shipped file is never booted. */
static int ship(struct machine *x, const char *path, const char *dir,
		const char *name, struct kb_err *err)
{
	struct kb_buf b = KB_BUF_INIT;
	char *dst = kb_asprintf("%s/%s", dir, name),
	     *tmp = kb_asprintf("%s/%s.tmp", dir, name);
	int ret;

	kb_buf_adds(&b, "mkdir -p ");
	sh_word(&b, dir);
	kb_buf_adds(&b, "&& cat > ");
	sh_word(&b, tmp);
	kb_buf_adds(&b, "&& mv -f ");
	sh_word(&b, tmp);
	sh_word(&b, dst);
	ret = ssh_run(x, "boot.ssh (shipping a file)", b.buf, path,
		      CMD_TIMEOUT_S, err);
	kb_buf_release(&b);
	free(dst);
	free(tmp);
	return ret;
}
static int power(struct machine *x, enum kb_machine_power p,
		 struct kb_err *err)
{
	static const char *const names[] = { "power.on", "power.off",
					     "power.cycle" };

	return run_cmd(x, names[p], kb_machine_power(x->mc, p), NULL, err);
}

/* Start the machine's chosen boot: off then on, else cycle. */
static int power_up(struct machine *x, struct kb_err *err)
{
	int ret;

	if (kb_machine_power(x->mc, KB_MACHINE_ON) &&
	    kb_machine_power(x->mc, KB_MACHINE_OFF))
		return (ret = power(x, KB_MACHINE_OFF, err)) ? ret
			       : power(x, KB_MACHINE_ON, err);
	return power(x, KB_MACHINE_CYCLE, err);
}

/* Leave the machine off, where it has a command for that. */
static int power_down(struct machine *x, struct kb_err *err)
{
	if (!kb_machine_power(x->mc, KB_MACHINE_OFF))
		return 0;
	return power(x, KB_MACHINE_OFF, err);
}

/* Choose the next boot: boot.command with @k's files. */
static int choose(struct machine *x, const struct kb_machine_kernel *k,
		  const char *root, struct kb_err *err)
{
	const char *extra[13];
	size_t n = 0;

	extra[n++] = "--kernel";
	extra[n++] = k->kernel;
	if (k->initrd) {
		extra[n++] = "--initrd";
		extra[n++] = k->initrd;
	}
	extra[n++] = "--cmdline";
	extra[n++] = k->cmdline ? k->cmdline : "";
	if (root) {
		extra[n++] = "--root";
		extra[n++] = root;
	}
	if (k->xen) {
		extra[n++] = "--xen";
		extra[n++] = k->xen;
		extra[n++] = "--xen-cmdline";
		extra[n++] = k->xen_cmdline ? k->xen_cmdline : "";
	}
	extra[n] = NULL;
	return run_cmd(x, "boot.command", kb_machine_boot_command(x->mc), extra,
		       err);
}

static int console_start(struct machine *x, struct kb_err *err)
{
	struct kb_program p = { kb_machine_console(x->mc), NULL,
				KB_PROGRAM_PIPE, KB_PROGRAM_NULL, NULL, NULL };
	struct timespec settle = { 1, 0 };
	int ret;

	x->console_eof = 0;
	if ((ret = kb_program_start(&p, &x->console_pid, &x->console_fd,
				    err)))
		return ret;
	/* the console command's first second is its own (connecting, a
	 * tail opening its file): what the machine prints later is not
	 * lost */
	nanosleep(&settle, NULL);
	return 0;
}

static void console_stop(struct machine *x)
{
	if (x->console_pid <= 0)
		return;
	kill(x->console_pid, SIGTERM);
	reap(x->console_pid, 5);
	close(x->console_fd);
	x->console_pid = 0;
	x->console_fd = -1;
}

/*
 * Read the console for up to @wait_s (at most 0.2 s a call) into @c (may
 * be NULL) and @raw (may be NULL).  Sets x->console_eof when it ended.
 */
static void console_read(struct machine *x, double wait_s,
			 struct kb_console *c, struct kb_buf *raw)
{
	struct pollfd pfd = { x->console_fd, POLLIN, 0 };
	char chunk[8192];
	ssize_t r;
	int ms = wait_s <= 0 ? 0 : wait_s > 0.2 ? 200 : (int)(wait_s * 1000);

	if (x->console_eof || poll(&pfd, 1, ms) <= 0)
		return;
	r = read(x->console_fd, chunk, sizeof(chunk));
	if (r <= 0) {
		if (r == 0 || (errno != EINTR && errno != EAGAIN))
			x->console_eof = 1;
		return;
	}
	if (c)
		kb_console_feed(c, chunk, (size_t)r);
	if (raw)
		kb_buf_add(raw, chunk, (size_t)r);
}

enum watch_end {
	W_FINAL,   /* DONE, a panic or bad output */
	W_BOOT,    /* no workload within the boot timeout */
	W_WORK,    /* the workload ran over its timeout */
	W_EOF,     /* the console command ended */
	W_STOP,    /* a stop was asked */
};

static enum watch_end watch(struct machine *x, struct kb_console *c,
			    double boot_s, double work_s)
{
	double t0 = kb_monotime(), started = 0, now;

	for (;;) {
		enum kb_console_state st = kb_console_state(c);

		if (st == KB_CONSOLE_DONE || st == KB_CONSOLE_PANIC ||
		    st == KB_CONSOLE_BAD)
			return W_FINAL;
		if (stopping(x))
			return W_STOP;
		if (x->console_eof)
			return W_EOF;
		now = kb_monotime();
		if (!started && kb_console_started(c))
			started = now;
		if (started ? now >= started + work_s : now >= t0 + boot_s)
			return started ? W_WORK : W_BOOT;
		console_read(x, started ? started + work_s - now
					: t0 + boot_s - now,
			     c, NULL);
	}
}

/* Whether @hay (@n bytes) holds @needle. */
static int holds(const char *hay, size_t n, const char *needle)
{
	size_t k = strlen(needle), i;

	for (i = 0; k <= n && i <= n - k; i++)
		if (!memcmp(hay + i, needle, k))
			return 1;
	return 0;
}

/*
 * Boot the machine back into known_good after @why and wait until the
 * console shows its ready text.  0 when it is back (and powered off
 * again), else KB_EFAIL: the machine's failure.
 */
static int recover(struct machine *x, const char *why, struct kb_err *err)
{
	const struct kb_machine_kernel *k = kb_machine_known_good(x->mc);
	const char *ready = k && k->ready ? k->ready : DEFAULT_READY;
	unsigned limit = kb_machine_boot_timeout_s(x->mc);
	struct kb_buf raw = KB_BUF_INIT;
	struct kb_err e = KB_ERR_INIT;
	double until;
	int ret;

	if ((ret = choose(x, k, NULL, &e)) || (ret = power_up(x, &e))) {
		ret = kb_err_set(err, KB_EFAIL,
				 "machine %s cannot be booted back into its known-good kernel after %s: %s",
				 kb_machine_name(x->mc), why, e.msg);
		goto out;
	}
	until = kb_monotime() + limit;
	while (!holds(raw.buf ? raw.buf : "", raw.len, ready)) {
		if (x->console_eof || stopping(x) || kb_monotime() >= until) {
			ret = kb_err_set(err, KB_EFAIL,
					 "machine %s did not come back on its known-good kernel after %s: %s",
					 kb_machine_name(x->mc), why,
					 x->console_eof
						 ? "its console command ended"
					 : stopping(x)
						 ? "stopped"
						 : "no ready text on its console within machine.boot_timeout_s");
			goto out;
		}
		/* only the last bytes can begin the ready text */
		if (raw.len > 65536) {
			size_t keep = strlen(ready);

			memmove(raw.buf, raw.buf + raw.len - keep, keep);
			kb_buf_truncate(&raw, keep);
		}
		console_read(x, until - kb_monotime(), NULL, &raw);
	}
	ret = power_down(x, err);
out:
	kb_buf_release(&raw);
	return ret;
}

/*
 * Wait until the machine answers `ssh ... true` (up on its own system),
 * tried every UP_POLL_S within machine.boot_timeout_s, its console read
 * and dropped meanwhile.  0 when it does, else KB_EFAIL saying so after
 * @why: the machine's failure.
 */
static int wait_up(struct machine *x, const char *why, struct kb_err *err)
{
	double until = kb_monotime() + kb_machine_boot_timeout_s(x->mc);
	struct timespec nap = { 0, 200 * 1000 * 1000 };

	for (;;) {
		double next;

		if (ssh_up(x))
			return 0;
		if (stopping(x) || kb_monotime() >= until)
			return kb_err_set(err, KB_EFAIL,
					  "machine %s did not come back on its own system after %s: %s",
					  kb_machine_name(x->mc), why,
					  stopping(x) ? "stopped"
						      : "boot.ssh with 'true' did not succeed within machine.boot_timeout_s");
		next = kb_monotime() + UP_POLL_S;
		while (kb_monotime() < next && !stopping(x)) {
			if (x->console_fd >= 0 && !x->console_eof)
				console_read(x, next - kb_monotime(), NULL,
					     NULL);
			else
				nanosleep(&nap, NULL);
		}
	}
}

/* Before an ssh method's boot: the machine up on its own system,
 * powered up and waited for when it is not. */
static int bring_up(struct machine *x, struct kb_err *err)
{
	struct kb_err e = KB_ERR_INIT;
	int ret;

	if (ssh_up(x))
		return 0;
	if ((ret = power_up(x, &e)))
		return kb_err_set(err, KB_EFAIL,
				  "machine %s is not up on its own system: boot.ssh with 'true' failed, and it cannot be powered up: %s",
				  kb_machine_name(x->mc), e.msg);
	return wait_up(x, "a power-up (it was not up before the boot)", err);
}

/* Whether @s (may be NULL) is text GRUB's parser reads as plain words:
 * nothing of its syntax (quotes, $, ;, braces, #, newlines). */
static int grub_plain(const char *s)
{
	for (; s && *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr(" _.,:=+/@%-", *s)))
			return 0;
	return 1;
}

/*
 * GRUB's menu entry 'kbisect' for @k, written to /boot/grub/custom.cfg:
 * Debian's /etc/grub.d/41_custom makes grub.cfg source that file at
 * boot, so no update-grub is run.  The files are found where /boot is
 * the root's folder, else on a /boot of its own (where they are
 * /kbisect/...).
 */
static char *grub_entry(const struct kb_machine_kernel *k)
{
	struct kb_buf b = KB_BUF_INIT;

	kb_buf_adds(&b, "# written by kbisect (boot method grub-reboot); chosen once by grub-reboot kbisect\n"
			"menuentry 'kbisect' {\n"
			"\tif search --no-floppy --set=root --file " GRUB_DIR "/kernel; then\n"
			"\t\tset kbdir=" GRUB_DIR "\n"
			"\telse\n"
			"\t\tsearch --no-floppy --set=root --file /kbisect/kernel\n"
			"\t\tset kbdir=/kbisect\n"
			"\tfi\n");
	if (k->xen) {
		kb_buf_addf(&b, "\tmultiboot2 $kbdir/xen %s\n",
			    k->xen_cmdline ? k->xen_cmdline : "");
		kb_buf_addf(&b, "\tmodule2 $kbdir/kernel %s\n",
			    k->cmdline ? k->cmdline : "");
		kb_buf_adds(&b, "\tmodule2 $kbdir/initrd\n");
	} else {
		kb_buf_addf(&b, "\tlinux $kbdir/kernel %s\n",
			    k->cmdline ? k->cmdline : "");
		kb_buf_adds(&b, "\tinitrd $kbdir/initrd\n");
	}
	kb_buf_adds(&b, "}\n");
	return kb_buf_detach(&b);
}

/* Ship @text to the machine as @dir/@name (through a file here). */
static int ship_text(struct machine *x, const char *text, const char *dir,
		     const char *name, struct kb_err *err)
{
	const char *tmpdir = getenv("TMPDIR");
	char *path = kb_asprintf("%s/kbisect-ship.XXXXXX",
				 tmpdir && *tmpdir ? tmpdir : "/tmp");
	size_t n = strlen(text);
	int fd = mkstemp(path), ret;

	if (fd < 0 || write(fd, text, n) != (ssize_t)n) {
		ret = kb_err_set(err, KB_ELOCAL, "cannot write %s: %s", path,
				 strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(path);
		}
		free(path);
		return ret;
	}
	close(fd);
	ret = ship(x, path, dir, name, err);
	unlink(path);
	free(path);
	return ret;
}

/*
 * Choose an ssh method's next boot: @k's files shipped; kexec loads
 * them, grub-reboot writes its entry and chooses it for the next boot
 * only.  Nothing boots yet.
 */
static int ssh_choose(struct machine *x, const struct kb_machine_kernel *k,
		      struct kb_err *err)
{
	int kexec = kb_machine_boot_method(x->mc) == KB_MACHINE_KEXEC;
	const char *dir = kexec ? KEXEC_DIR : GRUB_DIR;
	struct kb_buf b = KB_BUF_INIT;
	char *t = NULL, *entry = NULL;
	int ret;

	if ((ret = ship(x, k->kernel, dir, "kernel", err)) ||
	    (ret = ship(x, k->initrd, dir, "initrd", err)) ||
	    (k->xen && (ret = ship(x, k->xen, dir, "xen", err))))
		goto out;
	if (kexec) {
		kb_buf_adds(&b, "kexec -l ");
		sh_word(&b, KEXEC_DIR "/kernel");
		sh_word(&b, "--initrd=" KEXEC_DIR "/initrd");
		t = kb_asprintf("--command-line=%s",
				k->cmdline ? k->cmdline : "");
		sh_word(&b, t);
		ret = ssh_run(x, "boot.ssh (kexec -l)", b.buf, NULL,
			      CMD_TIMEOUT_S, err);
		goto out;
	}
	entry = grub_entry(k);
	if ((ret = ship_text(x, entry, "/boot/grub", "custom.cfg", err)))
		goto out;
	ret = ssh_run(x, "boot.ssh (grub-reboot)", "grub-reboot kbisect",
		      NULL, CMD_TIMEOUT_S, err);
out:
	kb_buf_release(&b);
	free(t);
	free(entry);
	return ret;
}

/* Start the chosen boot: kexec -e or reboot, detached so that ssh
 * returns.  Its ssh may fail as the link drops: not counted. */
static void ssh_start(struct machine *x)
{
	struct kb_buf b = KB_BUF_INIT;
	struct kb_err e = KB_ERR_INIT;

	kb_buf_adds(&b, "nohup sh -c ");
	sh_word(&b, kb_machine_boot_method(x->mc) == KB_MACHINE_KEXEC
			    ? "sleep 1; kexec -e"
			    : "sleep 1; reboot");
	kb_buf_adds(&b, "</dev/null >/dev/null 2>&1 &");
	ssh_run(x, "boot.ssh (start)", b.buf, NULL, 60, &e);
	kb_buf_release(&b);
}

/*
 * An ssh method's machine after a boot (/init powered it off, or it
 * hangs): powered up, so that it boots its own default entry, and waited
 * for as bring_up() does.  @why: the boot, for messages.
 */
static int power_back(struct machine *x, const char *why, struct kb_err *err)
{
	struct kb_err e = KB_ERR_INIT;

	if (power_up(x, &e))
		return kb_err_set(err, KB_EFAIL,
				  "machine %s cannot be powered up after %s: %s",
				  kb_machine_name(x->mc), why, e.msg);
	return wait_up(x, why, err);
}

/* Where a boot ran: the machine, how it is booted, natively or as
 * Xen's dom0 (@xen: the Xen image, or NULL). */
static char *environment(const struct machine *x, const char *xen)
{
	struct kb_buf b = KB_BUF_INIT;
	struct kb_json *j = kb_json_new(&b, 0);
	char *text = NULL;

	kb_json_object_begin(j);
	kb_json_kv_string(j, "uri", x->uri);
	kb_json_kv_string(j, "machine", kb_machine_name(x->mc));
	kb_json_kv_string(j, "boot_method",
			  kb_machine_boot_name(kb_machine_boot_method(x->mc)));
	kb_json_kv_string(j, "hypervisor", xen ? "xen" : "none");
	if (xen)
		kb_json_kv_string(j, "xen", xen);
	kb_json_object_end(j);
	if (kb_json_finish(j) == 0) {
		if (b.len && b.buf[b.len - 1] == '\n')
			b.buf[--b.len] = '\0';
		text = kb_buf_detach(&b);
	}
	kb_json_free(j);
	kb_buf_release(&b);
	return text;
}

static void failed(struct kb_boot_result *out, enum kb_boot_status s,
		   const char *reason)
{
	out->status = s;
	free(out->reason);
	out->reason = kb_strdup(reason);
}

/* The initramfs for @w (cached by its content) and the guest image. */
static int boot_files(struct machine *x, const struct kb_workload *w,
		      const char *kernel, unsigned runs, char **initrd,
		      struct kb_err *err)
{
	const struct kb_guest_image *im = kb_matrix_guest(x->m)->image;
	struct kb_initramfs_opts io = x->o.initramfs;
	char *modules = NULL, *cache = NULL;
	int built = 0, ret;

	if (!io.modules)
		io.modules = modules = kb_initramfs_modules_for(kernel);
	io.root_image = im != NULL;
	if (!x->o.initramfs_cache)
		cache = kb_initramfs_default_cache();
	ret = kb_initramfs_build(w, runs, &io,
				 cache ? cache : x->o.initramfs_cache, initrd,
				 err);
	free(cache);
	free(modules);
	if (ret || !im || x->image)
		return ret;
	cache = x->o.image_cache ? NULL : kb_guestimage_default_cache();
	ret = kb_guestimage_get(im, w->nfiles, w->files, NULL,
				cache ? cache : x->o.image_cache, &x->image,
				&built, err);
	free(cache);
	return ret;
}

/* What the boot chose, for its evidence (db/0007: the domain XML's
 * column) and `kbisect repro` (lib/evidence_machine.c): lib/bootrec.h. */
static char *boot_record(const struct machine *x,
			 const struct kb_machine_kernel *k, const char *root)
{
	struct kb_bootrec r = {
		.machine = kb_machine_name(x->mc),
		.method = kb_machine_boot_name(kb_machine_boot_method(x->mc)),
		.kernel = k->kernel,
		.initrd = k->initrd,
		.cmdline = k->cmdline,
		.xen = k->xen,
		.xen_cmdline = k->xen ? k->xen_cmdline : NULL,
		.root = root,
	};

	return kb_bootrec_format(&r);
}

/* The boot's result: its console judged, as a guest's is. */
static int judge(struct kb_console *c,
		 const struct kb_workload *w, unsigned runs,
		 enum watch_end end, unsigned boot_s, unsigned work_s,
		 struct kb_boot_result *out, struct kb_err *err)
{
	struct kb_boot_result j;
	int ret;

	memset(&j, 0, sizeof(j));
	if ((ret = kb_console_judge(c, w, runs, end == W_BOOT || end == W_WORK,
				    &j, err))) {
		kb_boot_result_release(&j);
		return ret;
	}
	/* what the boot chose and ran stays */
	j.domain_xml = out->domain_xml;
	j.workload_text = out->workload_text;
	*out = j;
	/* the console's judge speaks of a guest; this is a machine */
	if (out->status == KB_BOOT_TIMEOUT) {
		free(out->reason);
		out->reason = kb_asprintf(
			"no workload after %u s (machine.boot_timeout_s)",
			boot_s);
	} else if (out->status == KB_BOOT_WORKLOAD_TIMEOUT) {
		free(out->reason);
		out->reason = kb_asprintf(
			"the workload ran over %u s (workload.timeout_s)",
			work_s);
	} else if (out->reason && !strncmp(out->reason, "guest ", 6)) {
		memmove(out->reason, out->reason + 6,
			strlen(out->reason + 6) + 1);
	}
	return 0;
}

/* The variant's kernel command line: kbisect's, then its cmdline.*. */
static char *kernel_cmdline(const struct kb_guest *g)
{
	const char *own = g->dom0 ? DOM0_CMDLINE : MACHINE_CMDLINE;

	return g->cmdline ? kb_asprintf("%s %s", own, g->cmdline)
			  : kb_strdup(own);
}

/* Xen's command line for a dom0 variant: kbisect's, then the
 * machine's or the variant's machine.xen_cmdline. */
static char *xen_cmdline_of(const struct machine *x, const struct kb_guest *g)
{
	const char *text = g->xen_cmdline ? g->xen_cmdline
					  : kb_machine_xen_cmdline(x->mc);

	return text ? kb_asprintf("%s %s", XEN_CMDLINE, text)
		    : kb_strdup(XEN_CMDLINE);
}

static int boot_at(void *self, const struct kb_variant *v,
		   const struct kb_build_result *b, unsigned boot_no,
		   unsigned runs, const struct kb_boot_at *at,
		   struct kb_boot_result *out, struct kb_err *err)
{
	struct machine *x = self;
	struct kb_workload_inst wi;
	const struct kb_workload *w = &wi.w;
	struct kb_machine_kernel k;
	struct kb_machlock *lock = NULL;
	struct kb_console *console = NULL;
	struct kb_err gerr = KB_ERR_INIT;
	enum watch_end end;
	char *initrd = NULL, *cmdline = NULL, *xen_cmdline = NULL, *why = NULL;
	unsigned boot_s = kb_machine_boot_timeout_s(x->mc), work_s;
	double t0 = kb_monotime();
	int ret = 0;

	(void)boot_no;
	(void)at;
	memset(out, 0, sizeof(*out));
	if (kb_workload_instance(kb_matrix_workload(x->m), &v->guest, &wi,
				 &gerr)) {
		kb_workload_inst_release(&wi);
		failed(out, KB_BOOT_FAILED, gerr.msg);
		return 0;
	}
	memset(&k, 0, sizeof(k));
	k.kernel = kb_realexec_prebuilt(x->m, v);
	if (!k.kernel)
		k.kernel = b ? b->image : NULL;
	if (b && b->status != KB_BUILD_OK) {
		failed(out, KB_BOOT_BUILD_FAILED,
		       b->reason ? b->reason : "build failed");
		goto done;
	}
	if (!k.kernel) {
		failed(out, KB_BOOT_FAILED, "the build has no kernel image");
		goto done;
	}
	if (by_ssh(x) && kb_matrix_guest(x->m)->image) {
		failed(out, KB_BOOT_FAILED,
		       "guest.image is given to boot method command only: kexec and grub-reboot boot the initramfs alone");
		goto done;
	}
	if ((ret = boot_files(x, w, k.kernel, runs, &initrd, err))) {
		/* what this machine makes: no host is to blame */
		err->code = ret = KB_ELOCAL;
		goto done;
	}
	k.initrd = initrd;
	k.cmdline = cmdline = kernel_cmdline(&v->guest);
	if (v->guest.dom0) {
		k.xen = v->guest.xen ? v->guest.xen : kb_machine_xen(x->mc);
		k.xen_cmdline = xen_cmdline = xen_cmdline_of(x, &v->guest);
	}
	work_s = kb_realexec_workload_timeout(w, runs);
	if (v->guest.dom0 && !k.xen) {
		failed(out, KB_BOOT_FAILED,
		       "booted as Xen's dom0 with no Xen image: give machine.xen");
		goto done;
	}
	if (kb_machine_boot_method(x->mc) == KB_MACHINE_GRUB_REBOOT &&
	    (!grub_plain(k.cmdline) || !grub_plain(k.xen_cmdline))) {
		failed(out, KB_BOOT_FAILED,
		       "the command line has a character GRUB's menu entry would read as syntax: letters, digits, spaces and _ . , : = + / @ % - only with boot method grub-reboot");
		goto done;
	}
	/* what it chose and ran, for the boot's evidence */
	if ((ret = kb_initramfs_workload_text(w, &out->workload_text, err))) {
		err->code = ret = KB_ELOCAL;
		goto done;
	}
	out->domain_xml = boot_record(x, &k, x->image);
	if ((ret = kb_machlock_take(kb_machine_name(x->mc), x->o.stop,
				    x->o.image_note, x->o.build_arg, &lock,
				    err))) {
		if (stopping(x)) {
			failed(out, KB_BOOT_LIBVIRT_ERROR, err->msg);
			ret = 0;
		}
		goto done;
	}
	if ((ret = console_start(x, err)))
		goto done;
	if (by_ssh(x)) {
		/* up on its own system, the files shipped and chosen, then
		 * kexec -e or reboot */
		if ((ret = bring_up(x, err)) || (ret = ssh_choose(x, &k, err)))
			goto off;
		ssh_start(x);
	} else if ((ret = choose(x, &k, x->image, err)) ||
		   (ret = power_up(x, err))) {
		goto off;
	}
	console = kb_console_new(0);
	end = watch(x, console, boot_s, work_s);
	if (end == W_STOP) {
		failed(out, KB_BOOT_LIBVIRT_ERROR, "stopped");
		goto off;
	}
	if (end == W_EOF) {
		ret = kb_err_set(err, KB_EFAIL,
				 "machine %s: its console command ended before the boot did",
				 kb_machine_name(x->mc));
		goto off;
	}
	if ((ret = judge(console, w, runs, end, boot_s, work_s, out, err)))
		goto off;
	if (kb_console_state(console) == KB_CONSOLE_DONE) {
		/* /init powered the machine off itself.  An ssh method's
		 * machine is powered back up into its own system: when it
		 * does not come back, the boot still counts, and the next
		 * boot's bring_up() is the host's failure. */
		if (by_ssh(x))
			power_back(x, "a boot", &gerr);
		else
			ret = power_down(x, err);
		goto stop;
	}
	why = kb_asprintf("%s (%s)", kb_boot_status_name(out->status),
			  out->reason ? out->reason : "no reason given");
	if (by_ssh(x)) {
		char *r;

		if ((ret = power_back(x, why, err)))
			goto off;
		r = kb_asprintf("%s; the machine was powered up back into its own system",
				out->reason ? out->reason
					    : kb_boot_status_name(out->status));
		free(out->reason);
		out->reason = r;
		goto stop;
	}
	if ((ret = recover(x, why, err)))
		goto off;
	{
		char *r = kb_asprintf("%s; the machine was booted back into its known-good kernel",
				      out->reason ? out->reason : kb_boot_status_name(out->status));

		free(out->reason);
		out->reason = r;
	}
	goto stop;
off:
	/* the boot's end: leave the machine off; what failed is said */
	power_down(x, &gerr);
stop:
	console_stop(x);
done:
	kb_machlock_release(lock);
	if (!ret) {
		free(out->host);
		out->host = kb_strdup(x->uri);
		free(out->environment);
		out->environment = environment(x, k.xen);
		out->duration_s = kb_monotime() - t0;
	} else {
		kb_boot_result_release(out);
	}
	kb_console_free(console);
	kb_workload_inst_release(&wi);
	free(initrd);
	free(cmdline);
	free(xen_cmdline);
	free(why);
	return ret;
}

static int boot(void *self, const struct kb_variant *v,
		const struct kb_build_result *b, unsigned boot_no,
		unsigned runs, struct kb_boot_result *out, struct kb_err *err)
{
	return boot_at(self, v, b, boot_no, runs, NULL, out, err);
}

static int build(void *self, const struct kb_variant *v,
		 struct kb_build_result *out, struct kb_err *err)
{
	(void)self;
	(void)v;
	memset(out, 0, sizeof(*out));
	return kb_err_set(err, KB_EFAIL,
			  "the machine executor boots; the real executor builds");
}

static void machine_free(void *self)
{
	struct machine *x = self;

	if (!x)
		return;
	console_stop(x);
	free(x->uri);
	free(x->image);
	free(x);
}

static const struct kb_executor_ops machine_ops = {
	.name = "machine",
	.build = build,
	.boot = boot,
	.free = machine_free,
	.boot_at = boot_at,
};

int kb_machine_exec_new(const struct kb_matrix *m, const struct kb_machine *mc,
			const struct kb_realexec_opts *ro,
			struct kb_executor **out, struct kb_err *err)
{
	struct kb_realexec_opts defaults = KB_REALEXEC_OPTS_INIT;
	struct machine *x;

	(void)err;
	x = kb_calloc(1, sizeof(*x));
	x->m = m;
	x->mc = mc;
	x->o = ro ? *ro : defaults;
	x->uri = kb_asprintf("machine:%s", kb_machine_name(mc));
	x->console_fd = -1;
	*out = kb_executor_new(&machine_ops, x);
	return 0;
}
