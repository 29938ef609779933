/* netfilter.c - netfilter.hook("NAME").pf("FAMILY")[.priority("N")]. */
#include "family.h"

#include <ctype.h>
#include <string.h>

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
