/* emit_kprobe.c - pass 3 for kprobe.function("f"), kprobe.module("m")
 * .function("f"), kprobe.statement(ADDR).absolute and their .return
 * forms: callbacks and the tables of runtime/families/kprobe.c.  Also
 * kernel.function("f") and module("m").function("f") while tapc reads no
 * DWARF: the same probes on the function's entry, without $variables
 * (kernel_function_ctx_expr() can give $return from the registers once
 * pass 2 lists it for .return points).
 *
 * An entry probe is a kprobe on the symbol ("m:f" for a module's
 * function, which the kernel resolves when the probe is registered).  A
 * return probe is a kretprobe: its entry handler saves the stack pointer
 * (CONTEXT->entry_sp) and, when the body uses @entry, runs the saver
 * pass 3 wrote (tape_N) into the instance's data, which the return
 * handler hands to the body as pdata.
 */
#include "pointdata.h"

#include <string.h>

bool kprobe_supports_entry(const ResolvedPoint *rp)
{
	return rp->is_return;
}

/* The kernel's struct kprobe fields that say where: symbol or address. */
static const char *kprobe_where(const KernelPointData *d)
{
	if (!d->function)
		return xsprintf(".addr = (kprobe_opcode_t *)0x%llxUL",
				(unsigned long long)d->address);
	const char *sym = d->module ? xsprintf("%s:%s", d->module, d->function)
				    : d->function;
	return xsprintf(".symbol_name = %s", c_string(sym));
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

/* The instance data of a return probe: the entry stack pointer, then the
 * @entry values when there are any. */
static const char *kret_data_type(const EmitProbe *ep)
{
	return ep->entry_fn ? xsprintf("struct tap_kret_%d", ep->index)
			    : "struct _tap_kret_data";
}

static void emit_kretprobe_callbacks(Emitter *e, const EmitProbe *ep)
{
	const char *dt = kret_data_type(ep);
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
	 * error) makes the kernel skip this instance's return. */
	emit(e, "static int tapke_%d(struct kretprobe_instance *ri, struct pt_regs *regs)", n);
	emit(e, "{");
	emit(e, "\t%s *d = (%s *)ri->data;", dt, dt);
	if (ep->entry_fn) {
		emit(e, "\tstruct tap_context *c;");
		emit(e, "\tunsigned long ip;");
		emit(e, "\tint skip;");
	}
	emit_blank(e);
	emit(e, "\td->entry_sp = kernel_stack_pointer(regs);");
	if (ep->entry_fn) {
		emit_enter(e, ep, "1");
		emit_context_fill(e, "regs", "kretprobe", false);
		emit(e, "\tip = instruction_pointer(regs);");
		emit(e, "\tinstruction_pointer_set(regs, (unsigned long)get_kretprobe(ri)->kp.addr);");
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

	emit(e, "static int tapkr_%d(struct kretprobe_instance *ri, struct pt_regs *regs)", n);
	emit(e, "{");
	emit(e, "\t%s *d = (%s *)ri->data;", dt, dt);
	emit(e, "\tstruct tap_context *c;");
	emit_blank(e);
	emit_enter(e, ep, "0");
	emit_context_fill(e, "regs", "kretprobe", true);
	emit(e, "\tc->entry_sp = d->entry_sp;");
	emit_run_body(e, ep, ep->entry_fn ? "&d->entry" : "NULL");
	emit(e, "\treturn 0;");
	emit(e, "}");
	emit_blank(e);
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
			emit(e, "\t{ .kp = { %s, .pre_handler = tapk_%d },",
			     kprobe_where(ep->rp->data), ep->index);
			emit(e, "\t  .pp = %s, .flags = %s },", ep->pp,
			     emit_point_flags(ep->rp));
		}
		emit(e, "};");
		emit_blank(e);
	}
	if (nret > 0) {
		emit(e, "static struct _tap_kretprobe _tap_%s_kretprobes[] = {", tag);
		for (int i = 0; i < n; i++) {
			const EmitProbe *ep = probes[i];
			const KernelPointData *d = ep->rp->data;
			if (!ep->rp->is_return)
				continue;
			emit(e, "\t{ .rp = { .kp = { %s },", kprobe_where(d));
			emit(e, "\t\t  .handler = tapkr_%d, .entry_handler = tapke_%d,",
			     ep->index, ep->index);
			emit(e, "\t\t  .data_size = sizeof(%s), .maxactive = %lld },",
			     kret_data_type(ep),
			     (long long)(d->maxactive > 0 ? d->maxactive : 0));
			emit(e, "\t  .pp = %s, .flags = %s },", ep->pp,
			     emit_point_flags(ep->rp));
		}
		emit(e, "};");
		emit_blank(e);
	}
}

static void emit_start_stop(Emitter *e, const char *tag, bool have_k, bool have_kr)
{
	emit(e, "static int _tap_%s_start(void)", tag);
	emit(e, "{");
	emit(e, "\tint rc = 0;");
	emit_blank(e);
	if (have_k) {
		emit(e, "\trc = _tap_kprobes_register(_tap_%s_kprobes,", tag);
		emit(e, "\t\t\t\t   ARRAY_SIZE(_tap_%s_kprobes));", tag);
		emit(e, "\tif (rc)");
		emit(e, "\t\treturn rc;");
	}
	if (have_kr) {
		emit(e, "\trc = _tap_kretprobes_register(_tap_%s_kretprobes,", tag);
		emit(e, "\t\t\t\t      ARRAY_SIZE(_tap_%s_kretprobes));", tag);
		if (have_k) {
			emit(e, "\tif (rc)");
			emit(e, "\t\t_tap_kprobes_unregister(_tap_%s_kprobes,", tag);
			emit(e, "\t\t\t\t\tARRAY_SIZE(_tap_%s_kprobes));", tag);
		}
	}
	emit(e, "\treturn rc;");
	emit(e, "}");
	emit_blank(e);
	emit(e, "static void _tap_%s_stop(void)", tag);
	emit(e, "{");
	if (have_kr)
		emit(e, "\t_tap_kretprobes_unregister(_tap_%s_kretprobes, ARRAY_SIZE(_tap_%s_kretprobes));",
		     tag, tag);
	if (have_k)
		emit(e, "\t_tap_kprobes_unregister(_tap_%s_kprobes, ARRAY_SIZE(_tap_%s_kprobes));",
		     tag, tag);
	emit(e, "}");
	emit_blank(e);
}

/* Both families: `tag` keeps their tables and functions apart. */
static bool emit_kprobes_as(Emitter *e, EmitPhase phase, const char *tag,
			    EmitProbe **probes, int n, FamilyCode *out)
{
	if (phase == EMIT_DECLS) {
		emit(e, "#include \"runtime/families/kprobe.c\"");
		return true;
	}
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

bool emit_kprobe_probes(Emitter *e, EmitPhase phase, const ProbeFamily *fam,
			EmitProbe **probes, int n, FamilyCode *out)
{
	(void)fam;
	return emit_kprobes_as(e, phase, "kprobe", probes, n, out);
}

/* ---- kernel.function without DWARF ---- */

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

bool emit_kernel_function_probes(Emitter *e, EmitPhase phase,
				 const ProbeFamily *fam, EmitProbe **probes,
				 int n, FamilyCode *out)
{
	(void)fam;
	if (phase == EMIT_DECLS) {
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
		if (!ok)
			return false;
	}
	return emit_kprobes_as(e, phase, "kfunc", probes, n, out);
}

/* Without DWARF the only $variable is $return, from the registers. */
const char *kernel_function_ctx_expr(const EmitProbe *ep, const CtxVar *v,
				     bool write)
{
	if (write || !ep->rp->is_return || strcmp(v->name, "return"))
		return NULL;
	return "((int64_t)regs_return_value(c->regs))";
}
