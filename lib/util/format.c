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

struct kb_format_pct kb_format_duration(double s)
{
	struct kb_format_pct t;

	if (!isfinite(s) || s < 0)
		snprintf(t.s, sizeof(t.s), "-");
	else if (s < 90)
		snprintf(t.s, sizeof(t.s), "%.0f s", s);
	else if (s < 90 * 60)
		snprintf(t.s, sizeof(t.s), "%.1f min", s / 60);
	else if (s < 48 * 3600)
		snprintf(t.s, sizeof(t.s), "%.1f h", s / 3600);
	else
		snprintf(t.s, sizeof(t.s), "%.1f days", s / 86400);
	return t;
}
