/*
 * The report's HTML helpers (lib/report_int.h): escaping, numbers and
 * intervals, variant labels and links, sections and notes, which the
 * page (lib/report.c), the analysis sections (lib/report_analysis.c)
 * and the trend page (lib/report_trend.c) write with.  They call nothing
 * else of the report, so that the report's files call one way.
 */
#include <math.h>
#include <stdarg.h>

#include "report_int.h"

#include "buf.h"
#include "format.h"
#include "svg.h"
#include "banned.h"

void rep_esc(struct kb_buf *b, const char *s)
{
	kb_svg_escape(b, s);
}

void rep_escf(struct kb_buf *b, const char *fmt, ...)
{
	struct kb_buf t = KB_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	kb_buf_vaddf(&t, fmt, ap);
	va_end(ap);
	kb_svg_escape(b, t.buf);
	kb_buf_release(&t);
}

void rep_num(struct kb_buf *b, double v)
{
	if (isfinite(v))
		kb_buf_addf(b, "%.6g", v);
	else
		kb_buf_addch(b, '-');
}

void rep_ci(struct kb_buf *b, double lo, double hi)
{
	if (!isfinite(lo) || !isfinite(hi)) {
		kb_buf_addch(b, '-');
		return;
	}
	kb_buf_addch(b, '[');
	kb_buf_adds(b, kb_format_pct(lo, 1).s);
	kb_buf_adds(b, ", ");
	kb_buf_adds(b, kb_format_pct(hi, 1).s);
	kb_buf_addch(b, ']');
}

const char *rep_label(const struct rep *r, unsigned idx)
{
	size_t i;

	for (i = 0; i < r->nvs; i++)
		if (r->vs[i].idx == idx)
			return r->vs[i].label ? r->vs[i].label : "";
	return "";
}

void rep_variant_link(struct kb_buf *b, unsigned idx)
{
	kb_buf_addf(b, "<a href=\"#variant-%u\">#%u</a>", idx, idx);
}

void rep_section(struct kb_buf *b, const char *id, const char *title)
{
	kb_buf_addf(b, "<section id=\"%s\">\n<h2>", id);
	rep_esc(b, title);
	kb_buf_adds(b, "</h2>\n");
}

void rep_note(struct kb_buf *b, const char *fmt, ...)
{
	struct kb_buf t = KB_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	kb_buf_vaddf(&t, fmt, ap);
	va_end(ap);
	kb_buf_adds(b, "<p class=\"note\">");
	kb_svg_escape(b, t.buf);
	kb_buf_adds(b, "</p>\n");
	kb_buf_release(&t);
}
