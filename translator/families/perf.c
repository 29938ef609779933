/* perf.c - perf.type(N).config(M): perf counters and sampling. */
#include "family.h"

typedef struct PerfData {
	int64_t type, config;
	int64_t sample;         /* period; 0 when hz is used */
	int64_t hz;             /* frequency, 0 when not given */
	const char *process;    /* bound to this program, or NULL */
	const char *counter;    /* read with @perf("name"), or NULL */
} PerfData;

/* The perf counters' default sampling period. */
#define PERF_DEFAULT_SAMPLE 1000000

static int resolve_perf(const ProbeFamily *fam, ProbePoint *pp, Vec *out)
{
	PerfData *d = NEW(PerfData);
	ProbePointComp *tc = pp_comp(pp, "type"), *cc = pp_comp(pp, "config");
	ProbePointComp *sc = pp_comp(pp, "sample"), *hc = pp_comp(pp, "hz");
	ProbePointComp *pc = pp_comp(pp, "process"), *nc = pp_comp(pp, "counter");
	d->type = comp_num(tc);
	d->config = comp_num(cc);
	if (d->type < 0 || d->type > 0xffffffffLL) {
		error_at(tc->loc, _("perf type %lld is out of range"), (long long)d->type);
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
		if (!name && !sess.target_cmd) {
			error_at(pc->loc, _("perf .process needs a program name (or -c CMD)"));
			return -1;
		}
		const char *path = program_path(name ? name : NULL);
		if (!path) {
			if (pp_is_optional(pp))
				return 0;
			error_at(pc->arg ? pc->arg->loc : pc->loc, _("cannot find program '%s'"),
				 name ? name : sess.target_cmd);
			return -1;
		}
		d->process = path;
	}
	ResolvedPoint *rp = rp_push(out, fam, pp);
	rp->data = d;
	return 1;
}

bool perf_point_counter(const ResolvedPoint *rp, const char **name,
			const char **program)
{
	const PerfData *d = rp && rp->family == &family_perf ? rp->data : NULL;
	if (!d || !d->counter)
		return false;
	*name = d->counter;
	*program = d->process;
	return true;
}

static const char *const perf_shapes[] = {
	"perf.type(n).config(n)[.sample(n)|.hz(n)][.process(s?)][.counter(s)]",
	NULL
};

const ProbeFamily family_perf = { "perf", perf_shapes, resolve_perf };
