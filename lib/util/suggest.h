#ifndef KB_SUGGEST_H
#define KB_SUGGEST_H

#include <stddef.h>

/*
 * "Did you mean ...?": the candidate closest to @word by edit distance
 * (Damerau–Levenshtein, case-insensitive), or NULL when none is close
 * enough to be a plausible typo (distance at most a third of the longer
 * word, and at least 1 edit allowed), or when @word is a candidate.
 * Also suggests a candidate that contains @word or ends with it
 * ("KMEMLEAK" -> "DEBUG_KMEMLEAK").
 */
const char *kb_suggest(const char *word, const char *const *candidates,
		       size_t n);

/* Edit distance between @a and @b (case-insensitive), capped at 255. */
unsigned kb_edit_distance(const char *a, const char *b);

#endif
