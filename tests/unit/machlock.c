#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"
#include "err.h"
#include "machlock.h"

static char said[256];

static void note(const char *line, void *arg)
{
	(void)arg;
	snprintf(said, sizeof(said), "%s", line);
}

static char dir[] = "/tmp/kb-machlock-XXXXXX";

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	setenv("KBISECT_LOCK_DIR", dir, 1);
	return 0;
}

static int teardown(void **state)
{
	char path[512];

	(void)state;
	snprintf(path, sizeof(path), "%s/kbisect-machine-box1.lock", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/kbisect-machine-box2.lock", dir);
	unlink(path);
	rmdir(dir);
	return 0;
}

/* Within one process a machine held is waited for, a stop ends the wait,
 * and once let go it is taken again; another machine is not held. */
static void test_machlock__one_boot_in_this_process(void **state)
{
	volatile sig_atomic_t stop = 1;
	struct kb_machlock *a = NULL, *b = NULL, *c = NULL;
	struct kb_err err = KB_ERR_INIT;

	(void)state;
	assert_int_equal(kb_machlock_take("box1", NULL, note, NULL, &a, &err), 0);
	said[0] = '\0';
	assert_int_equal(kb_machlock_take("box1", &stop, note, NULL, &b, &err),
			 KB_EFAIL);
	assert_null(b);
	assert_string_equal(err.msg, "stopped while waiting for machine box1");
	assert_string_equal(said, "machine box1 is booted by another boot of this process; waiting for it");
	kb_err_clear(&err);
	assert_int_equal(kb_machlock_take("box2", &stop, NULL, NULL, &c, &err), 0);
	kb_machlock_release(a);
	assert_int_equal(kb_machlock_take("box1", &stop, NULL, NULL, &b, &err), 0);
	kb_machlock_release(b);
	kb_machlock_release(c);
	kb_machlock_release(NULL);
}

/* Another process holding the machine is named by its pid; when it ends,
 * however it ends, the machine is free. */
static void test_machlock__another_process_is_waited_for(void **state)
{
	volatile sig_atomic_t stop = 1;
	struct kb_machlock *l = NULL;
	struct kb_err err = KB_ERR_INIT;
	char want[128];
	int go[2], held[2], st;
	char ch;
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(held), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct kb_machlock *mine = NULL;

		if (kb_machlock_take("box1", NULL, NULL, NULL, &mine, NULL))
			_exit(1);
		(void)!write(held[1], "x", 1);
		(void)!read(go[0], &ch, 1);
		_exit(0); /* never released: the lock goes with the process */
	}
	assert_int_equal(read(held[0], &ch, 1), 1);
	said[0] = '\0';
	assert_int_equal(kb_machlock_take("box1", &stop, note, NULL, &l, &err),
			 KB_EFAIL);
	snprintf(want, sizeof(want), "machine box1 is booted by process %ld (lock ",
		 (long)pid);
	assert_memory_equal(said, want, strlen(want));
	kb_err_clear(&err);
	assert_int_equal(write(go[1], "x", 1), 1);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_int_equal(kb_machlock_take("box1", NULL, NULL, NULL, &l, &err), 0);
	kb_machlock_release(l);
	close(go[0]);
	close(go[1]);
	close(held[0]);
	close(held[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_machlock__one_boot_in_this_process),
		cmocka_unit_test(test_machlock__another_process_is_waited_for),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
