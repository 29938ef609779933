/* tapc.h - what every part of the translator shares: memory, strings,
 * vectors, source locations, files, diagnostics and the session
 * (options). */
#ifndef TAPC_H
#define TAPC_H

/* config.h first: it turns on the GNU/POSIX extensions every other
 * header must see. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "i18n.h"
#define _(s) gettext(s)
#define N_(s) (s)

#define PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))

/* ---- memory: one arena for the whole run, freed at exit ---- */

void *xalloc(size_t size);              /* zeroed, never NULL */
void *xrealloc_heap(void *p, size_t size); /* plain heap, for growing buffers */
char *xstrndup(const char *s, size_t n); /* arena copy, NUL-terminated */
char *xstrdup(const char *s);
char *xsprintf(const char *fmt, ...) PRINTF(1, 2); /* arena */
size_t arena_bytes(void);               /* bytes handed out so far */
#define NEW(T) ((T *)xalloc(sizeof(T)))

/* Interned strings: equal text gives the same pointer, so names compare
 * with ==.  The result lives for the whole run. */
const char *intern(const char *s);
const char *intern_n(const char *s, size_t n);

/* ---- growable vector of pointers ---- */

typedef struct Vec {
	void **data;
	int len, cap;
} Vec;

void vec_push(Vec *v, void *item);
void *vec_pop(Vec *v);
void vec_sort(Vec *v, int (*cmp)(const void *, const void *));
/* qsort/bsearch comparator for an array of C strings. */
int cmp_cstr_ptr(const void *a, const void *b);
#define vec_get(v, i) ((v)->data[i])
#define vec_last(v) ((v)->data[(v)->len - 1])

/* ---- growable text buffer ---- */

typedef struct StrBuf {
	char *data;
	size_t len, cap;
} StrBuf;

void sb_putc(StrBuf *sb, char c);
void sb_puts(StrBuf *sb, const char *s);
void sb_putn(StrBuf *sb, const char *s, size_t n);
void sb_printf(StrBuf *sb, const char *fmt, ...) PRINTF(2, 3);
void sb_vprintf(StrBuf *sb, const char *fmt, va_list ap);
const char *sb_cstr(StrBuf *sb);  /* NUL-terminated view (never NULL) */
void sb_reset(StrBuf *sb);
void sb_free(StrBuf *sb);

/* ---- source files and locations ---- */

typedef struct SrcFile {
	const char *name;   /* as shown in messages */
	const char *text;   /* whole contents, NUL-terminated */
	size_t len;
	bool is_tapset;     /* came from the tapset search path */
	bool is_library;    /* a .stpm macro library */
} SrcFile;

typedef struct Loc {
	SrcFile *file;
	int line, col;      /* 1-based; line 0 means "no location" */
} Loc;

/* Levenshtein distance, for "did you mean" suggestions. */
int edit_distance(const char *a, const char *b);
int edit_distance_swaps(const char *a, const char *b);
extern const Loc NOLOC;     /* diag.c: no place in a script */

/* ---- files and folders (files.c, every pass reads and writes them) ---- */

#include "files.h"

/* ---- diagnostics ----
 * User errors: "file:line:col: error: message", the source line, a caret.
 * Internal bugs are a different function and name the translator's own
 * source place. */

extern int error_count;
extern int warning_count;

void error_at(Loc loc, const char *fmt, ...) PRINTF(2, 3);
void warning_at(Loc loc, const char *fmt, ...) PRINTF(2, 3);
void note_at(Loc loc, const char *fmt, ...) PRINTF(2, 3);
void verror_at(Loc loc, const char *fmt, va_list ap);
/* An error with no script place (bad option, missing file). */
void error_plain(const char *fmt, ...) PRINTF(1, 2);
void warning_plain(const char *fmt, ...) PRINTF(1, 2);
_Noreturn void fatal(const char *fmt, ...) PRINTF(1, 2);
_Noreturn void internal_bug(const char *file, int line, const char *fmt, ...)
	PRINTF(3, 4);
#define BUG(...) internal_bug(__FILE__, __LINE__, __VA_ARGS__)
#define ASSERT(c) ((c) ? (void)0 : BUG("assertion failed: %s", #c))

/* Diagnostics raised while parsing a tapset are collected per file, so a
 * bad tapset file is reported once, naming the file. */
void diag_set_quiet(bool quiet);  /* while true, messages are counted only */
/* Stop (exit 1) once n errors have been shown; 0 (the default) never
 * stops.  The command sets DIAG_ERROR_LIMIT, like a C compiler's error
 * limit: enough for a few independent mistakes, while a binary file or a
 * line of junk ends within a screenful. */
#define DIAG_ERROR_LIMIT 20
void diag_set_error_limit(int n);
bool diag_is_quiet(void);

/* ---- the session: everything the command line decides ---- */

typedef struct Define {         /* -D NAME[=VALUE], -G NAME=VALUE, -B ... */
	const char *name, *value;
} Define;

typedef struct Session {
	/* script source */
	const char *script_file;     /* NULL when -e/-E gave the script */
	const char *script_text;     /* -e text */
	Vec extra_scripts;           /* -E texts (const char *) */
	Vec args;                    /* $1... @1... (const char *) */

	/* passes */
	int last_pass;               /* -pN; 5 by default */
	int verbose;                 /* -v count */
	int vp[5];                   /* --vp per-pass verbosity */
	bool listing;                /* -l / -L */
	bool listing_vars;           /* -L */
	const char *listing_pattern;

	/* language and checking */
	bool guru;                   /* -g */
	bool unoptimized;            /* -u */
	bool suppress_warnings;      /* -w */
	bool warnings_are_errors;    /* -W */
	bool skip_badvars;
	bool suppress_handler_errors;
	bool prologue_searching;     /* -P */
	const char *compatible;      /* --compatible VERSION */
	const char *privilege;       /* stapusr, stapsys, stapdev */
	bool unprivileged;

	/* target and build */
	const char *release;         /* -r RELEASE (uname -r when NULL) */
	const char *kernel_build_dir;/* -r /DIR */
	const char *arch;            /* -a; host arch when NULL */
	const char *runtime_dir;     /* -R */
	const char *runtime_mode;    /* --runtime=kernel|bpf|dyninst */
	const char *module_name;     /* -m */
	bool keep_tmpdir;            /* -k */
	Vec tapset_dirs;             /* -I (const char *) */
	Vec defines;                 /* -D (Define *) */
	Vec make_vars;               /* -B (const char *) */
	Vec globals_init;            /* -G (Define *) */
	Vec modinfo;                 /* --modinfo (const char *) */
	Vec debug_modules;           /* -d */
	bool ldd;                    /* --ldd: the -d and probed objects'
				      * shared libraries too */

	/* run */
	bool bulk;                   /* -b */
	int buffer_mb;               /* -s */
	int size_mb, size_files;     /* -S SIZE[,N], for taprun */
	const char *output_file;     /* -o */
	const char *output_size;     /* -S */
	bool detach;                 /* -F */
	const char *target_cmd;      /* -c */
	long target_pid;             /* -x */
	long timeout_s;              /* -T */
	bool timing;                 /* -t */
	int color;                   /* --color */

	/* what to dump instead of running */
	bool dump_probe_types, dump_probe_aliases, dump_functions, dump_globals;
} Session;

extern Session sess;            /* session.c; options.c fills it in */

/* The release and facts of the target kernel, filled in before pass 1
 * (kernel_v and CONFIG_* conditions read them). */
const char *target_release(void);     /* e.g. "6.1.0-56-amd64" */
const char *target_arch(void);        /* e.g. "x86_64" */
const char *target_config(const char *name); /* CONFIG_X value or NULL */
/* The target's kbuild tree: -r DIR, else /lib/modules/RELEASE/build,
 * resolved to its real path when it exists. */
const char *kernel_build_tree(void);
/* Whether the target's architecture is not the machine's: its module is
 * cross-built (kbuild's ARCH and CROSS_COMPILE) and not loaded here. */
bool target_is_cross(void);
/* The folder holding a cross target's kernels in the system's layout
 * (boot/, lib/modules/R/, usr/lib/debug/, usr/src/), as
 * scripts/fetch-NAME.sh unpacks them: $TAPC_NAME_DIR/root, by default
 * /var/cache/tapc/NAME/root (NAME: the architecture's, upper-case in the
 * variable).  NULL when the target is the machine's own. */
const char *target_sysroot(void);
/* An absolute path of the system's layout ("/boot/System.map-R") for the
 * target: under target_sysroot() when the target is a cross one and the
 * file is there or not on the machine either, else path itself. */
const char *target_path(const char *path);
/* kbuild's variables for the target, before -B's: ARCH=NAME and
 * CROSS_COMPILE=TRIPLET- for a cross target (unless -B gives them),
 * none for the machine's own. */
const Vec *target_kbuild_vars(void);
/* A binutils program for the target: "objcopy", or the cross compiler's
 * prefix before it ("aarch64-linux-gnu-objcopy"). */
const char *target_tool(const char *name);

/* The version we claim for systemtap_v / --compatible comparisons. */
#define TAPC_STAP_COMPAT_VERSION "5.1"

/* Compare two dotted versions: <0, 0, >0 like strcmp. */
int version_cmp(const char *a, const char *b);

/* Messages that are neither errors nor warnings go through here so -v
 * controls them. */
void verbose(int level, const char *fmt, ...) PRINTF(2, 3);

#endif
