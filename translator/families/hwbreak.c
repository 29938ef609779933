/* hwbreak.c - hardware watchpoints: kernel.data(ADDRESS|"SYMBOL")
 * [.length(N)].write / .rw.
 *
 * Pass 2 checks the address (a kernel address, aligned to the length the
 * debug registers watch) or that the symbol is a variable of the target
 * kernel (kallsyms of the running target or its System.map, when one can
 * be read; else the run time decides), and the length: the debug
 * registers watch 1, 2, 4 or 8 bytes, a length in between is rounded up
 * (3 to 4, 5..7 to 8) as stapprobes(3stap) says, and more than 8 is an error.  A script asking
 * for more watchpoints than the CPU has debug registers (arch/) gets a
 * warning, as their registration will fail.
 *
 * Pass 3 writes one perf overflow handler per probe and a table for
 * runtime/families/hwbreak.c, which places the watchpoint on every CPU
 * (register_wide_hw_breakpoint) and finds a symbol's address at run time
 * (so KASLR does not matter).  The handler runs after the access (a trap),
 * with the registers of the instruction that made it; no $variables.
 */
#include "emit_glue.h"
#include "arch/arch.h"

/* ResolvedPoint.data of a watchpoint. */
typedef struct HwbreakData {
	const char *symbol;     /* data("SYMBOL"), or NULL */
	uint64_t address;       /* data(ADDRESS) */
	uint64_t file_addr;     /* the symbol's address in the kernel's DWARF,
				 * and jiffies_64's (ref): where the module
				 * finds it when kallsyms cannot say */
	uint64_t ref;
	int length;             /* bytes watched: 1, 2, 4 or 8 */
	bool rw;                /* .rw, else .write */
} HwbreakData;

static int resolve_kernel_data(const ProbeFamily *fam, ProbePoint *pp,
			       Vec *out)
{
	static int count;
	ProbePointComp *dc = pp_comp(pp, "data");
	ProbePointComp *lc = pp_comp(pp, "length");
	HwbreakData *d = NEW(HwbreakData);
	d->length = 1;
	d->rw = pp_has(pp, "rw");
	if (lc) {
		int64_t len = comp_num(lc);
		if (len <= 0 || len > 8) {
			error_at(lc->loc, _("kernel.data length %lld is not supported (1 to 8 bytes)"),
				 (long long)len);
			return -1;
		}
		d->length = len <= 2 ? (int)len : len <= 4 ? 4 : 8;
	}
	if (comp_is_str(dc)) {
		d->symbol = comp_str(dc);
		if (!*d->symbol) {
			error_at(dc->loc, _("kernel.data needs a symbol name"));
			return -1;
		}
		const char *src = NULL;
		if (kernel_data_symbol_known(d->symbol, &src) == 0) {
			if (namelist_has(kernel_function_symbols(), d->symbol))
				error_at(dc->loc, _("kernel.data: '%s' is a function of kernel %s, "
						    "not a variable"), d->symbol, target_release());
			else
				error_at(dc->loc, _("kernel.data: '%s' is not a variable of kernel %s "
						    "(looked in %s)"), d->symbol, target_release(), src);
			return -1;
		}
		/* kallsyms has no variables without CONFIG_KALLSYMS_ALL
		 * (Debian's arm64 kernels): the DWARF's address of the
		 * symbol, relocated at run time as @var's are */
		const DiVariable *v = di_find_global(NULL, d->symbol, NULL);
		const DiVariable *j = di_find_global(NULL, "jiffies_64", NULL);
		if (v && j && v->loc.kind == DI_LOC_ADDR && j->loc.kind == DI_LOC_ADDR &&
		    v->loc.addr >= arch_target()->kernel_image_start) {
			d->file_addr = v->loc.addr;
			d->ref = j->loc.addr;
		}
	} else {
		d->address = (uint64_t)comp_num(dc);
		if (d->address < arch_target()->kernel_space_start) {
			error_at(dc->loc, _("kernel.data address 0x%llx is not a kernel address"),
				 (unsigned long long)d->address);
			return -1;
		}
		if (d->address % (uint64_t)d->length) {
			error_at(dc->loc, _("kernel.data address 0x%llx is not aligned to the %d bytes "
					    "watched"), (unsigned long long)d->address, d->length);
			return -1;
		}
	}
	int slots = arch_target()->hw_breakpoints;
	if (++count == slots + 1)
		warning_at(pp->loc, _("more than %d kernel.data probes: the CPU has %d debug "
				      "registers, so the others will fail to register"),
			   slots, slots);
	ResolvedPoint *rp = rp_push(out, fam, pp);
	rp->data = d;
	return 1;
}

/* ---- pass 3 ---- */

static bool emit_hwbreak_decls(Emitter *e, EmitProbe **probes, int n)
{
	(void)probes;
	(void)n;
	emit(e, "#include \"runtime/families/hwbreak.c\"");
	return true;
}

static bool emit_hwbreak_code(Emitter *e, EmitProbe **probes, int n,
			      FamilyCode *out)
{
	for (int i = 0; i < n; i++) {
		const EmitProbe *ep = probes[i];
		emit_void_handler(e, ep, xsprintf("taphw_%d", ep->index),
				  "struct pt_regs *regs", "regs", "kernel.data", false, "NULL");
	}
	emit(e, "static struct _tap_hwbkpt _tap_hwbkpt_table[] = {");
	for (int i = 0; i < n; i++) {
		const EmitProbe *ep = probes[i];
		const HwbreakData *d = ep->rp->data;
		emit(e, "\t{ .pp = %s, .fire = taphw_%d, .symbol = %s,", ep->pp, ep->index,
		     d->symbol ? c_string(d->symbol) : "NULL");
		emit(e, "\t  .address = 0x%llxUL, .len = HW_BREAKPOINT_LEN_%d,",
		     (unsigned long long)d->address, d->length);
		if (d->ref)
			emit(e, "\t  .file_addr = 0x%llxUL, .ref = 0x%llxUL,",
			     (unsigned long long)d->file_addr, (unsigned long long)d->ref);
		emit(e, "\t  .type = %s, .flags = %s },",
		     d->rw ? "HW_BREAKPOINT_RW" : "HW_BREAKPOINT_W",
		     emit_point_flags(ep->rp));
	}
	emit(e, "};");
	emit_blank(e);
	emit(e, "static int _tap_hwbkpt_family_start(void)");
	emit(e, "{");
	emit(e, "\treturn _tap_hwbkpts_register(_tap_hwbkpt_table, ARRAY_SIZE(_tap_hwbkpt_table));");
	emit(e, "}");
	emit_blank(e);
	emit(e, "static void _tap_hwbkpt_family_stop(void)");
	emit(e, "{");
	emit(e, "\t_tap_hwbkpts_unregister(_tap_hwbkpt_table, ARRAY_SIZE(_tap_hwbkpt_table));");
	emit(e, "}");
	emit_blank(e);
	out->start_fn = "_tap_hwbkpt_family_start";
	out->stop_fn = "_tap_hwbkpt_family_stop";
	return true;
}

static const char *const kernel_data_shapes[] = {
	"kernel.data(n)[.length(n)].{write|rw}",
	"kernel.data(s).{write|rw}",
	NULL
};

const ProbeFamily family_hwbreak = {
	.name = "kernel.data", .shapes = kernel_data_shapes,
	.resolve = resolve_kernel_data,
	.emit_decls = emit_hwbreak_decls, .emit_code = emit_hwbreak_code,
};
