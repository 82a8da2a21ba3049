/*
 * kbisectd's log (kbisectd.h): one line per event on stderr, which --log
 * points at a file and SIGHUP reopens; control characters in what a line
 * quotes are escaped (kb_ycheck_printable()).
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "kbisectd.h"
#include "ycheck.h"
#include "banned.h"

static const char *const level_names[] = { "error", "warn", "info", "debug" };
enum level log_level = L_INFO;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

void logm(enum level l, const char *fmt, ...)
{
	char when[32];
	struct tm tm;
	time_t t = time(NULL);
	struct kb_buf line = KB_BUF_INIT, safe = KB_BUF_INIT;
	va_list ap;

	if (l > log_level)
		return;
	if (!gmtime_r(&t, &tm) ||
	    !strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm))
		when[0] = '\0';
	va_start(ap, fmt);
	kb_buf_vaddf(&line, fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&log_lock);
	/* one event, one line: what a message quotes (a client's matrix
	 * key, a host's error) cannot break it or reach a terminal's
	 * escapes; escaped as the CLI prints the same text */
	fprintf(stderr, "%s kbisectd[%ld] %s: %s\n", when, (long)getpid(),
		level_names[l], kb_ycheck_printable(line.buf, 0, &safe));
	fflush(stderr);
	pthread_mutex_unlock(&log_lock);
	kb_buf_release(&safe);
	kb_buf_release(&line);
}

/* Point stderr at @path (append), for --log and on SIGHUP. */
int open_log(const char *path)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);

	if (fd < 0)
		return -1;
	if (dup2(fd, STDERR_FILENO) < 0) {
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}
