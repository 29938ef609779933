/* emit_priv.h - what the files of pass 3 (printer.c, module.c, expr.c,
 * stmt.c, target_expr.c) share.  Not for other passes: they see emit.h only. */
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

/* A global a body touches, and how. */
typedef struct GlobalUse {
	Var *var;
	bool write;
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

/* ---- printer.c ---- */
Mark emit_mark(Emitter *e);
void emit_insert(Emitter *e, Mark m, const char *line);

/* usyms.c: the user objects the module carries (probed objects, -d,
 * --ldd; readable ELF files only, warning about -d files that are not),
 * an object's symbols one per address, and their tables as C. */
Vec usyms_objects(Program *prog, bool warn);
bool prog_calls_any(Program *prog, const char *const *names, size_t n);  /* a function of names[] is in the program */
Vec usyms_symbols(const ObjectFacts *f);
void emit_usyms(Emitter *e, Program *prog);
/* lines.c: line tables (runtime/lines.h) for symline & co (user true:
 * usymline & co); rows (DiLineRow *) as tap_line_TAG[] / tap_lfile_TAG[],
 * addresses less base, returning how many; the kernel's tables. */
bool lines_wanted(Program *prog, bool user);
int emit_line_rows(StrBuf *out, const char *tag, Vec rows, uint64_t base);
void emit_klines(Emitter *e, Program *prog);
void emit_line_reset(Emitter *e);

/* ---- module.c ---- */
const char *var_cname(Emitter *e, Var *v);       /* tapg_x / v_x */
const char *var_ref(Emitter *e, Var *v);         /* tapg_x.v / l->v_x */
const char *func_cname(Emitter *e, Func *f);     /* tapf_x */
const char *loc_text(Loc loc, const char *what); /* C literal for last_stmt */
const char *long_lit(int64_t v);
void body_use_global(Body *b, Var *v, bool write);
void body_add_local(Body *b, Var *v);
Label *new_label(Body *b, const char *stem);
void emit_label(Emitter *e, Label *l);
const char *goto_label(Label *l);                /* "goto NAME;" (marks used) */
const char *err_goto(Body *b);                   /* jump to the current error target */
void emit_error_at(Emitter *e, Loc loc, const char *fmt, ...) PRINTF(3, 4);

/* Statistics of a global: what its histogram and @variance need. */
typedef struct StatSpec {
	int type;               /* 0 none, 1 log, 2 linear */
	int64_t start, stop, interval;
	int var_shift;
	Loc loc;                /* where it was decided */
	bool set_hist, set_shift;
} StatSpec;
StatSpec *global_stat_spec(Emitter *e, Var *v);
const char *stat_spec_ref(Emitter *e, Var *v);   /* "&tapg_x.m->spec" */

/* ---- expr.c ---- */
Val ex(Body *b, Node *n);
Val ex_void(Body *b, Node *n);     /* the value is not used */
Val val_c(const char *c, bool stable);
const char *tmp_long(Body *b);     /* "l->n[3]" */
const char *tmp_str(Body *b);      /* "l->s[2]" */
const char *tmp_key(Body *b);      /* "l->k[1]" */
Val capture(Body *b, Mark m, Val v, Type t);
void ex_list(Body *b, Node **nodes, int n, Val *out);
const char *ex_cond(Body *b, Node *n);   /* a C truth value */
void emit_hist_print(Body *b, Node *hist, bool to_string, const char *dst);
const char *stat_data(Body *b, Node *operand);   /* merged data pointer */
const char *fill_keys(Body *b, Var *arr, Vec *keys, unsigned *wild);
int regex_index(Emitter *e, Node *n, const char *pattern);
Val error_val(Body *b, Loc loc, const char *msg);
Val val_num(int64_t n);
void where(Body *b, Loc loc, const char *what);

void fmt_item_lit(Vec *v, const char *s);
FmtDirective *fmt_item_conv(Vec *v, FmtConv conv);
void print_items(Body *b, Vec *items, Node **nodes, Val *vals, int n,
		 const char *dst, Loc loc);
/* The static table of a format's items (in the declarations); its name. */
const char *fmt_table_of(Emitter *e, Vec *items);

/* ---- target_expr.c ---- */
Val ex_target(Body *b, Node *n);
Val write_target(Body *b, Node *lhs, Val r);
/* `lhs .= r` for a string context variable */
Val append_target(Body *b, Node *lhs, Val r);
Val ex_target_vars(Body *b, Node *n);
Val ex_entry(Body *b, Node *n);
Val ex_register(Body *b, Node *n);
Val ex_deref(Body *b, Node *n);
/* The printer function (its name; its text and format table go to the
 * declarations) of a value of type t as '$' (or '$$' when full) prints
 * it, from its address (in_memory) or its value. */
const char *pretty_printer(Emitter *e, const DiType *t, bool full, bool user,
			   bool in_memory);

/* ---- stmt.c ---- */
void stmt(Body *b, Node *n);
void emit_body_block(Body *b, Node *n);
void end_iterators(Body *b, int down_to);

#endif
