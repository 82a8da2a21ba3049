#include "suggest.h"

#include <ctype.h>
#include <string.h>

#include "banned.h"

#define MAXLEN 64

unsigned kb_edit_distance(const char *a, const char *b)
{
	unsigned d[MAXLEN + 1][MAXLEN + 1];
	size_t la = strlen(a), lb = strlen(b), i, j;

	if (la > MAXLEN || lb > MAXLEN)
		return 255;
	for (i = 0; i <= la; i++)
		d[i][0] = (unsigned)i;
	for (j = 0; j <= lb; j++)
		d[0][j] = (unsigned)j;
	for (i = 1; i <= la; i++) {
		for (j = 1; j <= lb; j++) {
			int ca = tolower((unsigned char)a[i - 1]);
			int cb = tolower((unsigned char)b[j - 1]);
			unsigned cost = ca != cb;
			unsigned v = d[i - 1][j] + 1;

			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (d[i - 1][j - 1] + cost < v)
				v = d[i - 1][j - 1] + cost;
			if (i > 1 && j > 1 &&
			    ca == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == cb &&
			    d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	}
	return d[la][lb] > 255 ? 255 : d[la][lb];
}

static int contains_word(const char *hay, const char *word)
{
	size_t lh = strlen(hay), lw = strlen(word), i, k;

	if (lw < 4 || lw >= lh)
		return 0;
	for (i = 0; i + lw <= lh; i++) {
		for (k = 0; k < lw; k++)
			if (tolower((unsigned char)hay[i + k]) !=
			    tolower((unsigned char)word[k]))
				break;
		if (k == lw)
			return 1;
	}
	return 0;
}

const char *kb_suggest(const char *word, const char *const *candidates,
		       size_t n)
{
	const char *best = NULL;
	unsigned best_d = 256;
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned dist = kb_edit_distance(word, candidates[i]);
		size_t la = strlen(word), lb = strlen(candidates[i]);
		unsigned allowed = (unsigned)((la > lb ? la : lb) / 3);

		if (strcmp(word, candidates[i]) == 0)
			return NULL;
		if (allowed < 1)
			allowed = 1;
		if (dist <= allowed && dist < best_d) {
			best = candidates[i];
			best_d = dist;
		}
	}
	if (best)
		return best;
	for (i = 0; i < n; i++)
		if (contains_word(candidates[i], word))
			return candidates[i];
	return NULL;
}
