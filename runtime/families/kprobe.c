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
 * Return probes go the same way where the kernel has fprobe
 * (TAP_FPROBE_RETURN): the kretprobes are registered disabled, and those
 * on ftrace sites are armed through one fprobe per table
 * (_tap_fret_arm); the rest are enabled one by one.
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

/*
 * A return probe: entry saves what the return needs into data (the
 * instance data of a kretprobe, or the probe's slot in the fprobe's
 * entry data) and returns non-zero to skip this call's return; ret runs
 * the body at the return.  kret_only (pass 3's kret_only(): its own
 * maxactive, a .callee check, a module's function): always a kretprobe,
 * with every probe of its address.
 */
struct _tap_kretprobe {
	struct kretprobe rp;
	int (*entry)(struct _tap_kretprobe *k, struct pt_regs *regs, void *data);
	void (*ret)(struct _tap_kretprobe *k, struct pt_regs *regs, void *data);
	unsigned long file_addr, anchor;
	const char *pp;
	unsigned int flags;
	bool kret_only;
	bool registered;
	bool fret;			/* armed through the table's fprobe */
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

/* The kretprobe callbacks of every return probe: the probe's own entry
 * and return functions (pass 3), with the instance's data. */
static int _tap_kret_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct _tap_kretprobe *k = container_of(get_kretprobe(ri),
						struct _tap_kretprobe, rp);

	return k->entry(k, regs, ri->data);
}

static int _tap_kret_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct _tap_kretprobe *k = container_of(get_kretprobe(ri),
						struct _tap_kretprobe, rp);

	k->ret(k, regs, ri->data);
	return 0;
}

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
	int lo = 0, hi = fe->n;

	/*
	 * No ftrace recursion lock (the ops has no FTRACE_OPS_FL_RECURSION,
	 * as the kprobe layer's has none, and this callback takes none of
	 * its own): the site table is read-only while the ops is armed, and
	 * a probed function called from a handler is stopped by the busy
	 * context in tap_context_enter(), skipped and counted as the kprobe
	 * layer counts it (nmissed).  tap_context_enter() also keeps
	 * preemption off while the handler runs.  The lock, or the flag
	 * that makes ftrace take it (through ftrace_ops_assist_func()), cost
	 * a tenth of a hit.
	 */
	if (!regs)
		return;
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

#if TAP_FPROBE_RETURN
/*
 * The return probes of one table on ftrace sites, armed through one
 * fprobe whose addresses are all given at once (register_fprobe_ips: one
 * code update, where enabling each kretprobe made one per probe).  The
 * kretprobes are registered disabled first: the kernel resolves each
 * symbol and says whether it sits on an ftrace site (kprobe_ftrace()),
 * and those it cannot take (no ftrace site, kret_only, the fprobe
 * refused) are then enabled one by one, as before.
 *
 * site[] (sorted by address, then table order) finds the probes of the
 * address a call came from.  One call's entry data holds a mask of the
 * probes that skip this return, then one slot of stride bytes per probe
 * of the address (their _tap_kret_data or tap_kret_N).  The probes of an
 * address run as the kernel runs kretprobes of one address: entries
 * newest (last in the table) first, returns in table order.
 */
struct _tap_fret {
	struct fprobe fp;
	struct _tap_kretprobe *table;
	struct _tap_kretprobe **site;
	int n;
	size_t stride;
	bool armed;
};
static struct _tap_fret _tap_frets[4];

/* site[*lo .. return value) are the probes at ip */
static int notrace _tap_fret_find(struct _tap_fret *fr, unsigned long ip, int *lo)
{
	int l = 0, h = fr->n;

	while (l < h) {
		int mid = l + (h - l) / 2;
		if ((unsigned long)fr->site[mid]->rp.kp.addr < ip)
			l = mid + 1;
		else
			h = mid;
	}
	*lo = l;
	while (h < fr->n && (unsigned long)fr->site[h]->rp.kp.addr == ip)
		h++;
	return h;
}

static int notrace _tap_fret_entry(struct fprobe *fp, unsigned long ip,
				   unsigned long ret_ip, struct pt_regs *regs,
				   void *data)
{
	struct _tap_fret *fr = container_of(fp, struct _tap_fret, fp);
	unsigned long *skip = data;
	char *slot = (char *)(skip + 1);
	int lo, hi, i, live = 0;

	*skip = 0;
	if (!regs)
		return 1;
	hi = _tap_fret_find(fr, ip, &lo);
	for (i = hi - 1; i >= lo; i--) {
		struct _tap_kretprobe *k = fr->site[i];

		if (k->entry(k, regs, slot + (i - lo) * fr->stride))
			*skip |= 1UL << (i - lo);
		else
			live++;
	}
	/* non-zero: the kernel hooks no return for this call */
	return !live;
}

static void notrace _tap_fret_exit(struct fprobe *fp, unsigned long ip,
				   unsigned long ret_ip, struct pt_regs *regs,
				   void *data)
{
	struct _tap_fret *fr = container_of(fp, struct _tap_fret, fp);
	unsigned long *skip = data;
	char *slot = (char *)(skip + 1);
	int lo, hi, i;

	hi = _tap_fret_find(fr, ip, &lo);
	for (i = lo; i < hi; i++)
		if (!(*skip & (1UL << (i - lo))))
			fr->site[i]->ret(fr->site[i], regs, slot + (i - lo) * fr->stride);
}

static int _tap_fret_cmp(const void *a, const void *b)
{
	const struct _tap_kretprobe *x = *(const struct _tap_kretprobe *const *)a;
	const struct _tap_kretprobe *y = *(const struct _tap_kretprobe *const *)b;

	if (x->rp.kp.addr != y->rp.kp.addr)
		return (unsigned long)x->rp.kp.addr < (unsigned long)y->rp.kp.addr ? -1 : 1;
	return x < y ? -1 : x > y;
}

static struct _tap_fret *_tap_fret_of(struct _tap_kretprobe *k)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(_tap_frets); i++)
		if (_tap_frets[i].table == k)
			return &_tap_frets[i];
	return NULL;
}

/*
 * Put the fprobe-able probes of table k in an fprobe and register it;
 * those it takes are marked fret.  Any failure leaves them all to their
 * kretprobes.
 */
static void _tap_fret_arm(struct _tap_kretprobe *k, int n)
{
	struct _tap_fret *fr = _tap_fret_of(NULL);
	struct _tap_kretprobe **cand;
	unsigned long *ips;
	int i, j, m = 0, nips = 0, most = 0;
	size_t stride = 0;

	if (!fr)
		return;
	cand = tap_alloc(n * sizeof(*cand));
	ips = tap_alloc(n * sizeof(*ips));
	fr->site = tap_alloc(n * sizeof(*fr->site));
	if (!cand || !ips || !fr->site)
		goto out;
	for (i = 0; i < n; i++)
		if (k[i].registered && kprobe_ftrace(&k[i].rp.kp))
			cand[m++] = &k[i];
	sort(cand, m, sizeof(*cand), _tap_fret_cmp, NULL);
	/* an address goes whole to the fprobe, or stays with kretprobes */
	for (i = 0; i < m; i = j) {
		bool ok = true;

		for (j = i; j < m && cand[j]->rp.kp.addr == cand[i]->rp.kp.addr; j++)
			ok = ok && !cand[j]->kret_only;
		if (!ok || j - i > BITS_PER_LONG)
			continue;
		most = max(most, j - i);
		ips[nips++] = (unsigned long)cand[i]->rp.kp.addr;
		for (; i < j; i++) {
			stride = max_t(size_t, stride, ALIGN(cand[i]->rp.data_size, 8));
			fr->site[fr->n++] = cand[i];
		}
	}
	if (!nips)
		goto out;
	fr->table = k;
	fr->stride = stride;
	fr->fp.entry_handler = _tap_fret_entry;
	fr->fp.exit_handler = _tap_fret_exit;
	fr->fp.entry_data_size = sizeof(unsigned long) + stride * most;
	/* each function as many calls in flight as a kretprobe's default */
	fr->fp.nr_maxactive = nips * max_t(int, 10, 2 * num_possible_cpus());
	if (register_fprobe_ips(&fr->fp, ips, nips) == 0) {
		fr->armed = true;
		for (i = 0; i < fr->n; i++)
			fr->site[i]->fret = true;
	}
out:
	tap_free(cand);
	tap_free(ips);
	if (!fr->armed) {
		tap_free(fr->site);
		memset(fr, 0, sizeof(*fr));
	}
}

/* Unregister the table's fprobe (it waits for its handlers); its misses
 * (no free return slot, or a probed function called from a handler: the
 * fprobe does not tell them apart) count as missed return probes. */
static void _tap_fret_disarm(struct _tap_kretprobe *k)
{
	struct _tap_fret *fr = _tap_fret_of(k);
	unsigned long missed;

	if (!fr)
		return;
	unregister_fprobe(&fr->fp);
	missed = fr->fp.nmissed;
	tap_free(fr->site);
	memset(fr, 0, sizeof(*fr));
	while (missed--)
		tap_count_skip(TAP_SKIP_KRETPROBE);
}
#define _TAP_KRETPROBE_REGISTER_FLAGS KPROBE_FLAG_DISABLED
#else
static void _tap_fret_arm(struct _tap_kretprobe *k, int n)
{
}
static void _tap_fret_disarm(struct _tap_kretprobe *k)
{
}
#define _TAP_KRETPROBE_REGISTER_FLAGS 0
#endif

static __maybe_unused void _tap_kretprobes_unregister(struct _tap_kretprobe *k, int n)
{
	struct kretprobe **batch = tap_alloc(n * sizeof(*batch));
	unsigned long missed = 0, reentrant = 0;
	int i, nb = 0;

	/* the fprobe first: its handlers may still run until it is gone */
	_tap_fret_disarm(k);

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
		k[i].fret = false;
	}
	while (missed--)
		tap_count_skip(TAP_SKIP_KRETPROBE);
	while (reentrant--)
		tap_count_skip(TAP_SKIP_REENTRANT);
}

/*
 * Enable the registered kretprobes of table k that the fprobe did not
 * take (all of them where registration left them enabled).  Returns 0 or
 * the error of one that could not be enabled and is not optional.
 */
static int _tap_kretprobes_arm(struct _tap_kretprobe *k, int n)
{
	int i, ret;

	if (!_TAP_KRETPROBE_REGISTER_FLAGS)
		return 0;
	_tap_fret_arm(k, n);
	for (i = 0; i < n; i++) {
		if (!k[i].registered || k[i].fret)
			continue;
		ret = enable_kretprobe(&k[i].rp);
		if (ret == 0)
			continue;
		ret = _tap_probe_failed(k[i].pp, k[i].flags, ret, "kretprobe", NULL);
		if (ret)
			return ret;
	}
	return 0;
}

static __maybe_unused int _tap_kretprobes_register(struct _tap_kretprobe *k, int n)
{
	int i, ret;

	for (i = 0; i < n; i++) {
		_tap_kprobe_place(&k[i].rp.kp, k[i].file_addr, k[i].anchor);
		k[i].rp.kp.flags |= _TAP_KRETPROBE_REGISTER_FLAGS;
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
	ret = _tap_kretprobes_arm(k, n);
	if (ret)
		_tap_kretprobes_unregister(k, n);
	return ret;
}

#endif /* TAP_PROBES_KPROBES_C */
