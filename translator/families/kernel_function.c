/* kernel.function, kernel.statement, module().function/statement:
 * probes on kernel code, resolved through the target's debug information
 * (debuginfo.h, di_*).
 *
 * With DWARF: functions and inlined instances by name and source file,
 * lines, labels, callees; each point carries its DiFunction and pc
 * (KernelPointData) for dvars.c, and is named by its source place as stap
 * names it.  With BTF: functions' entries and returns only; what needs
 * DWARF is a pass-2 error saying where tapc looked.  A symbol the DWARF
 * does not name that is another name of a DWARF function (an alias, as
 * __x64_sys_getppid of __do_sys_getppid) is that function, as stap has
 * it.  With neither (or code only the symbol table has): the symbol
 * tables, as kprobe.function does; such points are needs_debuginfo, and a
 * pattern with a @file or :line part stays as written.
 */
#include "emit_glue.h"
#include "dipoints.h"
#include "kprobe.h"
#include "arch/arch.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
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

/* ---- where a probe goes at run time ----
 *
 * In the kernel proper, at its file address plus the kernel's load
 * offset (KASLR), which the module learns from kfree's address (see
 * kprobe.c, kprobe_where): this places statements, inlined instances and
 * compiler clones ("foo.isra.0") whatever their symbols are.  In a
 * module, at the symbol of the out-of-line function that holds the
 * address plus the offset into it, which the kernel resolves when the
 * probe is registered ("ext4:ext4_file_read_iter" + 12). */

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
 * exported by every kernel, so the module can take its address).  It is
 * the symbol's address, which &kfree gives: on arm64 the DWARF's low_pc
 * is 8 bytes past it (after ftrace's two NOPs), and an anchor taken from
 * there put every probe 8 bytes early (on an autiasp, where a kprobe is
 * refused, or before the instruction a .statement names).  The DWARF's
 * low_pc only when the symbol table has no kfree. */
static uint64_t kernel_anchor(void)
{
	static uint64_t addr;
	static bool done;
	if (!done) {
		done = true;
		addr = di_symbol_addr(NULL, "kfree");
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
	/* an entry probe (and a .return's kretprobe, which must be there)
	 * where the function's symbol is: on arm64 ftrace's two NOPs lie
	 * between it and the DWARF's low_pc (pc stays the DWARF's: the
	 * $variables are read as there) */
	if (!f->inlined && pc == f->low_pc && src == DI_SRC_DWARF &&
	    di_function_start(module, f) != pc)
		d->place_pc = di_function_start(module, f);
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
		? dip_outer_function(module, pc) : f;
	if (!outer) {
		*why = xsprintf(_("no out-of-line function holds address 0x%llx"),
				(unsigned long long)pc);
		return false;
	}
	d->function = outer->name;
	d->offset = d->place_pc ? 0 : pc - di_function_start(module, outer);
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


/* ---- resolution through DWARF or BTF (dipoints.c) ---- */

static int kernel_filter(DiResolver *r, const DiFunction *f)
{
	/* the kernel's symbols leave out its init text, freed after boot */
	const NameList *syms = r->module ? NULL : kernel_function_symbols();
	if (blocked_function(f->name) ||
	    (syms && !f->inlined && !symbols_have_function(syms, f->name)))
		return DIP_DROP;
	if (f->decl.file && blocked_file_pattern(f->decl.file))
		return DIP_DROP_COUNTED;
	if (r->k.exported && !namelist_has(kernel_exported_symbols(r->module), f->name))
		return DIP_DROP_COUNTED;
	return DIP_KEEP;
}

/* "dentry_create+0x8c": where pc is, by the out-of-line function holding
 * it (its symbol's start), else the bare address. */
static const char *code_place(const char *module, uint64_t pc)
{
	const DiFunction *outer = dip_outer_function(module, pc);
	uint64_t start = di_symbol_start(module, pc);
	if (outer && start && start <= pc)
		return xsprintf("%s+0x%llx", outer->name,
				(unsigned long long)(pc - start));
	return xsprintf("0x%llx", (unsigned long long)pc);
}

/* Whether pc (an address of the kernel's debug information) is in its init
 * text, which the kernel frees after boot and where it takes no probe:
 * the copies of a function inlined into __init code.  As stap, they are
 * left out. */
static bool in_kernel_init_text(uint64_t pc)
{
	static bool known;
	static uint64_t lo, hi;
	if (!known) {
		known = true;
		lo = di_any_symbol_addr(NULL, "_sinittext");
		hi = di_any_symbol_addr(NULL, "_einittext");
		if (!lo || hi <= lo)
			lo = hi = 0;
	}
	return pc >= lo && pc < hi;
}

/* Why the target's kernel would refuse a kprobe at pc (an address of the
 * debug information's file, where f's probe goes), by the architecture's
 * rules over the instructions there and before it; NULL when it would
 * take it, or when the file does not hold the code. */
static const char *kprobe_refused_at(const char *module, const DiFunction *f,
				     uint64_t pc)
{
	const Arch *a = arch_target();
	if (!a->kprobe_refusal)
		return NULL;
	uint64_t start = di_symbol_start(module, pc);
	size_t before = start && start <= pc ? pc - start : 0;
	if (before > a->kprobe_lookback)
		before = a->kprobe_lookback;
	unsigned char *code = xalloc(before + 4);
	if (!di_read_code(module, pc - before, code, before + 4))
		return NULL;
	size_t culprit = before;
	const char *no = a->kprobe_refusal(code, before, &culprit);
	if (!no)
		return NULL;
	const char *where = code_place(module, pc);
	if (f->inlined)
		where = xsprintf(_("%s (%s inlined there)"), where, f->name);
	if (culprit == before)
		return xsprintf("%s: %s", where, no);
	return xsprintf(_("%s: %s (the instruction at %s)"), where, no,
			code_place(module, pc - before + culprit));
}

static void *kernel_place(DiResolver *r, const DiFunction *f, uint64_t pc,
			  const char **why)
{
	KernelPointData *d = NEW(KernelPointData);
	*d = *(const KernelPointData *)r->ctx;
	if (!place_probe(r->module, r->src, f, pc, d, why))
		return NULL;
	/* a place register_kprobe() would refuse with -EINVAL, which would
	 * fail the whole module at run time: left out here, with a warning
	 * (no later instruction is sure to mean the same: past an inlined
	 * instance's entry its callee may already have run) */
	if (r->src == DI_SRC_DWARF) {
		uint64_t at = d->place_pc ? d->place_pc : pc;
		/* left out without a warning, as stap leaves it out */
		if (!r->module && in_kernel_init_text(at)) {
			*why = xsprintf(_("%s is in the kernel's init text, which is freed after boot"),
					code_place(NULL, at));
			return NULL;
		}
		const char *no = kprobe_refused_at(r->module, f, at);
		if (no) {
			*why = no;
			r->warn_refusal = true;
			return NULL;
		}
	}
	return d;
}

static const char *kernel_callee_refused(DiResolver *r, const DiCallSite *cs)
{
	(void)cs;
	return r->module ? _("an out-of-line callee of a module function "
			     "cannot be told apart from its other callers yet") : NULL;
}

static void kernel_callee_placed(void *data, const DiCallSite *cs)
{
	((KernelPointData *)data)->caller_ret = cs->pc;
}

/* "Did you mean": the symbol table is cheaper than every function's
 * DWARF. */
static void kernel_near(DiResolver *r, const char *want)
{
	const NameList *syms = r->module ? NULL : kernel_function_symbols();
	near_functions(r->pp, r->fi, want, syms ? function_bases(syms)
					     : dip_function_names(r->module));
}

/* The symbol table of the file that holds the kernel's DWARF (its
 * vmlinux), or NULL: the other names of DWARF functions are there. */
static const ObjectFacts *kernel_dwarf_symtab(DiResolver *r)
{
	if (r->module || r->src != DI_SRC_DWARF)
		return NULL;
	const DiModule *m = di_module(NULL);
	const ObjectFacts *of = m && m->debug_path ? object_facts(m->debug_path) : NULL;
	return of && of->has_symtab ? of : NULL;
}

/* The DWARF function a symbol the DWARF does not name is another name of
 * (SYSCALL_DEFINE0 makes __x64_sys_getppid an alias of __do_sys_getppid):
 * the out-of-line function whose entry is the symbol's address, as stap
 * finds it; NULL when there is none or the point leaves it out.  table:
 * look it up in dipoints' table of every function (for many symbols),
 * else in the DWARF of the address's compilation unit. */
static const DiFunction *kernel_alias_function(DiResolver *r, const ObjSym *sym,
					       bool table)
{
	const DiFunction *f = table ? dip_outer_function(NULL, sym->addr)
				    : di_function_at(NULL, sym->addr);
	if (!f || f->inlined || f->entry_pc != sym->addr || r->k.exported)
		return NULL;
	return kernel_filter(r, f) == DIP_KEEP ? f : NULL;
}

/* A name only the symbol table has: the DWARF function it is another
 * name of, with its source place and variables; else (code without
 * DWARF) its entry by symbol, as without debug information. */
static int kernel_fallback(DiResolver *r)
{
	const ObjectFacts *of = r->k.inl ? NULL : kernel_dwarf_symtab(r);
	const ObjSym *sym = of ? object_symbol(of, r->fp.func) : NULL;
	const DiFunction *f = sym ? kernel_alias_function(r, sym, false) : NULL;
	if (f)
		return dip_function_point(r, f);
	const NameList *syms = r->module ? module_function_symbols(r->module)
					 : kernel_function_symbols();
	if (syms && symbols_have_function(syms, r->fp.func))
		return resolve_symbols_in(r->fam, r->pp, r->module, syms, r->out);
	return DIP_NO_FALLBACK;
}

/* Entry pcs kept as pointers in a Vec (uint64_t fits in uintptr_t on
 * the 64-bit hosts tapc runs on, as process_dwarf.c assumes too). */
static int cmp_pc(const void *a, const void *b)
{
	uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;
	return x < y ? -1 : x > y;
}

static bool pc_in(const Vec *sorted, uint64_t pc)
{
	uintptr_t key = (uintptr_t)pc;
	return sorted->len && bsearch(&key, sorted->data, sorted->len,
				      sizeof(void *), cmp_pc);
}

/* function("GLOB"): the DWARF functions its matching symbols are other
 * names of, too (__x64_sys_getpp* is __do_sys_getppid), each function
 * once, after the points the DWARF names made (from out[first]).  A
 * symbol at the entry of a function already probed is passed over before
 * any lookup, so "*" costs little more than before. */
static int kernel_alias_points(DiResolver *r, int first)
{
	const ObjectFacts *of = kernel_dwarf_symtab(r);
	if (!of)
		return 0;
	Vec made = { 0 };       /* entry pcs of the functions with a point */
	for (int i = first; i < r->out->len; i++) {
		const KernelPointData *d = ((ResolvedPoint *)r->out->data[i])->data;
		if (d && d->difunc)
			vec_push(&made, (void *)(uintptr_t)d->difunc->entry_pc);
	}
	qsort(made.data, made.len, sizeof(void *), cmp_pc);
	Vec cand = { 0 };       /* ObjSym *: symbols at no probed entry */
	for (int i = 0; i < of->syms.len; i++) {
		const ObjSym *sym = of->syms.data[i];
		if (sym->func && !strchr(sym->name, '.') &&
		    arg_glob_match(r->fp.func, sym->name) && !pc_in(&made, sym->addr))
			vec_push(&cand, (void *)sym);
	}
	int n = 0;
	for (int i = 0; i < cand.len; i++) {
		const ObjSym *sym = cand.data[i];
		const DiFunction *f = kernel_alias_function(r, sym, cand.len > 64);
		/* (a DWARF function's own name: the DWARF's match left it out) */
		if (!f || !strcmp(f->name, sym->name) || pc_in(&made, f->entry_pc))
			continue;
		vec_push(&made, (void *)(uintptr_t)f->entry_pc);
		qsort(made.data, made.len, sizeof(void *), cmp_pc);
		n += dip_function_point(r, f);
	}
	return n;
}

static const DiPointOps kernel_ops = {
	.place = kernel_place, .filter = kernel_filter,
	.blocked = blocked_function, .callee_refused = kernel_callee_refused,
	.callee_placed = kernel_callee_placed, .near = kernel_near,
	.fallback = kernel_fallback,
};

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
	KernelPointData proto = { .module = module };
	if (check_maxactive(pp, &proto) < 0)
		return -1;
	DiResolver r;
	if (!dip_init(&r, fam, pp, module, src, &kernel_ops, &proto, out))
		return -1;
	const FuncPattern fp = r.fp;
	ProbePointComp *fc = pp->comps.data[r.fi];
	if (fp.file && blocked_file_pattern(fp.file))
		return 0;
	if (!arg_has_glob(fp.func) && blocked_function(fp.func))
		return 0;
	const char *need = src == DI_SRC_BTF ? needs_dwarf(&fp, &r.k) : NULL;
	if (need) {
		error_at(fc->loc, _("'%s' needs DWARF debuginfo (for %s), and %s has "
				    "only BTF, which gives a function's entry and "
				    "return: %s"),
			 pp_text(pp), need,
			 module ? xsprintf(_("module %s"), module) : _("the kernel"),
			 di_why_no_dwarf(module));
		return -1;
	}
	if (r.k.exported && !kernel_exported_symbols(module)) {
		ProbePointComp *ec = pp_comp(pp, "exported");
		error_at(ec->loc, _(".exported needs the list of exported symbols: %s"),
			 kernel_exported_missing());
		return -1;
	}
	int first = out->len;
	int n = dip_resolve(&r);
	if (n >= 0 && arg_has_glob(fp.func) && !fp.file && !fp.line && !r.k.stmt &&
	    !r.k.inl && !r.k.label && !r.k.callee && !r.k.callees)
		n += kernel_alias_points(&r, first);
	return n;
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
			/* one place, which register_kprobe() would refuse */
			static const DiFunction none;
			const char *no = in_kernel_init_text(d->pc)
				? _("the address is in the kernel's init text, which is freed after boot")
				: kprobe_refused_at(NULL, &none, d->pc);
			if (no) {
				error_at(sc->loc, _("cannot place a probe for '%s': %s"),
					 pp_text(pp), no);
				return -1;
			}
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

/* Where rp's handler runs, when debug information says: the point its
 * resolution found (KernelPointData.difunc), else, for a plain
 * kernel.function("NAME") put on the symbol's entry, that function's
 * out-of-line copy at its entry. */
static bool kernel_function_debug_point(const ResolvedPoint *rp, DebugPoint *out)
{
	const KernelPointData *d = rp->data;
	if (!d)
		return false;
	*out = (DebugPoint){ .module = d->module };
	if (d->difunc) {
		out->func = d->difunc;
		out->pc = d->pc;
		out->at_entry = !d->difunc->inlined && (d->pc == d->difunc->entry_pc ||
						    d->pc == d->difunc->low_pc);
		return true;
	}
	if (!d->function || !*d->function || arg_has_glob(d->function) ||
	    strpbrk(d->function, "@:+") || pp_has(rp->point, "statement") ||
	    pp_has(rp->point, "inline") || pp_has(rp->point, "label") ||
	    pp_has(rp->point, "callee") || pp_has(rp->point, "callees"))
		return false;
	if (di_source(d->module) == DI_SRC_NONE)
		return false;
	Vec fs = di_functions(d->module, d->function, NULL, false);
	for (int i = 0; i < fs.len; i++) {
		const DiFunction *f = vec_get(&fs, i);
		if (f->inlined || strcmp(f->name, d->function))
			continue;
		out->func = f;
		out->pc = f->entry_pc;
		out->at_entry = true;
		return true;
	}
	return false;
}

/* family.h's kernel_function_of: the function DWARF placed the point in,
 * or, for an inlined instance (or a pc outside it), the out-of-line
 * function the pc is in. */
static bool kernel_function_of(const ResolvedPoint *rp, const char **module,
			       const DiFunction **func)
{
	const KernelPointData *d = rp->data;
	if (!d || !d->difunc)
		return false;
	const DiFunction *f = d->difunc;
	if (f->inlined || d->pc < f->low_pc || d->pc >= f->high_pc)
		f = di_function_at(d->module, d->pc);
	*module = d->module;
	*func = f;
	return true;
}

const ProbeFamily family_kernel_function = {
	.name = "kernel.function", .shapes = kernel_dwarf_shapes,
	.untranslatable_shapes = kernel_dwarf_only_shapes,
	.resolve = resolve_kernel_dwarf,
	.emit_decls = emit_kernel_function_decls,
	.emit_code = emit_kernel_function_code,
	.ctx_expr = kernel_function_ctx_expr,
	.supports_entry = kprobe_supports_entry,
	.debug_point = kernel_function_debug_point,
	.debug_vars_only = true,
	.kernel_function_of = kernel_function_of,
};

