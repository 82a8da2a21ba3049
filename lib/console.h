#ifndef KB_CONSOLE_H
#define KB_CONSOLE_H

#include <stddef.h>

struct kb_err;
struct kb_boot_result;
struct kb_workload;

/*
 * The guest's console, as the host reads it: kernel log lines mixed with
 * the lines the guest's /init prints (guests/init, guests/README.md):
 *
 *   KBISECT-START <runs>                 the workload starts (boot is over)
 *   KBISECT-MONITORS <run> <len> <crc>   optional, before run <run>'s
 *                                        BEGIN: a monitors frame, framed
 *                                        as a result frame is, payload
 *                                        as lib/monitor.h says
 *   KBISECT-PROFILE <run> <len> <crc>    optional, before run <run>'s
 *                                        BEGIN: a profile frame, payload
 *                                        as lib/profile.h says
 *   KBISECT-BEGIN <run> <len> <crc>      then exactly <len> payload bytes,
 *   KBISECT-END <run>                    then this line
 *   KBISECT-ERROR <run> <text>           run <run> failed in the guest
 *   KBISECT-DONE <runs>                  every run is over; powering off
 *
 * <run> counts from 1; <crc> is the CRC-32 of the payload (zlib's and
 * gzip's, as busybox `crc32` prints it) in 8 lower-case hex digits.  A
 * marker is recognised only at the start of a line.  Carriage returns are dropped
 * everywhere (the serial console turns "\n" into "\r\n"), so a payload
 * never holds one; the payload ends with "\n" right before the END line.
 * A kernel panic is recognised by "Kernel panic - not syncing" anywhere in
 * a line.
 *
 * A frame whose length, checksum, run number or END line does not match,
 * an ERROR line, too many bytes in all, or a frame larger than the cap
 * makes the console "bad": it never yields a result, and its reason says
 * what went wrong.
 */

#define KB_CONSOLE_MAX_FRAME (16u << 20)     /* payload bytes per frame */
#define KB_CONSOLE_DEFAULT_MAX (256u << 20)  /* console bytes in all */
#define KB_CONSOLE_MAX_LINE 4096             /* longer lines are split */

enum kb_console_state {
	KB_CONSOLE_BOOTING, /* /init has not started the workload yet */
	KB_CONSOLE_RUNNING, /* KBISECT-START seen, not done */
	KB_CONSOLE_DONE,    /* KBISECT-DONE seen: stop reading */
	KB_CONSOLE_PANIC,   /* a kernel panic: stop reading */
	KB_CONSOLE_BAD,     /* bad output (see kb_console_reason): stop */
};

/* One result frame, as received. */
struct kb_console_frame {
	unsigned run;      /* run number, from 1 */
	const char *data;  /* the payload, NUL-terminated (owned by console) */
	size_t len;        /* payload bytes, without the NUL */
};

struct kb_console;

/*
 * A parser for one boot's console that accepts at most @max_bytes in all
 * (0: KB_CONSOLE_DEFAULT_MAX).  Free with kb_console_free().
 */
struct kb_console *kb_console_new(size_t max_bytes);
void kb_console_free(struct kb_console *c);

/*
 * Feed @len bytes as they arrive, in chunks of any size.  Returns the state
 * after them; once DONE, PANIC or BAD the state never changes and further
 * bytes only go to the tail.
 */
enum kb_console_state kb_console_feed(struct kb_console *c, const void *data,
				      size_t len);

enum kb_console_state kb_console_state(const struct kb_console *c);

/* Whether KBISECT-START was seen (boot timeout vs workload timeout). */
int kb_console_started(const struct kb_console *c);
/* Whether a kernel panic was seen. */
int kb_console_panicked(const struct kb_console *c);
/* Why the console is bad, or NULL (owned by the console). */
const char *kb_console_reason(const struct kb_console *c);
/* The runs /init announced in KBISECT-START, or 0. */
unsigned kb_console_runs(const struct kb_console *c);

/* Frames received whole and checked, in order. */
size_t kb_console_nframes(const struct kb_console *c);
/* Frame @i, or NULL when @i >= kb_console_nframes(). */
const struct kb_console_frame *kb_console_frame(const struct kb_console *c,
						size_t i);

/* Monitors frames received whole and checked (at most one a run, in
 * order), and frame @i of them, or NULL when @i >= their number. */
size_t kb_console_nmonitors(const struct kb_console *c);
const struct kb_console_frame *kb_console_monitors(const struct kb_console *c,
						   size_t i);

/* Profile frames, as the monitors frames. */
size_t kb_console_nprofiles(const struct kb_console *c);
const struct kb_console_frame *kb_console_profile(const struct kb_console *c,
						  size_t i);

/*
 * The last @nlines complete lines of console (and any partial last line),
 * frame payloads included, CRs dropped: a string the caller frees.
 * At most the last 64 KiB.
 */
char *kb_console_tail(const struct kb_console *c, size_t nlines);

/*
 * Feed all of @len bytes at @data (named @file in messages) to a new
 * console with the default cap.  Returns 0 with the console in *@out
 * (caller frees) unless it turned bad: then KB_EINPUT with
 * "FILE: reason" in @err and *@out left NULL.  For tests and the fuzzer.
 */
int kb_console_parse_buffer(const char *data, size_t len, const char *file,
			    struct kb_console **out, struct kb_err *err);

/*
 * Judge a boot once reading stopped, filling @out's status, reason,
 * console_tail (last 50 lines) and runs (one sample per frame, parsed as
 * fio JSON, per device with w->per_device, or as command output with
 * w's regex, named metrics and parser); duration and host are left
 * alone.  With w->copies above 1 a frame's payload holds every copy's
 * ("kbisect-copies N", then per copy "copy K LEN" and LEN bytes of its
 * payload), and its sample is their kb_sample_copies().  With OK, the
 * monitors frames' values go to out->monitors (kb_monitor_parse_buffer())
 * and the profile frames' stacks to out->profile
 * (kb_profile_parse_buffer()); a frame of either that does not parse is
 * left out, the boot stays OK.  @runs is the number of runs asked for;
 * @timed_out says the runner gave up waiting (else the console ended or reached a final
 * state).  Statuses: PANIC if a panic was seen; BAD_OUTPUT if the console
 * is bad, /init reported an error, a payload does not parse, or the guest
 * stopped after the workload started with fewer than @runs frames;
 * WORKLOAD_TIMEOUT / BOOT_TIMEOUT on @timed_out after / before
 * KBISECT-START; FAILED when the console ended before KBISECT-START; else
 * OK with @runs samples.  Returns 0 (the result says what happened); @out
 * must be zeroed or released by the caller first.
 */
int kb_console_judge(const struct kb_console *c, const struct kb_workload *w,
		     unsigned runs, int timed_out, struct kb_boot_result *out,
		     struct kb_err *err);

#endif
