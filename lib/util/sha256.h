#ifndef KB_SHA256_H
#define KB_SHA256_H

#include <stddef.h>
#include <stdint.h>

/*
 * SHA-256 (FIPS 180-4), written from the standard.  Used for build keys:
 * the digest of (tree id, normalised .config, compiler version), and for
 * the kernel images the builds leave.
 *
 * Embed a struct kb_sha256, kb_sha256_init() it, feed it with any number
 * of kb_sha256_update() calls of any size, and read the digest with
 * kb_sha256_final().  The context holds no allocation: nothing to release.
 */

#define KB_SHA256_LEN 32       /* digest bytes */
#define KB_SHA256_HEX_LEN 64   /* hex digits, not counting the NUL */
#define KB_SHA256_BLOCK 64     /* bytes per compression block */

struct kb_sha256 {
	uint32_t h[8];     /* intermediate hash value H(i), FIPS 180-4 5.3.3 */
	uint64_t len;      /* message bytes fed so far; the padding
			    * encodes len * 8 as the bit length */
	unsigned char block[KB_SHA256_BLOCK]; /* the first len % 64 bytes
					       * hold the unprocessed tail */
};

/* Start a new digest in @c (any previous content is discarded). */
void kb_sha256_init(struct kb_sha256 *c);

/*
 * Feed @len bytes at @data into @c.  @data may be NULL when @len is 0.
 * Splitting a message over several calls gives the same digest as one.
 */
void kb_sha256_update(struct kb_sha256 *c, const void *data, size_t len);

/*
 * Finish the digest: write its 32 bytes to @out and wipe @c, which must
 * be kb_sha256_init()ed again before reuse.
 */
void kb_sha256_final(struct kb_sha256 *c, unsigned char out[KB_SHA256_LEN]);

/*
 * One-shot: the digest of @len bytes at @data as 64 lowercase hex digits
 * and a NUL in @out (the caller's 65-byte array).
 */
void kb_sha256_hex(const void *data, size_t len,
		   char out[KB_SHA256_HEX_LEN + 1]);

struct kb_err;

/*
 * The digest of the file at @path (read to its end, in pieces: any size)
 * as 64 lowercase hex digits and a NUL in @out, which is "" on failure.
 * Returns 0, or KB_EFAIL "cannot open/read 'PATH': reason".  Kernel
 * images are hashed with it, so that what boots can be checked later.
 */
int kb_sha256_file(const char *path, char out[KB_SHA256_HEX_LEN + 1],
		   struct kb_err *err);

#endif
