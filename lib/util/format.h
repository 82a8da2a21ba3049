#ifndef KB_FORMAT_H
#define KB_FORMAT_H

/*
 * Numbers as the reader sees them, the same in the terminal (cmd/) and
 * in the report (lib/report*.c): one definition each, so that a table
 * and a page never disagree on a star or on how a missing change reads.
 * Nothing here allocates or fails.
 */

/*
 * The significance stars of a p-value: "***" below 0.001, "**" below
 * 0.01, "*" below 0.05, else "" (also for NaN).  A static string.
 */
const char *kb_format_stars(double p);

/*
 * A percentage as text: "+12.3%" with @sign (the sign always written),
 * "12.3%" without, and "-" when @pct is not a finite number (a change
 * against a mean of 0, or of no boots), so that "nan%" never reaches the
 * reader.  Returned by value: the text lives until the end of the
 * expression the call is in, as in printf("%s", kb_format_pct(x, 1).s).
 */
struct kb_format_pct {
	char s[32];
};
struct kb_format_pct kb_format_pct(double pct, int sign);

/* A duration in seconds as text a reader takes in: "45 s", "7.0 min",
 * "1.3 h", "2.1 days"; "-" when not a finite number.  By value, as
 * kb_format_pct(). */
struct kb_format_pct kb_format_duration(double s);

#endif
