#ifndef KB_YCHECK_H
#define KB_YCHECK_H

#include <stddef.h>
#include <stdint.h>

#include "ydoc.h"

struct kb_buf;
struct kb_err;

/*
 * The checks that the validators of YAML documents (the matrix, the
 * performance model) apply to the nodes of a lib/ydoc.h tree, written
 * once so that both refuse the same things in the same words.
 *
 * Each check looks at one node.  On failure it records the input error
 * "FILE:LINE:COL: message" in the checker's error and returns KB_EINPUT;
 * on success it returns 0.  @what names the node in messages, as the
 * caller words it: "'repeat'", "guest.vcpus", "a make argument".  Out
 * strings point into the node (they live as long as the document) unless
 * said otherwise.
 */

/* The most vCPUs a guest may have (the matrix's guest section, a
 * guest.vcpus level, a guest.pin list). */
#define KB_YCHECK_MAX_VCPUS 512

/*
 * Normalise a Kconfig option name: strip an optional "CONFIG_" prefix.
 * Returns a pointer into @name.  Valid names match [A-Z0-9_]+, at most
 * 128 of them.
 */
const char *kb_kconfig_name(const char *name);
int kb_kconfig_name_valid(const char *name);

/* Where a validator's messages go. */
struct kb_ycheck {
	const char *file;   /* the document's name, in front of each message */
	struct kb_err *err; /* receives the first error; may be NULL */
};

/*
 * Record the input error "FILE:LINE:COL: message" at node @n (without
 * line and column when @n is NULL).  Returns KB_EINPUT.
 */
int kb_ycheck_fail(const struct kb_ycheck *y, const struct kb_ynode *n,
		   const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Require @n to be of @type: "WHAT must be a mapping, found a list". */
int kb_ycheck_type(const struct kb_ycheck *y, const struct kb_ynode *n,
		   enum kb_ynode_type type, const char *what);

/*
 * Require every key of mapping @map to be one of the @n words in
 * @allowed: "unknown key 'boot' in WHERE (did you mean 'boots'?)", or,
 * when none is close, "...: expected one of A, B, C".  The error is at
 * the first unknown key.
 */
int kb_ycheck_keys(const struct kb_ycheck *y, const struct kb_ynode *map,
		   const char *where, const char *const *allowed, size_t n);

/*
 * The first control character of the @len bytes at @s: a C0 character
 * (U+0000 to U+001F: NUL, tab, newline, carriage return, BEL, ESC ...),
 * DEL (U+007F) or a C1 character (U+0080 to U+009F, written in UTF-8 as
 * 0xC2 0x80 to 0xC2 0x9F; CSI is U+009B), or a Unicode format character
 * that reorders or breaks the line it is in: the Bidi_Control characters
 * (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069; U+202E
 * shows "abc" as "cba") and the separators U+2028 and U+2029.  Terminals
 * act on them, so no text the tools print may hold one.  Tabs and
 * newlines are skipped when @lines is set.  Returns the character's code
 * point, with its offset in *@at and its length in bytes (1 to 3) in
 * *@size; or -1 when there is none.  The one definition of a control
 * character for every check and every escape of printed text.
 */
long kb_ycheck_control(const char *s, size_t len, int lines, size_t *at,
		       size_t *size);

/*
 * @s as it may be printed on a terminal or written as one line of a log:
 * each control character (kb_ycheck_control()) written as \xHH, \u00HH,
 * \r, \n or \t, except newlines and tabs when @lines is set.  For text
 * the checks of today's matrix did not see: names, labels and errors
 * from the database or the daemon, messages that quote the user's input
 * (the CLI's output, kbisectd's log).  Returns @s itself when it is
 * clean (or NULL), else the escaped text in @b, which the caller
 * releases; @b is reset first.
 */
const char *kb_ycheck_printable(const char *s, int lines, struct kb_buf *b);

/*
 * A non-empty scalar without NUL bytes or control characters
 * (kb_ycheck_control(): newlines, tabs, ESC ...), into *@out: every string
 * of a matrix or a model, which the tools print or pass on (to fio's job
 * file, to make, to libvirt) and which must be one line.  "WHAT contains
 * a control character (U+000A, a newline)".
 */
int kb_ycheck_string(const struct kb_ycheck *y, const struct kb_ynode *n,
		     const char *what, const char **out);

/*
 * As kb_ycheck_string(), but newlines and tabs are allowed: a shell
 * script of several lines (workload.command.run), which is written to a
 * file and never printed.
 */
int kb_ycheck_script(const struct kb_ycheck *y, const struct kb_ynode *n,
		     const char *what, const char **out);

/*
 * A plain (unquoted) decimal integer from @min to @max, into *@out:
 * "WHAT must be an integer from MIN to MAX, found 'X'".
 */
int kb_ycheck_uint(const struct kb_ycheck *y, const struct kb_ynode *n,
		   const char *what, uint64_t min, uint64_t max,
		   uint64_t *out);

/*
 * A plain (unquoted) finite decimal number (digits, sign, point,
 * exponent), into *@out: "WHAT must be a number, found 'X'".  The caller
 * checks the range, in its own words.
 */
int kb_ycheck_number(const struct kb_ycheck *y, const struct kb_ynode *n,
		     const char *what, double *out);

/*
 * One of the @nchoices words in @choices (a string, as kb_ycheck_string()
 * takes it); its index into *@out.  Otherwise "invalid WHAT 'X' (did you
 * mean 'Y'?)" or "invalid WHAT 'X': expected A, B or C".
 */
int kb_ycheck_choice(const struct kb_ycheck *y, const struct kb_ynode *n,
		     const char *what, const char *const *choices,
		     size_t nchoices, size_t *out);

/*
 * Key @key names a Kconfig option: CONFIG_ is dropped and the rest must
 * be upper case letters, digits and _ (kb_kconfig_name_valid()).  *@out
 * is the name without CONFIG_.  A name that is valid once upper-cased is
 * suggested.
 */
int kb_ycheck_kconfig_name(const struct kb_ycheck *y,
			   const struct kb_ynode *key, const char **out);

/*
 * Node @n is a level of Kconfig option @option: y, n, m or a number
 * (decimal, or hexadecimal with 0x), unquoted; or a quoted string without
 * quotes, backslashes, newlines, NUL bytes or other control characters.  The level is n->str, a
 * string when n->quoted.  yes/true/on and no/false/off get a hint to
 * write y or n.
 */
int kb_ycheck_kconfig_level(const struct kb_ycheck *y,
			    const struct kb_ynode *n, const char *option);

/*
 * A guest.pin value: a list of 1 to KB_YCHECK_MAX_VCPUS physical CPU
 * numbers (0 to 65535), or none (or a null, kb_ynode_is_null()) for
 * unpinned.  *@pins is an array of *@npins numbers that the caller frees,
 * or NULL and 0 for none and on failure.
 */
int kb_ycheck_pins(const struct kb_ycheck *y, const struct kb_ynode *n,
		   const char *what, unsigned **pins, size_t *npins);

/*
 * A level of guest factor @factor (guest.mode, guest.vcpus,
 * guest.memory_mib or guest.pin) as the text variants carry: "pvh", "4",
 * "1024", "0,0,1,1" or "none".  *@out is allocated (the caller frees it),
 * NULL on failure.
 */
int kb_ycheck_guest_level(const struct kb_ycheck *y, const struct kb_ynode *n,
			  const char *factor, char **out);

#endif
