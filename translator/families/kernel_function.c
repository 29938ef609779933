/* kernel_function.c - probes on kernel code by DWARF: kernel.function,
 * kernel.statement, module().function/statement.  The helpers the kprobe
 * family shares with it (blocked functions, maxactive, modules) are here
 * too (family.h).
 *
 * Without DWARF (not read in this pass yet) a DWARF point is checked
 * against the target's symbol table where one exists: a function that is
 * not there matches nothing, a wildcard expands to the functions that are.
 * Such points are needs_debuginfo: their $variables come later, from DWARF.
 * A pattern with a @file or :line part cannot be checked by symbols, so
 * it stays as written.
 */
#include "pointdata.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ResolvedPoint.data for the kernel families: KernelPointData. */

/* kretprobe instances are counted in a u16-sized field by old runtimes;
 * stay within that. */
#define MAX_MAXACTIVE 65535

int comp_index(ProbePoint *pp, const char *name)
{
	for (int i = 0; i < pp->comps.len; i++)
		if (!strcmp(((ProbePointComp *)pp->comps.data[i])->name, name))
			return i;
	return -1;
}

/* Functions no probe may be put on (they run where a probe would recurse
 * or fault), and source files whose functions are all off limits. */
static const char *const blocked_functions[] = {
	"do_IRQ", "common_interrupt", "do_page_fault", "exc_page_fault",
	"notifier_call_chain", "atomic_notifier_call_chain",
	"raw_notifier_call_chain", "notify_die", "__die", "die", "oops_begin",
	"do_nmi", "exc_nmi", "default_do_nmi", "do_int3", "exc_int3",
	"do_debug", "exc_debug", "native_load_idt", "native_set_debugreg",
	"native_get_debugreg", "preempt_schedule", "preempt_count_add",
	"preempt_count_sub", "kprobe_handler", "kprobe_exceptions_notify",
	"kretprobe_trampoline", "__kretprobe_trampoline",
	"trampoline_handler", "arch_rethook_trampoline",
};

static const char *const blocked_files[] = {
	"kprobes.c", "kprobes.h", "entry_64.S", "entry_32.S", "nmi.c",
};

bool blocked_function(const char *name)
{
	if (!strncmp(name, "__pfx_", 6) || !strncmp(name, "__cfi_", 6) ||
	    !strncmp(name, "_kbl_addr_", 10))
		return true;
	for (size_t i = 0; i < sizeof blocked_functions / sizeof blocked_functions[0]; i++)
		if (!strcmp(name, blocked_functions[i]))
			return true;
	return false;
}

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

int check_maxactive(ProbePoint *pp, KernelPointData *d)
{
	ProbePointComp *m = pp_comp(pp, "maxactive");
	d->maxactive = -1;
	if (!m)
		return 0;
	if (comp_num(m) < 0 || comp_num(m) > MAX_MAXACTIVE) {
		error_at(m->loc, _("maxactive(%lld) is out of range (0 to %d)"),
			 (long long)comp_num(m), MAX_MAXACTIVE);
		return -1;
	}
	d->maxactive = comp_num(m);
	return 0;
}

int need_guru(ProbePoint *pp, const char *what)
{
	if (sess.guru)
		return 0;
	ProbePointComp *c = pp_comp(pp, "absolute");
	error_at(c ? c->loc : pp->loc, _("%s probes need guru mode (-g)"), what);
	return -1;
}

/* Module names the pattern stands for; *unknown set when the target's
 * modules cannot be listed.  An out-of-tree module is a path to a .ko. */
Vec expand_modules(ProbePointComp *mc, bool *unknown, int *err)
{
	Vec out = { 0 };
	const char *pat = comp_str(mc);
	*unknown = false;
	*err = 0;
	if (!*pat) {
		error_at(mc->loc, _("module name must not be empty"));
		*err = -1;
		return out;
	}
	if (strchr(pat, '/')) {
		if (access(pat, R_OK) == 0)
			vec_push(&out, (void *)pat);
		return out;
	}
	const NameList *mods = kernel_module_names();
	if (!mods) {
		*unknown = true;
		vec_push(&out, (void *)pat);
		return out;
	}
	char *norm = xstrdup(pat);
	for (char *p = norm; *p; p++)
		if (*p == '-')
			*p = '_';
	if (norm[strlen(norm) > 3 ? strlen(norm) - 3 : 0] == '.' &&
	    !strcmp(norm + strlen(norm) - 3, ".ko"))
		norm[strlen(norm) - 3] = 0;
	for (int i = 0; i < mods->len; i++)
		if (arg_glob_match(norm, mods->names[i]))
			vec_push(&out, (void *)mods->names[i]);
	return out;
}

/* ---- kernel.function / module().function / .statement ---- */

/* Resolve one function-like point of one module (NULL = kernel). */
static int resolve_dwarf_in(const ProbeFamily *fam, ProbePoint *pp,
			    const char *module, const NameList *syms, Vec *out)
{
	bool is_stmt = pp_has(pp, "statement");
	int fi = comp_index(pp, is_stmt ? "statement" : "function");
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
	for (int i = 0; i < names.len; i++) {
		const char *f = names.data[i];
		ProbePoint *c = strcmp(f, text) ? pp_with_str(pp, fi, f) : pp;
		KernelPointData *d = NEW(KernelPointData);
		*d = proto;
		d->function = f;
		ResolvedPoint *rp = rp_push(out, fam, c);
		rp->data = d;
		rp->needs_debuginfo = true;
	}
	return names.len;
}

static int resolve_kernel_dwarf(const ProbeFamily *fam, ProbePoint *pp,
				Vec *out)
{
	ProbePointComp *mc = pp_comp(pp, "module");
	if (!mc)
		return resolve_dwarf_in(fam, pp, NULL, kernel_function_symbols(), out);
	bool unknown;
	int err;
	Vec mods = expand_modules(mc, &unknown, &err);
	if (err)
		return err;
	int total = 0, mi = comp_index(pp, "module");
	for (int i = 0; i < mods.len; i++) {
		const char *m = mods.data[i];
		ProbePoint *c = strcmp(m, comp_str(mc)) ? pp_with_str(pp, mi, m) : pp;
		const NameList *syms = unknown ? NULL : module_function_symbols(m);
		int r = resolve_dwarf_in(fam, c, m, syms, out);
		if (r < 0)
			return -1;
		total += r;
	}
	return total;
}

static const char *const kernel_dwarf_shapes[] = {
	"{kernel|module(s)}.function(s)[.call|.exported|.inline|.label(s)"
		"|.return[.maxactive(n)]|.callee(s)[.call|.return]|.callees(n?)]",
	"{kernel|module(s)}.{statement(s)[.nearest]|statement(n)}",
	"kernel.statement(n).absolute",
	NULL
};

const ProbeFamily family_kernel_dwarf = {
	"kernel.function", kernel_dwarf_shapes, resolve_kernel_dwarf
};
