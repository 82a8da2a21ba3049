/*
 * Stopping long work on SIGINT and SIGTERM (kbisect.h: cmd_stop_signal,
 * cmd_catch_stop()).
 */
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "kbisect.h"
#include "banned.h"

volatile sig_atomic_t cmd_stop_signal;

static void on_stop(int sig)
{
	static const char msg[] =
		"\nkbisect: stopping after the running step (a second signal stops at once)\n";
	ssize_t n;

	cmd_stop_signal = sig;
	n = write(STDERR_FILENO, msg, sizeof(msg) - 1);
	(void)n;
}

void cmd_catch_stop(int on)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on ? on_stop : SIG_DFL;
	/* the second signal finds the default action: stop at once (a
	 * later kbisect sees the process gone) */
	sa.sa_flags = on ? SA_RESETHAND | SA_RESTART : 0;
	if (on)
		cmd_stop_signal = 0;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

