/* cache.h - the module cache (cache.c): SHA-256, the key of a module and
 * the cached modules and feature headers. */
#ifndef TAPC_CACHE_H
#define TAPC_CACHE_H

#include "ast.h"

/* ---- SHA-256 (own code; the cache keys) ---- */

typedef struct Sha256 {
	uint32_t h[8];
	uint64_t bytes;          /* message length so far */
	unsigned char block[64];
	size_t fill;             /* bytes waiting in block */
} Sha256;

void sha256_init(Sha256 *s);
void sha256_update(Sha256 *s, const void *data, size_t len);
void sha256_final(Sha256 *s, unsigned char digest[32]);
/* The first `hex_len` (even, at most 64) hex digits of the digest, in
 * the arena. */
const char *sha256_hex(Sha256 *s, int hex_len);

/* ---- the module cache: $XDG_CACHE_HOME/tapc (default ~/.cache/tapc) ----
 * modules/KEY.ko and features/KEY.h; files are written under a temporary
 * name and renamed, so concurrent runs are safe. */

/* The cache folder, or NULL when caching is off or there is no home. */
const char *build_cache_dir(void);
/* --disable-cache: neither read nor write the cache. */
void build_cache_disable(void);
/* --clean-cache: remove every cached module, feature header, DWARF
 * index, BTF file and compiled header.
 * Returns the number of files removed. */
int build_cache_clean(void);

/* The key of a module: a hash of TEXT (the C file, or anything that
 * determines it completely, such as the pass-2 program and the options
 * pass 3 reads), the module name, every runtime source file, the kernel
 * release, its build tree and that tree's autoconf.h and Module.symvers
 * (size and time), the -B and -D options, the architecture and the tapc
 * version.  32 hex digits, in the arena. */
const char *build_cache_key(const char *text, size_t len, const char *module_name);
/* The cached module for KEY (its time is refreshed), or NULL. */
const char *build_cache_lookup(const char *key);
/* Copy KO_PATH into the cache under KEY.  Returns the cached path, or NULL
 * when the cache is off or cannot be written (not an error). */
const char *build_cache_store(const char *key, const char *ko_path);
/* Store the module under KEY too: a second link to the entry this run
 * found or stored last (the same module under its other key), else a
 * copy of KO_PATH. */
const char *build_cache_alias(const char *key, const char *ko_path);
/* Hand a built or cached module to the user: with -m, copy it to
 * ./NAME.ko and return that; otherwise return KO_PATH.  NULL after an
 * error. */
const char *build_deliver(const char *ko_path, const char *module_name);

/* A string and its terminator into S, so "ab"+"c" and "a"+"bc" hash apart. */
void hash_str(Sha256 *s, const char *str);
/* The cache's folder SUB, made if missing; NULL (and a -v note) when it
 * cannot be. */
const char *cache_subdir(const char *sub);

/* The cache key of the module of PROG before pass 3 (see cache.c), or NULL. */
const char *program_cache_key(Program *prog);

#endif
