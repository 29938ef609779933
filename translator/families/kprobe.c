/* kprobe.c - symbol-table probes, no DWARF: kprobe.function("SYM"),
 * kprobe.module("M").function("SYM"), kprobe.statement(ADDR).absolute. */
#include "pointdata.h"

#include <string.h>

/* ResolvedPoint.data: KernelPointData. */

static int resolve_kprobe_in(const ProbeFamily *fam, ProbePoint *pp,
			     const char *module, Vec *out)
{
	int fi = comp_index(pp, "function");
	ProbePointComp *fc = pp->comps.data[fi];
	const char *sym = comp_str(fc);
	KernelPointData proto = { .module = module };
	if (check_maxactive(pp, &proto) < 0)
		return -1;
	if (!*sym) {
		error_at(fc->loc, _("kprobe.function needs a symbol name"));
		return -1;
	}
	const NameList *syms = module ? module_function_symbols(module)
				      : kernel_function_symbols();
	Vec names = { 0 };
	bool unchecked = false;
	if (!syms) {
		if (arg_has_glob(sym))
			return 0;       /* nothing to expand against */
		unchecked = true;
		vec_push(&names, (void *)sym);
	} else if (arg_has_glob(sym)) {
		for (int i = 0; i < syms->len; i++)
			if (!blocked_function(syms->names[i]) &&
			    arg_glob_match(sym, syms->names[i]))
				vec_push(&names, (void *)syms->names[i]);
	} else if (namelist_has(syms, sym) && !blocked_function(sym)) {
		vec_push(&names, (void *)sym);
	}
	for (int i = 0; i < names.len; i++) {
		const char *f = names.data[i];
		ProbePoint *c = strcmp(f, sym) ? pp_with_str(pp, fi, f) : pp;
		KernelPointData *d = NEW(KernelPointData);
		*d = proto;
		d->function = f;
		ResolvedPoint *rp = rp_push(out, fam, c);
		rp->data = d;
		rp->needs_debuginfo = unchecked;
	}
	return names.len;
}

static int resolve_kprobe(const ProbeFamily *fam, ProbePoint *pp, Vec *out)
{
	if (pp_has(pp, "statement")) {
		if (need_guru(pp, "kprobe.statement(...).absolute") < 0)
			return -1;
		KernelPointData *d = NEW(KernelPointData);
		d->address = comp_num(pp_comp(pp, "statement"));
		d->maxactive = -1;
		ResolvedPoint *rp = rp_push(out, fam, pp);
		rp->data = d;
		return 1;
	}
	ProbePointComp *mc = pp_comp(pp, "module");
	if (!mc)
		return resolve_kprobe_in(fam, pp, NULL, out);
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
		int r;
		if (syms) {
			r = resolve_kprobe_in(fam, c, m, out);
		} else {
			/* Not loaded (or unknown): the symbol is checked
			 * when the module is. */
			ProbePointComp *fc = pp_comp(c, "function");
			if (arg_has_glob(comp_str(fc)))
				continue;
			KernelPointData *d = NEW(KernelPointData);
			if (check_maxactive(c, d) < 0)
				return -1;
			d->module = m;
			d->function = comp_str(fc);
			ResolvedPoint *rp = rp_push(out, fam, c);
			rp->data = d;
			rp->needs_debuginfo = true;
			r = 1;
		}
		if (r < 0)
			return -1;
		total += r;
	}
	return total;
}

static const char *const kprobe_shapes[] = {
	"kprobe.[module(s)].function(s)[.call|.return[.maxactive(n)]]",
	"kprobe.statement(n).absolute",
	NULL
};

const ProbeFamily family_kprobe = { "kprobe", kprobe_shapes, resolve_kprobe };
