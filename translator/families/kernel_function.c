/* kernel_function.c - probes on kernel code by DWARF: kernel.function,
 * kernel.statement, module().function/statement.
 *
 * Without DWARF (not read in this pass yet) a DWARF point is checked
 * against the target's symbol table where one exists: a function that is
 * not there matches nothing, a wildcard expands to the functions that are.
 * Such points are needs_debuginfo: their $variables come later, from DWARF.
 * A pattern with a @file or :line part cannot be checked by symbols, so
 * it stays as written.
 */
#include "emit_glue.h"
#include "kprobe.h"

#include <string.h>

/* ResolvedPoint.data: KernelPointData (kprobe.h), as pass 3 puts these
 * probes on kprobes (kprobe.c) while tapc reads no DWARF. */

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

/* Resolve one function-like point of one module (NULL = kernel). */
static int resolve_dwarf_in(const ProbeFamily *fam, ProbePoint *pp,
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

static int resolve_kernel_dwarf(const ProbeFamily *fam, ProbePoint *pp,
				Vec *out)
{
	ProbePointComp *mc = pp_comp(pp, "module");
	if (!mc)
		return resolve_dwarf_in(fam, pp, NULL, kernel_function_symbols(), out);
	return resolve_each_module(fam, pp, mc, resolve_dwarf_in, out);
}

/* ---- pass 3: kernel.function without DWARF ----
 *
 * The same probes as kprobe.function on the function's entry, without
 * $variables (kernel_function_ctx_expr() gives $return from the registers
 * for .return points). */

/* A kernel.function point a kprobe on the function's entry can stand
 * for: a plain function name, no source file or line, no inline
 * instances, labels or callees. */
static bool plain_function_point(const ResolvedPoint *rp)
{
	const KernelPointData *d = rp->data;
	static const char *const need_dwarf[] = {
		"statement", "inline", "label", "callee", "callees", NULL
	};
	if (!d || !d->function || !*d->function || arg_has_glob(d->function) ||
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
		if (plain_function_point(rp))
			continue;
		ProbePoint *up = rp->point->from ? rp->point->from : rp->point;
		error_at(up->loc, _("'%s' cannot be translated yet: it needs the "
				    "kernel's DWARF debuginfo, which tapc does not read; "
				    "a kernel.function(\"NAME\") or "
				    "kprobe.function(\"NAME\") probe on the function's "
				    "entry works without it"),
			 pp_text(rp->point));
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
	NULL
};

/* What needs DWARF to be put on a kprobe (plain_function_point). */
static const char *const kernel_dwarf_only_shapes[] = {
	"{kernel|module(s)}.function(s).{inline|label(s)"
		"|callee(s)[.call|.return]|callees(n?)}",
	"{kernel|module(s)}.{statement(s)[.nearest]|statement(n)}",
	"kernel.statement(n).absolute",
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
