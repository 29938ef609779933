/* emit_kprobe.c - pass 3 for kprobe.function("f"), kprobe.module("m")
 * .function("f"), kprobe.statement(ADDR).absolute and their .return
 * forms: callbacks and the tables of runtime/probes/kprobes.c.
 *
 * An entry probe is a kprobe on the symbol ("m:f" for a module's
 * function, which the kernel resolves when the probe is registered).  A
 * return probe is a kretprobe: its entry handler saves the stack pointer
 * (CONTEXT->entry_sp) and, when the body uses @entry, runs the saver
 * pass 3 wrote (tape_N) into the instance's data, which the return
 * handler hands to the body as pdata.
 */
#include "pointdata.h"

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

static void emit_tables(Emitter *e, EmitProbe **probes, int n, int nret)
{
	if (n - nret > 0) {
		emit(e, "static struct _tap_kprobe _tap_kprobe_table[] = {");
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
		emit(e, "static struct _tap_kretprobe _tap_kretprobe_table[] = {");
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

static void emit_start_stop(Emitter *e, bool have_k, bool have_kr)
{
	emit(e, "static int _tap_kprobe_family_start(void)");
	emit(e, "{");
	if (have_k) {
		emit(e, "\tint rc = _tap_kprobes_register(_tap_kprobe_table,");
		emit(e, "\t\t\t\t\t ARRAY_SIZE(_tap_kprobe_table));");
		emit_blank(e);
		emit(e, "\tif (rc)");
		emit(e, "\t\treturn rc;");
	} else {
		emit(e, "\tint rc;");
		emit_blank(e);
	}
	if (have_kr) {
		emit(e, "\trc = _tap_kretprobes_register(_tap_kretprobe_table,");
		emit(e, "\t\t\t\t      ARRAY_SIZE(_tap_kretprobe_table));");
		if (have_k) {
			emit(e, "\tif (rc)");
			emit(e, "\t\t_tap_kprobes_unregister(_tap_kprobe_table,");
			emit(e, "\t\t\t\t\tARRAY_SIZE(_tap_kprobe_table));");
		}
		emit(e, "\treturn rc;");
	} else {
		emit(e, "\treturn 0;");
	}
	emit(e, "}");
	emit_blank(e);
	emit(e, "static void _tap_kprobe_family_stop(void)");
	emit(e, "{");
	if (have_kr)
		emit(e, "\t_tap_kretprobes_unregister(_tap_kretprobe_table, ARRAY_SIZE(_tap_kretprobe_table));");
	if (have_k)
		emit(e, "\t_tap_kprobes_unregister(_tap_kprobe_table, ARRAY_SIZE(_tap_kprobe_table));");
	emit(e, "}");
	emit_blank(e);
}

bool emit_kprobe_probes(Emitter *e, EmitPhase phase, const ProbeFamily *fam,
			EmitProbe **probes, int n, FamilyCode *out)
{
	(void)fam;
	if (phase == EMIT_DECLS) {
		emit(e, "#include \"runtime/probes/kprobes.c\"");
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
	emit_tables(e, probes, n, nret);
	emit_start_stop(e, n - nret > 0, nret > 0);
	out->start_fn = "_tap_kprobe_family_start";
	out->stop_fn = "_tap_kprobe_family_stop";
	return true;
}
