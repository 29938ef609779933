/* passes.h - the entry points of each pass, as main.c calls them. */
#ifndef TAPC_PASSES_H
#define TAPC_PASSES_H

#include "ast.h"

/* pass 1 (parse.c): parse one file.  Returns NULL after reporting errors.
 * A tapset file may use guru constructs (embedded C) freely. */
Stapfile *parse_file(SrcFile *src, bool is_tapset);
/* -p1 (tapsets.c): parse the tapset files the user files reach (the
 * functions they call, the globals they name, the aliases their probe
 * points match, and so on through those files), so that a broken tapset
 * the script needs shows up; their errors are warnings unless -W. */
void tapset_check_reached(const Vec *user_files);

/* pass 2 (elab.c): bind symbols, load the tapsets the script needs,
 * expand probe aliases and wildcards, infer types, drop unused code.
 * Returns NULL after reporting errors. */
Program *elaborate(Vec *user_files);

/* pass 2/3 (counters.c): why global v cannot be kept per CPU as a
 * counter ("'=' assigns it at f.stp:3:5"), or NULL when every write to it
 * is an add whose value nothing uses; find_counters sets Var.counter of
 * every global of prog. */
const char *counter_reason(Program *prog, Var *v);
void find_counters(Program *prog);

/* -p2 output (listing.c) */
void print_program(FILE *out, Program *prog);

/* -l / -L (listing.c): list probe points matching a pattern. */
int list_probe_points(const char *pattern, bool with_vars);

/* --dump-probe-types (families/dump_types.c), --dump-probe-aliases and
 * --dump-functions (listing.c) */
void dump_probe_types(FILE *out);
void dump_probe_aliases(FILE *out);
void dump_functions(FILE *out);
void dump_globals(FILE *out);

/* pass 3 (emit/usyms.c): what the module cache's key needs of the user
 * objects the module carries (-d, --ldd, each object's identity). */
void usyms_cache_key(FILE *out, Program *prog);

/* target.c: facts of the target kernel.  False (after an error) when -r
 * names a release with nothing installed for it, or a folder that is not
 * a prepared build tree. */
bool target_init(void);

/* target.c: the tapset search path, most specific first: each -I DIR (and
 * DIR/ARCH), then the installed tapsets (and their ARCH folder).  The
 * installed folder is $SYSTEMTAP_TAPSET, else a tapsets/ folder beside the
 * tapc binary (an uninstalled build), else PKGDATADIR/tapsets. */
const Vec *tapset_dirs(void);

#endif
