#include "sha256.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "banned.h"

/*
 * FIPS 180-4: section 4.1.2 (functions), 4.2.2 (constants), 5.1.1
 * (padding), 5.3.3 (initial hash value), 6.2.2 (computation).
 */

static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static const uint32_t H0[8] = {
	0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
	0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

static uint32_t rotr(uint32_t x, unsigned n)
{
	return (x >> n) | (x << (32 - n));
}

static uint32_t load_be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static void store_be32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

/* Process one 64-byte block into the hash value (6.2.2). */
static void compress(uint32_t h[8], const unsigned char *block)
{
	uint32_t w[64];
	uint32_t a, b, c, d, e, f, g, hh, t1, t2;
	unsigned t;

	for (t = 0; t < 16; t++)
		w[t] = load_be32(block + 4 * t);
	for (; t < 64; t++) {
		uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^
			      (w[t - 15] >> 3);
		uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^
			      (w[t - 2] >> 10);

		w[t] = s1 + w[t - 7] + s0 + w[t - 16];
	}

	a = h[0];
	b = h[1];
	c = h[2];
	d = h[3];
	e = h[4];
	f = h[5];
	g = h[6];
	hh = h[7];
	for (t = 0; t < 64; t++) {
		t1 = hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) +
		     ((e & f) ^ (~e & g)) + K[t] + w[t];
		t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) +
		     ((a & b) ^ (a & c) ^ (b & c));
		hh = g;
		g = f;
		f = e;
		e = d + t1;
		d = c;
		c = b;
		b = a;
		a = t1 + t2;
	}
	h[0] += a;
	h[1] += b;
	h[2] += c;
	h[3] += d;
	h[4] += e;
	h[5] += f;
	h[6] += g;
	h[7] += hh;
}

void kb_sha256_init(struct kb_sha256 *c)
{
	memcpy(c->h, H0, sizeof(c->h));
	c->len = 0;
	memset(c->block, 0, sizeof(c->block));
}

void kb_sha256_update(struct kb_sha256 *c, const void *data, size_t len)
{
	const unsigned char *p = data;
	size_t used = (size_t)(c->len % KB_SHA256_BLOCK);

	if (!len)
		return; /* @data may be NULL, which memcpy() must not see */
	c->len += len;
	if (used) {
		size_t n = KB_SHA256_BLOCK - used;

		if (n > len)
			n = len;
		memcpy(c->block + used, p, n);
		p += n;
		len -= n;
		used += n;
		if (used < KB_SHA256_BLOCK)
			return;
		compress(c->h, c->block);
	}
	for (; len >= KB_SHA256_BLOCK; len -= KB_SHA256_BLOCK) {
		compress(c->h, p);
		p += KB_SHA256_BLOCK;
	}
	if (len)
		memcpy(c->block, p, len);
}

void kb_sha256_final(struct kb_sha256 *c, unsigned char out[KB_SHA256_LEN])
{
	size_t used = (size_t)(c->len % KB_SHA256_BLOCK);
	uint64_t bits = c->len * 8;
	unsigned i;

	/* 5.1.1: a 1 bit, zeros to 448 mod 512, then the 64-bit length */
	c->block[used++] = 0x80;
	if (used > KB_SHA256_BLOCK - 8) {
		memset(c->block + used, 0, KB_SHA256_BLOCK - used);
		compress(c->h, c->block);
		used = 0;
	}
	memset(c->block + used, 0, KB_SHA256_BLOCK - 8 - used);
	store_be32(c->block + 56, (uint32_t)(bits >> 32));
	store_be32(c->block + 60, (uint32_t)bits);
	compress(c->h, c->block);

	for (i = 0; i < 8; i++)
		store_be32(out + 4 * i, c->h[i]);
	memset(c, 0, sizeof(*c));
}

/* @md as 64 lower-case hex digits and a NUL in @out. */
static void to_hex(const unsigned char md[KB_SHA256_LEN],
		   char out[KB_SHA256_HEX_LEN + 1])
{
	static const char digits[] = "0123456789abcdef";
	unsigned i;

	for (i = 0; i < KB_SHA256_LEN; i++) {
		out[2 * i] = digits[md[i] >> 4];
		out[2 * i + 1] = digits[md[i] & 0xf];
	}
	out[KB_SHA256_HEX_LEN] = '\0';
}

void kb_sha256_hex(const void *data, size_t len,
		   char out[KB_SHA256_HEX_LEN + 1])
{
	unsigned char md[KB_SHA256_LEN];
	struct kb_sha256 c;

	kb_sha256_init(&c);
	kb_sha256_update(&c, data, len);
	kb_sha256_final(&c, md);
	to_hex(md, out);
}

int kb_sha256_file(const char *path, char out[KB_SHA256_HEX_LEN + 1],
		   struct kb_err *err)
{
	unsigned char md[KB_SHA256_LEN], buf[65536];
	struct kb_sha256 c;
	ssize_t n;
	int fd, ret = 0;

	out[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return kb_err_set(err, KB_EFAIL, "cannot open '%s': %s", path,
				  strerror(errno));
	kb_sha256_init(&c);
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = kb_err_set(err, KB_EFAIL, "cannot read '%s': %s",
					 path, strerror(errno));
			break;
		}
		kb_sha256_update(&c, buf, (size_t)n);
	}
	close(fd);
	kb_sha256_final(&c, md);
	if (ret == 0)
		to_hex(md, out);
	return ret;
}
