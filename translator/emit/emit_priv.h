/* emit_priv.h - what the files of pass 3 (emit/) share.  Not for other
 * passes: they see emit.h only. */
#ifndef TAPC_EMIT_PRIV_H
#define TAPC_EMIT_PRIV_H

#include "emit.h"
#include "families/family.h"

/* A place in the output where a line can be inserted later (to capture
 * a value before code that was emitted after it). */
typedef struct Mark {
	size_t pos;
	int indent;
} Mark;

struct Emitter {
	StrBuf *out;            /* where lines go now */
	int indent;
	int fresh;              /* counter for emit_fresh_name */
	Program *prog;
	const char *c_name;     /* the C file's name, for #line resets */
	StrBuf decls;           /* file-scope helpers made while emitting
				   bodies (format tables, regexes) */
	Vec regexes;            /* Regex * */
	Vec names;              /* NameEntry *: Var / Func -> C name */
	Vec used_names;         /* const char * (interned) taken so far */
	struct Body *body;      /* the body being emitted */
	bool failed;            /* an error was reported */
	bool target_macros;     /* TAP_FETCH and friends are in decls */
};

/* A label that is emitted only when something jumps to it. */
typedef struct Label {
	const char *name;
	bool used;
} Label;

typedef struct Loop {
	Label *cont;            /* NULL: C's continue does it */
	const char *iter;       /* foreach over a map: "&l->it[N]" */
} Loop;

/* A global a body touches, and how.  A statistics global the body only
 * adds to (`<<<`) needs none of its lock: the add takes its CPU's own
 * (runtime/context.h, tap_cpu_trylock). */
typedef struct GlobalUse {
	Var *var;
	bool write;
	bool locked;            /* some use other than <<< */
} GlobalUse;

/* One C function being written: a probe body, a script function or an
 * @entry saver.  Its code goes to `code` first; the frame struct and the
 * lock table are known only once the code is done. */
typedef struct Body {
	Emitter *e;
	const char *name;       /* tapp_3, tapf_foo, tape_3 */
	const char *frame;      /* "struct tap_frame_tapp_3" */
	Func *func;             /* a script function */
	Probe *probe;           /* a probe body or @entry saver */
	EmitProbe *ep;
	bool entry;             /* the @entry saver of ep */
	StrBuf code;

	/* temporaries in the frame: l->n[] longs, l->s[] strings, l->k[]
	 * key tuples, l->it[] iterators, l->a[] printf arguments */
	int nlong, nstr, nkey, nit, narg;
	int max_long, max_str, max_key, max_it, max_arg;
	Vec locals;             /* Var *: locals and parameters used */

	Label *out;             /* the function's exit */
	Vec errs;               /* Label *: where an error goes (top) */
	Vec loops;              /* Loop * */
	int nlabels;

	Vec uses;               /* GlobalUse * made directly here */
	Vec calls;              /* Func * called directly */
	bool embedded;          /* holds guru-mode embedded C */
	int effects;            /* bumped by code that changes script state:
				   a value read before it may be stale */
	Vec entries;            /* N_ENTRY nodes (probe with @entry) */
	int entry_count;
} Body;

/* A compiled expression: C text and whether later code can change it. */
typedef struct Val {
	const char *c;
	bool stable;            /* a literal or a private temporary */
	bool is_num, is_str;    /* a literal, with its value below */
	int64_t num;
	const char *str;
} Val;

/* The files below, lowest first: each calls only the ones above it,
 * except expr.c and target_expr.c, which call each other because the
 * language nests them (an expression holds target expressions, a
 * target expression holds expressions: array indexes, @cast's address,
 * @entry's operand).  module.c is on top; only main calls it. */

/* ---- printer.c (also emit.h) ---- */
Mark emit_mark(Emitter *e);
void emit_insert(Emitter *e, Mark m, const char *line);
/* `#line` back to the C file itself (after a script's #line). */
void emit_line_reset(Emitter *e);
const char *emit_long_lit(int64_t v);                 /* "12LL" */
const char *emit_loc_text(Loc loc, const char *what); /* C literal for last_stmt */
void emit_error_at(Emitter *e, Loc loc, const char *fmt, ...) PRINTF(3, 4);

/* Values: the C text of a value, and literals. */
static inline Val val_c(const char *c, bool stable)
{
	Val v = { 0 };
	v.c = c;
	v.stable = stable;
	return v;
}

static inline Val val_num(int64_t n)
{
	Val v = val_c(emit_long_lit(n), true);
	v.is_num = true;
	v.num = n;
	return v;
}

/* ---- names.c: C names of script things ---- */
const char *names_var(Emitter *e, Var *v);       /* tapg_x / v_x */
const char *names_var_ref(Emitter *e, Var *v);   /* tapg_x.v / l->v_x */
const char *names_func(Emitter *e, Func *f);     /* tapf_x */
const char *names_stat_spec(Emitter *e, Var *v); /* "&tapg_x.m->spec" */

/* ---- body.c: one C function's bookkeeping ---- */
void body_use_global(Body *b, Var *v, bool write);
void body_use_stat_add(Body *b, Var *v);
void body_add_local(Body *b, Var *v);
Label *body_label(Body *b, const char *stem);
void body_put_label(Emitter *e, Label *l);       /* "NAME: ;" when used */
const char *body_goto(Label *l);                 /* "goto NAME;" (marks used) */
const char *body_err_goto(Body *b);              /* jump to the current error target */
const char *body_tmp_long(Body *b);              /* "l->n[3]" */
const char *body_tmp_str(Body *b);               /* "l->s[2]" */
const char *body_tmp_key(Body *b);               /* "l->k[1]" */
/* c->last_stmt = the place an error report names. */
void body_where(Body *b, Loc loc, const char *what);
/* `if (call) goto <error target>;` */
void body_fail_if(Body *b, const char *call);
/* Report msg at loc (translation fails); the value is 0. */
Val body_error(Body *b, Loc loc, const char *msg);

/* ---- printf.c: formatted printing ---- */
/* Directives pass 3 makes itself (print, println, printd, $$vars). */
void printf_lit(Vec *v, const char *s);
FmtDirective *printf_conv(Vec *v, FmtConv conv);
/* The static table of a format's items (in the declarations); its name. */
const char *printf_table(Emitter *e, Vec *items);
/* Print the values by items to the output, or into dst (a string). */
void printf_items(Body *b, Vec *items, Node **nodes, Val *vals, int n,
		  const char *dst, Loc loc);

/* ---- lines.c: line tables (runtime/lines.h) for symline & co (user
 * true: usymline & co); rows (DiLineRow *) as tap_line_TAG[] /
 * tap_lfile_TAG[], addresses less base, returning how many; the
 * kernel's tables. ---- */
/* A function of names[] is in the program. */
bool lines_calls_any(Program *prog, const char *const *names, size_t n);
bool lines_wanted(Program *prog, bool user);
int lines_rows(StrBuf *out, const char *tag, Vec rows, uint64_t base);
void lines_emit_kernel(Emitter *e, Program *prog);

/* ---- usyms.c: the user objects the module carries (probed objects, -d,
 * --ldd; readable ELF files only, warning about -d files that are not),
 * an object's symbols one per address, and their tables as C. ---- */
Vec usyms_symbols(const ObjectFacts *f);
void usyms_emit(Emitter *e, Program *prog);

/* ---- expr.c (and target_expr.c: see above) ---- */
Val expr_eval(Body *b, Node *n);
Val expr_eval_void(Body *b, Node *n);    /* the value is not used */
const char *expr_cond(Body *b, Node *n); /* a C truth value */
void expr_list(Body *b, Node **nodes, int n, Val *out);
const char *expr_stat_data(Body *b, Node *operand);   /* merged data pointer */
const char *expr_fill_keys(Body *b, Var *arr, Vec *keys, unsigned *wild);
/* `next` in a function: the next overload, with the same arguments. */
Val expr_next_overload(Body *b, Func *f, Loc loc);
/* A statement of embedded C. */
void expr_embedded_stmt(Body *b, Node *n);

/* ---- target_expr.c (and expr.c: see above) ---- */
Val tx_target(Body *b, Node *n);
Val tx_write(Body *b, Node *lhs, Val r);
/* `lhs .= r` for a string context variable */
Val tx_append(Body *b, Node *lhs, Val r);
Val tx_target_vars(Body *b, Node *n);
Val tx_entry(Body *b, Node *n);
Val tx_register(Body *b, Node *n);
Val tx_deref(Body *b, Node *n);
/* The printer function (its name; its text and format table go to the
 * declarations) of a value of type t as '$' (or '$$' when full) prints
 * it, from its address (in_memory) or its value. */
const char *tx_pretty_printer(Emitter *e, const DiType *t, bool full, bool user,
			      bool in_memory);

/* ---- stmt.c ---- */
/* A probe's or function's body: its statements, MAXACTION charged. */
void stmt_body_block(Body *b, Node *n);

#endif
