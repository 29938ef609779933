/* build.h - pass 4: build the generated C into a kernel module with the
 * target kernel's kbuild, probe the target's kernel API (feature probes),
 * and keep built modules in a cache keyed by a hash of everything that
 * goes into them. */
#ifndef TAPC_BUILD_H
#define TAPC_BUILD_H

#include "tapc.h"
#include "cache.h"

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

/* Hand a built or cached module to the user: with -m, copy it to
 * ./NAME.ko and return that; otherwise return KO_PATH.  NULL after an
 * error. */
const char *build_deliver(const char *ko_path, const char *module_name);

#endif
