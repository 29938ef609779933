/* wildcard.h - the two pattern languages of probe points, used by pass 2
 * (alias and family matching) and by the families.
 *
 * Component names of a point (kernel.func**, sys**open, {begin,end}) are
 * matched with wildcard_match(); the string arguments of a point
 * (function names, files, modules, tracepoints) with arg_glob_match().
 * (Not "glob.h": with translator/ on the include path that name would
 * hide the C library's <glob.h>.)
 */
#ifndef TAPC_WILDCARD_H
#define TAPC_WILDCARD_H

#include "tapc.h"

/* Matching of a name against a pattern with * ** and {a,b}: '*' stays
 * within one component, '**' also matches across dots. */
bool wildcard_match(const char *pattern, const char *name);
bool has_wildcard(const char *s);

/* Glob matching of a probe argument (function names, files, modules,
 * tracepoints): * ? [..] as in the shell. */
bool arg_glob_match(const char *pattern, const char *name);
bool arg_has_glob(const char *s);

#endif
