/*
 * The state kbisectd's files share (kbisectd.h) and its clock, defined apart from all
 * of them: each reads and writes it through the header, and none calls
 * another to reach it, so that calls between the files go one way.
 */
#include "fsutil.h"
#include "kbisectd.h"
#include "banned.h"

struct daemon d;

double daemon_clock(void)
{
	return kb_monotime() - d.stalled;
}
