/* module.c - pass 3: the module's C file.
 *
 * This file holds the layout of the whole file (see emit.h): globals,
 * frames, the bodies that stmt.c/expr.c write, begin/end/error runners,
 * the start and stop hooks the transport calls, and the display of
 * globals that were written but never read.  It is the top of pass 3:
 * only main calls it (translate_program), and no file of emit/ calls it.
 */
#include "emit_priv.h"
#include "build.h"
#include "passes.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ================= statistics specs ================= */

/* Statistics of a global: what its histogram and @variance need. */
typedef struct StatSpec {
	int type;               /* 0 none, 1 log, 2 linear */
	int64_t start, stop, interval;
	int var_shift;
	Loc loc;                /* where it was decided */
	bool set_hist, set_shift;
} StatSpec;

typedef struct SpecEntry {
	Var *var;
	StatSpec spec;
} SpecEntry;

static Vec spec_table;   /* SpecEntry * */

static StatSpec *global_stat_spec(Var *v)
{
	for (int i = 0; i < spec_table.len; i++) {
		SpecEntry *s = vec_get(&spec_table, i);
		if (s->var == v)
			return &s->spec;
	}
	SpecEntry *s = NEW(SpecEntry);
	s->var = v;
	vec_push(&spec_table, s);
	return &s->spec;
}

/* ================= the program ================= */

typedef struct FamilyGroup {
	const ProbeFamily *fam;
	Vec probes;             /* EmitProbe * */
	FamilyCode code;
} FamilyGroup;

typedef struct Unit {
	Emitter e;
	Program *prog;
	Vec funcs;              /* Body * of script functions (prog->funcs order) */
	Vec probes;             /* Body * of probe bodies */
	Vec entries;            /* Body * of @entry savers */
	Vec eps;                /* EmitProbe * */
	Vec groups;             /* FamilyGroup * (not begin/end/error/never) */
	Vec begins, ends, errors;   /* EmitProbe * */
	Vec display;            /* Var *: written, never read */
	bool display_used;
	Body *display_body;
} Unit;

static const char *point_text(ProbePoint *pp)
{
	return pp ? probe_point_text(pp) : "?";
}

static EmitProbe *make_emit_probe(Probe *p, int index)
{
	EmitProbe *ep = NEW(EmitProbe);
	ProbePoint *pp = p->points.len ? vec_get(&p->points, 0) : NULL;
	ep->probe = p;
	ep->rp = p->rp;
	ep->index = index;
	ep->body_fn = xsprintf("tapp_%d", index);
	ep->pp = c_string(point_text(ep->rp ? ep->rp->point : pp));
	ProbePoint *user = pp;
	while (user && user->from)
		user = user->from;
	ep->pn = c_string(point_text(user));
	return ep;
}

static Emitter *the_emitter;

static Body *new_body(const char *name)
{
	Body *b = NEW(Body);
	b->e = the_emitter;
	b->name = name;
	b->frame = xsprintf("struct tap_frame_%s", name);
	b->out = NEW(Label);
	b->out->name = "__tap_out";
	vec_push(&b->errs, b->out);
	return b;
}

/* ---- scanning for @entry uses and statistics specs ---- */

static void scan_entries(Node **slot, void *ctx)
{
	Body *b = ctx;
	Node *n = *slot;
	if (n->kind == N_ENTRY) {
		vec_push(&b->entries, n);
		return;   /* an @entry inside an @entry is the same save */
	}
	for_each_child(n, scan_entries, ctx);
}

static bool number_arg(Node *n, int64_t *v)
{
	if (!n)
		return false;
	if (n->kind == N_NUMBER) {
		*v = n->num;
		return true;
	}
	if (n->kind == N_UNARY && n->op && n->lhs && n->lhs->kind == N_NUMBER &&
	    (!strcmp(n->op, "-") || !strcmp(n->op, "+"))) {
		*v = !strcmp(n->op, "-") ? (int64_t)(0 - (uint64_t)n->lhs->num) : n->lhs->num;
		return true;
	}
	return false;
}

static void note_hist(Emitter *e, Node *n)
{
	Var *v = n->lhs ? n->lhs->var : NULL;
	if (!v)
		return;
	StatSpec *s = global_stat_spec(v);
	StatSpec want = { 0 };
	want.type = !strcmp(n->op, "@hist_log") ? 1 : 2;
	if (want.type == 2) {
		if (n->args.len != 3 || !number_arg(vec_get(&n->args, 0), &want.start) ||
		    !number_arg(vec_get(&n->args, 1), &want.stop) ||
		    !number_arg(vec_get(&n->args, 2), &want.interval)) {
			emit_error_at(e, n->loc, _("@hist_linear needs three number literals: "
						   "start, stop and interval"));
			return;
		}
		if (want.interval <= 0) {
			emit_error_at(e, n->loc, _("@hist_linear interval must be positive"));
			return;
		}
		if (want.stop < want.start) {
			emit_error_at(e, n->loc, _("@hist_linear stop is below its start"));
			return;
		}
		if ((uint64_t)want.stop - (uint64_t)want.start >
		    (uint64_t)want.interval * 65536) {
			emit_error_at(e, n->loc, _("@hist_linear has too many buckets (at most "
						   "65536)"));
			return;
		}
	}
	if (!s->set_hist) {
		s->type = want.type;
		s->start = want.start;
		s->stop = want.stop;
		s->interval = want.interval;
		s->set_hist = true;
		s->loc = n->loc;
		return;
	}
	if (s->type != want.type || s->start != want.start || s->stop != want.stop ||
	    s->interval != want.interval)
		emit_error_at(e, n->loc, _("'%s' is used with two different histograms "
					   "(the other is at %s:%d:%d)"), v->name,
			      s->loc.file ? s->loc.file->name : "?", s->loc.line, s->loc.col);
}

static void note_variance(Emitter *e, Node *n)
{
	Var *v = n->lhs ? n->lhs->var : NULL;
	if (!v && n->lhs && n->lhs->base)
		v = n->lhs->base->var;	/* @variance(a[k]) */
	if (!v)
		return;
	int64_t shift = 0;
	if (n->args.len > 0 && !number_arg(vec_get(&n->args, 0), &shift)) {
		emit_error_at(e, n->loc, _("the bit shift of @variance must be a number literal"));
		return;
	}
	if (shift < 0 || shift > 62) {
		emit_error_at(e, n->loc, _("the bit shift of @variance must be 0 to 62"));
		return;
	}
	StatSpec *s = global_stat_spec(v);
	if (!s->set_shift) {
		s->var_shift = (int)shift;
		s->set_shift = true;
		return;
	}
	if (s->var_shift != shift)
		emit_error_at(e, n->loc, _("'%s' is used with two different @variance bit "
					   "shifts"), v->name);
}

static void scan_stats(Node **slot, void *ctx)
{
	Emitter *e = ctx;
	Node *n = *slot;
	if (n->kind == N_HIST && n->op)
		note_hist(e, n);
	else if (n->kind == N_STAT && n->op && !strcmp(n->op, "@variance"))
		note_variance(e, n);
	for_each_child(n, scan_stats, ctx);
}

/* ---- writing one body out ---- */

/* C's keywords: a parameter so named gets no THIS->NAME alias. */
static bool is_c_keyword(const char *s)
{
	static const char *const kw[] = {
		"auto", "break", "case", "char", "const", "continue", "default", "do",
		"double", "else", "enum", "extern", "float", "for", "goto", "if",
		"inline", "int", "long", "register", "restrict", "return", "short",
		"signed", "sizeof", "static", "struct", "switch", "typedef", "typeof",
		"union", "unsigned", "void", "volatile", "while", "asm",
	};
	for (size_t i = 0; i < sizeof kw / sizeof kw[0]; i++)
		if (!strcmp(s, kw[i]))
			return true;
	return false;
}

/* A frame member TYPE NAME[SUFFIX]; in an embedded-C function's frame
 * (ALIAS set) also under the name older embedded C uses, THIS->ALIAS
 * (stap's THIS->param, THIS->__retvalue), sharing its storage.  The alias
 * is left out where a macro of that name would rewrite it (a parameter
 * called "current"), or where the name is C's. */
static void write_member(Emitter *e, const char *type, const char *name,
			 const char *suffix, const char *alias)
{
	if (!alias || is_c_keyword(alias)) {
		emit(e, "%s %s%s;", type, name, suffix);
		return;
	}
	emit_open(e, "union {");
	emit(e, "%s %s%s;", type, name, suffix);
	sb_printf(e->out, "#ifndef %s\n", alias);
	emit(e, "%s %s%s;", type, alias, suffix);
	sb_puts(e->out, "#endif\n");
	emit_close(e, "};");
}

static void write_frame(Emitter *e, Body *b, Type ret, bool embedded_func)
{
	emit_open(e, "%s {", b->frame);
	for (int i = 0; i < b->locals.len; i++) {
		Var *v = vec_get(&b->locals, i);
		const char *alias = embedded_func ? v->name : NULL;
		if (v->type == TY_STRING)
			write_member(e, "char", names_var(e, v), "[MAXSTRINGLEN]", alias);
		else
			write_member(e, "int64_t", names_var(e, v), "", alias);
	}
	if (ret == TY_STRING)
		write_member(e, "char", "__retval", "[MAXSTRINGLEN]",
			     embedded_func ? "__retvalue" : NULL);
	else if (ret == TY_LONG)
		write_member(e, "int64_t", "__retval", "", embedded_func ? "__retvalue" : NULL);
	if (b->max_long)
		emit(e, "int64_t n[%d];", b->max_long);
	if (b->max_str)
		emit(e, "char s[%d][MAXSTRINGLEN];", b->max_str);
	if (b->max_key)
		emit(e, "union tap_key k[%d][TAP_MAX_KEYS];", b->max_key);
	if (b->max_it)
		emit(e, "struct tap_iter it[%d];", b->max_it);
	if (b->max_arg)
		emit(e, "struct tap_arg a[%d];", b->max_arg);
	if (!b->locals.len && ret != TY_STRING && ret != TY_LONG && !b->max_long &&
	    !b->max_str && !b->max_key && !b->max_it && !b->max_arg)
		emit(e, "char unused;");
	emit_close(e, "};");
}

/* Locals start as 0 and "" at every entry; L names the frame pointer. */
static void write_local_init(Emitter *e, Body *b, Func *f, const char *l)
{
	for (int i = 0; i < b->locals.len; i++) {
		Var *v = vec_get(&b->locals, i);
		if (v->scope == VS_PARAM)
			continue;
		if (v->type == TY_STRING)
			emit(e, "%s->%s[0] = '\\0';", l, names_var(e, v));
		else
			emit(e, "%s->%s = 0;", l, names_var(e, v));
	}
	if (f && f->type == TY_STRING)
		emit(e, "%s->__retval[0] = '\\0';", l);
	else if (f && f->type == TY_LONG)
		emit(e, "%s->__retval = 0;", l);
}

/* Guru-mode embedded C in a script body reaches the context through
 * CONTEXT, a name its own declarations cannot shadow. */
static void write_context_alias(Emitter *e, Body *b)
{
	if (b->embedded)
		emit(e, "struct tap_context *const __tap_c __maybe_unused = c;");
}

/* ---- globals and locks ---- */

static int global_index(Unit *u, Var *v)
{
	for (int i = 0; i < u->prog->globals.len; i++)
		if (vec_get(&u->prog->globals, i) == v)
			return i;
	return -1;
}

static Body *func_body(Unit *u, Func *f)
{
	for (int i = 0; i < u->prog->funcs.len; i++)
		if (vec_get(&u->prog->funcs, i) == f)
			return vec_get(&u->funcs, i);
	return NULL;
}

/* Every global a body touches, through the functions it calls too. */
static void collect_uses(Unit *u, Body *b, Vec *seen, GlobalUse *acc, int nglob)
{
	for (int i = 0; i < seen->len; i++)
		if (vec_get(seen, i) == b)
			return;
	vec_push(seen, b);
	for (int i = 0; i < b->uses.len; i++) {
		GlobalUse *g = vec_get(&b->uses, i);
		int k = global_index(u, g->var);
		if (k < 0 || k >= nglob)
			continue;
		acc[k].var = g->var;
		acc[k].write |= g->write;
		acc[k].locked |= g->locked;
	}
	for (int i = 0; i < b->calls.len; i++) {
		Body *cb = func_body(u, vec_get(&b->calls, i));
		if (cb)
			collect_uses(u, cb, seen, acc, nglob);
	}
}

/* The lock table of a handler; returns how many locks it takes.  A
 * statistics or counter global it reads takes its write lock and every
 * CPU's word (and a counter's parts are folded into it then); one it
 * only adds to (GlobalUse.locked false) only this CPU's word, so its
 * adds touch no line another CPU writes.  The word is taken here, at
 * the start with the others, not at the add: a hit that cannot have it
 * is skipped whole, before any of its statements run. */
static int write_lock_table(Unit *u, Body *b)
{
	Emitter *e = &u->e;
	int nglob = u->prog->globals.len;
	if (!nglob)
		return 0;
	GlobalUse *acc = xalloc(sizeof(GlobalUse) * nglob);
	Vec seen = { 0 };
	collect_uses(u, b, &seen, acc, nglob);
	int n = 0;
	for (int i = 0; i < nglob; i++)
		if (acc[i].var)
			n++;
	if (!n)
		return 0;
	emit_open(e, "static const struct tap_lock_req locks[] = {");
	n = 0;
	for (int i = 0; i < nglob; i++) {
		if (!acc[i].var)
			continue;
		const char *name = names_var(e, acc[i].var);
		/* a reader of statistics excludes the adders of every CPU; an
		 * adder that takes other locks takes its CPU's word with them,
		 * in order (runtime/context.h, struct tap_lock_req) */
		bool percpu = acc[i].var->type == TY_STATS || acc[i].var->counter;
		if (percpu && acc[i].locked)
			emit(e, "{ &%s.lock, true, &%s.cpu_locks },", name, name);
		else if (percpu)
			emit(e, "{ NULL, false, &%s.cpu_locks },", name);
		else
			emit(e, "{ &%s.lock, %s },", name, acc[i].write ? "true" : "false");
		n++;
	}
	emit_close(e, "};");
	return n;
}

static const char *tap_type(Type t)
{
	return t == TY_STRING ? "TAP_STRING" : t == TY_STATS ? "TAP_STATS" : "TAP_LONG";
}

static void write_global(Unit *u, Var *v)
{
	Emitter *e = &u->e;
	const char *n = names_var(e, v);
	emit_line_directive(e, v->loc);
	emit_open(e, "static struct {");
	emit(e, "rwlock_t lock;");
	if (v->type == TY_STATS || v->counter)
		emit(e, "struct tap_cpu_locks *cpu_locks;");
	if (v->counter && v->arity <= 0)
		emit(e, "struct tap_counter *ctr;");
	if (v->arity > 0)
		emit(e, "struct tap_map *m;");
	else if (v->type == TY_STATS)
		emit(e, "struct tap_stat *s;");
	else if (v->type == TY_STRING)
		emit(e, "char v[MAXSTRINGLEN];");
	else
		emit(e, "int64_t v;");
	const char *init = "";
	if (v->arity <= 0 && v->init) {
		int64_t num;
		if (v->init->kind == N_STRING && v->type == TY_STRING)
			init = xsprintf(", .v = %s", c_string(v->init->str));
		else if (number_arg(v->init, &num) && v->type == TY_LONG)
			init = xsprintf(", .v = %s", emit_long_lit(num));
	}
	emit_close(e, "} %s = { .lock = __RW_LOCK_UNLOCKED(%s.lock)%s };", n, n, init);
}

/* -G NAME=VALUE and "taprun m.ko NAME=VALUE": scalars of the script. */
static void write_module_params(Unit *u)
{
	Emitter *e = &u->e;
	Vec names = { 0 };
	bool ops = false;
	for (int i = 0; i < u->prog->globals.len; i++) {
		Var *v = vec_get(&u->prog->globals, i);
		if (v->arity > 0 || (v->type != TY_LONG && v->type != TY_STRING))
			continue;
		bool dup = false;
		for (int j = 0; j < names.len; j++)
			dup |= vec_get(&names, j) == v->name;
		if (dup || v->is_private || !strncmp(v->name, "_tap", 4))
			continue;
		vec_push(&names, (void *)v->name);
		if (v->type == TY_LONG && !ops) {
			ops = true;
			emit_func(e, "static int tap_param_set_long(const char *val, const struct kernel_param *kp)");
			emit(e, "return kstrtoll(val, 0, (long long *)kp->arg);");
			emit_close(e, "}");
			emit_func(e, "static int tap_param_get_long(char *buf, const struct kernel_param *kp)");
			emit(e, "return sprintf(buf, \"%%lld\\n\", *(long long *)kp->arg);");
			emit_close(e, "}");
			emit_open(e, "static const struct kernel_param_ops tap_param_ops_long = {");
			emit(e, ".set = tap_param_set_long,");
			emit(e, ".get = tap_param_get_long,");
			emit_close(e, "};");
		}
		/* a name the kernel headers define as a macro (current,
		 * jiffies ...) cannot be a parameter name */
		emit(e, "#ifndef %s", v->name);
		if (v->type == TY_LONG) {
			emit(e, "module_param_cb(%s, &tap_param_ops_long, &%s.v, 0);", v->name,
			     names_var(e, v));
			/* in .modinfo, where taprun checks NAME=VALUE */
			emit(e, "__MODULE_PARM_TYPE(%s, \"long\");", v->name);
		} else {
			emit(e, "module_param_string(%s, %s.v, MAXSTRINGLEN, 0);", v->name,
			     names_var(e, v));
		}
		emit(e, "#endif");
	}
}

/* STAP_GLOBAL_GET_x / STAP_GLOBAL_SET_x for embedded C (pragma:read/write). */
static void write_global_macros(Unit *u)
{
	Emitter *e = &u->e;
	for (int i = 0; i < u->prog->globals.len; i++) {
		Var *v = vec_get(&u->prog->globals, i);
		const char *n = names_var(e, v);
		if (v->type == TY_STATS)
			continue;
		if (v->arity <= 0) {
			emit(e, "#define STAP_GLOBAL_GET_%s() (%s.v)", v->name, n);
			if (v->type == TY_STRING)
				emit(e, "#define STAP_GLOBAL_SET_%s(val) tap_str_assign(%s.v, (val))",
				     v->name, n);
			else
				emit(e, "#define STAP_GLOBAL_SET_%s(val) (%s.v = (val))", v->name, n);
			continue;
		}
		StrBuf params = { 0 }, keys = { 0 };
		for (int k = 0; k < v->arity && k < 9; k++) {
			sb_printf(&params, "%sk%d", k ? ", " : "", k);
			sb_printf(&keys, "%s{ .%c = (k%d) }", k ? ", " : "",
				  v->key_types[k] == TY_STRING ? 's' : 'l', k);
		}
		const char *tuple = xsprintf("(const union tap_key[]){ %s }", sb_cstr(&keys));
		if (v->type == TY_STRING) {
			emit(e, "#define STAP_GLOBAL_GET_%s(%s) tap_map_get_str(%s.m, %s)", v->name,
			     sb_cstr(&params), n, tuple);
			emit(e, "#define STAP_GLOBAL_SET_%s(%s, val) tap_map_set_str(CONTEXT, %s.m, %s, (val))",
			     v->name, sb_cstr(&params), n, tuple);
		} else {
			emit(e, "#define STAP_GLOBAL_GET_%s(%s) tap_map_get_long(%s.m, %s)", v->name,
			     sb_cstr(&params), n, tuple);
			emit(e, "#define STAP_GLOBAL_SET_%s(%s, val) tap_map_set_long(CONTEXT, %s.m, %s, (val))",
			     v->name, sb_cstr(&params), n, tuple);
		}
		sb_free(&params);
		sb_free(&keys);
	}
}

static const char *spec_init(Emitter *e, Var *v)
{
	StatSpec *s = global_stat_spec(v);
	const char *type = s->type == 1 ? "TAP_HIST_LOG" : s->type == 2 ? "TAP_HIST_LINEAR"
						       : "TAP_HIST_NONE";
	/* .variance: only a global some @variance reads pays for the running
	 * mean and m2 (a division) at each `<<<` */
	return xsprintf("{ .type = %s, .start = %s, .stop = %s, .interval = %s, "
			".var_shift = %d, .variance = %d }", type, emit_long_lit(s->start),
			emit_long_lit(s->stop), emit_long_lit(s->interval), s->var_shift,
			s->set_shift ? 1 : 0);
}

/* tap_globals_create(): maps, statistics, regexes; tap_globals_free(). */
static void write_global_setup(Unit *u)
{
	Emitter *e = &u->e;
	emit_func(e, "static void tap_globals_free(void)");
	for (int i = 0; i < u->prog->globals.len; i++) {
		Var *v = vec_get(&u->prog->globals, i);
		const char *n = names_var(e, v);
		if (v->arity > 0) {
			emit(e, "tap_map_destroy(%s.m);", n);
			emit(e, "%s.m = NULL;", n);
		} else if (v->counter) {
			emit(e, "tap_counter_destroy(%s.ctr);", n);
			emit(e, "%s.ctr = NULL;", n);
		} else if (v->type == TY_STATS) {
			emit(e, "tap_stat_destroy(%s.s);", n);
			emit(e, "%s.s = NULL;", n);
		}
	}
	emit_close(e, "}");
	emit_blank(e);

	emit_func(e, "static int tap_globals_create(void)");
	bool any = false;
	for (int i = 0; i < u->prog->globals.len; i++) {
		Var *v = vec_get(&u->prog->globals, i);
		any |= v->arity > 0 || v->type == TY_STATS || v->counter;
	}
	if (any || u->e.regexes.len)
		emit(e, "int i = 0;");
	emit_blank(e);
	for (int i = 0; i < u->prog->globals.len; i++) {
		Var *v = vec_get(&u->prog->globals, i);
		const char *n = names_var(e, v);
		if (v->arity > 0) {
			StrBuf kt = { 0 };
			for (int k = 0; k < v->arity && k < 9; k++)
				sb_printf(&kt, "%s%s", k ? ", " : "", tap_type(v->key_types[k]));
			emit_open(e, "{");
			emit(e, "static const u8 keys[] = { %s };", sb_cstr(&kt));
			if (v->type == TY_STATS) {
				emit(e, "static const struct tap_hist_spec spec = %s;", spec_init(e, v));
				emit(e, "%s.m = tap_map_create(%d, keys, TAP_STATS, &spec, %lld, %s);",
				     n, v->arity, (long long)v->maxsize, v->wrap ? "true" : "false");
			} else if (v->counter) {
				emit(e, "%s.m = tap_map_create_counter(%d, keys, %lld);", n, v->arity,
				     (long long)v->maxsize);
			} else {
				emit(e, "%s.m = tap_map_create(%d, keys, %s, NULL, %lld, %s);", n,
				     v->arity, tap_type(v->type), (long long)v->maxsize,
				     v->wrap ? "true" : "false");
			}
			emit_close(e, "}");
			emit(e, "if (!%s.m)", n);
			emit(e, "\tgoto fail;");
			if (v->type == TY_STATS || v->counter)
				emit(e, "%s.cpu_locks = &%s.m->locks;", n, n);
			sb_free(&kt);
		} else if (v->counter) {
			emit(e, "%s.ctr = tap_counter_create(&%s.v);", n, n);
			emit(e, "if (!%s.ctr)", n);
			emit(e, "\tgoto fail;");
			emit(e, "%s.cpu_locks = &%s.ctr->locks;", n, n);
		} else if (v->type == TY_STATS) {
			emit_open(e, "{");
			emit(e, "static const struct tap_hist_spec spec = %s;", spec_init(e, v));
			emit(e, "%s.s = tap_stat_create(&spec);", n);
			emit_close(e, "}");
			emit(e, "if (!%s.s)", n);
			emit(e, "\tgoto fail;");
			emit(e, "%s.cpu_locks = &%s.s->locks;", n, n);
		}
	}
	for (int i = 0; i < u->e.regexes.len; i++) {
		const char *pat = vec_get(&u->e.regexes, i);
		emit(e, "if (tap_regex_compile(&tap_re_%d, %s) < 0) {", i, c_string(pat));
		emit(e, "\ttap_msg_error(%s);",
		     c_string(xsprintf("regular expression \"%s\" is not supported", pat)));
		emit(e, "\ti = -EINVAL;");
		emit(e, "\tgoto fail;");
		emit(e, "}");
	}
	emit(e, "return 0;");
	if (any || u->e.regexes.len) {
		sb_puts(e->out, "fail:\n");
		emit(e, "tap_globals_free();");
		emit(e, "return i ? i : -ENOMEM;");
	}
	emit_close(e, "}");
	emit_blank(e);
}

/* ---- function and probe bodies ---- */

static void generate_func(Unit *u, Func *f, Body *b)
{
	Emitter *e = &u->e;
	b->func = f;
	for (int i = 0; i < f->params.len; i++)
		body_add_local(b, vec_get(&f->params, i));
	for (int i = 0; i < f->locals.len; i++)
		body_add_local(b, vec_get(&f->locals, i));
	if (f->body && f->body->kind == N_EMBEDDED) {
		/* embedded C: written out directly; its pragmas name globals */
		Vec *g = f->body->pragma_globals;
		for (int i = 0; g && i < g->len; i++) {
			Var *v = vec_get(g, i);
			const char *w = xsprintf("pragma:write:%s", v->name);
			body_use_global(b, v, f->body->str && strstr(f->body->str, w));
		}
		return;
	}
	if (!f->body || f->body->kind != N_BLOCK)
		return;
	e->body = b;
	e->out = &b->code;
	e->indent = 1;
	stmt_body_block(b, f->body);
	e->body = NULL;
}

static void generate_probe(Unit *u, EmitProbe *ep, Body *b)
{
	Emitter *e = &u->e;
	Probe *p = ep->probe;
	b->probe = p;
	b->ep = ep;
	for (int i = 0; i < p->locals.len; i++)
		body_add_local(b, vec_get(&p->locals, i));
	e->body = b;
	e->out = &b->code;
	e->indent = 1;
	ProbePoint *pp = p->points.len ? vec_get(&p->points, 0) : NULL;
	if (pp && pp->condition) {
		emit_line_directive(e, pp->condition->loc);
		const char *cond = expr_cond(b, pp->condition);
		emit(e, "if (!(%s))", cond);
		emit(e, "\t%s", body_goto(b->out));
	}
	if (p->body)
		stmt_body_block(b, p->body);
	e->body = NULL;
}

/* The @entry saver: each @entry(expr) of the probe, into its field. */
static void generate_entry(Unit *u, EmitProbe *ep, Body *pb, Body *b)
{
	Emitter *e = &u->e;
	b->probe = ep->probe;
	b->ep = ep;
	b->entry = true;
	e->body = b;
	e->out = &b->code;
	e->indent = 1;
	for (int i = 0; i < pb->entries.len; i++) {
		Node *n = vec_get(&pb->entries, i);
		const char *f = xsprintf("((%s *)pdata)->e%d", ep->entry_type, i);
		emit_line_directive(e, n->loc);
		Val v = expr_eval(b, n->lhs);
		if (n->type == TY_STRING)
			emit(e, "tap_str_assign(%s, %s);", f, v.c);
		else
			emit(e, "%s = %s;", f, v.c);
	}
	e->body = NULL;
}

/*
 * An embedded-C function.  The body is the tapset's own C: it may declare
 * any name not starting with "__tap" (c, l, out, regs, ...), so everything
 * the wrapper and the API macros refer to is __tap-prefixed: the context
 * __tap_c, the frame __tap_l, the exit label __tap_out.
 */
static void write_embedded_func(Unit *u, Func *f, Body *b)
{
	Emitter *e = &u->e;
	for (int i = 0; i < f->params.len; i++) {
		Var *v = vec_get(&f->params, i);
		emit(e, "#define STAP_ARG_%s (__tap_l->%s)", v->name, names_var(e, v));
	}
	if (f->type == TY_STRING) {
		emit(e, "#define STAP_RETVALUE (__tap_l->__retval)");
		emit(e, "#define STAP_RETURN(v) do { const char *__tap_r = (v); "
		     "if (__tap_r != __tap_l->__retval) tap_str_assign(__tap_l->__retval, __tap_r); "
		     "goto __tap_out; } while (0)");
	} else if (f->type == TY_LONG) {
		emit(e, "#define STAP_RETVALUE (__tap_l->__retval)");
		emit(e, "#define STAP_RETURN(v) do { __tap_l->__retval = (v); goto __tap_out; } while (0)");
	} else {
		emit(e, "#define STAP_RETURN(...) goto __tap_out");
	}
	emit(e, "#define STAP_ERROR(...) do { tap_error(__tap_c, __VA_ARGS__); goto __tap_out; } while (0)");
	emit(e, "#define THIS __tap_l");
	emit_func(e, "static void %s(struct tap_context *__tap_c)", b->name);
	emit(e, "%s *__tap_l __maybe_unused = TAP_FRAME(__tap_c, %s);", b->frame, b->frame);
	emit_blank(e);
	write_local_init(e, b, f, "__tap_l");
	emit_open(e, "{");
	emit_line_directive(e, f->body->loc);
	emit_raw(e, f->body->str ? f->body->str : "");
	emit_line_reset(e);
	emit_close(e, "}");
	sb_puts(e->out, "\tgoto __tap_out;\n__tap_out: __attribute__((unused));\n");
	emit(e, "return;");
	emit_close(e, "}");
	for (int i = 0; i < f->params.len; i++) {
		Var *v = vec_get(&f->params, i);
		emit(e, "#undef STAP_ARG_%s", v->name);
	}
	if (f->type == TY_STRING || f->type == TY_LONG)
		emit(e, "#undef STAP_RETVALUE");
	emit(e, "#undef STAP_RETURN");
	emit(e, "#undef STAP_ERROR");
	emit(e, "#undef THIS");
	emit_blank(e);
}

static void write_script_func(Unit *u, Func *f, Body *b)
{
	Emitter *e = &u->e;
	emit_func(e, "static void %s(struct tap_context *c)", b->name);
	emit(e, "%s *l __maybe_unused = TAP_FRAME(c, %s);", b->frame, b->frame);
	write_context_alias(e, b);
	emit_blank(e);
	write_local_init(e, b, f, "l");
	sb_putn(e->out, b->code.data, b->code.len);
	emit_line_reset(e);
	body_put_label(e, b->out);
	emit(e, "return;");
	emit_close(e, "}");
	emit_blank(e);
}

static void write_probe_body(Unit *u, Body *b)
{
	Emitter *e = &u->e;
	EmitProbe *ep = b->ep;
	emit(e, "/* %s */", point_text(ep->rp ? ep->rp->point : NULL));
	emit_func(e, "static void %s(struct tap_context *c, void *pdata)", b->name);
	int nlocks = write_lock_table(u, b);
	emit(e, "%s *l __maybe_unused = TAP_FRAME(c, %s);", b->frame, b->frame);
	write_context_alias(e, b);
	emit_blank(e);
	emit(e, "c->probe_name = %s;", ep->pn);
	if (nlocks) {
		emit(e, "if (tap_lock_globals(c, locks, %d))", nlocks);
		emit(e, "\treturn;");
	}
	write_local_init(e, b, NULL, "l");
	sb_putn(e->out, b->code.data, b->code.len);
	emit_line_reset(e);
	body_put_label(e, b->out);
	if (nlocks)
		emit(e, "tap_unlock_globals(c, locks, %d);", nlocks);
	else
		emit(e, "return;");
	emit_close(e, "}");
	emit_blank(e);
}

static void write_entry_body(Unit *u, Body *b)
{
	Emitter *e = &u->e;
	emit_func(e, "static void %s(struct tap_context *c, void *pdata)", b->name);
	int nlocks = write_lock_table(u, b);
	emit(e, "%s *l __maybe_unused = TAP_FRAME(c, %s);", b->frame, b->frame);
	write_context_alias(e, b);
	emit_blank(e);
	if (nlocks) {
		emit(e, "if (tap_lock_globals(c, locks, %d))", nlocks);
		emit(e, "\treturn;");
	}
	sb_putn(e->out, b->code.data, b->code.len);
	emit_line_reset(e);
	body_put_label(e, b->out);
	if (nlocks)
		emit(e, "tap_unlock_globals(c, locks, %d);", nlocks);
	else
		emit(e, "return;");
	emit_close(e, "}");
	emit_blank(e);
}

/* ---- begin, end, error ---- */

static int64_t session_sequence(EmitProbe *ep)
{
	ProbePoint *pp = ep->rp ? ep->rp->point : NULL;
	ProbePointComp *c0 = pp && pp->comps.len ? vec_get(&pp->comps, 0) : NULL;
	return c0 && c0->arg && c0->arg->kind == N_NUMBER ? c0->arg->num : 0;
}

static int cmp_sequence(const void *a, const void *b)
{
	EmitProbe *x = *(EmitProbe **)a, *y = *(EmitProbe **)b;
	int64_t sx = session_sequence(x), sy = session_sequence(y);
	if (sx != sy)
		return sx < sy ? -1 : 1;
	return x->index - y->index;   /* declaration order */
}

static void write_runner(Unit *u, const char *name, Vec *list, const char *state,
			 const char *type, bool display)
{
	Emitter *e = &u->e;
	if (list->len > 1)
		vec_sort(list, cmp_sequence);
	emit_func(e, "static void %s(void)", name);
	if (list->len || display)
		emit(e, "struct tap_context *c;");
	emit_blank(e);
	for (int i = 0; i < list->len; i++) {
		EmitProbe *ep = vec_get(list, i);
		if (i && !strcmp(state, "TAP_STATE_STARTING")) {
			emit(e, "/* exit() or an error: the other begin probes do not run */");
			emit(e, "if (tap_session_state() != %s)", state);
			emit(e, "\treturn;");
		}
		emit(e, "c = tap_context_enter(%s, %s);", ep->pp, state);
		emit_open(e, "if (c) {");
		emit(e, "c->probe_type = \"%s\";", type);
		emit(e, "%s(c, NULL);", ep->body_fn);
		emit(e, "tap_context_exit(c);");
		emit_close(e, "}");
	}
	if (display) {
		emit(e, "c = tap_context_enter(\"end\", %s);", state);
		emit_open(e, "if (c) {");
		emit(e, "c->probe_type = \"end\";");
		emit(e, "tap_display_globals(c, NULL);");
		emit(e, "tap_context_exit(c);");
		emit_close(e, "}");
	}
	emit_close(e, "}");
	emit_blank(e);
}

static void write_start_stop(Unit *u)
{
	Emitter *e = &u->e;
	int ng = u->groups.len;

	emit(e, "static int tap_families_started;");
	emit_blank(e);
	emit_func(e, "static void tap_families_stop(void)");
	for (int i = ng - 1; i >= 0; i--) {
		FamilyGroup *g = vec_get(&u->groups, i);
		if (g->code.stop_fn)
			emit(e, "if (tap_families_started > %d)\n\t\t%s();", i, g->code.stop_fn);
	}
	emit(e, "tap_families_started = 0;");
	emit_close(e, "}");
	emit_blank(e);

	emit_func(e, "int tap_on_start(void)");
	emit(e, "int rc;");
	emit_blank(e);
	if (sess.suppress_handler_errors)
		emit(e, "tap_suppress_errors = true;");
	emit(e, "rc = tap_globals_create();");
	emit(e, "if (rc)");
	emit(e, "\treturn rc;");
	emit(e, "rc = tap_contexts_init();");
	emit_open(e, "if (rc) {");
	emit(e, "tap_globals_free();");
	emit(e, "return rc;");
	emit_close(e, "}");
	emit(e, "tap_usyms_start();");
	emit(e, "tap_run_begin();");
	emit(e, "/* exit() or an error in a begin probe: nothing to register */");
	emit(e, "if (tap_session_state() != TAP_STATE_STARTING)");
	emit(e, "\treturn 0;");
	for (int i = 0; i < ng; i++) {
		FamilyGroup *g = vec_get(&u->groups, i);
		if (g->code.start_fn) {
			emit(e, "rc = %s();", g->code.start_fn);
			emit(e, "if (rc)");
			emit(e, "\tgoto fail;");
		}
		emit(e, "tap_families_started = %d;", i + 1);
	}
	emit(e, "return 0;");
	if (ng) {
		sb_puts(e->out, "fail: __attribute__((unused));\n");
		emit(e, "tap_families_stop();");
		emit(e, "tap_usyms_stop();");
		emit(e, "tap_contexts_free();");
		emit(e, "tap_globals_free();");
		emit(e, "return rc;");
	}
	emit_close(e, "}");
	emit_blank(e);

	emit_func(e, "void tap_on_stop(void)");
	emit(e, "tap_families_stop();");
	emit(e, "/* after an error-triggered shutdown only the error probes run */");
	emit(e, "if (tap_stopped_by_error())");
	emit(e, "\ttap_run_error();");
	emit(e, "else");
	emit(e, "\ttap_run_end();");
	emit(e, "tap_usyms_stop();");
	emit(e, "tap_contexts_free();");
	emit(e, "tap_globals_free();");
	emit_close(e, "}");
	emit_blank(e);

	emit_func(e, "static int __init tap_module_init(void)");
	emit(e, "return tap_transport_init(KBUILD_MODNAME);");
	emit_close(e, "}");
	emit_blank(e);
	emit_func(e, "static void __exit tap_module_exit(void)");
	emit(e, "tap_transport_exit();");
	emit_close(e, "}");
	emit_blank(e);
	emit(e, "module_init(tap_module_init);");
	emit(e, "module_exit(tap_module_exit);");
	emit(e, "MODULE_LICENSE(\"GPL\");");
	emit(e, "MODULE_DESCRIPTION(\"tapc script\");");
	for (int i = 0; i < sess.modinfo.len; i++) {
		const char *mi = vec_get(&sess.modinfo, i);
		const char *eq = strchr(mi, '=');
		if (!eq || eq == mi)
			continue;
		bool ok = true;
		for (const char *p = mi; p < eq; p++)
			ok &= (*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			       (*p >= '0' && *p <= '9'));
		if (ok)
			emit(e, "MODULE_INFO(%.*s, %s);", (int)(eq - mi), mi, c_string(eq + 1));
	}
}

/* ---- globals written but never read: shown at the end ---- */

/* Which globals are read as values anywhere (pass 2's read flag also
 * counts array stores and increments, which stap does not). */
typedef struct ReadScan {
	Vec read, written;
} ReadScan;

static void mark(Vec *v, Var *g)
{
	if (!g || g->scope != VS_GLOBAL)
		return;
	for (int i = 0; i < v->len; i++)
		if (vec_get(v, i) == g)
			return;
	vec_push(v, g);
}

static void scan_reads(Node **slot, void *ctx);

/* A store target: its keys are read, the variable itself is written. */
static void scan_target(ReadScan *rs, Node *t)
{
	if (!t)
		return;
	if (t->kind == N_SYMBOL) {
		mark(&rs->written, t->var);
		return;
	}
	if (t->kind == N_INDEX && !(t->base && t->base->kind == N_HIST)) {
		mark(&rs->written, t->var ? t->var : t->base ? t->base->var : NULL);
		for (int i = 0; i < t->args.len; i++)
			if (vec_get(&t->args, i))
				scan_reads((Node **)&t->args.data[i], rs);
		return;
	}
	scan_reads(&t, rs);
}

static void scan_reads(Node **slot, void *ctx)
{
	ReadScan *rs = ctx;
	Node *n = *slot;
	switch (n->kind) {
	case N_ASSIGN:
	case N_PREINC:
	case N_POSTINC:
		scan_target(rs, n->lhs);
		if (n->rhs)
			scan_reads(&n->rhs, rs);
		return;
	case N_DELETE:
		scan_target(rs, n->lhs);
		return;
	case N_SYMBOL:
	case N_INDEX:
	case N_IN:
	case N_FOREACH:
		mark(&rs->read, n->var);
		if (n->base)
			mark(&rs->read, n->base->var);
		break;
	case N_EMBEDDED:
	case N_EMBEDDED_EXPR: {
		Vec *g = n->pragma_globals;
		for (int i = 0; g && i < g->len; i++) {
			Var *v = vec_get(g, i);
			if (n->str && strstr(n->str, xsprintf("pragma:read:%s", v->name)))
				mark(&rs->read, v);
			else
				mark(&rs->written, v);
		}
		break;
	}
	default:
		break;
	}
	for_each_child(n, scan_reads, ctx);
}

static ReadScan read_scan;

static void scan_program_reads(Program *prog)
{
	read_scan.read.len = read_scan.written.len = 0;
	for (int i = 0; i < prog->funcs.len; i++) {
		Func *f = vec_get(&prog->funcs, i);
		if (f->body)
			scan_reads(&f->body, &read_scan);
	}
	for (int i = 0; i < prog->probes.len; i++) {
		Probe *p = vec_get(&prog->probes, i);
		ProbePoint *pp = p->points.len ? vec_get(&p->points, 0) : NULL;
		if (pp && pp->condition)
			scan_reads(&pp->condition, &read_scan);
		if (p->body)
			scan_reads(&p->body, &read_scan);
	}
}

static bool in_vec(Vec *v, void *p)
{
	for (int i = 0; i < v->len; i++)
		if (vec_get(v, i) == p)
			return true;
	return false;
}

static bool displayed(Var *v)
{
	return in_vec(&read_scan.written, v) && !in_vec(&read_scan.read, v) &&
	       !v->from_tapset && !v->synthetic && v->type != TY_UNKNOWN;
}

static void generate_display(Unit *u)
{
	Emitter *e = &u->e;
	Body *b = new_body("tap_display_globals");
	u->display_body = b;
	e->body = b;
	e->out = &b->code;
	e->indent = 1;
	for (int i = 0; i < u->display.len; i++) {
		Var *v = vec_get(&u->display, i);
		const char *n = names_var(e, v);
		body_use_global(b, v, v->type == TY_STATS);
		/* a counter's adds are in its CPUs' parts until a reader folds
		 * them in; the display runs after the families stopped (no adder
		 * runs), with no lock table, so it folds them itself */
		if (v->counter)
			emit(e, "%s.cpu_locks->fold(%s.cpu_locks);", n, n);
		if (v->arity <= 0 && v->type == TY_LONG) {
			emit(e, "tap_printf(\"%s=%%lld\\n\", (long long)%s.v);", v->name, n);
			continue;
		}
		if (v->arity <= 0 && v->type == TY_STRING) {
			emit(e, "tap_printf(\"%s=\\\"%%s\\\"\\n\", %s.v);", v->name, n);
			continue;
		}
		if (v->arity <= 0) {   /* statistics */
			emit_open(e, "{");
			emit(e, "const struct tap_stat_data *d = tap_stat_get(%s.s);", n);
			emit(e, "if (d->count)");
			emit(e, "\ttap_printf(\"%s @count=%%lld @min=%%lld @max=%%lld @sum=%%lld "
			     "@avg=%%lld\\n\", (long long)d->count, (long long)d->min, "
			     "(long long)d->max, (long long)d->sum, "
			     "(long long)div64_s64(d->sum, d->count));", v->name);
			emit(e, "else");
			emit(e, "\ttap_printf(\"%s @count=0\\n\");", v->name);
			emit_close(e, "}");
			continue;
		}
		/* an array: every element, largest value first */
		const char *it = xsprintf("&l->it[%d]", b->nit);
		b->nit++;
		if (b->nit > b->max_it)
			b->max_it = b->nit;
		emit(e, "if (tap_map_iter_begin(c, %s, %s.m, NULL, 0, 0, -1, TAP_STAT_COUNT, -1))",
		     it, n);
		emit(e, "\t%s", body_goto(b->out));
		emit_open(e, "while (tap_map_iter_next(%s)) {", it);
		emit(e, "tap_printf(\"%s[\");", v->name);
		for (int k = 0; k < v->arity && k < 9; k++) {
			if (k)
				emit(e, "tap_print(\",\");");
			if (v->key_types[k] == TY_STRING)
				emit(e, "tap_printf(\"\\\"%%s\\\"\", tap_iter_key_str(%s, %d));", it, k);
			else
				emit(e, "tap_printf(\"%%lld\", (long long)tap_iter_key_long(%s, %d));",
				     it, k);
		}
		if (v->type == TY_STRING) {
			emit(e, "tap_printf(\"]=\\\"%%s\\\"\\n\", tap_iter_str(%s));", it);
		} else if (v->type == TY_LONG) {
			emit(e, "tap_printf(\"]=%%lld\\n\", (long long)tap_iter_long(%s));", it);
		} else {
			emit_open(e, "{");
			emit(e, "const struct tap_stat_data *d = tap_iter_stat(%s);", it);
			emit(e, "tap_printf(\"] @count=%%lld @min=%%lld @max=%%lld @sum=%%lld "
			     "@avg=%%lld\\n\", (long long)d->count, (long long)d->min, "
			     "(long long)d->max, (long long)d->sum, (long long)(d->count ? "
			     "div64_s64(d->sum, d->count) : 0));");
			emit_close(e, "}");
		}
		emit_close(e, "}");
		emit(e, "tap_map_iter_end(c, %s);", it);
		b->nit--;
	}
	e->body = NULL;
}

/* ---- the whole file ---- */

/* Above this many probe handlers the runtime's per-hit code is called,
 * not copied into each (TAP_HOT, runtime/context.h). */
#define TAP_COMPACT_PROBES 64

static void write_limits(Emitter *e, int nprobes)
{
	emit(e, "/* Generated by tapc from %s.  Limits can be changed with -D. */",
	     sess.script_file ? sess.script_file : "a command-line script");
	emit(e, "#ifndef MAXSTRINGLEN");
	emit(e, "#define MAXSTRINGLEN 512");
	emit(e, "#endif");
	emit(e, "#ifndef MAXACTION");
	emit(e, "#define MAXACTION 1000");
	emit(e, "#endif");
	emit(e, "#ifndef MAXNESTING");
	emit(e, "#define MAXNESTING 10");
	emit(e, "#endif");
	emit(e, "#ifndef MAXMAPENTRIES");
	emit(e, "#define MAXMAPENTRIES 2048");
	emit(e, "#endif");
	emit(e, "#ifndef MAXERRORS");
	emit(e, "#define MAXERRORS 0");
	emit(e, "#endif");
	emit(e, "#ifndef MAXSKIPPED");
	emit(e, "#define MAXSKIPPED 100");
	emit(e, "#endif");
	emit(e, "#ifndef MAXTRYLOCK");
	emit(e, "#define MAXTRYLOCK 1000");
	emit(e, "#endif");
	emit_blank(e);
	if (nprobes > TAP_COMPACT_PROBES) {
		emit(e, "/* %d probe handlers: the runtime's per-hit code is called, "
		     "not copied into each (TAP_HOT) */", nprobes);
		emit(e, "#define TAP_COMPACT_HANDLERS");
	}
	emit(e, "#include <linux/module.h>");
	emit(e, "#include <linux/moduleparam.h>");
	emit(e, "#include <linux/kernel.h>");
	emit(e, "#include \"runtime/tap.h\"");
	emit_blank(e);
	emit(e, "/* The embedded-C API (runtime/TAPSET-API.md) */");
	emit(e, "#define CONTEXT __tap_c");
	{
		/* stap's version macros, for "#if" in embedded C: the
		 * language version --compatible (or tapc) claims */
		const char *v = sess.compatible ? sess.compatible
						: TAPC_STAP_COMPAT_VERSION;
		unsigned maj = 0, min = 0;
		sscanf(v, "%u.%u", &maj, &min);
		emit(e, "#define STAP_VERSION(a, b) (((a) << 8) + (b))");
		emit(e, "#define STAP_COMPAT_VERSION STAP_VERSION(%u, %u)", maj, min);
	}
	emit(e, "#define STAP_PRINTF(...) tap_printf(__VA_ARGS__)");
	emit(e, "#ifndef TAP_KGET");
	emit(e, "#define TAP_KGET(dst, lvalue) do { \\");
	emit(e, "\tif (tap_read_kernel(&(dst), &(lvalue), sizeof(dst))) \\");
	emit(e, "\t\tSTAP_ERROR(\"kernel read fault at 0x%%lx\", (unsigned long)&(lvalue)); \\");
	emit(e, "} while (0)");
	emit(e, "#endif");
	emit(e, "#ifndef TAP_ABORT");
	emit(e, "#define TAP_ABORT() do { \\");
	emit(e, "\ttap_exit(); \\");
	emit(e, "\t__tap_c->aborted = true; \\");
	emit(e, "\ttap_error(__tap_c, \"abort\"); \\");
	emit(e, "\tgoto __tap_out; \\");
	emit(e, "} while (0)");
	emit(e, "#endif");
	emit_blank(e);
}

static void write_embeds(Unit *u)
{
	Emitter *e = &u->e;
	for (int i = 0; i < u->prog->embeds.len; i++) {
		Node *n = vec_get(&u->prog->embeds, i);
		emit_line_directive(e, n->loc);
		emit_raw(e, n->str ? n->str : "");
	}
	if (u->prog->embeds.len)
		emit_line_reset(e);
	emit_blank(e);
}

static FamilyGroup *group_of(Unit *u, const ProbeFamily *fam)
{
	for (int i = 0; i < u->groups.len; i++) {
		FamilyGroup *g = vec_get(&u->groups, i);
		if (g->fam == fam)
			return g;
	}
	FamilyGroup *g = NEW(FamilyGroup);
	g->fam = fam;
	vec_push(&u->groups, g);
	return g;
}

static void sort_probes(Unit *u)
{
	for (int i = 0; i < u->prog->probes.len; i++) {
		Probe *p = vec_get(&u->prog->probes, i);
		ResolvedPoint *rp = p->rp;
		if (!rp || rp->family->session == SESSION_NEVER)
			continue;
		EmitProbe *ep = make_emit_probe(p, u->eps.len);
		vec_push(&u->eps, ep);
		switch (rp->family->session) {
		case SESSION_BEGIN:
			vec_push(&u->begins, ep);
			break;
		case SESSION_END:
			vec_push(&u->ends, ep);
			break;
		case SESSION_ERROR:
			vec_push(&u->errors, ep);
			break;
		default:
			vec_push(&group_of(u, rp->family)->probes, ep);
			break;
		}
	}
}

static void family_phase(Unit *u, EmitPhase phase, StrBuf *into)
{
	Emitter *e = &u->e;
	e->out = into;
	e->indent = 0;
	for (int i = 0; i < u->groups.len; i++) {
		FamilyGroup *g = vec_get(&u->groups, i);
		int before = error_count;
		bool ok = family_emit(e, phase, g->fam, (EmitProbe **)g->probes.data,
				      g->probes.len, &g->code);
		if (!ok) {
			if (error_count == before) {
				EmitProbe *ep = vec_get(&g->probes, 0);
				emit_error_at(e, ep->probe->loc,
					      _("cannot generate the code of '%s' probes"),
					      g->fam->name);
			}
			e->failed = true;
		}
		emit_blank(e);
	}
}

static void generate_all(Unit *u)
{
	Emitter *e = &u->e;
	for (int i = 0; i < u->prog->funcs.len; i++) {
		Func *f = vec_get(&u->prog->funcs, i);
		vec_push(&u->funcs, new_body(names_func(e, f)));
	}
	for (int i = 0; i < u->prog->funcs.len; i++) {
		Func *f = vec_get(&u->prog->funcs, i);
		if (f->body)
			scan_stats(&f->body, e);
	}
	for (int i = 0; i < u->eps.len; i++) {
		EmitProbe *ep = vec_get(&u->eps, i);
		if (ep->probe->body)
			scan_stats(&ep->probe->body, e);
	}
	/* @entry: known before the bodies so tapp_N can name the fields */
	for (int i = 0; i < u->eps.len; i++) {
		EmitProbe *ep = vec_get(&u->eps, i);
		Body *b = new_body(ep->body_fn);
		vec_push(&u->probes, b);
		if (ep->probe->body)
			scan_entries(&ep->probe->body, b);
		if (!b->entries.len)
			continue;
		if (!ep->rp || !ep->rp->is_return || !family_supports_entry(ep->rp)) {
			Node *n = vec_get(&b->entries, 0);
			emit_error_at(e, n->loc, _("@entry is not supported in '%s' probes yet"),
				      ep->rp ? ep->rp->family->name : "these");
			continue;
		}
		ep->entry_fn = xsprintf("tape_%d", ep->index);
		ep->entry_type = xsprintf("struct tap_entry_%d", ep->index);
	}
	for (int i = 0; i < u->prog->funcs.len; i++)
		generate_func(u, vec_get(&u->prog->funcs, i), vec_get(&u->funcs, i));
	for (int i = 0; i < u->eps.len; i++) {
		EmitProbe *ep = vec_get(&u->eps, i);
		Body *b = vec_get(&u->probes, i);
		generate_probe(u, ep, b);
		if (ep->entry_fn) {
			Body *eb = new_body(ep->entry_fn);
			generate_entry(u, ep, b, eb);
			vec_push(&u->entries, eb);
		}
	}
	scan_program_reads(u->prog);
	for (int i = 0; i < u->prog->globals.len; i++) {
		Var *v = vec_get(&u->prog->globals, i);
		if (displayed(v))
			vec_push(&u->display, v);
	}
	if (u->display.len)
		generate_display(u);
}

static void write_prototypes(Unit *u)
{
	Emitter *e = &u->e;
	for (int i = 0; i < u->funcs.len; i++) {
		Body *b = vec_get(&u->funcs, i);
		emit(e, "static void %s(struct tap_context *c) __maybe_unused;", b->name);
	}
	for (int i = 0; i < u->probes.len; i++) {
		Body *b = vec_get(&u->probes, i);
		emit(e, "static void %s(struct tap_context *c, void *pdata);", b->name);
	}
	for (int i = 0; i < u->entries.len; i++) {
		Body *b = vec_get(&u->entries, i);
		emit(e, "static void %s(struct tap_context *c, void *pdata);", b->name);
	}
	emit_blank(e);
}

static void write_frames(Unit *u)
{
	Emitter *e = &u->e;
	Vec all = { 0 };
	for (int i = 0; i < u->funcs.len; i++) {
		Body *b = vec_get(&u->funcs, i);
		Func *f = vec_get(&u->prog->funcs, i);
		write_frame(e, b, f->type, f->body && f->body->kind == N_EMBEDDED);
		vec_push(&all, b);
	}
	for (int i = 0; i < u->probes.len; i++) {
		Body *b = vec_get(&u->probes, i);
		write_frame(e, b, TY_VOID, false);
		vec_push(&all, b);
	}
	for (int i = 0; i < u->entries.len; i++) {
		Body *b = vec_get(&u->entries, i);
		write_frame(e, b, TY_VOID, false);
		vec_push(&all, b);
	}
	if (u->display_body) {
		write_frame(e, u->display_body, TY_VOID, false);
		vec_push(&all, u->display_body);
	}
	/* @entry save areas */
	for (int i = 0; i < u->eps.len; i++) {
		EmitProbe *ep = vec_get(&u->eps, i);
		Body *pb = vec_get(&u->probes, i);
		if (!ep->entry_fn)
			continue;
		emit_open(e, "%s {", ep->entry_type);
		for (int k = 0; k < pb->entries.len; k++) {
			Node *n = vec_get(&pb->entries, k);
			if (n->type == TY_STRING)
				emit(e, "char e%d[MAXSTRINGLEN];", k);
			else
				emit(e, "int64_t e%d;", k);
		}
		emit_close(e, "};");
	}
	emit_blank(e);
	if (all.len) {
		emit_open(e, "union tap_frames {");
		for (int i = 0; i < all.len; i++) {
			Body *b = vec_get(&all, i);
			emit(e, "%s f%d;", b->frame, i);
		}
		emit_close(e, "};");
		emit(e, "#define TAP_FRAME_SIZE sizeof(union tap_frames)");
	} else {
		emit(e, "#define TAP_FRAME_SIZE 16");
	}
	emit_blank(e);
}

static void write_file(Unit *u, StrBuf *fam_decls, StrBuf *file)
{
	Emitter *e = &u->e;
	e->out = file;
	e->indent = 0;
	write_limits(e, u->probes.len);
	write_embeds(u);

	emit(e, "/* ---- globals ---- */");
	for (int i = 0; i < u->prog->globals.len; i++)
		write_global(u, vec_get(&u->prog->globals, i));
	if (u->prog->globals.len)
		emit_line_reset(e);
	write_module_params(u);
	write_global_macros(u);
	for (int i = 0; i < u->e.regexes.len; i++)
		emit(e, "static struct tap_regex tap_re_%d;", i);
	emit_blank(e);

	emit(e, "/* ---- probe families: declarations ---- */");
	sb_putn(file, fam_decls->data, fam_decls->len);
	emit_line_reset(e);

	emit(e, "/* ---- frames: locals and temporaries, one per call depth ---- */");
	write_frames(u);
	write_prototypes(u);
	if (e->decls.len) {
		sb_putn(file, e->decls.data, e->decls.len);
		emit_blank(e);
	}

	emit(e, "/* ---- functions ---- */");
	for (int i = 0; i < u->funcs.len; i++) {
		Func *f = vec_get(&u->prog->funcs, i);
		Body *b = vec_get(&u->funcs, i);
		if (f->body && f->body->kind == N_EMBEDDED)
			write_embedded_func(u, f, b);
		else
			write_script_func(u, f, b);
	}
	emit(e, "/* ---- probes ---- */");
	for (int i = 0; i < u->probes.len; i++)
		write_probe_body(u, vec_get(&u->probes, i));
	for (int i = 0; i < u->entries.len; i++)
		write_entry_body(u, vec_get(&u->entries, i));
	if (u->display_body) {
		Body *b = u->display_body;
		emit_func(e, "static void tap_display_globals(struct tap_context *c, void *pdata)");
		emit(e, "%s *l __maybe_unused = TAP_FRAME(c, %s);", b->frame, b->frame);
		emit_blank(e);
		sb_putn(e->out, b->code.data, b->code.len);
		body_put_label(e, b->out);
		emit(e, "return;");
		emit_close(e, "}");
		emit_blank(e);
	}

	emit(e, "/* ---- probe families: registration ---- */");
	StrBuf code = { 0 };
	family_phase(u, EMIT_CODE, &code);
	e->out = file;
	e->indent = 0;
	sb_putn(file, code.data, code.len);
	emit_line_reset(e);

	usyms_emit(e, u->prog);
	lines_emit_kernel(e, u->prog);
	emit(e, "/* ---- the session ---- */");
	write_global_setup(u);
	write_runner(u, "tap_run_begin", &u->begins, "TAP_STATE_STARTING", "begin", false);
	write_runner(u, "tap_run_end", &u->ends, "TAP_STATE_STOPPING", "end",
		     u->display_body != NULL);
	write_runner(u, "tap_run_error", &u->errors, "TAP_STATE_STOPPING", "error", false);
	write_start_stop(u);
	emit_blank(e);
	emit(e, "#include \"runtime/tap_runtime.c\"");
}

/* -G NAME=VALUE must name a scalar global that takes its value type. */
static void check_global_options(Unit *u)
{
	for (int i = 0; i < sess.globals_init.len; i++) {
		Define *d = vec_get(&sess.globals_init, i);
		Var *found = NULL;
		for (int j = 0; j < u->prog->globals.len; j++) {
			Var *v = vec_get(&u->prog->globals, j);
			if (!strcmp(v->name, d->name) && !v->is_private)
				found = v;
		}
		if (!found) {
			error_plain(_("-G %s: the script has no global '%s' (or it is never used)"),
				    d->name, d->name);
			u->e.failed = true;
			continue;
		}
		if (found->arity > 0 || (found->type != TY_LONG && found->type != TY_STRING)) {
			error_plain(_("-G %s: only a number or string scalar can be set"),
				    d->name);
			u->e.failed = true;
			continue;
		}
		if (found->type == TY_LONG) {
			char *end;
			errno = 0;
			(void)strtoll(d->value, &end, 0);
			if (errno || end == d->value || *end) {
				error_plain(_("-G %s=%s: '%s' is a number, and '%s' is not one"),
					    d->name, d->value, d->name, d->value);
				u->e.failed = true;
			}
		}
	}
}

static bool write_text(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return false;
	bool ok = fwrite(text, 1, len, f) == len;
	ok = fclose(f) == 0 && ok;
	return ok;
}

#define NAME_PLACEHOLDER "@TAPC_C_FILE@.c"

/* The text with every NAME_PLACEHOLDER replaced by name.c */
static char *replace_placeholder(const char *text, const char *name, size_t *len)
{
	StrBuf sb = { 0 };
	const char *real = xsprintf("%s.c", name);
	size_t pl = strlen(NAME_PLACEHOLDER);
	for (const char *p = text;;) {
		const char *q = strstr(p, NAME_PLACEHOLDER);
		if (!q) {
			sb_puts(&sb, p);
			break;
		}
		sb_putn(&sb, p, q - p);
		sb_puts(&sb, real);
		p = q + pl;
	}
	*len = sb.len;
	return sb.data;
}

const char *translate_program(Program *prog, const char **name, const char **dir)
{
	Unit u = { 0 };
	*name = *dir = NULL;
	u.prog = prog;
	u.e.prog = prog;
	u.e.c_name = NAME_PLACEHOLDER;
	the_emitter = &u.e;
	spec_table.len = 0;

	check_global_options(&u);
	find_counters(prog);
	sort_probes(&u);

	StrBuf fam_decls = { 0 };
	family_phase(&u, EMIT_DECLS, &fam_decls);
	generate_all(&u);
	if (u.e.failed || error_count)
		return NULL;

	StrBuf file = { 0 };
	write_file(&u, &fam_decls, &file);
	if (u.e.failed || error_count)
		return NULL;

	Sha256 h;
	sha256_init(&h);
	sha256_update(&h, file.data, file.len);
	const char *hash = sha256_hex(&h, 16);
	*name = sess.module_name ? sess.module_name : xsprintf("tap_%s", hash);
	size_t len;
	char *text = replace_placeholder(sb_cstr(&file), *name, &len);
	sb_free(&file);
	/* a fresh folder per run, $TMPDIR/tapc-HASH-XXXXXX: runs of the same
	 * script at the same time never share one */
	*dir = make_temp_dir(xsprintf("tapc-%s-", hash));
	if (!*dir)
		return NULL;
	const char *path = xsprintf("%s/%s.c", *dir, *name);
	if (!write_text(path, text, len)) {
		error_plain(_("cannot write '%s': %s"), path, strerror(errno));
		free(text);
		return NULL;
	}
	free(text);
	return path;
}
