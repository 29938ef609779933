/* sha256.c - SHA-256 (FIPS 180-4, own code) and the helpers that feed it
 * strings and files: the hashes behind every cache key (modules, feature
 * headers, debug-information indexes, BTF, compiled headers). */
#include "sha256.h"

#include <string.h>

static const uint32_t sha256_k[64] = {
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

#define ROR32(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

void sha256_init(Sha256 *s)
{
	static const uint32_t iv[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};
	memcpy(s->h, iv, sizeof iv);
	s->bytes = 0;
	s->fill = 0;
}

static void sha256_block(Sha256 *s, const unsigned char *p)
{
	uint32_t w[64], v[8];
	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = ROR32(w[i - 15], 7) ^ ROR32(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ROR32(w[i - 2], 17) ^ ROR32(w[i - 2], 19) ^ (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	memcpy(v, s->h, sizeof v);
	for (int i = 0; i < 64; i++) {
		uint32_t e = v[4], a = v[0];
		uint32_t t1 = v[7] + (ROR32(e, 6) ^ ROR32(e, 11) ^ ROR32(e, 25)) +
			      ((e & v[5]) ^ (~e & v[6])) + sha256_k[i] + w[i];
		uint32_t t2 = (ROR32(a, 2) ^ ROR32(a, 13) ^ ROR32(a, 22)) +
			      ((a & v[1]) ^ (a & v[2]) ^ (v[1] & v[2]));
		memmove(v + 1, v, 7 * sizeof v[0]);
		v[4] += t1;
		v[0] = t1 + t2;
	}
	for (int i = 0; i < 8; i++)
		s->h[i] += v[i];
}

void sha256_update(Sha256 *s, const void *data, size_t len)
{
	const unsigned char *p = data;
	s->bytes += len;
	while (len) {
		size_t n = 64 - s->fill;
		if (n > len)
			n = len;
		memcpy(s->block + s->fill, p, n);
		s->fill += n;
		p += n;
		len -= n;
		if (s->fill == 64) {
			sha256_block(s, s->block);
			s->fill = 0;
		}
	}
}

static void sha256_final(Sha256 *s, unsigned char digest[32])
{
	uint64_t bits = s->bytes * 8;
	unsigned char pad = 0x80, len_be[8];
	sha256_update(s, &pad, 1);
	pad = 0;
	while (s->fill != 56)
		sha256_update(s, &pad, 1);
	for (int i = 0; i < 8; i++)
		len_be[i] = bits >> (56 - 8 * i);
	sha256_update(s, len_be, 8);
	for (int i = 0; i < 8; i++) {
		digest[4 * i] = s->h[i] >> 24;
		digest[4 * i + 1] = s->h[i] >> 16;
		digest[4 * i + 2] = s->h[i] >> 8;
		digest[4 * i + 3] = s->h[i];
	}
}

const char *sha256_hex(Sha256 *s, int hex_len)
{
	unsigned char d[32];
	sha256_final(s, d);
	if (hex_len > 64)
		hex_len = 64;
	char *r = xalloc(hex_len + 1);
	for (int i = 0; i < hex_len; i++)
		r[i] = "0123456789abcdef"[i % 2 ? d[i / 2] & 15 : d[i / 2] >> 4];
	return r;
}

/* A string and its terminator, so "ab"+"c" and "a"+"bc" hash apart. */
void hash_str(Sha256 *s, const char *str)
{
	str = str ? str : "";
	sha256_update(s, str, strlen(str) + 1);
}

/* A file's bytes into S; false when it cannot be opened. */
bool hash_file(Sha256 *s, const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		sha256_update(s, buf, n);
	fclose(f);
	return true;
}
