/* misc.c - the smaller families: procfs files, netfilter hooks, perf
 * counters, kernel markers, and the runtimes tapc does not have (java,
 * python), which are recognised so the message can say so. */
#include "family.h"

#include <ctype.h>
#include <string.h>

/* ---- procfs("path").read / .write ---- */

/* ResolvedPoint.data for procfs probes. */
typedef struct ProcfsData {
	const char *path;       /* relative to /proc/systemtap/MODULE */
	int64_t umask;          /* -1 when not given */
	int64_t maxsize;        /* 0 when not given */
	bool is_read;
} ProcfsData;

/* The file name must stay inside the module's folder: no leading or
 * trailing '/', no empty, "." or ".." part. */
static const char *bad_procfs_path(const char *path)
{
	if (!*path)
		return _("it is empty");
	if (path[0] == '/')
		return _("it must not start with '/'");
	if (path[strlen(path) - 1] == '/')
		return _("it must not end with '/'");
	for (const char *p = path; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("_-./", *p))
			return _("it may hold only letters, digits, '_', '-', '.' and '/'");
	const char *part = path;
	for (;;) {
		const char *end = strchr(part, '/');
		size_t n = end ? (size_t)(end - part) : strlen(part);
		if (n == 0)
			return _("it has an empty part ('//')");
		if ((n == 1 && part[0] == '.') || (n == 2 && !strncmp(part, "..", 2)))
			return _("it must not have '.' or '..' parts");
		if (!end)
			return NULL;
		part = end + 1;
	}
}

static int resolve_procfs(const ProbeFamily *fam, ProbePoint *pp, Vec *out)
{
	ProbePointComp *pc = pp_comp(pp, "procfs");
	ProbePointComp *um = pp_comp(pp, "umask");
	ProbePointComp *ms = pp_comp(pp, "maxsize");
	ProcfsData *d = NEW(ProcfsData);
	d->path = pc->arg ? comp_str(pc) : "command";
	d->is_read = pp_has(pp, "read");
	d->umask = -1;
	const char *why = bad_procfs_path(d->path);
	if (why) {
		error_at(pc->arg ? pc->arg->loc : pc->loc, _("bad procfs file name '%s': %s"),
			 d->path, why);
		return -1;
	}
	if (um) {
		d->umask = comp_num(um);
		if (d->umask < 0 || d->umask > 0777) {
			error_at(um->loc, _("procfs umask %#llo is out of range (0 to 0777)"),
				 (unsigned long long)d->umask);
			return -1;
		}
	}
	if (ms) {
		d->maxsize = comp_num(ms);
		if (d->maxsize <= 0 || d->maxsize > (1 << 30)) {
			error_at(ms->loc, _("procfs maxsize must be a positive size, not %lld"),
				 (long long)d->maxsize);
			return -1;
		}
	}
	ResolvedPoint *rp = rp_push(out, fam, pp);
	rp->data = d;
	/* A read probe fills $value for the reader; a write probe gets what
	 * the writer wrote. */
	CtxVar *v = rp_var(rp, "value", TY_STRING, NULL);
	v->scalar = true;
	v->writable = d->is_read;
	v->write_only = d->is_read;
	return 1;
}

static const char *const procfs_shapes[] = {
	"procfs(s?)[.umask(n)].read[.maxsize(n)]",
	"procfs(s?)[.umask(n)].write",
	NULL
};

const ProbeFamily family_procfs = { "procfs", procfs_shapes, resolve_procfs };

/* ---- netfilter.hook("NAME").pf("FAMILY")[.priority("N")] ---- */

typedef struct NetfilterData {
	const char *hook, *pf, *priority;   /* as C expressions */
} NetfilterData;

static const char *const nf_inet_hooks[] = {
	"NF_INET_PRE_ROUTING", "NF_INET_LOCAL_IN", "NF_INET_FORWARD",
	"NF_INET_LOCAL_OUT", "NF_INET_POST_ROUTING",
	"NF_IP_PRE_ROUTING", "NF_IP_LOCAL_IN", "NF_IP_FORWARD",
	"NF_IP_LOCAL_OUT", "NF_IP_POST_ROUTING", NULL
};
static const char *const nf_inet6_hooks[] = {
	"NF_INET_PRE_ROUTING", "NF_INET_LOCAL_IN", "NF_INET_FORWARD",
	"NF_INET_LOCAL_OUT", "NF_INET_POST_ROUTING",
	"NF_IP6_PRE_ROUTING", "NF_IP6_LOCAL_IN", "NF_IP6_FORWARD",
	"NF_IP6_LOCAL_OUT", "NF_IP6_POST_ROUTING", NULL
};
static const char *const nf_arp_hooks[] = {
	"NF_ARP_IN", "NF_ARP_OUT", "NF_ARP_FORWARD", NULL
};
static const char *const nf_bridge_hooks[] = {
	"NF_BR_PRE_ROUTING", "NF_BR_LOCAL_IN", "NF_BR_FORWARD",
	"NF_BR_LOCAL_OUT", "NF_BR_POST_ROUTING", "NF_BR_BROUTING", NULL
};
static const char *const nf_ip_priorities[] = {
	"NF_IP_PRI_FIRST", "NF_IP_PRI_RAW_BEFORE_DEFRAG",
	"NF_IP_PRI_CONNTRACK_DEFRAG", "NF_IP_PRI_RAW", "NF_IP_PRI_SELINUX_FIRST",
	"NF_IP_PRI_CONNTRACK", "NF_IP_PRI_MANGLE", "NF_IP_PRI_NAT_DST",
	"NF_IP_PRI_FILTER", "NF_IP_PRI_SECURITY", "NF_IP_PRI_NAT_SRC",
	"NF_IP_PRI_SELINUX_LAST", "NF_IP_PRI_CONNTRACK_HELPER",
	"NF_IP_PRI_CONNTRACK_CONFIRM", "NF_IP_PRI_LAST", NULL
};
static const char *const nf_ip6_priorities[] = {
	"NF_IP6_PRI_FIRST", "NF_IP6_PRI_RAW_BEFORE_DEFRAG",
	"NF_IP6_PRI_CONNTRACK_DEFRAG", "NF_IP6_PRI_RAW",
	"NF_IP6_PRI_SELINUX_FIRST", "NF_IP6_PRI_CONNTRACK", "NF_IP6_PRI_MANGLE",
	"NF_IP6_PRI_NAT_DST", "NF_IP6_PRI_FILTER", "NF_IP6_PRI_SECURITY",
	"NF_IP6_PRI_NAT_SRC", "NF_IP6_PRI_SELINUX_LAST",
	"NF_IP6_PRI_CONNTRACK_HELPER", "NF_IP6_PRI_LAST", NULL
};

static const struct {
	const char *pf;
	const char *const *hooks, *const *priorities;
} nf_families[] = {
	{ "NFPROTO_IPV4", nf_inet_hooks, nf_ip_priorities },
	{ "NFPROTO_IPV6", nf_inet6_hooks, nf_ip6_priorities },
	{ "NFPROTO_ARP", nf_arp_hooks, NULL },
	{ "NFPROTO_BRIDGE", nf_bridge_hooks, NULL },
};

static bool in_list(const char *const *l, const char *s)
{
	for (; l && *l; l++)
		if (!strcmp(*l, s))
			return true;
	return false;
}

static bool is_integer_text(const char *s)
{
	if (*s == '-' || *s == '+')
		s++;
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

static bool is_c_identifier(const char *s)
{
	if (!*s || isdigit((unsigned char)*s))
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

static int resolve_netfilter(const ProbeFamily *fam, ProbePoint *pp, Vec *out)
{
	ProbePointComp *hc = pp_comp(pp, "hook");
	ProbePointComp *fc = pp_comp(pp, "pf");
	ProbePointComp *prc = pp_comp(pp, "priority");
	NetfilterData *d = NEW(NetfilterData);
	d->hook = comp_str(hc);
	d->pf = comp_str(fc);
	d->priority = prc ? comp_str(prc) : "0";

	/* Guru mode may name any C identifier or number: it goes verbatim
	 * into the module. */
	if (sess.guru) {
		const char *parts[] = { d->hook, d->pf, d->priority };
		ProbePointComp *locs[] = { hc, fc, prc };
		for (int i = 0; i < 3; i++)
			if (!is_c_identifier(parts[i]) && !is_integer_text(parts[i])) {
				error_at(locs[i]->loc, _("netfilter argument '%s' is neither an identifier nor a number"),
					 parts[i]);
				return -1;
			}
	} else {
		int f = -1;
		for (size_t i = 0; i < sizeof nf_families / sizeof nf_families[0]; i++)
			if (!strcmp(nf_families[i].pf, d->pf))
				f = i;
		if (f < 0) {
			error_at(fc->loc, _("unknown netfilter protocol family '%s' (expected NFPROTO_IPV4, NFPROTO_IPV6, NFPROTO_ARP or NFPROTO_BRIDGE)"),
				 d->pf);
			return -1;
		}
		if (!in_list(nf_families[f].hooks, d->hook)) {
			error_at(hc->loc, _("unknown netfilter hook '%s' for %s"),
				 d->hook, d->pf);
			return -1;
		}
		if (prc && !is_integer_text(d->priority) &&
		    !in_list(nf_families[f].priorities, d->priority)) {
			error_at(prc->loc, _("bad netfilter priority '%s' (expected an integer or an NF_IP_PRI_* / NF_IP6_PRI_* name)"),
				 d->priority);
			return -1;
		}
	}
	ResolvedPoint *rp = rp_push(out, fam, pp);
	rp->data = d;
	rp_var(rp, "hooknum", TY_LONG, NULL)->scalar = true;
	rp_var(rp, "skb", TY_LONG, "struct sk_buff *");
	rp_var(rp, "in", TY_LONG, "struct net_device *");
	rp_var(rp, "out", TY_LONG, "struct net_device *");
	CtxVar *v = rp_var(rp, "verdict", TY_LONG, NULL);
	v->scalar = true;
	v->writable = true;
	v->guru_only = true;
	return 1;
}

static const char *const netfilter_shapes[] = {
	"netfilter.{hook(s).pf(s)|pf(s).hook(s)}[.priority(s)]",
	NULL
};

const ProbeFamily family_netfilter = {
	"netfilter", netfilter_shapes, resolve_netfilter
};

/* ---- perf.type(N).config(M) ---- */

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

/* ---- kernel.mark: markers left the kernel in 2.6.32 ---- */

static int resolve_mark(const ProbeFamily *fam, ProbePoint *pp, Vec *out)
{
	ProbePointComp *mc = pp_comp(pp, "mark");
	if (!*comp_str(mc)) {
		error_at(mc->loc, _("kernel.mark needs a marker name"));
		return -1;
	}
	if (version_cmp(target_release(), "2.6.32") >= 0)
		return 0;       /* no kernel this new has markers */
	ResolvedPoint *rp = rp_push(out, fam, pp);
	rp->needs_debuginfo = true;
	rp_var(rp, "name", TY_STRING, NULL)->scalar = true;
	rp_var(rp, "format", TY_STRING, NULL)->scalar = true;
	return 1;
}

static const char *const mark_shapes[] = { "kernel.mark(s)[.format(s)]", NULL };

const ProbeFamily family_mark = { "kernel.mark", mark_shapes, resolve_mark };

/* ---- java, python: recognised, not supported ---- */

static int resolve_unsupported(const ProbeFamily *fam, ProbePoint *pp, Vec *out)
{
	ProbePointComp *head = vec_get(&pp->comps, 0);
	if (!strcmp(fam->name, "java"))
		error_at(head->loc, _("java probes are not supported by tapc (they need the Byteman agent runtime)"));
	else
		error_at(head->loc, _("%s probes are not supported by tapc (they need the HelperSDT python runtime)"),
			 head->name);
	return -1;
}

static const char *const java_shapes[] = {
	"java(s|n).class(s).method(s)[.return]", NULL
};
static const char *const python_shapes[] = {
	"{python2|python3}.module(s).function(s)[.call|.return]", NULL
};

const ProbeFamily family_java = { "java", java_shapes, resolve_unsupported };
const ProbeFamily family_python = { "python", python_shapes, resolve_unsupported };
