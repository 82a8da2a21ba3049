#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "testfs.h"
#include "err.h"
#include "sha256.h"

static void hex_of(const unsigned char md[KB_SHA256_LEN], char *out)
{
	static const char digits[] = "0123456789abcdef";
	unsigned i;

	for (i = 0; i < KB_SHA256_LEN; i++) {
		out[2 * i] = digits[md[i] >> 4];
		out[2 * i + 1] = digits[md[i] & 0xf];
	}
	out[KB_SHA256_HEX_LEN] = '\0';
}

static void check_hex(const char *msg, const char *expect)
{
	char hex[KB_SHA256_HEX_LEN + 1];

	kb_sha256_hex(msg, strlen(msg), hex);
	assert_string_equal(hex, expect);
}

/* FIPS 180-4 examples (NIST CSRC "SHA256.pdf" and the SHAVS vectors) */
static void test_sha256__empty_message(void **state)
{
	(void)state;
	check_hex("", "e3b0c44298fc1c149afbf4c8996fb924"
		      "27ae41e4649b934ca495991b7852b855");
}

static void test_sha256__abc(void **state)
{
	(void)state;
	check_hex("abc", "ba7816bf8f01cfea414140de5dae2223"
			 "b00361a396177a9cb410ff61f20015ad");
}

static void test_sha256__two_block_448_bit_message(void **state)
{
	(void)state;
	check_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		  "248d6a61d20638b8e5c026930c3e6039"
		  "a33ce45964ff2167f6ecedd419db06c1");
}

static void test_sha256__896_bit_message(void **state)
{
	(void)state;
	check_hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
		  "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
		  "cf5b16a778af8380036ce59e7b049237"
		  "0b249b11e8f07a51afac45037afee9d1");
}

static void test_sha256__million_a_in_odd_chunks(void **state)
{
	static const size_t sizes[] = { 1, 3, 7, 63, 65, 127, 1000, 4097 };
	unsigned char md[KB_SHA256_LEN];
	char hex[KB_SHA256_HEX_LEN + 1];
	struct kb_sha256 c;
	char *a = malloc(4097);
	size_t done = 0, i = 0;

	(void)state;
	assert_non_null(a);
	memset(a, 'a', 4097);
	kb_sha256_init(&c);
	while (done < 1000000) {
		size_t n = sizes[i++ % (sizeof(sizes) / sizeof(sizes[0]))];

		if (n > 1000000 - done)
			n = 1000000 - done;
		kb_sha256_update(&c, a, n);
		done += n;
	}
	kb_sha256_final(&c, md);
	hex_of(md, hex);
	assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67"
				 "f1809a48a497200e046d39ccc7112cd0");
	free(a);
}

/* lengths around the padding boundary (55 fits one block, 56 needs two) */
static void test_sha256__padding_boundaries(void **state)
{
	static const struct {
		size_t len;
		const char *hex;
	} v[] = {
		{ 55, "9f4390f8d30c2dd92ec9f095b65e2b9a"
		      "e9b0a925a5258e241c9f1e910f734318" },
		{ 56, "b35439a4ac6f0948b6d6f9e3c6af0f5f"
		      "590ce20f1bde7090ef7970686ec6738a" },
		{ 63, "7d3e74a05d7db15bce4ad9ec0658ea98"
		      "e3f06eeecf16b4c6fff2da457ddc2f34" },
		{ 64, "ffe054fe7ae0cb6dc65c3af9b61d5209"
		      "f439851db43d0ba5997337df154668eb" },
		{ 65, "635361c48bb9eab14198e76ea8ab7f1a"
		      "41685d6ad62aa9146d301d4f17eb0ae0" },
		{ 119, "31eba51c313a5c08226adf18d4a359cf"
		       "dfd8d2e816b13f4af952f7ea6584dcfb" },
		{ 120, "2f3d335432c70b580af0e8e1b3674a7c"
		       "020d683aa5f73aaaedfdc55af904c21c" },
		{ 128, "6836cf13bac400e9105071cd6af47084"
		       "dfacad4e5e302c94bfed24e013afb73e" },
	};
	char a[128], hex[KB_SHA256_HEX_LEN + 1];
	size_t i;

	(void)state;
	memset(a, 'a', sizeof(a));
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		kb_sha256_hex(a, v[i].len, hex);
		assert_string_equal(hex, v[i].hex);
	}
}

static void test_sha256__all_byte_values(void **state)
{
	unsigned char bytes[256];
	char hex[KB_SHA256_HEX_LEN + 1];
	unsigned i;

	(void)state;
	for (i = 0; i < 256; i++)
		bytes[i] = (unsigned char)i;
	kb_sha256_hex(bytes, sizeof(bytes), hex);
	assert_string_equal(hex, "40aff2e9d2d8922e47afd4648e696749"
				 "7158785fbd1da870e7110266bf944880");
}

static void test_sha256__chunked_updates_equal_one_shot(void **state)
{
	unsigned char msg[300], one[KB_SHA256_LEN], split[KB_SHA256_LEN];
	struct kb_sha256 c;
	unsigned x = 12345;
	size_t i, k, step;

	(void)state;
	for (i = 0; i < sizeof(msg); i++) {
		x = x * 1103515245u + 12345u;
		msg[i] = (unsigned char)(x >> 16);
	}
	kb_sha256_init(&c);
	kb_sha256_update(&c, msg, sizeof(msg));
	kb_sha256_final(&c, one);

	/* every two-way split, with an empty update thrown in */
	for (k = 0; k <= sizeof(msg); k++) {
		kb_sha256_init(&c);
		kb_sha256_update(&c, msg, k);
		kb_sha256_update(&c, NULL, 0);
		kb_sha256_update(&c, msg + k, sizeof(msg) - k);
		kb_sha256_final(&c, split);
		assert_memory_equal(one, split, KB_SHA256_LEN);
	}
	/* every fixed chunk size */
	for (step = 1; step <= 130; step++) {
		kb_sha256_init(&c);
		for (i = 0; i < sizeof(msg); i += step)
			kb_sha256_update(&c, msg + i,
					 sizeof(msg) - i < step ?
						 sizeof(msg) - i : step);
		kb_sha256_final(&c, split);
		assert_memory_equal(one, split, KB_SHA256_LEN);
	}
}

static void test_sha256__context_is_reusable_after_init(void **state)
{
	unsigned char md[KB_SHA256_LEN];
	char hex[KB_SHA256_HEX_LEN + 1];
	struct kb_sha256 c;

	(void)state;
	kb_sha256_init(&c);
	kb_sha256_update(&c, "xyz", 3);
	kb_sha256_final(&c, md);
	kb_sha256_init(&c);
	kb_sha256_update(&c, "abc", 3);
	kb_sha256_final(&c, md);
	hex_of(md, hex);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223"
				 "b00361a396177a9cb410ff61f20015ad");
}

/* a file of 200,000 bytes: read in several pieces, one digest */
static void test_sha256__file_equals_its_contents_digest(void **state)
{
	char want[KB_SHA256_HEX_LEN + 1], got[KB_SHA256_HEX_LEN + 1];
	struct kb_err err = KB_ERR_INIT;
	char *dir = kb_test_tmpdir("sha256");
	char *text = kb_calloc(200001, 1);
	char *path;
	size_t i;

	(void)state;
	for (i = 0; i < 200000; i++)
		text[i] = (char)('a' + i % 26);
	path = kb_test_write(dir, "image", text, 0644);
	kb_sha256_hex(text, 200000, want);
	assert_int_equal(kb_sha256_file(path, got, &err), 0);
	assert_string_equal(got, want);
	free(path);
	path = kb_test_write(dir, "empty", "", 0644);
	assert_int_equal(kb_sha256_file(path, got, &err), 0);
	assert_string_equal(got, "e3b0c44298fc1c149afbf4c8996fb924"
				 "27ae41e4649b934ca495991b7852b855");
	free(path);
	free(text);
	kb_test_rm_rf(dir);
	free(dir);
}

static void test_sha256__missing_file_is_an_error_naming_it(void **state)
{
	char got[KB_SHA256_HEX_LEN + 1];
	struct kb_err err = KB_ERR_INIT;

	(void)state;
	assert_int_equal(kb_sha256_file("/nonexistent/kb-image", got, &err),
			 KB_EFAIL);
	assert_string_equal(got, "");
	assert_msg_contains(err.msg, "cannot open '/nonexistent/kb-image'");
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_sha256__empty_message),
	cmocka_unit_test(test_sha256__abc),
	cmocka_unit_test(test_sha256__two_block_448_bit_message),
	cmocka_unit_test(test_sha256__896_bit_message),
	cmocka_unit_test(test_sha256__million_a_in_odd_chunks),
	cmocka_unit_test(test_sha256__padding_boundaries),
	cmocka_unit_test(test_sha256__all_byte_values),
	cmocka_unit_test(test_sha256__chunked_updates_equal_one_shot),
	cmocka_unit_test(test_sha256__context_is_reusable_after_init),
	cmocka_unit_test(test_sha256__file_equals_its_contents_digest),
	cmocka_unit_test(test_sha256__missing_file_is_an_error_naming_it),
};

KB_TEST_MAIN(tests)
