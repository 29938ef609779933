/* netfilter.c - netfilter.hook("NAME").pf("FAMILY")[.priority("N")].
 *
 * Pass 2 checks the names against those stapprobes(3stap) allows for the
 * family (any identifier or number under -g) and gives the handler
 * $hooknum, $skb, $in, $out and, under -g only, $verdict (NF_ACCEPT
 * unless the handler assigns another).
 *
 * Pass 3 writes one netfilter hook function per probe and a table for
 * runtime/families/netfilter.c, which registers the hooks in every
 * network namespace.  The user-space names of the hooks (NF_IP_*,
 * NF_IP6_*, NF_BR_*), which the kernel's headers hide from kernel code,
 * become their numbers.
 */
#include "emit_glue.h"

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
		/* a name tapc does not know is the user's to answer for: say
		 * so now, not first through the C compiler */
		int f = -1;
		for (size_t i = 0; i < sizeof nf_families / sizeof nf_families[0]; i++)
			if (!strcmp(nf_families[i].pf, d->pf))
				f = i;
		if (f < 0 && !is_integer_text(d->pf))
			warning_at(fc->loc, _("netfilter protocol family '%s' is not one tapc knows: it goes to the C compiler as written (guru mode)"),
				   d->pf);
		else if (f >= 0 && !in_list(nf_families[f].hooks, d->hook) &&
			 !is_integer_text(d->hook))
			warning_at(hc->loc, _("netfilter hook '%s' is not one tapc knows for %s: it goes to the C compiler as written (guru mode)"),
				   d->hook, d->pf);
		else if (f < 0 && !is_integer_text(d->hook))
			warning_at(hc->loc, _("netfilter hook '%s' is not one tapc knows: it goes to the C compiler as written (guru mode)"),
				   d->hook);
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

/* ---- pass 3 ---- */

/* Hook names of the user-space headers (not defined in kernel code), as
 * the numbers they stand for. */
static const struct {
	const char *name;
	int num;
} nf_user_hooks[] = {
	{ "NF_IP_PRE_ROUTING", 0 }, { "NF_IP_LOCAL_IN", 1 }, { "NF_IP_FORWARD", 2 },
	{ "NF_IP_LOCAL_OUT", 3 }, { "NF_IP_POST_ROUTING", 4 },
	{ "NF_IP6_PRE_ROUTING", 0 }, { "NF_IP6_LOCAL_IN", 1 }, { "NF_IP6_FORWARD", 2 },
	{ "NF_IP6_LOCAL_OUT", 3 }, { "NF_IP6_POST_ROUTING", 4 },
	{ "NF_BR_PRE_ROUTING", 0 }, { "NF_BR_LOCAL_IN", 1 }, { "NF_BR_FORWARD", 2 },
	{ "NF_BR_LOCAL_OUT", 3 }, { "NF_BR_POST_ROUTING", 4 }, { "NF_BR_BROUTING", 5 },
};

static const char *hook_expr(const char *hook)
{
	for (size_t i = 0; i < sizeof nf_user_hooks / sizeof nf_user_hooks[0]; i++)
		if (!strcmp(nf_user_hooks[i].name, hook))
			return xsprintf("%d", nf_user_hooks[i].num);
	return hook;
}

static bool emit_netfilter_decls(Emitter *e, EmitProbe **probes, int n)
{
	(void)probes;
	emit(e, "#define _TAP_NF_NPROBES %d", n);
	emit(e, "#include \"runtime/families/netfilter.c\"");
	return true;
}

static bool emit_netfilter_code(Emitter *e, EmitProbe **probes, int n,
				FamilyCode *out)
{
	for (int i = 0; i < n; i++) {
		const EmitProbe *ep = probes[i];
		emit(e, "static unsigned int tapnf_%d(void *priv, struct sk_buff *skb,",
		     ep->index);
		emit(e, "				const struct nf_hook_state *state)");
		emit(e, "{");
		emit(e, "	struct _tap_nf_args a = _tap_nf_args_of(skb, state);");
		emit(e, "	struct tap_context *c = tap_context_enter(%s, TAP_STATE_RUNNING);",
		     ep->pp);
		emit_blank(e);
		emit(e, "	if (!c)");
		emit(e, "		return NF_ACCEPT;");
		emit_context_fill(e, "NULL", "netfilter", false);
		emit(e, "	%s(c, &a);", ep->body_fn);
		emit(e, "	tap_context_exit(c);");
		emit(e, "	return a.verdict;");
		emit(e, "}");
		emit_blank(e);
	}
	emit(e, "static struct nf_hook_ops _tap_nf_ops_table[] = {");
	for (int i = 0; i < n; i++) {
		const NetfilterData *d = probes[i]->rp->data;
		emit(e, "	{ .hook = tapnf_%d, .pf = %s, .hooknum = %s, .priority = %s },",
		     probes[i]->index, d->pf, hook_expr(d->hook), d->priority);
	}
	emit(e, "};");
	emit_blank(e);
	emit(e, "static struct _tap_nf_probe _tap_nf_table[] = {");
	for (int i = 0; i < n; i++)
		emit(e, "	{ .pp = %s, .ops = &_tap_nf_ops_table[%d], .flags = %s },",
		     probes[i]->pp, i, emit_point_flags(probes[i]->rp));
	emit(e, "};");
	emit_blank(e);
	emit(e, "static int _tap_nf_family_start(void)");
	emit(e, "{");
	emit(e, "	return _tap_nf_register(_tap_nf_table, ARRAY_SIZE(_tap_nf_table));");
	emit(e, "}");
	emit_blank(e);
	emit(e, "static void _tap_nf_family_stop(void)");
	emit(e, "{");
	emit(e, "	_tap_nf_unregister();");
	emit(e, "}");
	emit_blank(e);
	out->start_fn = "_tap_nf_family_start";
	out->stop_fn = "_tap_nf_family_stop";
	return true;
}

static const char *netfilter_ctx_expr(const EmitProbe *ep, const CtxVar *v,
				      bool write)
{
	(void)ep;
	const char *a = "((struct _tap_nf_args *)pdata)";
	if (!strcmp(v->name, "verdict"))
		return xsprintf("%s->verdict", a);
	if (write)
		return NULL;
	if (!strcmp(v->name, "hooknum"))
		return xsprintf("(int64_t)%s->hooknum", a);
	if (!strcmp(v->name, "skb") || !strcmp(v->name, "in") || !strcmp(v->name, "out"))
		return xsprintf("(unsigned long)%s->%s", a, v->name);
	return NULL;
}

static const char *const netfilter_shapes[] = {
	"netfilter.{hook(s).pf(s)|pf(s).hook(s)}[.priority(s)]",
	NULL
};

const ProbeFamily family_netfilter = {
	.name = "netfilter", .shapes = netfilter_shapes, .resolve = resolve_netfilter,
	.emit_decls = emit_netfilter_decls, .emit_code = emit_netfilter_code,
	.ctx_expr = netfilter_ctx_expr,
};
