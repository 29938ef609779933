/* dipoints.c - probe points resolved through debug information, for
 * every family whose points name code by function, file and line
 * (dipoints.h): the pattern and its suffixes, the functions, inlined
 * instances, lines, labels and callees they stand for, the points made
 * and named as stap names them, and the $variables -L lists.  Where a
 * probe goes at run time, and what a family leaves out, is the family's
 * (DiPointOps).
 */
#include "dipoints.h"

#include <limits.h>
#include <stdint.h>
#include <string.h>

FuncPattern split_pattern(const char *s)
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

/* ---- the out-of-line functions of a module, by address ---- */

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
const DiFunction *dip_outer_function(const char *module, uint64_t pc)
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

/* The $variables of a point, as stap lists them: those with a location
 * at pc, an inner block's shadowing an outer one's; at a .return point
 * $return and those of the function's entry (the values at entry), in
 * the order di_variables_at() gives them (stap's). */
static void add_ctx_vars(ResolvedPoint *rp, const DiFunction *f, uint64_t pc,
			 bool inner)
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
	 * locals that have a location at pc; a statement also the locals of
	 * the inner blocks that hold pc, innermost first (an inner one
	 * hiding an outer one of its name).  A function's point shows none
	 * of an inner block's (which $$vars and scripts still see). */
	rp->has_list_vars = true;
	if (rp->is_return && f->ret)
		vec_push(&rp->list_vars, (void *)xsprintf(" $return:%s",
							  di_type_text(f->ret)));
	int deepest = 0;
	for (int i = 0; inner && i < vars.len; i++) {
		const DiVariable *v = vars.data[i];
		if (v->block > deepest)
			deepest = v->block;
	}
	Vec shown = { 0 };
	for (int d = deepest; d >= 0; d--) {
		for (int i = 0; i < vars.len; i++) {
			const DiVariable *v = vars.data[i];
			if (!v->name || v->loc.kind == DI_LOC_NONE || v->block != d)
				continue;
			const char *n = intern(v->name);
			bool shadowed = false;
			for (int j = 0; j < shown.len && !shadowed; j++)
				shadowed = shown.data[j] == n;
			for (int j = i + 1; j < vars.len && !shadowed; j++) {
				const DiVariable *w = vars.data[j];
				shadowed = w->name && w->block == d && !strcmp(w->name, v->name);
			}
			if (shadowed)
				continue;
			vec_push(&shown, (void *)n);
			vec_push(&rp->list_vars, (void *)xsprintf(" $%s:%s", v->name,
								  di_type_text(v->type)));
		}
	}
}

static bool blocked(DiResolver *r, const char *name)
{
	return r->ops->blocked && r->ops->blocked(name);
}

static bool seen_pc(DiResolver *r, uint64_t pc)
{
	for (int i = 0; i < r->seen.len; i++)
		if ((uint64_t)(uintptr_t)r->seen.data[i] == pc)
			return true;
	vec_push(&r->seen, (void *)(uintptr_t)pc);
	return false;
}

/* The point pp with the function component's argument arg. */
static ProbePoint *point_named(DiResolver *r, ProbePoint *pp, const char *arg)
{
	return strcmp(arg, comp_str(pp->comps.data[r->fi]))
		? pp_with_str(pp, r->fi, arg) : pp;
}

/* One resolved point c at pc in f (an out-of-line function or an inlined
 * instance), once per pc of a function. */
static void *make_point(DiResolver *r, ProbePoint *c, const DiFunction *f,
			uint64_t pc)
{
	if (seen_pc(r, pc))
		return NULL;
	const char *why = NULL;
	void *d = r->ops->place(r, f, pc, &why);
	if (!d) {
		r->refused++;
		r->why = why;
		if (r->warn_refusal) {
			r->warned++;
			r->warn_why = why;
			r->warn_refusal = false;
		}
		return NULL;
	}
	ResolvedPoint *rp = rp_push(r->out, r->fam, c);
	rp->data = d;
	rp->needs_debuginfo = false;
	/* pass 2 reads the variables through difunc and pc (dvars.c);
	 * these are what -L lists */
	if (sess.listing_vars)
		add_ctx_vars(rp, f, pc, r->k.stmt);
	r->made++;
	return d;
}

/* Callee points of f: the functions it calls whose names match glob, to
 * depth levels (a callee's callees at 2).  An inlined callee is probed
 * where it begins in its caller; an out-of-line one on its entry, for
 * the calls that return to the caller's call site (the return address
 * the probe finds on the stack).  The points name their callee:
 * .callee("NAME@FILE:LINE"), also for .callees. */
static void callee_points(DiResolver *r, const DiFunction *f, const char *glob,
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
		if (!g || blocked(r, g->name) || (call && g->inlined))
			continue;
		if (g->inlined && ret) {
			r->refused++;
			r->why = _("an inlined callee has no return of its own");
			continue;
		}
		const char *no = NULL;
		if (!g->inlined && !g->high_pc)
			no = xsprintf(_("no DWARF definition of callee %s"), g->name);
		else if (!g->inlined && r->ops->callee_refused)
			no = r->ops->callee_refused(r, cs);
		if (no) {
			r->refused++;
			r->why = no;
			continue;
		}
		ProbePoint *c = pp_with_str(point_named(r, r->pp,
							function_text(cs->caller)),
					    ci, function_text(g));
		ProbePointComp *cn = c->comps.data[ci];
		cn->name = intern("callee");
		r->seen.len = 0;        /* one probe per call site */
		void *d = make_point(r, c, g, g->entry_pc);
		if (d && !g->inlined && r->ops->callee_placed)
			r->ops->callee_placed(d, cs);
	}
}

/* Statement points on the lines of f that the spec asks for. */
static void statement_lines(DiResolver *r, const DiFunction *f,
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
		if (made || as_function || nearest || lo != hi || !family_near_wanted(r->pp))
			continue;
		/* "did you mean": the lines near it that have code */
		Vec near = di_function_lines(f, lo > 10 ? lo - 10 : 0, hi + 10);
		const char *want_text = comp_str(r->pp->comps.data[r->fi]);
		for (int j = 0; j < near.len; j++) {
			const DiLine *l = near.data[j];
			if (l->src.line < f->decl.line)
				continue;
			/* the file as the point wrote it, when it names one */
			const char *file = r->fp.file && !arg_has_glob(r->fp.file) ? r->fp.file
				: l->src.file ? l->src.file : f->decl.file;
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
static Vec matching_functions(DiResolver *r, const FuncPattern *fp,
			      const PointKind *k, int *inline_only)
{
	bool want_inline = r->src == DI_SRC_DWARF && !k->call && !k->exported;
	Vec all = di_functions(r->module, fp->func, fp->file, want_inline);
	Vec fs = { 0 };
	int outs = 0, inls = 0;
	for (int i = 0; i < all.len; i++) {
		const DiFunction *f = all.data[i];
		int verdict = r->ops->filter ? r->ops->filter(r, f) : DIP_KEEP;
		if (verdict == DIP_DROP)
			continue;
		if (f->inlined)
			inls++;
		else
			outs++;
		if (verdict != DIP_KEEP)
			continue;
		if (k->inl && !f->inlined)
			continue;
		if ((k->ret || k->callee || k->callees) && f->inlined)
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

const NameList *dip_function_names(const char *module)
{
	static Vec from, to;
	const char *m = module ? intern(module) : NULL;
	for (int i = 0; i < from.len; i++)
		if (from.data[i] == m)
			return to.data[i];
	const FuncTable *t = func_table(module);
	Vec names = { 0 };
	for (int i = 0; i < t->funcs.len; i++)
		vec_push(&names, (void *)((DiFunction *)t->funcs.data[i])->name);
	NameList *l = NEW(NameList);
	namelist_finish(l, &names);
	vec_push(&from, (void *)m);
	vec_push(&to, l);
	return l;
}

/* "Did you mean" for a function that matched nothing: the names the
 * debug information has (or those the family offers). */
static void near_debug_functions(DiResolver *r, const char *want)
{
	if (!family_near_wanted(r->pp))
		return;
	if (r->ops->near) {
		r->ops->near(r, want);
		return;
	}
	const NameList *l = dip_function_names(r->module);
	for (int i = 0; i < l->len; i++)
		if (family_near_length(want, l->names[i]) && !blocked(r, l->names[i]))
			family_near_miss(r->pp, r->fi, want, l->names[i], l->names[i]);
}

bool dip_init(DiResolver *r, const ProbeFamily *fam, ProbePoint *pp,
	      const char *module, DiSource src, const DiPointOps *ops,
	      void *ctx, Vec *out)
{
	*r = (DiResolver){
		.fam = fam, .pp = pp, .module = module, .src = src, .ops = ops,
		.ctx = ctx, .out = out, .k = point_kind(pp),
	};
	r->fi = pp_comp_index(pp, r->k.stmt ? "statement" : "function");
	ProbePointComp *fc = pp->comps.data[r->fi];
	const char *text = comp_str(fc);
	if (!*text) {
		error_at(fc->loc, _("empty function pattern"));
		return false;
	}
	r->fp = split_pattern(text);
	if (!*r->fp.func)
		r->fp.func = "*";
	return true;
}

/* The probe address of f's entry. */
static uint64_t entry_probe_pc(DiResolver *r, const DiFunction *f)
{
	if (r->ops->after_prologue && !r->k.ret && !f->inlined)
		return di_probe_pc(f);
	return f->entry_pc;
}

int dip_function_point(DiResolver *r, const DiFunction *f)
{
	int before = r->made;
	r->seen.len = 0;
	make_point(r, point_named(r, r->pp, function_text(f)), f, entry_probe_pc(r, f));
	return r->made - before;
}

int dip_resolve(DiResolver *r)
{
	const PointKind k = r->k;
	const FuncPattern fp = r->fp;
	ProbePoint *pp = r->pp;
	ProbePointComp *fc = pp->comps.data[r->fi];
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
	r->wildcard = arg_has_glob(fp.func) || (fp.file && arg_has_glob(fp.file)) ||
		      (k.label && arg_has_glob(comp_str(k.label))) || k.callees ||
		      (k.callee && arg_has_glob(comp_str(k.callee)));

	/* statement("*@FILE:LINES"): every function's code on those lines,
	 * one probe per address (the lowest line there names it; -l lists
	 * them all) */
	if (k.stmt && ls.given && !strcmp(fp.func, "*")) {
		Vec all = { 0 };
		for (int i = 0; i < ls.n; i++) {
			Vec lines = di_source_lines(r->module, fp.file, ls.r[i].lo,
						    ls.r[i].hi, k.nearest);
			for (int j = 0; j < lines.len; j++) {
				DiLine *l = lines.data[j];
				if (!l->func || blocked(r, l->func->name))
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
			r->seen.len = 0;
			make_point(r, point_named(r, pp, xsprintf(
					"%s@%s:%d", l->func->name,
					l->src.file ? l->src.file : fp.file,
					l->src.line)), l->func, l->pc);
		}
	} else {
		int inline_only = 0;
		Vec fs = matching_functions(r, &fp, &k, &inline_only);
		if (!fs.len && k.ret && inline_only) {
			error_at(fc->loc, _("'%s' matches only inlined functions, which "
					    "have no return of their own: .return cannot "
					    "probe them (probe the caller, or a .statement "
					    "after the inlined code)"), pp_text(pp));
			return -1;
		}
		/* a name the debug information does not have: the family
		 * may know it otherwise (a symbol) */
		if (!fs.len && !arg_has_glob(fp.func) && !fp.file && !k.inl &&
		    !k.label && !k.callee && !k.callees && !k.stmt && r->ops->fallback) {
			int n = r->ops->fallback(r);
			if (n != DIP_NO_FALLBACK)
				return n;
		}
		/* (not for an optional point or an alternative: its miss is
		 * no error, and listing a module's functions costs) */
		if (!fs.len && !arg_has_glob(fp.func) && !k.inl && !k.exported &&
		    !pp->optional && !pp->sufficient)
			near_debug_functions(r, fp.func);
		for (int i = 0; i < fs.len; i++) {
			const DiFunction *f = fs.data[i];
			r->seen.len = 0;
			if (k.stmt && ls.given) {
				statement_lines(r, f, &ls, k.nearest, false);
			} else if (ls.given) {
				statement_lines(r, f, &ls, false, true);
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
					make_point(r, pp_with_str(point_named(r, pp, at),
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
				callee_points(r, f, k.callee ? comp_str(cc) : "*", depth,
					      ci, k.ret, k.call);
			} else {
				/* the entry (a .statement naming a function too);
				 * kernel code: the entry itself, as stap, whose
				 * DWARF location lists say where the parameters
				 * are there; user code: after the prologue */
				make_point(r, point_named(r, pp, function_text(f)),
					   f, entry_probe_pc(r, f));
			}
		}
	}
	if (!r->made && r->refused && !r->wildcard) {
		error_at(fc->loc, _("cannot place a probe for '%s': %s"), pp_text(pp),
			 r->why);
		return -1;
	}
	/* the kernel's refusals are not silent: the probe fires at fewer
	 * places than the debug information has */
	if (r->warned)
		warning_at(fc->loc, _("'%s': %d of its places left out, the "
				      "kernel would refuse them: %s"),
			   pp_text(pp), r->warned, r->warn_why);
	if (r->refused)
		verbose(1, "probes: %d of the points of '%s' left out: %s", r->refused,
			pp_text(pp), r->why);
	return r->made;
}
