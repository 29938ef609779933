/* kernel.function, kernel.statement, module().function/statement:
 * probes on kernel code, resolved through the target's debug information
 * (debuginfo.h, di_*).
 *
 * With DWARF: functions and inlined instances by name and source file,
 * lines, labels, callees; each point carries its DiFunction and pc
 * (KernelPointData) for dvars.c, and is named by its source place as stap
 * names it.  With BTF: functions' entries and returns only; what needs
 * DWARF is a pass-2 error saying where tapc looked.  With neither (or a
 * name only the symbol table has): the symbol tables, as kprobe.function
 * does; such points are needs_debuginfo, and a pattern with a @file or
 * :line part stays as written.
 */
#include "emit_glue.h"
#include "kprobe.h"

#include <limits.h>
#include <stdint.h>
#include <string.h>

/* ResolvedPoint.data: KernelPointData (kprobe.h): pass 3 puts these
 * probes on kprobes (kprobe.c). */

/* Source files whose functions are all off limits. */
static const char *const blocked_files[] = {
	"kprobes.c", "kprobes.h", "entry_64.S", "entry_32.S", "nmi.c",
};

static bool blocked_file_pattern(const char *file)
{
	const char *base = strrchr(file, '/');
	base = base ? base + 1 : file;
	if (arg_has_glob(base))
		return false;
	for (size_t i = 0; i < sizeof blocked_files / sizeof blocked_files[0]; i++)
		if (!strcmp(base, blocked_files[i]))
			return true;
	return strstr(file, "/kprobes/") != NULL;
}

/* "func@file:line" -> its parts (file and line NULL when absent). */
typedef struct FuncPattern {
	const char *func, *file, *line;
} FuncPattern;

static FuncPattern split_pattern(const char *s)
{
	FuncPattern fp = { 0 };
	const char *at = strchr(s, '@');
	if (!at) {
		const char *l = strpbrk(s, ":+");
		fp.func = l ? xstrndup(s, l - s) : s;
		fp.line = l;
		return fp;
	}
	fp.func = xstrndup(s, at - s);
	const char *l = strpbrk(at + 1, ":+");
	fp.file = l ? xstrndup(at + 1, l - at - 1) : at + 1;
	fp.line = l;
	return fp;
}

/* The functions a symbol list stands for: compiler clones
 * ("foo.isra.0", "foo.cold") count as their base name, and symbols no
 * probe may use are left out.  Built once per list. */
static const NameList *function_bases(const NameList *l)
{
	static Vec from, to;
	for (int i = 0; i < from.len; i++)
		if (from.data[i] == l)
			return to.data[i];
	Vec names = { 0 };
	for (int i = 0; i < l->len; i++) {
		const char *sym = l->names[i];
		const char *dot = strchr(sym, '.');
		if (dot == sym || !*sym)
			continue;
		const char *b = dot ? xstrndup(sym, dot - sym) : sym;
		if (!blocked_function(b))
			vec_push(&names, (void *)b);
	}
	NameList *nl = NEW(NameList);
	nl->source = l->source;
	namelist_finish(nl, &names);
	vec_push(&from, (void *)l);
	vec_push(&to, nl);
	return nl;
}

/* Is `name` (a plain function name) in the symbol list, directly or as
 * the base of a compiler clone? */
static bool symbols_have_function(const NameList *l, const char *name)
{
	return namelist_has(function_bases(l), name);
}

/* Functions of l whose (base) name matches the glob. */
static Vec expand_functions(const NameList *l, const char *glob)
{
	Vec out = { 0 };
	const NameList *b = function_bases(l);
	for (int i = 0; i < b->len; i++)
		if (arg_glob_match(glob, b->names[i]))
			vec_push(&out, (void *)b->names[i]);
	return out;
}

/* ---- kernel.function / module().function / .statement ---- */

/* Resolve one function-like point of one module (NULL = kernel) with
 * symbols only (DI_SRC_NONE). */
static int resolve_symbols_in(const ProbeFamily *fam, ProbePoint *pp,
			      const char *module, const NameList *syms, Vec *out)
{
	bool is_stmt = pp_has(pp, "statement");
	int fi = pp_comp_index(pp, is_stmt ? "statement" : "function");
	ProbePointComp *fc = pp->comps.data[fi];
	KernelPointData proto = { .module = module };
	if (check_maxactive(pp, &proto) < 0)
		return -1;

	if (!comp_is_str(fc)) {         /* statement(ADDRESS) */
		if (pp_has(pp, "absolute") && need_guru(pp, "kernel.statement(...).absolute") < 0)
			return -1;
		KernelPointData *d = NEW(KernelPointData);
		*d = proto;
		d->address = comp_num(fc);
		ResolvedPoint *rp = rp_push(out, fam, pp);
		rp->data = d;
		rp->needs_debuginfo = !pp_has(pp, "absolute");
		return 1;
	}

	const char *text = comp_str(fc);
	if (!*text) {
		error_at(fc->loc, _("empty function pattern"));
		return -1;
	}
	FuncPattern fp = split_pattern(text);
	if (fp.file && blocked_file_pattern(fp.file))
		return 0;
	if (!arg_has_glob(fp.func) && blocked_function(fp.func))
		return 0;

	bool inline_only = pp_has(pp, "inline");
	/* Without symbols a wildcard waits for DWARF; -l cannot list it. */
	if (!syms && arg_has_glob(fp.func) && sess.listing) {
		family_cannot_list(fc->loc, text, kernel_symbols_missing(module));
		return 0;
	}
	/* With a file or line part, or for inlined instances, symbols cannot
	 * say yes or no: keep the point as written for DWARF. */
	if (!syms || fp.file || fp.line || inline_only || !*fp.func) {
		if (syms && !arg_has_glob(fp.func) && *fp.func && !inline_only &&
		    !symbols_have_function(syms, fp.func))
			return 0;
		KernelPointData *d = NEW(KernelPointData);
		*d = proto;
		d->function = fp.func;
		ResolvedPoint *rp = rp_push(out, fam, pp);
		rp->data = d;
		rp->needs_debuginfo = true;
		return 1;
	}

	Vec names = { 0 };
	if (arg_has_glob(fp.func))
		names = expand_functions(syms, fp.func);
	else if (symbols_have_function(syms, fp.func))
		vec_push(&names, (void *)fp.func);
	else
		near_functions(pp, fi, fp.func, function_bases(syms));
	return push_function_points(fam, pp, fi, text, &names, &proto, true, out);
}

/* ---- with DWARF or BTF ---- */

/* A line part: ":N", ":N-M", ":*", "+N", or several of the ':' ones
 * separated by commas (":3,7-9"). */
typedef struct LineRange {
	int lo, hi;
} LineRange;

#define MAX_LINE_RANGES 16

typedef struct LineSpec {
	bool given;
	bool relative;          /* "+N": from the function's declaration */
	int n;
	LineRange r[MAX_LINE_RANGES];
} LineSpec;

static bool parse_int(const char **s, int *out)
{
	const char *p = *s;
	long v = 0;
	if (*p < '0' || *p > '9')
		return false;
	while (*p >= '0' && *p <= '9') {
		v = v * 10 + (*p++ - '0');
		if (v > 10000000)
			return false;
	}
	*s = p;
	*out = (int)v;
	return true;
}

/* Parse fp->line into *ls; false after an error at fc. */
static bool parse_line_spec(ProbePointComp *fc, const FuncPattern *fp,
			    LineSpec *ls)
{
	memset(ls, 0, sizeof *ls);
	const char *s = fp->line;
	if (!s)
		return true;
	ls->given = true;
	if (!fp->file) {
		error_at(fc->loc, _("a line number needs a source file: "
				    "\"%s@FILE%s\" (\"%s@*%s\" for any file)"),
			 fp->func, s, fp->func, s);
		return false;
	}
	const char *p = s + 1;
	if (*s == '+') {
		ls->relative = true;
		if (!parse_int(&p, &ls->r[0].lo) || *p)
			goto bad;
		ls->r[0].hi = ls->r[0].lo;
		ls->n = 1;
		return true;
	}
	for (;;) {
		if (ls->n == MAX_LINE_RANGES)
			goto bad;
		LineRange *r = &ls->r[ls->n++];
		if (*p == '*') {
			p++;
			r->lo = 0;
			r->hi = INT_MAX;
		} else {
			if (!parse_int(&p, &r->lo))
				goto bad;
			r->hi = r->lo;
			if (*p == '-' && (p++, !parse_int(&p, &r->hi)))
				goto bad;
			if (r->hi < r->lo)
				goto bad;
		}
		if (!*p)
			return true;
		if (*p++ != ',')
			goto bad;
	}
bad:
	error_at(fc->loc, _("bad line number part '%s' in \"%s\": it must be "
			    ":N, :N-M, :* (a comma-separated list of them) or +N"),
		 s, comp_str(fc));
	return false;
}

/* The suffixes of a point, read once. */
typedef struct PointKind {
	bool stmt, call, exported, inl, ret, nearest;
	ProbePointComp *label, *callee, *callees;
} PointKind;

static PointKind point_kind(ProbePoint *pp)
{
	PointKind k = {
		.stmt = pp_has(pp, "statement"), .call = pp_has(pp, "call"),
		.exported = pp_has(pp, "exported"), .inl = pp_has(pp, "inline"),
		.ret = pp_has(pp, "return"), .nearest = pp_has(pp, "nearest"),
		.label = pp_comp(pp, "label"), .callee = pp_comp(pp, "callee"),
		.callees = pp_comp(pp, "callees"),
	};
	return k;
}

/* "vfs_read@fs/read_write.c:450": how points name a function found in
 * the debug information (BTF has no source: the name alone). */
static const char *function_text(const DiFunction *f)
{
	if (!f->decl.file)
		return f->name;
	if (f->decl.line <= 0)
		return xsprintf("%s@%s", f->name, f->decl.file);
	return xsprintf("%s@%s:%d", f->name, f->decl.file, f->decl.line);
}

/* ---- where a probe goes at run time ----
 *
 * In the kernel proper, at its file address plus the kernel's load
 * offset (KASLR), which the module learns from kfree's address (see
 * kprobe.c, kprobe_where): this places statements, inlined instances and
 * compiler clones ("foo.isra.0") whatever their symbols are.  In a
 * module, at the symbol of the out-of-line function that holds the
 * address plus the offset into it, which the kernel resolves when the
 * probe is registered ("ext4:ext4_file_read_iter" + 12). */

/* The out-of-line functions of a module, by address. */
typedef struct FuncTable {
	const char *module;
	Vec funcs;              /* DiFunction *, by low_pc */
} FuncTable;

static int cmp_func_low(const void *a, const void *b)
{
	const DiFunction *x = *(const DiFunction *const *)a;
	const DiFunction *y = *(const DiFunction *const *)b;
	return x->low_pc < y->low_pc ? -1 : x->low_pc > y->low_pc;
}

static const FuncTable *func_table(const char *module)
{
	static Vec tables;
	const char *m = module ? intern(module) : NULL;
	for (int i = 0; i < tables.len; i++) {
		FuncTable *t = tables.data[i];
		if (t->module == m)
			return t;
	}
	FuncTable *t = NEW(FuncTable);
	t->module = m;
	t->funcs = di_functions(module, "*", NULL, false);
	if (t->funcs.len > 1)
		vec_sort(&t->funcs, cmp_func_low);
	vec_push(&tables, t);
	return t;
}

/* The out-of-line function of module whose code holds pc, or NULL. */
static const DiFunction *outer_function(const char *module, uint64_t pc)
{
	const FuncTable *t = func_table(module);
	int lo = 0, hi = t->funcs.len - 1;
	const DiFunction *best = NULL;
	while (lo <= hi) {
		int mid = (lo + hi) / 2;
		const DiFunction *f = t->funcs.data[mid];
		if (f->low_pc <= pc) {
			best = f;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return best && pc < best->high_pc ? best : NULL;
}

/* The module's function symbol for an out-of-line function: its name,
 * else the one compiler clone of it ("name.isra.0").  NULL when there is
 * none or more than one. */
static const char *module_symbol_for(const char *module, const DiFunction *f)
{
	const DiModule *m = di_module(module);
	const char *file = m ? (m->debug_path ? m->debug_path : m->path) : NULL;
	const ObjectFacts *of = file ? object_facts(file) : NULL;
	if (!of || !of->readable || !of->funcs.len)
		return f->name;         /* unknown: the kernel checks it */
	if (namelist_has(&of->funcs, f->name))
		return f->name;
	const char *found = NULL;
	size_t n = strlen(f->name);
	for (int i = 0; i < of->funcs.len; i++) {
		const char *s = of->funcs.names[i];
		if (!strncmp(s, f->name, n) && s[n] == '.') {
			if (found)
				return NULL;
			found = s;
		}
	}
	return found;
}

/* True when the module has more than one out-of-line function called
 * name (static functions of different files): a symbol cannot say which. */
static bool name_repeats(const char *module, const char *name)
{
	Vec same = di_functions(module, name, NULL, false);
	uint64_t first = same.len ? ((DiFunction *)same.data[0])->low_pc : 0;
	for (int i = 1; i < same.len; i++)
		if (((DiFunction *)same.data[i])->low_pc != first)
			return true;
	return false;
}

/* kfree's address in the kernel's DWARF, or 0: the anchor from which a
 * probe's address follows the kernel wherever it is loaded (kfree is
 * exported by every kernel, so the module can take its address). */
static uint64_t kernel_anchor(void)
{
	static uint64_t addr;
	static bool done;
	if (!done) {
		done = true;
		Vec fs = di_functions(NULL, "kfree", NULL, false);
		for (int i = 0; i < fs.len && !addr; i++) {
			const DiFunction *f = fs.data[i];
			if (!f->inlined && f->external)
				addr = f->low_pc;
		}
	}
	return addr;
}

/* Fill d's run-time place for a probe at pc in f (an out-of-line function
 * or an inlined instance).  False, with *why set, when it cannot be
 * placed. */
static bool place_probe(const char *module, DiSource src, const DiFunction *f,
			uint64_t pc, KernelPointData *d, const char **why)
{
	d->difunc = f;
	d->pc = pc;
	if (src == DI_SRC_BTF) {        /* entries only, by symbol */
		d->function = f->name;
		d->offset = 0;
		return true;
	}
	if (!module) {                  /* placed by address (kprobe_where) */
		uint64_t anchor = kernel_anchor();
		if (!anchor) {
			*why = _("the kernel's DWARF has no kfree, whose address "
				 "tells where the kernel is loaded");
			return false;
		}
		d->function = f->name;
		d->offset = 0;
		d->kernel_anchor = anchor;
		return true;
	}
	const DiFunction *outer = f->inlined || pc < f->low_pc || pc >= f->high_pc
		? outer_function(module, pc) : f;
	if (!outer) {
		*why = xsprintf(_("no out-of-line function holds address 0x%llx"),
				(unsigned long long)pc);
		return false;
	}
	d->function = outer->name;
	d->offset = pc - outer->low_pc;
	if (name_repeats(module, outer->name)) {
		*why = xsprintf(_("module %s has more than one function called %s, "
				  "and its symbol cannot say which"),
				module, outer->name);
		return false;
	}
	const char *sym = module_symbol_for(module, outer);
	if (!sym) {
		*why = xsprintf(_("module %s has no single symbol for function %s"),
				module, outer->name);
		return false;
	}
	d->function = sym;
	return true;
}

/* The $variables of a point, as stap lists them: those with a location
 * at pc, an inner block's shadowing an outer one's; at a .return point
 * $return and those of the function's entry (the values at entry), in
 * the order di_variables_at() gives them (stap's). */
static void add_ctx_vars(ResolvedPoint *rp, const DiFunction *f, uint64_t pc)
{
	if (rp->is_return && f->ret)
		rp_var(rp, "return", TY_LONG, di_type_text(f->ret));
	Vec vars = di_variables_at(f, rp->is_return ? f->entry_pc : pc);
	Vec keep = { 0 };
	for (int i = 0; i < vars.len; i++) {
		const DiVariable *v = vars.data[i];
		if (!v->name || v->loc.kind == DI_LOC_NONE)
			continue;
		bool shadowed = false;
		for (int j = i + 1; j < vars.len && !shadowed; j++) {
			const DiVariable *w = vars.data[j];
			shadowed = w->name && !strcmp(w->name, v->name);
		}
		if (!shadowed)
			vec_push(&keep, (void *)v);
	}
	for (int i = 0; i < keep.len; i++) {
		const DiVariable *v = keep.data[i];
		CtxVar *cv = rp_var(rp, v->name, TY_LONG, di_type_text(v->type));
		cv->writable = true;
	}
	/* -L, as stap lists a point: the parameters and the function's own
	 * locals that have a location at pc, but not the locals of its
	 * inner blocks (which $$vars and scripts still see) */
	rp->has_list_vars = true;
	if (rp->is_return && f->ret)
		vec_push(&rp->list_vars, (void *)xsprintf(" $return:%s",
							  di_type_text(f->ret)));
	for (int i = 0; i < vars.len; i++) {
		const DiVariable *v = vars.data[i];
		if (!v->name || v->loc.kind == DI_LOC_NONE || v->block)
			continue;
		bool shadowed = false;
		for (int j = i + 1; j < vars.len && !shadowed; j++) {
			const DiVariable *w = vars.data[j];
			shadowed = w->name && !w->block && !strcmp(w->name, v->name);
		}
		if (!shadowed)
			vec_push(&rp->list_vars, (void *)xsprintf(" $%s:%s", v->name,
								  di_type_text(v->type)));
	}
}

/* What one resolution collects before it makes points. */
typedef struct Resolver {
	const ProbeFamily *fam;
	ProbePoint *pp;
	int fi;                 /* the function/statement component */
	const char *module;
	DiSource src;
	KernelPointData proto;
	bool wildcard;          /* the pattern may stand for many */
	Vec seen;               /* (uintptr_t) pc of points made */
	int made, refused;
	const char *why;        /* why the last one was refused */
	Vec *out;
} Resolver;

static bool seen_pc(Resolver *r, uint64_t pc)
{
	for (int i = 0; i < r->seen.len; i++)
		if ((uint64_t)(uintptr_t)r->seen.data[i] == pc)
			return true;
	vec_push(&r->seen, (void *)(uintptr_t)pc);
	return false;
}

/* The point pp with the function component's argument arg. */
static ProbePoint *point_named(Resolver *r, ProbePoint *pp, const char *arg)
{
	return strcmp(arg, comp_str(pp->comps.data[r->fi]))
		? pp_with_str(pp, r->fi, arg) : pp;
}

/* One resolved point c at pc in f (an out-of-line function or an inlined
 * instance), once per pc of a function. */
static KernelPointData *make_point(Resolver *r, ProbePoint *c,
				   const DiFunction *f, uint64_t pc)
{
	if (seen_pc(r, pc))
		return NULL;
	KernelPointData *d = NEW(KernelPointData);
	*d = r->proto;
	const char *why = NULL;
	if (!place_probe(r->module, r->src, f, pc, d, &why)) {
		r->refused++;
		r->why = why;
		return NULL;
	}
	ResolvedPoint *rp = rp_push(r->out, r->fam, c);
	rp->data = d;
	rp->needs_debuginfo = false;
	/* pass 2 reads the variables through difunc and pc (dvars.c);
	 * these are what -L lists */
	if (sess.listing_vars)
		add_ctx_vars(rp, f, pc);
	r->made++;
	return d;
}

/* Callee points of f: the functions it calls whose names match glob, to
 * depth levels (a callee's callees at 2).  An inlined callee is probed
 * where it begins in its caller; an out-of-line one on its entry, for
 * the calls that return to the caller's call site (the return address
 * the probe finds on the stack).  The points name their callee:
 * .callee("NAME@FILE:LINE"), also for .callees. */
static void callee_points(Resolver *r, const DiFunction *f, const char *glob,
			  int depth, int ci, bool ret, bool call)
{
	Vec sites = di_function_callees(f, glob, depth);
	/* inlined callees: their instances inside f (by name: a wildcard
	 * would read every inlined instance of the kernel) */
	Vec inl = { 0 };
	if (!arg_has_glob(glob) || r->module)
		inl = di_functions(r->module, glob, NULL, true);
	for (int i = 0; i < inl.len; i++) {
		const DiFunction *g = inl.data[i];
		if (!g->inlined || g->entry_pc < f->low_pc || g->entry_pc >= f->high_pc)
			continue;
		DiCallSite *cs = NEW(DiCallSite);
		cs->caller = f;
		cs->callee = g;
		cs->pc = g->entry_pc;
		vec_push(&sites, cs);
	}
	for (int j = 0; j < sites.len; j++) {
		const DiCallSite *cs = sites.data[j];
		const DiFunction *g = cs->callee;
		if (!g || blocked_function(g->name) || (call && g->inlined))
			continue;
		if (g->inlined && ret) {
			r->refused++;
			r->why = _("an inlined callee has no return of its own");
			continue;
		}
		if (!g->inlined && (!g->high_pc || r->module)) {
			r->refused++;
			r->why = r->module
				? _("an out-of-line callee of a module function "
				    "cannot be told apart from its other callers yet")
				: xsprintf(_("no DWARF definition of callee %s"), g->name);
			continue;
		}
		ProbePoint *c = pp_with_str(point_named(r, r->pp,
							function_text(cs->caller)),
					    ci, function_text(g));
		ProbePointComp *cn = c->comps.data[ci];
		cn->name = intern("callee");
		r->seen.len = 0;        /* one probe per call site */
		KernelPointData *d = make_point(r, c, g, g->entry_pc);
		if (d && !g->inlined)
			d->caller_ret = cs->pc;
	}
}

/* Statement points on the lines of f that the spec asks for. */
static void statement_lines(Resolver *r, const DiFunction *f,
			    const LineSpec *ls, bool nearest, bool as_function)
{
	for (int i = 0; i < ls->n; i++) {
		int lo = ls->r[i].lo, hi = ls->r[i].hi;
		if (ls->relative) {
			lo += f->decl.line;
			hi += f->decl.line;
		}
		Vec lines = di_function_lines(f, lo, hi);
		if (!lines.len && nearest && lo == hi)
			lines = di_function_lines(f, lo, INT_MAX);
		int want = lines.len && nearest && lo == hi
			? ((DiLine *)lines.data[0])->src.line : -1;
		int made = 0;
		for (int j = 0; j < lines.len; j++) {
			const DiLine *l = lines.data[j];
			if (want >= 0 && l->src.line != want)
				continue;
			/* its own lines, not those of a function inlined
			 * into it from above it in the file (as stap) */
			if (l->src.line < f->decl.line)
				continue;
			made++;
			/* stap names a .nearest point by the line asked for */
			int shown = nearest && lo == hi ? lo : l->src.line;
			const char *file = l->src.file ? l->src.file : f->decl.file;
			const char *arg = as_function ? function_text(f)
				: xsprintf("%s@%s:%d", f->name, file ? file : "?", shown);
			make_point(r, point_named(r, r->pp, arg), f, l->pc);
		}
		if (made || as_function || nearest || lo != hi)
			continue;
		/* "did you mean": the lines near it that have code */
		Vec near = di_function_lines(f, lo > 10 ? lo - 10 : 0, hi + 10);
		const char *want_text = comp_str(r->pp->comps.data[r->fi]);
		for (int j = 0; j < near.len; j++) {
			const DiLine *l = near.data[j];
			if (l->src.line < f->decl.line)
				continue;
			const char *file = l->src.file ? l->src.file : f->decl.file;
			const char *c = xsprintf("%s@%s:%d", f->name, file ? file : "?",
						 l->src.line);
			family_near_miss(r->pp, r->fi, want_text, c, c);
		}
	}
}

static int cmp_line_pc(const void *a, const void *b)
{
	const DiLine *x = *(const DiLine *const *)a;
	const DiLine *y = *(const DiLine *const *)b;
	if (x->pc != y->pc)
		return x->pc < y->pc ? -1 : 1;
	return x->src.line - y->src.line;
}

static int cmp_func_name_inline(const void *a, const void *b)
{
	const DiFunction *x = *(const DiFunction *const *)a;
	const DiFunction *y = *(const DiFunction *const *)b;
	int c = strcmp(x->name, y->name);
	if (c)
		return c;
	if (x->inlined != y->inlined)
		return x->inlined - y->inlined;
	return x->entry_pc < y->entry_pc ? -1 : x->entry_pc > y->entry_pc;
}

/* The functions a pattern stands for, with the suffixes' filters. */
static Vec matching_functions(Resolver *r, const FuncPattern *fp,
			      const PointKind *k, int *inline_only)
{
	bool want_inline = r->src == DI_SRC_DWARF && !k->call && !k->exported;
	Vec all = di_functions(r->module, fp->func, fp->file, want_inline);
	Vec fs = { 0 };
	const NameList *exp = k->exported ? kernel_exported_symbols(r->module) : NULL;
	/* the kernel's symbols leave out its init text, freed after boot */
	const NameList *syms = r->module ? NULL : kernel_function_symbols();
	int outs = 0, inls = 0;
	for (int i = 0; i < all.len; i++) {
		const DiFunction *f = all.data[i];
		if (blocked_function(f->name) ||
		    (syms && !f->inlined && !symbols_have_function(syms, f->name)))
			continue;
		if (f->inlined)
			inls++;
		else
			outs++;
		if (k->inl && !f->inlined)
			continue;
		if ((k->ret || k->callee || k->callees) && f->inlined)
			continue;
		if (f->decl.file && blocked_file_pattern(f->decl.file))
			continue;
		if (k->exported && !namelist_has(exp, f->name))
			continue;
		vec_push(&fs, (void *)f);
	}
	*inline_only = !outs && inls;
	/* a function's out-of-line copy before its inlined instances (what
	 * -L lists first) */
	if (fs.len > 1)
		vec_sort(&fs, cmp_func_name_inline);
	/* labels: of the out-of-line copy when there is one (as stap) */
	if (k->label) {
		int n = 0;
		for (int i = 0; i < fs.len; i++) {
			const DiFunction *f = fs.data[i];
			const DiFunction *first = n ? fs.data[n - 1] : NULL;
			if (f->inlined && first && !first->inlined &&
			    !strcmp(first->name, f->name))
				continue;
			fs.data[n++] = (void *)f;
		}
		fs.len = n;
	}
	return fs;
}

/* "Did you mean" for a function that matched nothing: the names the
 * debug information has. */
static void near_debug_functions(Resolver *r, const char *want)
{
	const NameList *syms = r->module ? NULL : kernel_function_symbols();
	if (syms) {             /* cheaper than every function's DWARF */
		near_functions(r->pp, r->fi, want, function_bases(syms));
		return;
	}
	const FuncTable *t = func_table(r->module);
	Vec names = { 0 };
	for (int i = 0; i < t->funcs.len; i++)
		vec_push(&names, (void *)((DiFunction *)t->funcs.data[i])->name);
	NameList l = { 0 };
	namelist_finish(&l, &names);
	near_functions(r->pp, r->fi, want, &l);
}

/* What a point asks for that BTF cannot give, or NULL. */
static const char *needs_dwarf(const FuncPattern *fp, const PointKind *k)
{
	if (k->stmt)
		return ".statement";
	if (fp->file)
		return "a source file (@FILE)";
	if (fp->line)
		return "a line number";
	if (k->inl)
		return ".inline";
	if (k->label)
		return ".label";
	if (k->callee)
		return ".callee";
	if (k->callees)
		return ".callees";
	return NULL;
}

static int resolve_debuginfo_in(const ProbeFamily *fam, ProbePoint *pp,
				const char *module, DiSource src, Vec *out)
{
	PointKind k = point_kind(pp);
	int fi = pp_comp_index(pp, k.stmt ? "statement" : "function");
	ProbePointComp *fc = pp->comps.data[fi];
	const char *text = comp_str(fc);
	Resolver r = {
		.fam = fam, .pp = pp, .fi = fi, .module = module, .src = src,
		.proto = { .module = module }, .out = out,
	};
	if (check_maxactive(pp, &r.proto) < 0)
		return -1;
	if (!*text) {
		error_at(fc->loc, _("empty function pattern"));
		return -1;
	}
	FuncPattern fp = split_pattern(text);
	if (!*fp.func)
		fp.func = "*";
	if (fp.file && blocked_file_pattern(fp.file))
		return 0;
	if (!arg_has_glob(fp.func) && blocked_function(fp.func))
		return 0;
	const char *need = src == DI_SRC_BTF ? needs_dwarf(&fp, &k) : NULL;
	if (need) {
		error_at(fc->loc, _("'%s' needs DWARF debuginfo (for %s), and %s has "
				    "only BTF, which gives a function's entry and "
				    "return: %s"),
			 pp_text(pp), need,
			 module ? xsprintf(_("module %s"), module) : _("the kernel"),
			 di_why_no_dwarf(module));
		return -1;
	}
	LineSpec ls;
	if (!parse_line_spec(fc, &fp, &ls))
		return -1;
	if (ls.given && (k.ret || k.label || k.callee || k.callees || k.inl ||
			 k.call || k.exported)) {
		error_at(fc->loc, _("a line number cannot be combined with .%s"),
			 k.ret ? "return" : k.label ? "label" : k.callee ? "callee"
			 : k.callees ? "callees" : k.inl ? "inline"
			 : k.call ? "call" : "exported");
		return -1;
	}
	if (k.exported && !kernel_exported_symbols(module)) {
		ProbePointComp *ec = pp_comp(pp, "exported");
		error_at(ec->loc, _(".exported needs the list of exported symbols: %s"),
			 kernel_exported_missing());
		return -1;
	}
	r.wildcard = arg_has_glob(fp.func) || (fp.file && arg_has_glob(fp.file)) ||
		     (k.label && arg_has_glob(comp_str(k.label))) || k.callees ||
		     (k.callee && arg_has_glob(comp_str(k.callee)));

	/* statement("*@FILE:LINES"): every function's code on those lines,
	 * one probe per address (the lowest line there names it; -l lists
	 * them all) */
	if (k.stmt && ls.given && !strcmp(fp.func, "*")) {
		Vec all = { 0 };
		for (int i = 0; i < ls.n; i++) {
			Vec lines = di_source_lines(module, fp.file, ls.r[i].lo,
						    ls.r[i].hi, k.nearest);
			for (int j = 0; j < lines.len; j++) {
				DiLine *l = lines.data[j];
				if (!l->func || blocked_function(l->func->name))
					continue;
				/* stap names a .nearest point by the line asked for */
				if (k.nearest && ls.r[i].lo == ls.r[i].hi) {
					DiLine *c = NEW(DiLine);
					*c = *l;
					c->src.line = ls.r[i].lo;
					l = c;
				}
				vec_push(&all, l);
			}
		}
		if (all.len > 1)
			vec_sort(&all, cmp_line_pc);
		for (int j = 0; j < all.len; j++) {
			const DiLine *l = all.data[j];
			/* -l lists every line, as stap */
			if (j && ((DiLine *)all.data[j - 1])->pc == l->pc &&
			    !sess.listing)
				continue;
			r.seen.len = 0;
			make_point(&r, point_named(&r, pp, xsprintf(
					"%s@%s:%d", l->func->name,
					l->src.file ? l->src.file : fp.file,
					l->src.line)), l->func, l->pc);
		}
	} else {
		int inline_only = 0;
		Vec fs = matching_functions(&r, &fp, &k, &inline_only);
		if (!fs.len && k.ret && inline_only) {
			error_at(fc->loc, _("'%s' matches only inlined functions, which "
					    "have no return of their own: .return cannot "
					    "probe them (probe the caller, or a .statement "
					    "after the inlined code)"), pp_text(pp));
			return -1;
		}
		/* a name only the symbol table has (an alias such as
		 * __x64_sys_getppid, code without DWARF): its entry by
		 * symbol, as without debug information */
		if (!fs.len && !arg_has_glob(fp.func) && !fp.file && !k.inl &&
		    !k.label && !k.callee && !k.callees && !k.stmt) {
			const NameList *syms = module ? module_function_symbols(module)
						      : kernel_function_symbols();
			if (syms && symbols_have_function(syms, fp.func))
				return resolve_symbols_in(fam, pp, module, syms, out);
		}
		if (!fs.len && !arg_has_glob(fp.func) && !k.inl && !k.exported)
			near_debug_functions(&r, fp.func);
		for (int i = 0; i < fs.len; i++) {
			const DiFunction *f = fs.data[i];
			r.seen.len = 0;
			if (k.stmt && ls.given) {
				statement_lines(&r, f, &ls, k.nearest, false);
			} else if (ls.given) {
				statement_lines(&r, f, &ls, false, true);
			} else if (k.label) {
				int li = pp_comp_index(pp, "label");
				Vec labels = di_function_labels(f, comp_str(k.label));
				for (int j = 0; j < labels.len; j++) {
					const DiLabel *l = labels.data[j];
					/* named by the label's line, as stap */
					const char *at = l->src.file && l->src.line > 0
						? xsprintf("%s@%s:%d", f->name, l->src.file,
							   l->src.line)
						: function_text(f);
					make_point(&r, pp_with_str(point_named(&r, pp, at),
								   li, l->name),
						   f, l->pc);
				}
			} else if (k.callee || k.callees) {
				ProbePointComp *cc = k.callee ? k.callee : k.callees;
				int ci = pp_comp_index(pp, k.callee ? "callee" : "callees");
				int depth = k.callees && cc->arg ? (int)comp_num(cc) : 1;
				if (depth < 1) {
					error_at(cc->loc, _(".callees(%d): the depth must be "
							    "1 or more"), depth);
					return -1;
				}
				callee_points(&r, f, k.callee ? comp_str(cc) : "*", depth,
					      ci, k.ret, k.call);
			} else if (k.stmt) {
				make_point(&r, point_named(&r, pp, function_text(f)),
					   f, f->entry_pc);
			} else {
				/* the entry itself, as stap: the DWARF location
				 * lists say where the parameters are there */
				make_point(&r, point_named(&r, pp, function_text(f)),
					   f, f->entry_pc);
			}
		}
	}
	if (!r.made && r.refused && !r.wildcard) {
		error_at(fc->loc, _("cannot place a probe for '%s': %s"), pp_text(pp),
			 r.why);
		return -1;
	}
	if (r.refused)
		verbose(1, "probes: %d of the points of '%s' left out: %s", r.refused,
			pp_text(pp), r.why);
	return r.made;
}

/* Resolve one function-like point of one module (NULL = kernel): from
 * its DWARF or BTF when it has them, else from its symbols. */
static int resolve_dwarf_in(const ProbeFamily *fam, ProbePoint *pp,
			    const char *module, const NameList *syms, Vec *out)
{
	ProbePointComp *sc = pp_comp(pp, "statement");
	if (sc && !comp_is_str(sc)) {
		int r = resolve_symbols_in(fam, pp, module, syms, out);
		ResolvedPoint *rp = r == 1 ? out->data[out->len - 1] : NULL;
		KernelPointData *d = rp ? rp->data : NULL;
		/* kernel.statement(ADDR): an address of the kernel's file,
		 * which follows the kernel where it is loaded */
		if (d && !module && !pp_has(pp, "absolute") &&
		    di_source(NULL) == DI_SRC_DWARF && kernel_anchor()) {
			d->pc = (uint64_t)d->address;
			d->kernel_anchor = kernel_anchor();
			rp->needs_debuginfo = false;
		}
		return r;
	}
	DiSource src = di_source(module);
	if (src == DI_SRC_NONE)
		return resolve_symbols_in(fam, pp, module, syms, out);
	return resolve_debuginfo_in(fam, pp, module, src, out);
}

static int resolve_kernel_dwarf(const ProbeFamily *fam, ProbePoint *pp,
				Vec *out)
{
	ProbePointComp *mc = pp_comp(pp, "module");
	if (!mc)
		return resolve_dwarf_in(fam, pp, NULL, kernel_function_symbols(), out);
	return resolve_each_module(fam, pp, mc, resolve_dwarf_in, out);
}

/* ---- pass 3 ----
 *
 * kprobes and kretprobes (kprobe.c): a point DWARF or BTF placed goes
 * where place_probe() said; one resolved by symbols only is a probe on
 * the function's entry, the same as kprobe.function, whose only
 * $variable is $return (kernel_function_ctx_expr(), from the
 * registers). */

/* True when pass 3 can place the point: DWARF or BTF placed it, or it
 * is a plain function name (symbols only: no source file or line, no
 * inline instances, labels or callees), or an absolute address. */
static bool placeable_point(const ResolvedPoint *rp)
{
	const KernelPointData *d = rp->data;
	static const char *const need_dwarf[] = {
		"statement", "inline", "label", "callee", "callees", NULL
	};
	if (!d)
		return false;
	if (d->difunc || d->kernel_anchor)
		return true;
	if (pp_has(rp->point, "absolute"))
		return true;
	if (!d->function || !*d->function || arg_has_glob(d->function) ||
	    strpbrk(d->function, "@:+"))
		return false;
	for (int i = 0; need_dwarf[i]; i++)
		if (pp_has(rp->point, need_dwarf[i]))
			return false;
	ProbePointComp *fc = pp_comp(rp->point, "function");
	return fc && comp_is_str(fc) && !strpbrk(comp_str(fc), "@:+*?[");
}

static bool emit_kernel_function_decls(Emitter *e, EmitProbe **probes, int n)
{
	bool ok = true;
	for (int i = 0; i < n; i++) {
		const ResolvedPoint *rp = probes[i]->rp;
		if (placeable_point(rp))
			continue;
		const KernelPointData *d = rp->data;
		ProbePoint *up = rp->point->from ? rp->point->from : rp->point;
		error_at(up->loc, _("'%s' cannot be translated: it needs the DWARF "
				    "debuginfo of %s, which tapc did not find (%s); "
				    "a kernel.function(\"NAME\") or "
				    "kprobe.function(\"NAME\") probe on the function's "
				    "entry works without it"),
			 pp_text(rp->point),
			 d && d->module ? d->module : "the kernel",
			 di_why_no_dwarf(d ? d->module : NULL));
		ok = false;
	}
	return ok && kprobe_emit_decls(e, probes, n);
}

static bool emit_kernel_function_code(Emitter *e, EmitProbe **probes, int n,
				      FamilyCode *out)
{
	return kprobe_emit_code_as(e, "kfunc", probes, n, out);
}

/* Without DWARF the only $variable is $return, from the registers. */
static const char *kernel_function_ctx_expr(const EmitProbe *ep,
					    const CtxVar *v, bool write)
{
	if (write || !ep->rp->is_return || strcmp(v->name, "return"))
		return NULL;
	return "((int64_t)regs_return_value(c->regs))";
}

static const char *const kernel_dwarf_shapes[] = {
	"{kernel|module(s)}.function(s)[.call|.exported|.return[.maxactive(n)]]",
	"{kernel|module(s)}.function(s).{inline|label(s)"
		"|callee(s)[.call|.return]|callees(n?)}",
	"{kernel|module(s)}.statement(s)[.nearest]",
	"kernel.statement(n)[.absolute]",
	NULL
};

/* An address in a module needs the module's load address. */
static const char *const kernel_dwarf_only_shapes[] = {
	"module(s).statement(n)",
	NULL
};

const ProbeFamily family_kernel_function = {
	.name = "kernel.function", .shapes = kernel_dwarf_shapes,
	.untranslatable_shapes = kernel_dwarf_only_shapes,
	.resolve = resolve_kernel_dwarf,
	.emit_decls = emit_kernel_function_decls,
	.emit_code = emit_kernel_function_code,
	.ctx_expr = kernel_function_ctx_expr,
	.supports_entry = kprobe_supports_entry,
};
