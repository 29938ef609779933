/* tapsets.h - pass 1's tapset index (tapsets.c): which tapset file
 * defines what, and loading one, for pass 2 to load the files a script
 * reaches. */
#ifndef TAPC_TAPSETS_H
#define TAPC_TAPSETS_H

#include "passes.h"

/* Tapset files that define a function / global / alias NAME.  The
 * returned vector holds path strings (interned); NULL when none. */
const Vec *tapset_files_for_function(const char *name);
const Vec *tapset_files_for_global(const char *name);
/* every function of the tapset files that parse (or are not read yet) */
const Vec *tapset_function_names(void);
/* Every alias name (dotted text) the tapsets define, with its files. */
int tapset_alias_count(void);
const char *tapset_alias_name(int i);
const Vec *tapset_alias_files(int i);
const Vec *tapset_alias_files_named(const char *name);
/* The architecture whose own tapset folder (tapsets/ARCH/) defines alias
 * NAME when the target's does not, or NULL: for the error of a point only
 * another architecture has. */
const char *tapset_alias_other_arch(const char *name);
/* Parse a tapset file once (NULL when it has errors: reported as a
 * warning naming the file).  The second call returns NULL too, but with
 * *fresh false. */
Stapfile *tapset_load(const char *path, bool *fresh);
/* Every tapset file on the search path, in precedence order. */
const Vec *tapset_all_files(void);

#endif
