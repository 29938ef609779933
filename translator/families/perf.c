/* perf.c - perf.type(N).config(M) and perf.raw(M): perf counters and
 * sampling.
 *
 * Pass 3 writes one callback per sampling probe and a table of struct
 * _tap_perf for runtime/families/perf.c (one entry per probe; a
 * .counter probe has no callback: it counts for @perf).
 */
#include "emit_glue.h"

#include <string.h>

typedef struct PerfData {
	int64_t type, config;
	int64_t sample;         /* period; 0 when hz is used */
	int64_t hz;             /* frequency, 0 when not given */
	const char *process;    /* bound to this program, or NULL */
	const char *counter;    /* read with @perf("name"), or NULL */
	bool target;            /* .process with no name: the -c/-x target */
} PerfData;

/* PERF_TYPE_RAW of <linux/perf_event.h>: perf.raw(M) is type 4. */
#define PERF_TYPE_RAW_NUM 4

/* The perf counters' default sampling period. */
#define PERF_DEFAULT_SAMPLE 1000000

static int resolve_perf(const ProbeFamily *fam, ProbePoint *pp, Vec *out)
{
	PerfData *d = NEW(PerfData);
	ProbePointComp *tc = pp_comp(pp, "type"), *cc = pp_comp(pp, "config");
	ProbePointComp *sc = pp_comp(pp, "sample"), *hc = pp_comp(pp, "hz");
	ProbePointComp *pc = pp_comp(pp, "process"), *nc = pp_comp(pp, "counter");
	ProbePointComp *rc = pp_comp(pp, "raw");
	if (rc) {
		d->type = PERF_TYPE_RAW_NUM;
		cc = rc;
		tc = rc;
	} else {
		d->type = comp_num(tc);
	}
	d->config = comp_num(cc);
	if (d->type < 0 || d->type > 0xffffffffLL) {
		error_at(tc->loc, _("perf type %lld is out of range (0 to 4294967295)"), (long long)d->type);
		return -1;
	}
	if (d->config < 0) {
		error_at(cc->loc, _("perf config %lld is out of range"), (long long)d->config);
		return -1;
	}
	d->sample = sc ? comp_num(sc) : hc ? 0 : PERF_DEFAULT_SAMPLE;
	if (sc && d->sample <= 0) {
		error_at(sc->loc, _("perf sample period must be positive"));
		return -1;
	}
	if (hc && (d->hz = comp_num(hc)) <= 0) {
		error_at(hc->loc, _("perf frequency must be positive"));
		return -1;
	}
	if (nc) {
		d->counter = comp_str(nc);
		if (!*d->counter) {
			error_at(nc->loc, _("perf .counter needs a counter name"));
			return -1;
		}
	}
	if (pc) {
		const char *name = pc->arg ? comp_str(pc) : NULL;
		if (!name && !sess.target_cmd && !sess.target_pid) {
			error_at(pc->loc, _("perf .process needs a program name (or -c CMD, -x PID)"));
			return -1;
		}
		d->target = !name;
		if (name) {
			const char *path = program_path(name);
			if (!path) {
				if (pp_is_optional(pp))
					return 0;
				error_at(pc->arg->loc, _("cannot find program '%s'"), name);
				return -1;
			}
			d->process = path;
		} else if (sess.target_cmd) {
			/* the target's program when -c names one; a shell
			 * command line counts whatever it runs */
			d->process = program_path(NULL);
		}
	}
	ResolvedPoint *rp = rp_push(out, fam, pp);
	rp->data = d;
	rp->perf_counter = d->counter;
	rp->program = d->process;
	return 1;
}

/* ---- pass 3 ---- */

static bool emit_perf_decls(Emitter *e, EmitProbe **probes, int n)
{
	(void)probes;
	(void)n;
	emit(e, "#include \"runtime/families/perf.c\"");
	return true;
}

static bool emit_perf_code(Emitter *e, EmitProbe **probes, int n, FamilyCode *out)
{
	for (int i = 0; i < n; i++) {
		const EmitProbe *ep = probes[i];
		const PerfData *d = ep->rp->data;
		if (d->counter)
			continue;
		emit_void_handler(e, ep, xsprintf("tapperf_%d", ep->index),
				  "struct pt_regs *regs", "regs", "perf", false, "NULL");
	}
	emit(e, "static struct _tap_perf _tap_perf_table[] = {");
	for (int i = 0; i < n; i++) {
		const EmitProbe *ep = probes[i];
		const PerfData *d = ep->rp->data;
		emit(e, "\t{ .pp = %s, .flags = %s,", ep->pp, emit_point_flags(ep->rp));
		emit(e, "\t  .type = %lldU, .config = %lluULL, .period = %lldULL, .hz = %lldULL,",
		     (long long)d->type, (unsigned long long)d->config,
		     (long long)d->sample, (long long)d->hz);
		emit(e, "\t  .fire = %s, .counter = %s,",
		     d->counter ? "NULL" : xsprintf("tapperf_%d", ep->index),
		     d->counter ? c_string(d->counter) : "NULL");
		emit(e, "\t  .path = %s, .target = %s },",
		     d->process && !d->target ? c_string(d->process) : "NULL",
		     d->target ? "true" : "false");
	}
	emit(e, "};");
	emit_blank(e);
	emit(e, "static int _tap_perf_family_start(void)");
	emit(e, "{");
	emit(e, "\treturn _tap_perf_start(_tap_perf_table, ARRAY_SIZE(_tap_perf_table));");
	emit(e, "}");
	emit_blank(e);
	emit(e, "static void _tap_perf_family_stop(void)");
	emit(e, "{");
	emit(e, "\t_tap_perf_stop(_tap_perf_table, ARRAY_SIZE(_tap_perf_table));");
	emit(e, "}");
	emit_blank(e);
	out->start_fn = "_tap_perf_family_start";
	out->stop_fn = "_tap_perf_family_stop";
	return true;
}

static const char *const perf_shapes[] = {
	"perf.type(n).config(n)[.sample(n)|.hz(n)][.process(s?)][.counter(s)]",
	"perf.raw(n)[.sample(n)|.hz(n)][.process(s?)][.counter(s)]",
	NULL
};

const ProbeFamily family_perf = {
	.name = "perf", .shapes = perf_shapes, .resolve = resolve_perf,
	.emit_decls = emit_perf_decls, .emit_code = emit_perf_code,
};
