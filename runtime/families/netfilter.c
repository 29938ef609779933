/*
 * netfilter.c - netfilter.hook("NAME").pf("PF")[.priority("N")]: one
 * netfilter hook per probe, in every network namespace.
 *
 * The module defines _TAP_NF_NPROBES (the number of probes) before it
 * includes this file: the size of the per-namespace data is a constant
 * of struct pernet_operations in recent kernels.
 *
 * Pass 3 emits a hook function per probe (tapnf_N: it gathers the
 * handler's $variables in a struct _tap_nf_args, runs the body and
 * returns $verdict, NF_ACCEPT unless a -g handler changed it), a table of
 * struct nf_hook_ops and a table of struct _tap_nf_probe, and calls
 * _tap_nf_register() from tap_on_start() and _tap_nf_unregister() from
 * tap_on_stop().
 *
 * The hooks are registered through a pernet subsystem, so every network
 * namespace gets them: those that exist at the start and those created
 * while the session runs; a namespace going away takes its hooks with it.
 * A hook that cannot be registered in the initial namespace is reported
 * as any failed probe is (the start fails unless the point was optional);
 * one that fails in another namespace leaves that namespace without it
 * (creating a namespace never fails because of a probe).  Which hooks
 * each namespace holds is kept in the namespace's generic data.  At the
 * stop, every hook goes, then an RCU grace period lets a handler still
 * running finish before the module can go.
 */
#ifndef TAP_PROBES_NETFILTER_C
#define TAP_PROBES_NETFILTER_C

#include "probe_common.h"

#include <linux/netfilter.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <linux/netfilter_arp.h>
#include <linux/netfilter_bridge.h>
#include <linux/skbuff.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

/* What the handler's $variables read (pdata of the probe body). */
struct _tap_nf_args {
	unsigned int hooknum;
	struct sk_buff *skb;
	const struct net_device *in, *out;
	unsigned int verdict;
};

static inline struct _tap_nf_args
_tap_nf_args_of(struct sk_buff *skb, const struct nf_hook_state *state)
{
	struct _tap_nf_args a = {
		.hooknum = state->hook, .skb = skb,
		.in = state->in, .out = state->out, .verdict = NF_ACCEPT,
	};

	return a;
}

struct _tap_nf_probe {
	/* from pass 3 */
	const char *pp;
	const struct nf_hook_ops *ops;
	unsigned int flags;		/* TAP_PROBE_* */
};

static struct _tap_nf_probe *_tap_nf_probes;
static int _tap_nf_nprobes;
static bool _tap_nf_registered;

/* Per namespace (its generic data, _tap_nf_nprobes ints): the error of
 * each probe's registration there (0: the hook is in). */
static int _tap_nf_net_init(struct net *net);
static void _tap_nf_net_exit(struct net *net);

static unsigned int _tap_nf_net_id;
static struct pernet_operations _tap_nf_pernet = {
	.init = _tap_nf_net_init,
	.exit = _tap_nf_net_exit,
	.id = &_tap_nf_net_id,
	.size = _TAP_NF_NPROBES * sizeof(int),
};

/* The kernel warns (WARN_ON) about a hook number past its family's
 * table: such a hook (NF_BR_BROUTING, which is no netfilter hook of
 * these kernels, or a number under -g) is refused here. */
static bool _tap_nf_hook_exists(const struct nf_hook_ops *o)
{
	switch (o->pf) {
	case NFPROTO_IPV4:
	case NFPROTO_IPV6:
	case NFPROTO_BRIDGE:
		return o->hooknum < NF_INET_NUMHOOKS;
	case NFPROTO_ARP:
		return o->hooknum < NF_ARP_NUMHOOKS;
	default:
		return true;
	}
}

static int _tap_nf_net_init(struct net *net)
{
	int *err = net_generic(net, _tap_nf_net_id);
	int i;

	for (i = 0; i < _tap_nf_nprobes; i++)
		err[i] = _tap_nf_hook_exists(_tap_nf_probes[i].ops) ?
			 nf_register_net_hook(net, _tap_nf_probes[i].ops) : -ENOENT;
	return 0;
}

static void _tap_nf_net_exit(struct net *net)
{
	int *err = net_generic(net, _tap_nf_net_id);
	int i;

	for (i = _tap_nf_nprobes - 1; i >= 0; i--)
		if (!err[i])
			nf_unregister_net_hook(net, _tap_nf_probes[i].ops);
}

static void _tap_nf_unregister(void)
{
	if (!_tap_nf_registered)
		return;
	unregister_pernet_subsys(&_tap_nf_pernet);
	_tap_nf_registered = false;
	/* hooks run under rcu_read_lock(): let a running one finish */
	synchronize_net();
}

static int _tap_nf_register(struct _tap_nf_probe *p, int n)
{
	int *err;
	int i, ret;

	_tap_nf_probes = p;
	_tap_nf_nprobes = n;
	ret = register_pernet_subsys(&_tap_nf_pernet);
	if (ret) {
		tap_msg_error("cannot register the netfilter probes' network "
			      "namespace operations");
		return ret;
	}
	_tap_nf_registered = true;
	err = net_generic(&init_net, _tap_nf_net_id);
	for (i = 0; i < n; i++) {
		if (!err[i])
			continue;
		ret = _tap_probe_failed(p[i].pp, p[i].flags, err[i], "netfilter hook",
					err[i] == -ENOENT || err[i] == -EINVAL ?
					"no such hook in this protocol family" : NULL);
		if (ret) {
			_tap_nf_unregister();
			return ret;
		}
	}
	return 0;
}

#endif /* TAP_PROBES_NETFILTER_C */
