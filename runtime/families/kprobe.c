/*
 * kprobes.c - kprobe.function("f"), kprobe.module("m").function("f"),
 * kprobe.statement(ADDR).absolute and their .return forms (kretprobes).
 *
 * Pass 3 emits one table of struct _tap_kprobe and one of struct
 * _tap_kretprobe, with the kernel's struct kprobe/kretprobe filled in
 * (symbol "f" or "m:f", or an address; the callbacks; maxactive and the
 * per-instance data size), and calls _tap_kprobes_register() /
 * _tap_kretprobes_register() at start and the unregister functions at
 * stop.  The callbacks are generated too: they enter the context and run
 * the probe body (see translator/families/kprobe.c).
 *
 * Registration goes probe by probe so a failure names its point;
 * unregistration is batched (one RCU grace period for the whole table).
 * Where the kernel allows (TAP_FTRACE_ENTRY, compat.h), the kprobes of a
 * table are registered disabled, and those that sit on an ftrace site
 * (a function's entry) are armed together through one ftrace_ops: one
 * code update for the whole table, where enabling each kprobe is one
 * update per probe (450 syscall probes took 6 s to arm in the test VM).
 * Their hits then skip the kprobe layer.  The rest are enabled one by one.
 */
/* Included once even when two families share it (kprobe and
 * kernel.function both use kprobes.c). */
#ifndef TAP_PROBES_KPROBES_C
#define TAP_PROBES_KPROBES_C

#include "probe_common.h"

#include <linux/kprobes.h>
#include <linux/slab.h>
#include <linux/sort.h>

/*
 * A probe is placed by symbol (kp.symbol_name, kp.offset, which the
 * kernel resolves when it is registered), by address (kp.addr), or by
 * kernel address as the debug information has it: file_addr, with anchor
 * kfree's address in the same file; the kernel's load offset (KASLR) is
 * where kfree is now minus anchor.
 */
struct _tap_kprobe {
	struct kprobe kp;
	unsigned long file_addr, anchor;
	const char *pp;
	unsigned int flags;		/* TAP_PROBE_* */
	bool registered;
};

struct _tap_kretprobe {
	struct kretprobe rp;
	unsigned long file_addr, anchor;
	const char *pp;
	unsigned int flags;
	bool registered;
};

/* Where a kernel address of the debug information is now. */
static inline unsigned long _tap_kaddr(unsigned long file_addr,
				       unsigned long anchor)
{
	return file_addr - anchor + (unsigned long)&kfree;
}

/*
 * The return address of a function, for a probe on its entry (arch/:
 * where the call left it).  A kretprobe at the same address puts its
 * trampoline there when its handler runs; the kernel runs the handlers of
 * one address newest first, so pass 3 registers the kretprobes before the
 * kprobes, and those that check their caller last of the kretprobes.
 */
static inline __maybe_unused unsigned long _tap_entry_return_address(struct pt_regs *regs)
{
	return tap_arch_entry_return_address(regs);
}

/* Set kp->addr of a probe placed by kernel address. */
static inline void _tap_kprobe_place(struct kprobe *kp, unsigned long file_addr,
				     unsigned long anchor)
{
	if (anchor)
		kp->addr = (kprobe_opcode_t *)_tap_kaddr(file_addr, anchor);
}

/*
 * The kretprobe instance data every return probe keeps: the stack pointer
 * at entry (CONTEXT->entry_sp), then the @entry values if the probe has
 * any (pass 3 makes the area bigger for them).
 */
struct _tap_kret_data {
	unsigned long entry_sp;
	u64 entry[];			/* aligned for any @entry struct */
};

/* A better reason for the errors a symbol name can give. */
static const char *_tap_kprobe_detail(const char *symbol, int err)
{
	if (err != -ENOENT || !symbol)
		return NULL;
	if (strchr(symbol, ':'))
		return "the module is not loaded, or has no such function";
	return "no such function in the running kernel";
}

#if TAP_FTRACE_ENTRY
/*
 * The function entries of one table armed through one ftrace_ops: its
 * filter holds their ftrace sites, and site[] (sorted by kp.addr, the
 * ftrace site, where the kprobe layer would have put them) finds the
 * probes of the address a call came from.  A module has few tables (one
 * per family that uses kprobes), each with its own set.
 */
struct _tap_ftentry {
	struct ftrace_ops ops;
	struct _tap_kprobe *table;
	struct _tap_kprobe **site;
	int n;
	bool armed;
};
static struct _tap_ftentry _tap_ftentries[4];

static void notrace _tap_ftentry_call(unsigned long ip, unsigned long parent_ip,
				      struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct _tap_ftentry *fe = container_of(op, struct _tap_ftentry, ops);
	struct pt_regs *regs = ftrace_get_regs(fregs);
	int lo = 0, hi = fe->n, bit;

	/* A probed function called from a handler: skipped and counted, as
	 * the kprobe layer counts it (nmissed).  The lock also keeps
	 * preemption off while the handlers run.  It is this callback's own
	 * (the ops has no FTRACE_OPS_FL_RECURSION, as the kprobe layer's
	 * has none): with that flag ftrace would call it through
	 * ftrace_ops_assist_func(), which takes the same lock a second time
	 * and adds a call on every hit. */
	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (bit < 0) {
		tap_count_skip(TAP_SKIP_REENTRANT);
		return;
	}
	if (regs) {
		while (lo < hi) {
			int mid = lo + (hi - lo) / 2;
			if ((unsigned long)fe->site[mid]->kp.addr < ip)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < fe->n && (unsigned long)fe->site[lo]->kp.addr == ip; lo++)
			fe->site[lo]->kp.pre_handler(&fe->site[lo]->kp, regs);
	}
	ftrace_test_recursion_unlock(bit);
}

static int _tap_ftentry_cmp(const void *a, const void *b)
{
	unsigned long x = (unsigned long)(*(struct _tap_kprobe *const *)a)->kp.addr;
	unsigned long y = (unsigned long)(*(struct _tap_kprobe *const *)b)->kp.addr;
	return x < y ? -1 : x > y;
}

static struct _tap_ftentry *_tap_ftentry_of(struct _tap_kprobe *k)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(_tap_ftentries); i++)
		if (_tap_ftentries[i].table == k)
			return &_tap_ftentries[i];
	return NULL;
}

/*
 * Arm the registered, disabled kprobes of table k (n entries): those on
 * ftrace sites through one ftrace_ops, the others (and all of them when
 * the ops cannot be had) by enabling each.  Returns 0 or the error of a
 * kprobe that could not be enabled and is not optional.
 */
static __maybe_unused int _tap_kprobes_arm(struct _tap_kprobe *k, int n)
{
	struct _tap_ftentry *fe = _tap_ftentry_of(NULL);
	unsigned long *ips = NULL;
	int i, m = 0, nips = 0, ret;

	if (fe) {
		fe->site = tap_alloc(n * sizeof(*fe->site));
		ips = tap_alloc(n * sizeof(*ips));
	}
	if (fe && fe->site && ips) {
		for (i = 0; i < n; i++)
			if (k[i].registered && kprobe_ftrace(&k[i].kp))
				fe->site[m++] = &k[i];
		sort(fe->site, m, sizeof(*fe->site), _tap_ftentry_cmp, NULL);
		for (i = 0; i < m; i++)
			if (!nips || ips[nips - 1] != (unsigned long)fe->site[i]->kp.addr)
				ips[nips++] = (unsigned long)fe->site[i]->kp.addr;
		fe->table = k;
		fe->n = m;
		fe->ops.func = _tap_ftentry_call;
		fe->ops.flags = FTRACE_OPS_FL_SAVE_REGS;
		if (nips && ftrace_set_filter_ips(&fe->ops, ips, nips, 0, 0) == 0 &&
		    register_ftrace_function(&fe->ops) == 0) {
			fe->armed = true;
		} else {
			if (nips)
				ftrace_free_filter(&fe->ops);
			fe->n = 0;
		}
	}
	tap_free(ips);
	for (i = 0; i < n; i++) {
		if (!k[i].registered)
			continue;
		if (fe && fe->armed && kprobe_ftrace(&k[i].kp))
			continue;
		ret = enable_kprobe(&k[i].kp);
		if (ret == 0)
			continue;
		ret = _tap_probe_failed(k[i].pp, k[i].flags, ret, "kprobe", NULL);
		if (ret)
			return ret;
	}
	return 0;
}

static __maybe_unused void _tap_kprobes_disarm(struct _tap_kprobe *k)
{
	struct _tap_ftentry *fe = _tap_ftentry_of(k);

	if (!fe)
		return;
	if (fe->armed) {
		unregister_ftrace_function(&fe->ops);
		ftrace_free_filter(&fe->ops);
	}
	tap_free(fe->site);
	memset(fe, 0, sizeof(*fe));
}
#define _TAP_KPROBE_REGISTER_FLAGS KPROBE_FLAG_DISABLED
#else
static __maybe_unused int _tap_kprobes_arm(struct _tap_kprobe *k, int n)
{
	return 0;
}
static __maybe_unused void _tap_kprobes_disarm(struct _tap_kprobe *k)
{
}
#define _TAP_KPROBE_REGISTER_FLAGS 0
#endif

static __maybe_unused void _tap_kprobes_unregister(struct _tap_kprobe *k, int n)
{
	struct kprobe **batch = tap_alloc(n * sizeof(*batch));
	unsigned long missed = 0;
	int i, nb = 0;

	/* the ftrace_ops first: unregistering it waits for its callers */
	_tap_kprobes_disarm(k);

	for (i = 0; i < n; i++) {
		if (!k[i].registered)
			continue;
		if (batch)
			batch[nb++] = &k[i].kp;
		else
			unregister_kprobe(&k[i].kp);
	}
	if (nb)
		unregister_kprobes(batch, nb);
	tap_free(batch);
	for (i = 0; i < n; i++) {
		if (!k[i].registered)
			continue;
		/* hits while another kprobe handler ran on that CPU */
		missed += k[i].kp.nmissed;
		k[i].registered = false;
	}
	while (missed--)
		tap_count_skip(TAP_SKIP_REENTRANT);
}

static __maybe_unused int _tap_kprobes_register(struct _tap_kprobe *k, int n)
{
	int i, ret;

	for (i = 0; i < n; i++) {
		_tap_kprobe_place(&k[i].kp, k[i].file_addr, k[i].anchor);
		k[i].kp.flags |= _TAP_KPROBE_REGISTER_FLAGS;
		ret = register_kprobe(&k[i].kp);
		if (ret == 0) {
			k[i].registered = true;
			continue;
		}
		ret = _tap_probe_failed(k[i].pp, k[i].flags, ret, "kprobe",
					_tap_kprobe_detail(k[i].kp.symbol_name,
							   ret));
		if (ret) {
			_tap_kprobes_unregister(k, i);
			return ret;
		}
	}
	ret = _tap_kprobes_arm(k, n);
	if (ret)
		_tap_kprobes_unregister(k, n);
	return ret;
}

static __maybe_unused void _tap_kretprobes_unregister(struct _tap_kretprobe *k, int n)
{
	struct kretprobe **batch = tap_alloc(n * sizeof(*batch));
	unsigned long missed = 0, reentrant = 0;
	int i, nb = 0;

	for (i = 0; i < n; i++) {
		if (!k[i].registered)
			continue;
		if (batch)
			batch[nb++] = &k[i].rp;
		else
			unregister_kretprobe(&k[i].rp);
	}
	if (nb)
		unregister_kretprobes(batch, nb);
	tap_free(batch);
	for (i = 0; i < n; i++) {
		if (!k[i].registered)
			continue;
		/* returns not seen: no free instance (maxactive) */
		missed += k[i].rp.nmissed;
		reentrant += k[i].rp.kp.nmissed;
		k[i].registered = false;
	}
	while (missed--)
		tap_count_skip(TAP_SKIP_KRETPROBE);
	while (reentrant--)
		tap_count_skip(TAP_SKIP_REENTRANT);
}

static __maybe_unused int _tap_kretprobes_register(struct _tap_kretprobe *k, int n)
{
	int i, ret;

	for (i = 0; i < n; i++) {
		_tap_kprobe_place(&k[i].rp.kp, k[i].file_addr, k[i].anchor);
		ret = register_kretprobe(&k[i].rp);
		if (ret == 0) {
			k[i].registered = true;
			continue;
		}
		ret = _tap_probe_failed(k[i].pp, k[i].flags, ret, "kretprobe",
					_tap_kprobe_detail(k[i].rp.kp.symbol_name,
							   ret));
		if (ret) {
			_tap_kretprobes_unregister(k, i);
			return ret;
		}
	}
	return 0;
}

#endif /* TAP_PROBES_KPROBES_C */
