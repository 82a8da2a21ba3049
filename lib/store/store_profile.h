#ifndef KB_STORE_PROFILE_H
#define KB_STORE_PROFILE_H

/*
 * The guest's profiles of each boot (lib/store/store_profile.c, db/0019;
 * lib/profile.h), stored with the boot (kb_store_boot_put()).
 */

#include <stddef.h>
#include <stdint.h>

#include "profile.h"

struct kb_err;
struct kb_store;

/* The profiles of one variant's boots, per boot (owned). */
struct kb_store_profiles {
	size_t n;
	struct kb_profile_row *rows; /* stacks owned, by boot then stack */
	size_t nboots;               /* ok boots with a profile */
	unsigned long long samples;  /* over them all */
};
void kb_store_profiles_release(struct kb_store_profiles *p);

/*
 * The profiles of the ok boots of variant @variant_idx of experiment
 * @exp into *@out: each boot's samples of each stack, summed over its
 * runs.  None on a schema older than 19.  Returns 0 or KB_EFAIL; release
 * *@out either way.
 */
int kb_store_profiles(struct kb_store *s, int64_t exp, unsigned variant_idx,
		      struct kb_store_profiles *out, struct kb_err *err);

#endif
