/* cache.h - the module cache (cache.c): the key of a module, the cached
 * modules and the cache's folders. */
#ifndef TAPC_CACHE_H
#define TAPC_CACHE_H

#include "tapc.h"
#include "sha256.h"

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
 * (size and time), the -B and -D options, the architecture, the tapc
 * version and, with --sign-module, the signing certificate.  32 hex digits, in the arena. */
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
/* The kernel tree's identity (release, path, arch, the size and time of
 * its stamp files, -B) into S: part of the module and feature keys. */
void hash_tree_identity(Sha256 *s);
/* The cache's folder SUB, made if missing; NULL (and a -v note) when it
 * cannot be. */
const char *cache_subdir(const char *sub);

#endif
