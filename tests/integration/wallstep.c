/*
 * A step of the wall clock seen by one process alone, for
 * tests/integration/daemon-stall.sh: built as a shared object and
 * loaded with LD_PRELOAD, it adds to what time(), gettimeofday() and
 * clock_gettime(CLOCK_REALTIME...) return the seconds written in the
 * file $KB_WALLSTEP_FILE (read again at most every 50 ms; none or no
 * number: 0).  The monotonic clocks are left alone, as a real step
 * (ntp, a suspended VM's clock set on resume) leaves them.  Only the
 * test uses it: nothing in kbisect knows of it.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

static int (*real_clock_gettime)(clockid_t, struct timespec *);

static long offset(void)
{
	static long off;
	static struct timespec last;
	struct timespec now;
	const char *path = getenv("KB_WALLSTEP_FILE");
	FILE *f;
	long v;

	if (!real_clock_gettime)
		real_clock_gettime = (int (*)(clockid_t, struct timespec *))
			dlsym(RTLD_NEXT, "clock_gettime");
	if (!path || !real_clock_gettime)
		return 0;
	real_clock_gettime(CLOCK_MONOTONIC, &now);
	if (last.tv_sec && (now.tv_sec - last.tv_sec) * 1000000000L +
				   (now.tv_nsec - last.tv_nsec) < 50000000L)
		return off;
	last = now;
	f = fopen(path, "re");
	if (!f)
		return off = 0;
	off = fscanf(f, "%ld", &v) == 1 ? v : 0;
	fclose(f);
	return off;
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
	long off = offset();
	int r = real_clock_gettime ? real_clock_gettime(id, ts) : -1;

	if (r == 0 && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE))
		ts->tv_sec += off;
	return r;
}

int gettimeofday(struct timeval *tv, void *tz)
{
	struct timespec ts;

	(void)tz;
	if (clock_gettime(CLOCK_REALTIME, &ts))
		return -1;
	if (tv) {
		tv->tv_sec = ts.tv_sec;
		tv->tv_usec = ts.tv_nsec / 1000;
	}
	return 0;
}

time_t time(time_t *t)
{
	struct timespec ts;
	time_t v = clock_gettime(CLOCK_REALTIME, &ts) ? (time_t)-1 : ts.tv_sec;

	if (t)
		*t = v;
	return v;
}
