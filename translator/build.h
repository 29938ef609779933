/* build.h - pass 4: build the generated C into a kernel module with the
 * target kernel's kbuild, probe the target's kernel API (feature probes),
 * and keep built modules in a cache keyed by a hash of everything that
 * goes into them. */
#ifndef TAPC_BUILD_H
#define TAPC_BUILD_H

#include "tapc.h"

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

/* ---- where things are ---- */

/* The runtime sources: -R DIR, else $SYSTEMTAP_RUNTIME, else a runtime/
 * folder beside the tapc binary (an uninstalled build), else
 * PKGDATADIR/runtime.  Never NULL; the folder may not exist. */
const char *runtime_source_dir(void);

/* The target's kbuild tree: -r DIR, else /lib/modules/RELEASE/build,
 * resolved to its real path when it exists. */
const char *kernel_build_tree(void);

/* ---- pass 4 ---- */

/* Build C_FILE as module MODULE_NAME (a C identifier: the .ko's name and
 * the name the kernel knows it by).  Uses the cache unless it is off or -k
 * was given.  With -m (sess.module_name) the module is also copied to
 * ./NAME.ko and that path is returned; otherwise the path of the cached
 * copy.  Returns NULL after reporting errors (the compiler's messages,
 * with the build folder's path taken out, so #line places read
 * "script.stp:LINE:COL: error: ..."). */
const char *build_module(const char *c_file, const char *module_name);

/* ---- feature probes ----
 * Each runtime/features/have_NAME.c compiles only when the target kernel
 * has some API; a line "exports: SYM ..." in it also requires those
 * symbols in the tree's Module.symvers.  All are compiled in one kbuild
 * run; the result is a header of "#define TAP_HAVE_NAME 1" lines, cached
 * per kernel tree (and feature sources).  Returns its path, or NULL after
 * reporting an error.  build_module copies it into the build folder as
 * tap_features.h. */
const char *build_features_header(void);

/* ---- the module cache: $XDG_CACHE_HOME/tapc (default ~/.cache/tapc) ----
 * modules/KEY.ko and features/KEY.h; files are written under a temporary
 * name and renamed, so concurrent runs are safe. */

/* The cache folder, or NULL when caching is off or there is no home. */
const char *build_cache_dir(void);
/* --disable-cache: neither read nor write the cache. */
void build_cache_disable(void);
/* --clean-cache: remove every cached module and feature header.
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
/* Hand a built or cached module to the user: with -m, copy it to
 * ./NAME.ko and return that; otherwise return KO_PATH.  NULL after an
 * error. */
const char *build_deliver(const char *ko_path, const char *module_name);

#endif
