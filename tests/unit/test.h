#ifndef KB_TEST_H
#define KB_TEST_H

/*
 * Shared set-up for the cmocka unit tests.  Each tests/unit/<module>.c is
 * one program; run it alone with an optional test-name filter (a glob):
 *   build/tests/matrix 'test_matrix__unknown_key*'
 * Tests run from the top of the checkout; fixtures live in tests/data/.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#define KB_TEST_DATA "tests/data"

#define KB_TEST_MAIN(tests)                                               \
	int main(int argc, char **argv)                                   \
	{                                                                 \
		if (argc > 1)                                             \
			cmocka_set_test_filter(argv[1]);                  \
		return cmocka_run_group_tests_name(__FILE__, tests, NULL, \
						   NULL);                 \
	}

/* assert that an error message contains a substring, printing both */
#define assert_msg_contains(msg, needle)                                   \
	do {                                                               \
		if (!strstr((msg), (needle)))                              \
			fail_msg("message \"%s\" lacks \"%s\"", (msg),     \
				 (needle));                                \
	} while (0)

#endif
