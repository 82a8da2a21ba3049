/* Numbers as text (format.h). */
#include "format.h"

#include <math.h>
#include <stdio.h>

#include "banned.h"

const char *kb_format_stars(double p)
{
	return isnan(p) ? "" : p < 0.001 ? "***" : p < 0.01 ? "**"
					   : p < 0.05 ? "*"
						      : "";
}

struct kb_format_pct kb_format_pct(double pct, int sign)
{
	struct kb_format_pct t;

	if (!isfinite(pct))
		snprintf(t.s, sizeof(t.s), "-");
	else
		snprintf(t.s, sizeof(t.s), sign ? "%+.1f%%" : "%.1f%%", pct);
	return t;
}
