/* emit.h - pass 3: the resolved program as one C file for a kernel module.
 *
 * The files of emit/ write the globals, frames, functions and probe
 * bodies; each probe family (translator/families/) writes the kernel glue
 * that calls the bodies: callbacks, registration tables,
 * register/unregister functions.
 * This header is the contract between the two.
 *
 * Layout of the generated file (see runtime/DESIGN.md):
 *
 *	limits, #include "runtime/tap.h"
 *	file-scope embedded C of the script and tapsets
 *	globals, module parameters
 *	family_emit(EMIT_DECLS)   for every family in use
 *	frames, functions, probe bodies (tapp_N), @entry savers (tape_N)
 *	family_emit(EMIT_CODE)    for every family in use
 *	begin/end/error runners, tap_on_start(), tap_on_stop(),
 *	module init/exit, #include "runtime/tap_runtime.c"
 *
 * The families begin, end, error and never are pass 3's own (module.c):
 * family_emit is never called for them.
 *
 * ---- the body of probe N ----
 *
 *	static void tapp_N(struct tap_context *c, void *pdata);
 *
 * The family's callback does the entry protocol and then calls it:
 *
 *	struct tap_context *c = tap_context_enter(PP, TAP_STATE_RUNNING);
 *	if (!c)
 *		return ...;            (busy or not running: counted there)
 *	c->regs = regs;            (and user_regs, probe_type, is_return ...)
 *	tapp_N(c, pdata);          (pdata: anything the family's
 *	                            family_ctx_expr() expressions read)
 *	tap_context_exit(c);       (flushes output, reports an error)
 *
 * tapp_N sets c->probe_name (pn(): the point as the script wrote it;
 * probe_point is what the callback gave tap_context_enter), takes the
 * locks of the globals it uses, evaluates the probe's `if (cond)`, runs
 * the body and releases the locks; it never calls tap_context_enter/exit.
 *
 * ---- @entry(expr) in return probes ----
 *
 * When a return probe uses @entry, pass 3 asks family_supports_entry()
 * first (and reports an error at the @entry when it says no), then emits
 *
 *	struct tap_entry_N { ... };                       (ep->entry_type)
 *	static void tape_N(struct tap_context *c, void *pdata);
 *
 * The family calls tape_N (between context enter and exit, c->regs set to
 * the entry registers) when the probed function is entered, with `pdata`
 * pointing to a per-instance area of sizeof(struct tap_entry_N) bytes
 * (kretprobe data_size), and passes the same area as `pdata` to tapp_N on
 * return.  tape_N writes every field (values of the @entry expressions);
 * while it runs, family_ctx_expr() expressions must not need pdata (they
 * read c->regs).
 */
#ifndef TAPC_EMIT_H
#define TAPC_EMIT_H

#include "ast.h"
#include "families/probes.h"

/* ---- the printer ---- */

typedef struct Emitter Emitter;

/* One line at the current indentation; a newline is added. */
void emit(Emitter *e, const char *fmt, ...) PRINTF(2, 3);
/* A line that opens a block ("... {"): the next lines are indented. */
void emit_open(Emitter *e, const char *fmt, ...) PRINTF(2, 3);
/* A function's header line, then "{" on its own line, indented after. */
void emit_func(Emitter *e, const char *fmt, ...) PRINTF(2, 3);
/* A line that closes a block ("}" or "};"): dedents first. */
void emit_close(Emitter *e, const char *fmt, ...) PRINTF(2, 3);
/* Text as it is, no indentation (embedded C, multi-line chunks). */
void emit_raw(Emitter *e, const char *text);
/* A blank line. */
void emit_blank(Emitter *e);
/* `#line N "file"` for loc (nothing when loc has no line). */
void emit_line_directive(Emitter *e, Loc loc);

/* A C string literal ("...", escaped) for s, in the arena. */
const char *c_string(const char *s);
/* A unique C identifier "PREFIX_N" for this run, in the arena. */
const char *emit_fresh_name(Emitter *e, const char *prefix);

/* ---- what pass 3 tells a family about one probe ---- */

typedef struct EmitProbe {
	Probe *probe;
	ResolvedPoint *rp;          /* probe->rp */
	int index;                  /* N: the probe's number in the module */
	const char *body_fn;        /* "tapp_N" */
	const char *pp;             /* C literal: pp() of the probe */
	const char *pn;             /* C literal: pn() (script-level point) */
	const char *entry_fn;       /* "tape_N" when @entry is used, else NULL */
	const char *entry_type;     /* "struct tap_entry_N", else NULL */
} EmitProbe;

typedef enum EmitPhase {
	EMIT_DECLS,     /* before the bodies: includes, argument structs,
			   anything family_ctx_expr() expressions name */
	EMIT_CODE,      /* after the bodies: callbacks, tables, and the
			   register/unregister functions named in FamilyCode */
} EmitPhase;

/* What pass 3 calls from tap_on_start()/tap_on_stop(). */
typedef struct FamilyCode {
	/* `static int NAME(void)`: register the family's probes; 0, or
	 * -errno after undoing what it did.  NULL: nothing to do. */
	const char *start_fn;
	/* `static void NAME(void)`: unregister them and wait until no
	 * handler of theirs runs any more.  NULL: nothing to do. */
	const char *stop_fn;
} FamilyCode;

/* Emit the code of one family for its probes (all of them, in module
 * order).  Called once per phase for each family in use; *out is read
 * after EMIT_CODE.  Returns false after reporting an error (error_at the
 * probe's location). */
bool family_emit(Emitter *e, EmitPhase phase, const ProbeFamily *fam,
		 EmitProbe **probes, int n, FamilyCode *out);

/* How the body of probe `ep` reads (or, with `write`, assigns) the
 * context variable v: a C expression using `c` (struct tap_context *)
 * and `pdata` (void *, what the callback passed).  Reading: a value
 * convertible to int64_t for TY_LONG (pointers as unsigned long), a
 * `const char *` for TY_STRING.  Writing: an lvalue for TY_LONG, a
 * `char *` buffer of MAXSTRINGLEN bytes for TY_STRING.  The text is in
 * the arena.  NULL when the family cannot give it (pass 3 then reports
 * an error at the use). */
const char *family_ctx_expr(const EmitProbe *ep, const CtxVar *v, bool write);

/* True when the family can run an entry saver for this (return) probe. */
bool family_supports_entry(const ResolvedPoint *rp);

/* ---- pass 3 ---- */

/* Translate prog into the module's C file and write it as DIR/NAME.c.
 * NAME is -m NAME, else "tap_" and a hash of the C text; DIR is a new
 * folder under $TMPDIR named after the same hash (so the same script
 * gives the same path).  Returns the file's path and sets *name and
 * *dir, or returns NULL after reporting errors. */
const char *translate_program(Program *prog, const char **name, const char **dir);

#endif
