#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"
#include "paths.h"

static void test_paths__relative_to_joins_the_folder_as_text(void **state)
{
	char *p;

	(void)state;
	p = kb_path_relative_to("dir/m.yaml", "x");
	assert_string_equal(p, "dir/x");
	free(p);
	p = kb_path_relative_to("/a/b/m.yaml", "../c");
	assert_string_equal(p, "/a/b/../c");
	free(p);
	p = kb_path_relative_to("m.yaml", "x");
	assert_string_equal(p, "x");
	free(p);
	p = kb_path_relative_to("dir/m.yaml", "/abs");
	assert_string_equal(p, "/abs");
	free(p);
}

/* What is stored for later does not depend on the reader's folder. */
static void test_paths__absolute_prefixes_the_current_folder(void **state)
{
	char cwd[PATH_MAX], want[PATH_MAX + 16];
	char *p;

	(void)state;
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	p = kb_path_absolute("m.yaml");
	snprintf(want, sizeof(want), "%s/m.yaml", cwd);
	assert_string_equal(p, want);
	free(p);
	p = kb_path_absolute("exp/../m.yaml");
	snprintf(want, sizeof(want), "%s/exp/../m.yaml", cwd);
	assert_string_equal(p, want);
	free(p);
	p = kb_path_absolute("/etc/m.yaml");
	assert_string_equal(p, "/etc/m.yaml");
	free(p);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_paths__relative_to_joins_the_folder_as_text),
	cmocka_unit_test(test_paths__absolute_prefixes_the_current_folder),
};

KB_TEST_MAIN(tests)
