/*
 * The state kbisectd's files share (kbisectd.h), defined apart from all
 * of them: each reads and writes it through the header, and none calls
 * another to reach it, so that calls between the files go one way.
 */
#include "kbisectd.h"
#include "banned.h"

struct daemon d;
