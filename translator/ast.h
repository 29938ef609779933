/* ast.h - the parsed script.
 *
 * Expressions and statements are one struct, Node, with a kind.  The kinds,
 * their printable names and the printer's dispatch come from one X-macro
 * list, so a new kind is one line here.  Declarations (probes, aliases,
 * functions, globals) are their own small structs.
 *
 * Every node carries the location of the token that starts it.  The parser
 * fills the syntactic fields; pass 2 fills the "resolved" ones.
 *
 * This header is shared by pass 1 (parse), pass 2 (resolve, types,
 * optimize, families/) and pass 3 (emit).  Change it additively.
 */
#ifndef TAPC_AST_H
#define TAPC_AST_H

#include "tapc.h"

/*  X(KIND, "name")                      fields used (see struct Node)     */
#define NODE_KINDS(X)                                                        \
	/* ---- expressions ---- */                                          \
	X(N_NUMBER, "number")            /* num                            */ \
	X(N_STRING, "string")            /* str (decoded value)            */ \
	X(N_SYMBOL, "symbol")            /* name; ->var after pass 2        */ \
	X(N_INDEX, "arrayindex")         /* base (symbol or hist), args;    */ \
	                                 /* NULL arg = '*' slice wildcard   */ \
	X(N_CALL, "functioncall")        /* name, args; ->func              */ \
	X(N_PRINT, "print_format")       /* name (printf, sprint, ...),     */ \
	                                 /* args; fmt = format string node  */ \
	X(N_BINARY, "binary")            /* op, lhs, rhs: + - * / % << >>   */ \
	                                 /* >>> & | ^                       */ \
	X(N_COMPARE, "comparison")       /* op, lhs, rhs: < > <= >= == !=   */ \
	X(N_LOGICAL, "logical")          /* op, lhs, rhs: && ||             */ \
	X(N_CONCAT, "concatenation")     /* lhs, rhs ('.')                  */ \
	X(N_REGEX, "regex")              /* op (=~ !~), lhs, rhs (string)   */ \
	X(N_UNARY, "unary")              /* op (- + ! ~), lhs               */ \
	X(N_PREINC, "pre_crement")       /* op (++ --), lhs                 */ \
	X(N_POSTINC, "post_crement")     /* op (++ --), lhs                 */ \
	X(N_ASSIGN, "assignment")        /* op (= += ... .= <<<), lhs, rhs  */ \
	X(N_TERNARY, "ternary")          /* cond, then, els                 */ \
	X(N_IN, "array_in")              /* args (keys), base (array)       */ \
	X(N_STAT, "stat_op")             /* op (@count @sum @min @max @avg  */ \
	                                 /* @variance), lhs; args = params  */ \
	X(N_HIST, "hist_op")             /* op (@hist_log @hist_linear),    */ \
	                                 /* lhs, args (linear params)       */ \
	X(N_TARGET, "target_symbol")     /* name ("$foo"), comps, deref     */ \
	                                 /* ("$"/"$$" pretty suffix), addr  */ \
	X(N_TARGET_VARS, "target_vars")  /* name ($$vars $$parms $$locals   */ \
	                                 /* $$return), deref                */ \
	X(N_CAST, "cast_op")             /* lhs, str (type), module, comps  */ \
	X(N_ATVAR, "atvar_op")           /* str ("name@cu"), module, comps  */ \
	X(N_AUTOCAST, "autocast_op")     /* lhs, comps: expr->member ...    */ \
	X(N_ENTRY, "entry_op")           /* lhs (@entry)                    */ \
	X(N_DEFINED, "defined_op")       /* lhs (@defined)                  */ \
	X(N_PROBEWRITE, "probewrite")    /* lhs (@probewrite)               */ \
	X(N_PERF, "perf_op")             /* str (@perf counter name)        */ \
	X(N_CONST, "const_op")           /* str (@const C identifier)       */ \
	X(N_REGISTER, "register_op")     /* op (@kregister @uregister),     */ \
	                                 /* lhs (register number); str:     */ \
	                                 /* pass 2's pt_regs member name    */ \
	X(N_DEREF, "deref_op")           /* op (@kderef @uderef), args =    */ \
	                                 /* [size, address]                 */ \
	X(N_ENUM, "enum_op")             /* str (@enum name), module        */ \
	X(N_EMBEDDED_EXPR, "embedded_expr") /* str (C code of %{ %})        */ \
	/* ---- statements ---- */                                           \
	X(N_BLOCK, "block")              /* stmts                           */ \
	X(N_EXPR_STMT, "expr_statement") /* lhs                             */ \
	X(N_NULL_STMT, "null_statement") /*                                 */ \
	X(N_IF, "if_statement")          /* cond, then, els (may be NULL)   */ \
	X(N_WHILE, "while_loop")         /* cond, body                      */ \
	X(N_FOR, "for_loop")             /* init, cond, incr, body (any may */ \
	                                 /* be NULL but body)               */ \
	X(N_FOREACH, "foreach_loop")     /* keys (symbols), value (symbol), */ \
	                                 /* base (array/hist), args (slice),*/ \
	                                 /* sort_col, sort_dir, limit, body */ \
	X(N_BREAK, "break_statement")                                         \
	X(N_CONTINUE, "continue_statement")                                   \
	X(N_NEXT, "next_statement")                                           \
	X(N_RETURN, "return_statement")  /* lhs (may be NULL)               */ \
	X(N_DELETE, "delete_statement")  /* lhs                             */ \
	X(N_TRY, "try_block")            /* body, catch_var (may be NULL),  */ \
	                                 /* els (catch block)               */ \
	X(N_EMBEDDED, "embedded_code")   /* str (C code of %{ %})           */

typedef enum NodeKind {
#define X(k, name) k,
	NODE_KINDS(X)
#undef X
	N__COUNT
} NodeKind;

extern const char *const node_kind_names[];

/* Script value types.  STATS is an aggregate (the target of <<<). */
typedef enum Type {
	TY_UNKNOWN = 0,
	TY_LONG,
	TY_STRING,
	TY_STATS,
	TY_VOID,      /* functions returning nothing */
} Type;

const char *type_name(Type t);   /* "unknown" "long" "string" "stats" ... */

typedef struct Var Var;
typedef struct Func Func;
typedef struct Node Node;

/* A printf format (printf, sprintf), parsed once by pass 2 (format.c)
 * into directives.  Pass 3 writes them out as a static table, which the
 * runtime's format engine runs (runtime/tap_printf.h): the kinds, flags
 * and the star value below are the runtime's TAP_CONV_*, TAP_FMT_*. */
typedef enum FmtConv {
	FMT_LIT,                /* literal text */
	FMT_PERCENT,            /* %% */
	FMT_SIGNED,             /* %d %i */
	FMT_UNSIGNED,           /* %u */
	FMT_OCTAL,              /* %o */
	FMT_HEX,                /* %x */
	FMT_HEX_UPPER,          /* %X */
	FMT_POINTER,            /* %p */
	FMT_CHAR,               /* %c */
	FMT_STRING,             /* %s */
	FMT_BINARY,             /* %b: the value's bytes, raw */
	FMT_MEMORY,             /* %m: precision bytes at an address, raw */
	FMT_MEMORY_HEX,         /* %M: the same in hex */
} FmtConv;

enum { FMT_LEFT = 0x01, FMT_PLUS = 0x02, FMT_SPACE = 0x04, FMT_ALT = 0x08,
       FMT_ZERO = 0x10 };
#define FMT_UNSET (-1)          /* no width / precision given */
#define FMT_STAR (-2)           /* '*': taken from the next (long) value */

typedef struct FmtDirective {
	FmtConv conv;
	char letter;            /* the conversion as written ('d', 'i', ...) */
	int flags;              /* FMT_LEFT ... */
	int width, prec;        /* a number, FMT_UNSET or FMT_STAR */
	const char *lit;        /* FMT_LIT: the text */
	size_t lit_len;
} FmtDirective;

typedef struct PrintFormat {
	Vec dirs;               /* FmtDirective *, in order */
	int nargs;              /* values it takes, '*' ones included */
	const char *error;      /* why the format is invalid (dirs then holds
	                         * what came before the error), or NULL */
} PrintFormat;

/* One step of a target-expression path: ->name, .name, [index] or the
 * leading & (address-of) marker. */
typedef enum CompKind {
	COMP_MEMBER,     /* ->name (or .name in @cast/@var paths) */
	COMP_INDEX,      /* [expr] or [number] */
} CompKind;

typedef struct Component {
	CompKind kind;
	const char *name;   /* COMP_MEMBER */
	Node *index;        /* COMP_INDEX */
	Loc loc;
} Component;

struct Node {
	NodeKind kind;
	Loc loc;
	Type type;              /* filled by pass 2 */

	const char *op;         /* operator text, or builtin name (@sum ...) */
	Loc op_loc;             /* the operator token of a binary/comparison/
	                         * assignment node (its loc is the lhs's) */
	const char *name;       /* symbol, function, target name */
	const char *str;        /* decoded string value / code / type name */
	const char *module;     /* @cast/@var/@enum module argument, or NULL */
	int64_t num;            /* N_NUMBER value */

	Node *lhs, *rhs;        /* operands; lhs doubles as the only operand */
	Node *base;             /* array or hist operand (N_INDEX, N_IN, foreach) */
	Node *cond, *then, *els;
	Node *init, *incr, *body;
	Node *fmt;              /* N_PRINT: format string (N_STRING) or NULL */
	PrintFormat *format;    /* N_PRINT with a format: pass 2's parse of
	                         * fmt (printf, sprintf), or NULL */
	Node *value;            /* foreach: "value =" symbol */
	Node *limit;            /* foreach: limit expression */
	Node *catch_var;        /* try/catch(var) */

	Vec args;               /* call arguments, index keys, foreach keys */
	Vec stmts;              /* N_BLOCK */
	Vec comps;              /* Component * for target/cast/autocast paths */
	Vec slice;              /* foreach: "[k, *]" after the array (NULL =
	                         * '*'); empty when absent.  The foreach
	                         * iteration variables are in args; op is the
	                         * @count/@sum/... the value sort uses, or NULL.
	                         * N_PRINT: fmt also holds the printd delimiter.
	                         * N_FOR: init and incr are expressions. */

	int sort_col;           /* foreach: 0 none, -1 the value, k = key k (1-based) */
	int sort_dir;           /* foreach: +1 ascending, -1 descending */
	bool addressof;         /* &$foo, &@cast(...)->x */
	const char *deref;      /* "$" or "$$" pretty-print suffix, or NULL */
	bool from_tapset;       /* parsed from a tapset file */
	bool synthetic;         /* made by the translator, not the user */
	int depth;              /* pass 1: height of the tree under this
	                         * node (a leaf is 1), see node_depth(); 0
	                         * when not measured.  Later passes may
	                         * rewrite the tree without updating it. */

	/* resolved by pass 2 */
	Var *var;               /* N_SYMBOL, N_INDEX base, foreach vars */
	Func *func;             /* N_CALL */
	/* target expressions (N_TARGET, N_CAST, N_AUTOCAST): the C pointer
	 * type the path starts from and the C type of the value, decided by
	 * pass 2 (ctxvars.c); NULL when not known (only debug information
	 * knows it) */
	const char *ctype_base;
	const char *ctype;
	/* the same, typed from the debug information (tpath.h): set by pass
	 * 2 when the probe point or the @cast/@var has DWARF or BTF, and then
	 * what pass 3 writes from (ctype and ctype_base unused) */
	struct TargetPath *tpath;
	Vec *pragma_globals;    /* N_EMBEDDED, N_EMBEDDED_EXPR: the globals its
	                         * pragma:read:NAME and pragma:write:NAME
	                         * comments name (Var *), or NULL */
};

/* A probe point: comma-separated in a probe header, dot-separated within. */
typedef struct ProbePointComp {
	const char *name;       /* may contain * ** and {a,b} wildcards */
	Node *arg;              /* N_NUMBER or N_STRING literal, or NULL */
	Loc loc;
} ProbePointComp;

typedef struct ProbePoint {
	Vec comps;              /* ProbePointComp * */
	bool optional;          /* trailing '?' */
	bool sufficient;        /* trailing '!' */
	Node *condition;        /* if (expr), or NULL */
	Loc loc;
	struct ProbePoint *from;/* the alias/wildcard point this expanded from */
} ProbePoint;

/* A variable: global, local, function parameter, foreach iterator. */
typedef enum VarScope { VS_GLOBAL, VS_LOCAL, VS_PARAM } VarScope;

struct Var {
	const char *name;
	Loc loc;
	VarScope scope;
	Type type;              /* element type for arrays */
	int arity;              /* 0 scalar, >0 array with that many keys, -1 unknown */
	Type key_types[9];      /* array keys */
	int64_t maxsize;        /* global foo[N]; 0 = default */
	bool wrap;              /* global foo% */
	bool is_private;
	bool read, written;     /* set by pass 2 (for unused/written-only) */
	Node *init;             /* global initialiser literal, or NULL */
	SrcFile *file;          /* for private scoping */
	bool from_tapset;
	bool synthetic;
	bool declared_type;     /* type given in the script (params: foo:long) */
	Loc type_loc;           /* pass 2: where the type was first decided */
	bool counter;           /* pass 3: only added to, kept per CPU
	                         * (counters.c) */
};

typedef struct Func {
	const char *name;
	Loc loc;
	Vec params;             /* Var * */
	Type type;              /* declared or inferred return type */
	bool declared_type;
	Node *body;             /* N_BLOCK or N_EMBEDDED */
	int64_t priority;       /* function:1 ... overload priority; default 0 */
	bool is_private;
	bool from_tapset;
	SrcFile *file;
	struct Func *next_overload; /* the next one that "next" falls to */
	bool used;              /* pass 2 */
	bool pure, unprivileged, myproc_unprivileged, guru; /* embedded C pragmas */
	const char *unavailable; /* pragma "unavailable: WHY": a call is a pass-2 error */
	Vec locals;             /* pass 2: Var * of the body (not params) */
	Loc type_loc;           /* pass 2: where the return type was decided */
} Func;

/* A probe or alias body with the points it applies to.  For an alias,
 * alias_names are the names it defines (probe a = b, c) and points are
 * what it expands to. */
typedef struct Probe {
	Vec points;             /* ProbePoint * */
	Node *body;             /* N_BLOCK */
	Loc loc;
	bool is_alias;
	Vec alias_names;        /* ProbePoint * (for aliases) */
	bool epilogue;          /* alias defined with += */
	bool is_private;
	bool from_tapset;
	SrcFile *file;
	Vec locals;             /* Var *, filled by pass 2 */
	struct Probe *from_alias;  /* pass 2: the alias it was expanded through */
	const char *alias_point;   /* pass 2: the alias point the user wrote,
	                            * without wildcards ("syscall.read.return"),
	                            * or NULL */
	struct ResolvedPoint *rp;  /* pass 2: the family and point it resolved
	                            * to (families/probes.h), or NULL */
	int seq;                /* declaration order within its file */
} Probe;

/* One parsed file (script or tapset). */
typedef struct Stapfile {
	SrcFile *src;
	Vec probes;             /* Probe * (not aliases) */
	Vec aliases;            /* Probe * with is_alias */
	Vec funcs;              /* Func * */
	Vec globals;            /* Var * */
	Vec embeds;             /* Node * (N_EMBEDDED at file scope) */
	bool is_tapset;
	bool privileged;        /* may use guru constructs (tapsets) */
} Stapfile;

/* The whole program as pass 2 sees it. */
typedef struct Program {
	Vec files;              /* Stapfile *: user script(s) first */
	Vec probes;             /* resolved Probe * (after alias expansion) */
	Vec funcs;              /* used Func * */
	Vec globals;            /* used Var * */
	Vec embeds;             /* file-scope embedded C that is used */
} Program;

Node *node_new(NodeKind kind, Loc loc);

/* Expressions and statements nest at most this deep: pass 1 refuses a
 * deeper tree (each operator, call, index, statement and pair of
 * parentheses is one level; the operands of a chain such as a + b + c are
 * nested too).  Every pass walks the tree recursively, so this bounds
 * their stack use: the deepest scripts allowed go through passes 1-3
 * within 2 MiB of the 8 MiB default stack (HACKING.md, "Nesting
 * limits"). */
#define MAX_NEST_DEPTH 1000

/* The height of the tree under n (a leaf is 1, NULL is 0), remembered in
 * n->depth.  Children not measured yet are measured first, so measure
 * bottom-up, as the parser does, to keep this shallow. */
int node_depth(Node *n);
/* The one child walker: call fn on every child slot of n that holds a
 * node (n may be NULL).  Every pass visits children through it, in this
 * order: args (call arguments, index keys, foreach keys: evaluated
 * before the operands they belong to), then fmt, init, cond, lhs, rhs,
 * base, value, limit, catch_var, then, els, incr, body, then stmts, then
 * slice, then the [index] expressions of comps.  fn may replace the node
 * in the slot; it walks grandchildren itself (by calling this again). */
void for_each_child(Node *n, void (*fn)(Node **slot, void *ctx), void *ctx);
/* A deep copy of n (its vectors and components too), through the same
 * walker. */
Node *copy_node(Node *n);

/* Print a file in the canonical form that parses again (-p1). */
void print_stapfile(FILE *out, Stapfile *f);
void print_node(FILE *out, Node *n);          /* expression or statement */
char *probe_point_text(ProbePoint *pp);       /* arena string */
/* The point alone, without '?', '!' and its condition (arena). */
const char *probe_point_plain_text(ProbePoint *pp);

#endif
