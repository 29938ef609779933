/* kprobe.c - symbol-table probes, no DWARF: kprobe.function("SYM"),
 * kprobe.module("M").function("SYM"), kprobe.statement(ADDR).absolute.
 * kernel_function.c builds on it (kprobe.h).
 */
#include "emit_glue.h"
#include "kprobe.h"

#include <stdlib.h>
#include <string.h>

/* ResolvedPoint.data: KernelPointData (kprobe.h). */

/* kretprobe instances are counted in a u16-sized field by old runtimes;
 * stay within that. */
#define MAX_MAXACTIVE 65535

/* Functions no probe may be put on (they run where a probe would recurse
 * or fault). */
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

static int cmp_name_ptr(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Module names the pattern stands for; *unknown set when the target's
 * modules cannot be listed; *err -1 after an error.  An out-of-tree
 * module is a path to a .ko. */
static Vec expand_modules(ProbePointComp *mc, bool *unknown, int *err)
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
		if (kernel_module_file_readable(pat))
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
	if (!arg_has_glob(norm)) {      /* a plain name: one lookup */
		const char *const *hit = !mods->len ? NULL :
			bsearch(&norm, mods->names, mods->len, sizeof *mods->names,
				cmp_name_ptr);
		if (hit)
			vec_push(&out, (void *)*hit);
		return out;
	}
	for (int i = 0; i < mods->len; i++)
		if (arg_glob_match(norm, mods->names[i]))
			vec_push(&out, (void *)mods->names[i]);
	return out;
}

/* "Did you mean": the target's modules for a module("NAME") that matched
 * none. */
static void near_modules(ProbePoint *pp)
{
	int mi = pp_comp_index(pp, "module");
	const char *want = comp_str(pp->comps.data[mi]);
	const NameList *mods = kernel_module_names();
	if (!mods || arg_has_glob(want) || strchr(want, '/') || !family_near_wanted(pp))
		return;
	for (int i = 0; i < mods->len; i++)
		family_near_miss(pp, mi, want, mods->names[i], mods->names[i]);
}

void near_functions(ProbePoint *pp, int fi, const char *want, const NameList *l)
{
	/* Nobody reads an optional point's suggestions, nor those of a point
	   a wildcard made up; the search costs ~30 ms per point (the syscall
	   tapsets hold a hundred optional ones). */
	if (!family_near_wanted(pp))
		return;
	for (int i = 0; i < l->len; i++)
		if (family_near_length(want, l->names[i]) && !blocked_function(l->names[i]))
			family_near_miss(pp, fi, want, l->names[i], l->names[i]);
}

static int resolve_kprobe_in(const ProbeFamily *fam, ProbePoint *pp,
			     const char *module, Vec *out)
{
	int fi = pp_comp_index(pp, "function");
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
		if (arg_has_glob(sym)) {
			if (sess.listing)
				family_cannot_list(fc->loc, sym,
						   kernel_symbols_missing(module));
			return 0;       /* nothing to expand against */
		}
		unchecked = true;
		vec_push(&names, (void *)sym);
	} else if (arg_has_glob(sym)) {
		for (int i = 0; i < syms->len; i++)
			if (!blocked_function(syms->names[i]) &&
			    arg_glob_match(sym, syms->names[i]))
				vec_push(&names, (void *)syms->names[i]);
	} else if (namelist_has(syms, sym) && !blocked_function(sym)) {
		vec_push(&names, (void *)sym);
	} else {
		near_functions(pp, fi, sym, syms);
	}
	return push_function_points(fam, pp, fi, sym, &names, &proto, unchecked, out);
}

int push_function_points(const ProbeFamily *fam, ProbePoint *pp, int fi,
			 const char *text, const Vec *names,
			 const KernelPointData *proto, bool needs_debuginfo,
			 Vec *out)
{
	for (int i = 0; i < names->len; i++) {
		const char *f = names->data[i];
		ProbePoint *c = strcmp(f, text) ? pp_with_str(pp, fi, f) : pp;
		KernelPointData *d = NEW(KernelPointData);
		*d = *proto;
		d->function = f;
		ResolvedPoint *rp = rp_push(out, fam, c);
		rp->data = d;
		rp->needs_debuginfo = needs_debuginfo;
	}
	return names->len;
}

/* One module of a module("...").function point: its symbols checked when
 * they can be read; otherwise (not loaded, or unknown) the symbol is
 * checked when the module is, so a wildcard has nothing to expand to. */
static int resolve_kprobe_module(const ProbeFamily *fam, ProbePoint *c,
				 const char *m, const NameList *syms, Vec *out)
{
	if (syms)
		return resolve_kprobe_in(fam, c, m, out);
	ProbePointComp *fc = pp_comp(c, "function");
	if (arg_has_glob(comp_str(fc)))
		return 0;
	KernelPointData *d = NEW(KernelPointData);
	if (check_maxactive(c, d) < 0)
		return -1;
	d->module = m;
	d->function = comp_str(fc);
	ResolvedPoint *rp = rp_push(out, fam, c);
	rp->data = d;
	rp->needs_debuginfo = true;
	return 1;
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
	return resolve_each_module(fam, pp, mc, resolve_kprobe_module, out);
}

int resolve_each_module(const ProbeFamily *fam, ProbePoint *pp,
			ProbePointComp *mc, ModuleResolver each, Vec *out)
{
	bool unknown;
	int err;
	Vec mods = expand_modules(mc, &unknown, &err);
	if (err)
		return err;
	if (!mods.len)
		near_modules(pp);
	int total = 0, mi = pp_comp_index(pp, "module");
	for (int i = 0; i < mods.len; i++) {
		const char *m = mods.data[i];
		ProbePoint *c = strcmp(m, comp_str(mc)) ? pp_with_str(pp, mi, m) : pp;
		const NameList *syms = unknown ? NULL : module_function_symbols(m);
		int r = each(fam, c, m, syms, out);
		if (r < 0)
			return -1;
		total += r;
	}
	return total;
}

/* ---- pass 3 ----
 *
 * Callbacks and the tables of runtime/families/kprobe.c, for this family
 * and for kernel.function/statement (kernel_function.c), whose DWARF and
 * BTF probes are kprobes too.
 *
 * An entry probe is a kprobe on the symbol ("m:f" for a module's
 * function, which the kernel resolves when the probe is registered).  A
 * return probe is a kretprobe: its entry handler saves the stack pointer
 * (CONTEXT->entry_sp) and, when the body uses @entry, runs the saver
 * pass 3 wrote (tape_N) into the instance's data, which the return
 * handler hands to the body as pdata.
 */

bool kprobe_supports_entry(const ResolvedPoint *rp)
{
	return rp->is_return;
}

/* The kernel's struct kprobe fields that say where: symbol (and offset
 * into it) or address.  A point placed by kernel address has none: its
 * table entry's file_addr and anchor (kprobe_where_run) set the address
 * when it is registered. */
static const char *kprobe_where(const KernelPointData *d)
{
	if (d->kernel_anchor)
		return "";
	if (!d->function)
		return xsprintf(".addr = (kprobe_opcode_t *)0x%llxUL, ",
				(unsigned long long)d->address);
	const char *sym = d->module ? xsprintf("%s:%s", d->module, d->function)
				    : d->function;
	if (d->offset)
		return xsprintf(".symbol_name = %s, .offset = 0x%llx, ", c_string(sym),
				(unsigned long long)d->offset);
	return xsprintf(".symbol_name = %s, ", c_string(sym));
}

/* The table entry's fields that place a probe by kernel address. */
static const char *kprobe_where_run(const KernelPointData *d)
{
	if (!d->kernel_anchor)
		return "";
	return xsprintf(" .file_addr = 0x%llxUL, .anchor = 0x%llxUL,",
			(unsigned long long)(d->place_pc ? d->place_pc : d->pc),
			(unsigned long long)d->kernel_anchor);
}

/* The body's call and the exit, shared by every callback. */
static void emit_run_body(Emitter *e, const EmitProbe *ep, const char *pdata)
{
	emit(e, "\t%s(c, %s);", ep->body_fn, pdata);
	emit(e, "\ttap_context_exit(c);");
}

static void emit_enter(Emitter *e, const EmitProbe *ep, const char *fail)
{
	emit(e, "\tc = tap_context_enter(%s, TAP_STATE_RUNNING);", ep->pp);
	emit(e, "\tif (!c)");
	emit(e, "\t\treturn%s%s;", *fail ? " " : "", fail);
}

/* A .callee probe on an out-of-line callee's entry runs only for the
 * calls from its caller's call site: the return address on the stack
 * (or kept by a kretprobe at the same address) is that site's. */
static void emit_caller_check(Emitter *e, const EmitProbe *ep, const char *fail)
{
	const KernelPointData *d = ep->rp->data;
	if (!d || !d->caller_ret)
		return;
	emit(e, "\tif (_tap_entry_return_address(regs) !=");
	emit(e, "\t    _tap_kaddr(0x%llxUL, 0x%llxUL))",
	     (unsigned long long)d->caller_ret, (unsigned long long)d->kernel_anchor);
	emit(e, "\t\treturn %s;", fail);
}

/* x86 hands a kprobe handler the registers as after the breakpoint, ip one
 * past the probed address; the body sees the probed address itself (as
 * addr(), probefunc() and backtraces expect) while it runs. */
static void emit_kprobe_callback(Emitter *e, const EmitProbe *ep)
{
	emit(e, "static int tapk_%d(struct kprobe *kp, struct pt_regs *regs)",
	     ep->index);
	emit(e, "{");
	emit(e, "\tunsigned long ip = instruction_pointer(regs);");
	emit(e, "\tstruct tap_context *c;");
	emit_blank(e);
	emit_caller_check(e, ep, "0");
	emit_enter(e, ep, "0");
	emit_context_fill(e, "regs", "kprobe", false);
	emit(e, "\tinstruction_pointer_set(regs, (unsigned long)kp->addr);");
	emit(e, "\t%s(c, NULL);", ep->body_fn);
	emit(e, "\tinstruction_pointer_set(regs, ip);");
	emit(e, "\ttap_context_exit(c);");
	emit(e, "\treturn 0;");
	emit(e, "}");
	emit_blank(e);
}

/* Whether a return probe does anything at its function's entry: save its
 * @entry values, or check its caller (.callee).  One that does not has no
 * entry callback at all, and no instance data: the kernel hooks the
 * return without calling into the module, and the return handler works
 * out CONTEXT->entry_sp from the stack pointer there. */
static bool kret_has_entry(const EmitProbe *ep)
{
	const KernelPointData *d = ep->rp->data;
	return ep->entry_fn || (d && d->caller_ret);
}

/* The instance data of a return probe: the entry stack pointer, then the
 * @entry values when there are any. */
static const char *kret_data_type(const EmitProbe *ep)
{
	return ep->entry_fn ? xsprintf("struct tap_kret_%d", ep->index)
			    : "struct _tap_kret_data";
}

/* The entry function of a return probe that has one (kret_has_entry),
 * and its instance data's type for @entry. */
static void emit_kret_entry(Emitter *e, const EmitProbe *ep, const char *dt)
{
	int n = ep->index;

	if (ep->entry_fn) {
		emit(e, "%s {", dt);
		emit(e, "\tunsigned long entry_sp;");
		emit(e, "\t%s entry;", ep->entry_type);
		emit(e, "};");
		emit_blank(e);
	}

	/* Entry: without @entry only the stack pointer; with it, a
	 * handler that could not save the values (busy, not running, an
	 * error) makes the runtime skip this call's return. */
	emit(e, "static int tapke_%d(struct _tap_kretprobe *k, struct pt_regs *regs, void *data)", n);
	emit(e, "{");
	emit(e, "\t%s *d = data;", dt);
	if (ep->entry_fn) {
		emit(e, "\tstruct tap_context *c;");
		emit(e, "\tunsigned long ip;");
		emit(e, "\tint skip;");
	}
	emit_blank(e);
	emit_caller_check(e, ep, "1");
	emit(e, "\td->entry_sp = kernel_stack_pointer(regs);");
	if (ep->entry_fn) {
		emit_enter(e, ep, "1");
		emit_context_fill(e, "regs", "kretprobe", false);
		emit(e, "\tip = instruction_pointer(regs);");
		emit(e, "\tinstruction_pointer_set(regs, (unsigned long)k->rp.kp.addr);");
		emit(e, "\t%s(c, &d->entry);", ep->entry_fn);
		emit(e, "\tinstruction_pointer_set(regs, ip);");
		emit(e, "\tskip = c->last_error != NULL;");
		emit(e, "\ttap_context_exit(c);");
		emit(e, "\treturn skip;");
	} else {
		emit(e, "\treturn 0;");
	}
	emit(e, "}");
	emit_blank(e);
}

/* The entry and return functions of a return probe, which the runtime
 * calls from its kretprobe, or from the table's fprobe where the kernel
 * has one (runtime/families/kprobe.c), with the data of this call. */
static void emit_kretprobe_callbacks(Emitter *e, const EmitProbe *ep)
{
	const char *dt = kret_data_type(ep);
	int n = ep->index;
	bool has_entry = kret_has_entry(ep);

	if (has_entry)
		emit_kret_entry(e, ep, dt);
	emit(e, "static void tapkr_%d(struct _tap_kretprobe *k, struct pt_regs *regs, void *data)", n);
	emit(e, "{");
	if (has_entry)
		emit(e, "\t%s *d = data;", dt);
	emit(e, "\tstruct tap_context *c;");
	emit_blank(e);
	emit_enter(e, ep, "");
	emit_context_fill(e, "regs", "kretprobe", true);
	if (has_entry)
		emit(e, "\tc->entry_sp = d->entry_sp;");
	else
		emit(e, "\tc->entry_sp = tap_arch_entry_sp_at_return(kernel_stack_pointer(regs));");
	emit_run_body(e, ep, ep->entry_fn ? "&d->entry" : "NULL");
	emit(e, "}");
	emit_blank(e);
}

/* A return probe the runtime must leave to its kretprobe, never to the
 * table's fprobe: a maxactive of its own (the fprobe's calls in flight
 * are shared); a .callee check (it reads the return address, which the
 * fprobe's hook replaces); a module's function (the kprobe layer drops
 * the probe when the module goes, an fprobe's filter would keep the
 * address for whatever is loaded there next). */
static bool kret_only(const KernelPointData *d)
{
	return d->maxactive > 0 || d->caller_ret || d->module;
}

static void emit_tables(Emitter *e, const char *tag, EmitProbe **probes, int n,
			int nret)
{
	if (n - nret > 0) {
		emit(e, "static struct _tap_kprobe _tap_%s_kprobes[] = {", tag);
		for (int i = 0; i < n; i++) {
			const EmitProbe *ep = probes[i];
			if (ep->rp->is_return)
				continue;
			emit(e, "\t{ .kp = { %s.pre_handler = tapk_%d },%s",
			     kprobe_where(ep->rp->data), ep->index,
			     kprobe_where_run(ep->rp->data));
			emit(e, "\t  .pp = %s, .flags = %s },", ep->pp,
			     emit_point_flags(ep->rp));
		}
		emit(e, "};");
		emit_blank(e);
	}
	if (nret > 0) {
		emit(e, "static struct _tap_kretprobe _tap_%s_kretprobes[] = {", tag);
		/* those that check their caller last (emit_start_stop) */
		for (int k = 0; k < 2 * n; k++) {
			const EmitProbe *ep = probes[k % n];
			const KernelPointData *d = ep->rp->data;
			if (!ep->rp->is_return || (k < n) != !(d && d->caller_ret))
				continue;
			emit(e, "\t{ .rp = { .kp = { %s},", kprobe_where(d));
			/* without an entry callback: no entry handler, no data */
			bool has_entry = kret_has_entry(ep);
			emit(e, "\t\t  .handler = _tap_kret_ret,%s",
			     has_entry ? " .entry_handler = _tap_kret_entry," : "");
			emit(e, "\t\t  .data_size = %s, .maxactive = %lld },",
			     has_entry ? xsprintf("sizeof(%s)", kret_data_type(ep)) : "0",
			     (long long)(d->maxactive > 0 ? d->maxactive : 0));
			emit(e, "\t  .entry = %s, .ret = tapkr_%d,%s",
			     has_entry ? xsprintf("tapke_%d", ep->index) : "NULL", ep->index,
			     kret_only(d) ? " .kret_only = true," : "");
			emit(e, "\t %s .pp = %s, .flags = %s },", kprobe_where_run(d),
			     ep->pp, emit_point_flags(ep->rp));
		}
		emit(e, "};");
		emit_blank(e);
	}
}

/* Registered kretprobes first, then kprobes: the kernel runs the probes
 * of one address newest first, and a kretprobe's handler replaces the
 * return address a .callee check reads (_tap_entry_return_address). */
static void emit_start_stop(Emitter *e, const char *tag, bool have_k, bool have_kr)
{
	emit(e, "static int _tap_%s_start(void)", tag);
	emit(e, "{");
	emit(e, "\tint rc = 0;");
	emit_blank(e);
	if (have_kr) {
		emit(e, "\trc = _tap_kretprobes_register(_tap_%s_kretprobes,", tag);
		emit(e, "\t\t\t\t      ARRAY_SIZE(_tap_%s_kretprobes));", tag);
		emit(e, "\tif (rc)");
		emit(e, "\t\treturn rc;");
	}
	if (have_k) {
		emit(e, "\trc = _tap_kprobes_register(_tap_%s_kprobes,", tag);
		emit(e, "\t\t\t\t   ARRAY_SIZE(_tap_%s_kprobes));", tag);
		if (have_kr) {
			emit(e, "\tif (rc)");
			emit(e, "\t\t_tap_kretprobes_unregister(_tap_%s_kretprobes,", tag);
			emit(e, "\t\t\t\t\t   ARRAY_SIZE(_tap_%s_kretprobes));", tag);
		}
	}
	emit(e, "\treturn rc;");
	emit(e, "}");
	emit_blank(e);
	emit(e, "static void _tap_%s_stop(void)", tag);
	emit(e, "{");
	if (have_k)
		emit(e, "\t_tap_kprobes_unregister(_tap_%s_kprobes, ARRAY_SIZE(_tap_%s_kprobes));",
		     tag, tag);
	if (have_kr)
		emit(e, "\t_tap_kretprobes_unregister(_tap_%s_kretprobes, ARRAY_SIZE(_tap_%s_kretprobes));",
		     tag, tag);
	emit(e, "}");
	emit_blank(e);
}

bool kprobe_emit_decls(Emitter *e, EmitProbe **probes, int n)
{
	(void)probes;
	(void)n;
	emit(e, "#include \"runtime/families/kprobe.c\"");
	return true;
}

bool kprobe_emit_code_as(Emitter *e, const char *tag, EmitProbe **probes,
			 int n, FamilyCode *out)
{
	int nret = 0;
	for (int i = 0; i < n; i++) {
		if (probes[i]->rp->is_return) {
			nret++;
			emit_kretprobe_callbacks(e, probes[i]);
		} else {
			emit_kprobe_callback(e, probes[i]);
		}
	}
	emit_tables(e, tag, probes, n, nret);
	emit_start_stop(e, tag, n - nret > 0, nret > 0);
	out->start_fn = xsprintf("_tap_%s_start", tag);
	out->stop_fn = xsprintf("_tap_%s_stop", tag);
	return true;
}

static bool emit_kprobe_code(Emitter *e, EmitProbe **probes, int n,
			     FamilyCode *out)
{
	return kprobe_emit_code_as(e, "kprobe", probes, n, out);
}

static const char *const kprobe_shapes[] = {
	"kprobe.[module(s)].function(s)[.call|.return[.maxactive(n)]]",
	"kprobe.statement(n).absolute",
	NULL
};

const ProbeFamily family_kprobe = {
	.name = "kprobe", .shapes = kprobe_shapes, .resolve = resolve_kprobe,
	.emit_decls = kprobe_emit_decls, .emit_code = emit_kprobe_code,
	.supports_entry = kprobe_supports_entry,
};
