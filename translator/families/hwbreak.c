/* hwbreak.c - hardware watchpoints: kernel.data(ADDRESS|"SYMBOL"). */
#include "pointdata.h"

/* ResolvedPoint.data: KernelPointData. */

static int resolve_kernel_data(const ProbeFamily *fam, ProbePoint *pp,
			       Vec *out)
{
	ProbePointComp *dc = pp_comp(pp, "data");
	ProbePointComp *lc = pp_comp(pp, "length");
	KernelPointData *d = NEW(KernelPointData);
	d->maxactive = -1;
	if (comp_is_str(dc)) {
		d->function = comp_str(dc);
		if (!*d->function) {
			error_at(dc->loc, _("kernel.data needs a symbol name"));
			return -1;
		}
	} else {
		d->address = comp_num(dc);
	}
	if (lc) {
		/* x86 debug registers watch 1, 2, 4 or 8 bytes. */
		int64_t len = comp_num(lc);
		if (len <= 0 || len > 8) {
			error_at(lc->loc, _("kernel.data length %lld is not supported (1 to 8 bytes)"),
				 (long long)len);
			return -1;
		}
		d->length = len;
	}
	ResolvedPoint *rp = rp_push(out, fam, pp);
	rp->data = d;
	return 1;
}

static const char *const kernel_data_shapes[] = {
	"kernel.data(n)[.length(n)].{write|rw}",
	"kernel.data(s).{write|rw}",
	NULL
};

const ProbeFamily family_kernel_data = {
	"kernel.data", kernel_data_shapes, resolve_kernel_data
};
