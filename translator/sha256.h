/* sha256.h - SHA-256 (sha256.c): the hashes the caches are keyed by. */
#ifndef TAPC_SHA256_H
#define TAPC_SHA256_H

#include "tapc.h"

typedef struct Sha256 {
	uint32_t h[8];
	uint64_t bytes;          /* message length so far */
	unsigned char block[64];
	size_t fill;             /* bytes waiting in block */
} Sha256;

void sha256_init(Sha256 *s);
void sha256_update(Sha256 *s, const void *data, size_t len);
/* Finish S: the first `hex_len` (even, at most 64) hex digits of its
 * digest, in the arena. */
const char *sha256_hex(Sha256 *s, int hex_len);

/* A string and its terminator into S, so "ab"+"c" and "a"+"bc" hash apart. */
void hash_str(Sha256 *s, const char *str);
/* The bytes of the file at PATH into S; false when it cannot be read. */
bool hash_file(Sha256 *s, const char *path);

#endif
