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
 * Where the kernel allows (TAP_FTRACE_ENTRY, compat.h), the function
 * entries of a table that sit on an ftrace site are armed together
 * through one ftrace_ops: one code update for the whole table, where
 * enabling each kprobe is one update per probe (450 syscall probes took
 * 6 s to arm in the test VM).  Their hits then skip the kprobe layer.
 * Most of them get no kprobe at all (_tap_kprobes_place_direct(): their
 * address from the anchor or kallsyms, the kprobe blacklist checked,
 * ftrace's filter saying it is a site); the others are registered
 * disabled, and those the kernel puts on an ftrace site join the ops.
 * The rest (inlined copies, statements, modules) are enabled one by one.
 * Return probes go the same way: their kretprobes are registered
 * disabled, and those on ftrace sites are armed together, through one
 * fprobe per table where the kernel has fprobe (TAP_FPROBE_RETURN,
 * 6.12), else through one ftrace_ops per table that calls the
 * kretprobes' own entry, which hooks the return through rethook
 * (TAP_FTRACE_RETURN, 6.1); _tap_kret_batch_arm().  The rest, and the
 * kret_only probes, are enabled one by one.
 */
/* Included once even when two families share it (kprobe and
 * kernel.function both use kprobes.c). */
#ifndef TAP_PROBES_KPROBES_C
#define TAP_PROBES_KPROBES_C

#include "probe_common.h"

#include <linux/kallsyms.h>
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
	bool direct;			/* in the table's ftrace_ops, no kprobe */
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
	bool batched;		/* armed through the table's fprobe or ops */
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
static int __maybe_unused _tap_kret_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct _tap_kretprobe *k = container_of(get_kretprobe(ri),
						struct _tap_kretprobe, rp);

	return k->entry(k, regs, ri->data);
}

static int __maybe_unused _tap_kret_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
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

#if TAP_FTRACE_ENTRY || TAP_FPROBE_RETURN
/*
 * The probes of a table that one ftrace_ops or fprobe arms are kept in a
 * site[] array of their struct kprobe (an entry's kp, a return's rp.kp),
 * sorted by address (the ftrace site, where the kprobe layer put them),
 * then by table order; a call's probes are found by binary search.
 */
static int _tap_site_cmp(const void *a, const void *b)
{
	const struct kprobe *x = *(const struct kprobe *const *)a;
	const struct kprobe *y = *(const struct kprobe *const *)b;

	if (x->addr != y->addr)
		return (unsigned long)x->addr < (unsigned long)y->addr ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* site[*lo .. return value) are the probes at ip */
static int notrace _tap_site_find(struct kprobe *const *site, int n,
				  unsigned long ip, int *lo)
{
	int l = 0, h = n;

	while (l < h) {
		int mid = l + (h - l) / 2;

		if ((unsigned long)site[mid]->addr < ip)
			l = mid + 1;
		else
			h = mid;
	}
	*lo = l;
	while (h < n && (unsigned long)site[h]->addr == ip)
		h++;
	return h;
}

/* The addresses of the sorted site[0..n), each once, into ips[]; returns
 * how many. */
static int _tap_site_ips(struct kprobe *const *site, int n, unsigned long *ips)
{
	int i, nips = 0;

	for (i = 0; i < n; i++)
		if (!nips || ips[nips - 1] != (unsigned long)site[i]->addr)
			ips[nips++] = (unsigned long)site[i]->addr;
	return nips;
}
#endif

#if TAP_FTRACE_ENTRY
/*
 * The probes of one table armed through one ftrace_ops: its filter holds
 * their ftrace sites, and its callback calls the kprobe pre_handler of
 * each probe of the address a call came from: a function entry's own
 * (pass 3's tapk_N), or for a return probe the kernel's kretprobe entry,
 * which takes an instance and hooks the return through rethook (TAP_
 * FTRACE_RETURN).  A module has few tables (one per family that uses
 * kprobes, for entries and for returns), each with its own ops.
 */
struct _tap_ftops {
	struct ftrace_ops ops;
	const void *table;
	bool locked;			/* return probes: see _tap_ftops_call() */
	struct kprobe **site;
	int n;
	bool filtered;			/* its filter holds addresses */
	bool registered;
};
static struct _tap_ftops _tap_ftops[8];

static void notrace _tap_ftops_call(unsigned long ip, unsigned long parent_ip,
				    struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct _tap_ftops *fo = container_of(op, struct _tap_ftops, ops);
	struct pt_regs *regs = ftrace_get_regs(fregs);
	int lo, hi, bit = 0;

	/*
	 * A table of return probes runs the kernel's kretprobe entry here:
	 * ftrace's recursion lock keeps it from running inside itself (a
	 * probed function it calls is skipped and counted, as the kprobe
	 * layer counts it: nmissed) and keeps preemption off, which rethook
	 * needs.  A table of function entries takes no lock: its handlers
	 * (pass 3's tapk_N) are stopped by the busy context of
	 * tap_context_enter() when a probed function is called from one,
	 * skipped and counted the same way, and that keeps preemption off
	 * while they run; the lock cost a tenth of a hit.  The lock is the
	 * callback's own (the ops has no FTRACE_OPS_FL_RECURSION, as the
	 * kprobe layer's has none): with that flag ftrace would call it
	 * through ftrace_ops_assist_func(), which takes the same lock a
	 * second time and adds a call on every hit.
	 */
	if (fo->locked) {
		bit = ftrace_test_recursion_trylock(ip, parent_ip);
		if (bit < 0) {
			tap_count_skip(TAP_SKIP_REENTRANT);
			return;
		}
	}
	if (regs) {
		/* newest (last in the table) first, as the kprobe layer
		 * runs the kprobes of one address */
		hi = _tap_site_find(fo->site, fo->n, ip, &lo);
		while (hi-- > lo)
			fo->site[hi]->pre_handler(fo->site[hi], regs);
	}
	if (fo->locked)
		ftrace_test_recursion_unlock(bit);
}

static struct _tap_ftops *_tap_ftops_of(const void *table)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(_tap_ftops); i++)
		if (_tap_ftops[i].table == table)
			return &_tap_ftops[i];
	return NULL;
}

/* A free ops for table, or NULL when all are taken. */
static struct _tap_ftops *_tap_ftops_claim(const void *table)
{
	struct _tap_ftops *fo = _tap_ftops_of(NULL);

	if (!fo)
		return NULL;
	fo->table = table;
	fo->ops.func = _tap_ftops_call;
	fo->ops.flags = FTRACE_OPS_FL_SAVE_REGS;
	return fo;
}

/*
 * Add ips[0..n) (each once, none in the filter yet) to the ops' filter.
 * ftrace takes only its own sites, and refuses a set that holds any other
 * address whole: a refused set is split in halves until the addresses
 * that are not sites are found, which are set to 0.  When all are sites
 * (the usual case) this is one call, however many there are.  Returns
 * how many were added.
 */
static int _tap_ftops_filter(struct _tap_ftops *fo, unsigned long *ips, int n)
{
	int half = n / 2;

	if (n <= 0)
		return 0;
	if (ftrace_set_filter_ips(&fo->ops, ips, n, 0, 0) == 0) {
		fo->filtered = true;
		return n;
	}
	if (n == 1) {
		ips[0] = 0;
		return 0;
	}
	return _tap_ftops_filter(fo, ips, half) +
	       _tap_ftops_filter(fo, ips + half, n - half);
}

/*
 * Register the ops, calling the probes site[0..m) (sorted by
 * _tap_site_cmp, their addresses in the filter): one code update for all.
 * The ops keeps the array (and frees the one it had).  Returns whether it
 * did; when not, nothing changed.
 */
static bool _tap_ftops_start(struct _tap_ftops *fo, struct kprobe **site, int m)
{
	struct kprobe **old = fo->site;
	int oldn = fo->n;

	if (!fo->filtered || !m)
		return false;
	fo->site = site;
	fo->n = m;
	if (register_ftrace_function(&fo->ops) != 0) {
		fo->site = old;
		fo->n = oldn;
		return false;
	}
	fo->registered = true;
	tap_free(old);
	return true;
}

/* Give back the ops of table, if it has one: unregistering it waits for
 * the callbacks still running. */
static void _tap_ftops_release(const void *table)
{
	struct _tap_ftops *fo = _tap_ftops_of(table);

	if (!fo)
		return;
	if (fo->registered)
		unregister_ftrace_function(&fo->ops);
	if (fo->filtered)
		ftrace_free_filter(&fo->ops);
	tap_free(fo->site);
	memset(fo, 0, sizeof(*fo));
}

/*
 * Arm the probes site[0..m) of table (sorted by _tap_site_cmp, all on
 * ftrace sites) through a free ops.  Returns whether it did; when not,
 * site is freed and the caller arms each probe by itself.
 */
static bool _tap_ftops_arm(const void *table, struct kprobe **site, int m)
{
	struct _tap_ftops *fo = m && site ? _tap_ftops_claim(table) : NULL;
	unsigned long *ips = fo ? tap_alloc(m * sizeof(*ips)) : NULL;
	bool ok = false;
	int nips;

	if (fo)
		fo->locked = true;	/* the kernel's kretprobe entries */

	if (ips) {
		nips = _tap_site_ips(site, m, ips);
		ok = _tap_ftops_filter(fo, ips, nips) == nips &&
		     _tap_ftops_start(fo, site, m);
	}
	tap_free(ips);
	if (ok)
		return true;
	if (fo)
		_tap_ftops_release(table);
	tap_free(site);
	return false;
}

/*
 * Function entries placed without register_kprobe() ("direct").  It costs
 * about a millisecond per probe in the test VM (the symbol lookup, the
 * safety checks, the kprobe's own setup): most of what arming syscall.*
 * took once the ops armed a table with one code update.  A probe the ops
 * takes anyway needs only what the kprobe layer would have found: its
 * address (the anchor's, or for a symbol what kallsyms_lookup_name()
 * says, the lookup register_kprobe() does: a binary search since 6.1),
 * moved past the endbr64 as the kprobe layer moves a probe on a
 * function's first byte (tap_arch_ftrace_site()), and ftrace's word that
 * it is a site (its filter takes no other address).  What else
 * register_kprobe() would refuse at an ftrace site is its blacklist: a
 * function marked NOKPROBE_SYMBOL (kallsyms knows its _kbl_addr_NAME,
 * also for a copy NAME.isra.0) or in a section it refuses whole
 * (_tap_kbl_areas).  Anything else -- a module's function (the kprobe
 * layer drops a probe when its module goes), an offset into a function,
 * an absolute address, a name kallsyms does not know, a blacklisted
 * function, an address ftrace refuses, a kernel where this module cannot
 * call kallsyms_lookup_name() -- is registered as a kprobe, as before, and
 * fails or is skipped with the same message.
 */
static const char *const _tap_kbl_areas[] = {
	"__kprobes_text", "__entry_text", "__noinstr_text", "__irqentry_text",
	"__softirqentry_text",
};
static unsigned long _tap_kbl_lo[ARRAY_SIZE(_tap_kbl_areas)];
static unsigned long _tap_kbl_hi[ARRAY_SIZE(_tap_kbl_areas)];

static void _tap_kbl_init(_tap_kallsyms_lookup_fn lookup, char *buf)
{
	static bool done;
	int i;

	if (done)
		return;
	done = true;
	for (i = 0; i < ARRAY_SIZE(_tap_kbl_areas); i++) {
		snprintf(buf, KSYM_NAME_LEN, "%s_start", _tap_kbl_areas[i]);
		_tap_kbl_lo[i] = lookup(buf);
		snprintf(buf, KSYM_NAME_LEN, "%s_end", _tap_kbl_areas[i]);
		_tap_kbl_hi[i] = lookup(buf);
	}
}

/* Is function name (or the function it is a copy of) NOKPROBE_SYMBOL? */
static bool _tap_kbl_name(_tap_kallsyms_lookup_fn lookup, const char *name,
			  char *buf)
{
	snprintf(buf, KSYM_NAME_LEN, "_kbl_addr_%.*s",
		 (int)strcspn(name, "."), name);
	return lookup(buf) != 0;
}

/* The ftrace site of probe k if the ops can take it without a kprobe,
 * else 0.  buf: KSYM_SYMBOL_LEN + KSYM_NAME_LEN bytes. */
static unsigned long _tap_kprobe_direct_site(struct _tap_kprobe *k,
					     _tap_kallsyms_lookup_fn lookup,
					     char *buf)
{
	const char *sym = k->kp.symbol_name;
	char *name = buf, *plus, *scratch = buf + KSYM_SYMBOL_LEN;
	unsigned long func;
	int i;

	if (k->anchor)
		func = _tap_kaddr(k->file_addr, k->anchor);
	else if (sym && !k->kp.offset && !strchr(sym, ':'))
		func = lookup(sym);
	else
		return 0;
	if (!func)
		return 0;
	/* a function of the kernel's own ("NAME+0x0/0xSIZE"; a module's
	 * ends " [MODULE]"), from its first byte */
	sprint_symbol(name, func);
	plus = strchr(name, '+');
	if (!plus || strncmp(plus, "+0x0/", 5) || strchr(plus, ' '))
		return 0;
	*plus = 0;
	if (_tap_kbl_name(lookup, name, scratch) ||
	    (sym && strcmp(sym, name) && _tap_kbl_name(lookup, sym, scratch)))
		return 0;
	for (i = 0; i < ARRAY_SIZE(_tap_kbl_areas); i++)
		if (func >= _tap_kbl_lo[i] && func < _tap_kbl_hi[i])
			return 0;
	return tap_arch_ftrace_site(func);
}

/*
 * Put the sites of the probes of table k (n entries) that need no kprobe
 * into the filter of an ops claimed for the table; they are marked direct,
 * with kp.addr their site, and kept in the ops' site[].
 */
static void _tap_kprobes_place_direct(struct _tap_kprobe *k, int n)
{
	_tap_kallsyms_lookup_fn lookup = _tap_kallsyms_lookup();
	struct _tap_ftops *fo = lookup ? _tap_ftops_claim(k) : NULL;
	struct kprobe **site = NULL;
	unsigned long *ips = NULL, prev = 0, site_addr;
	char *buf = NULL;
	int i, j = -1, m = 0, d = 0, nips;

	if (!fo)
		return;
	site = tap_alloc(n * sizeof(*site));
	ips = tap_alloc(n * sizeof(*ips));
	buf = tap_alloc(KSYM_SYMBOL_LEN + KSYM_NAME_LEN);
	if (!site || !ips || !buf)
		goto out;
	_tap_kbl_init(lookup, buf);
	for (i = 0; i < n; i++) {
		site_addr = _tap_kprobe_direct_site(&k[i], lookup, buf);
		if (!site_addr)
			continue;
		k[i].kp.addr = (kprobe_opcode_t *)site_addr;
		site[m++] = &k[i].kp;
	}
	sort(site, m, sizeof(*site), _tap_site_cmp, NULL);
	nips = _tap_site_ips(site, m, ips);
	_tap_ftops_filter(fo, ips, nips);
	/* keep those whose address the filter took; the others go back to
	 * being placed by register_kprobe() */
	for (i = 0; i < m; i++) {
		if (j < 0 || (unsigned long)site[i]->addr != prev)
			j++;
		prev = (unsigned long)site[i]->addr;
		if (ips[j]) {
			container_of(site[i], struct _tap_kprobe, kp)->direct = true;
			site[d++] = site[i];
		} else {
			site[i]->addr = NULL;
		}
	}
	fo->site = site;
	fo->n = d;
	site = NULL;
out:
	tap_free(site);
	tap_free(ips);
	tap_free(buf);
}

/*
 * The ops could not be started: the direct probes of table k get their
 * kprobes after all, enabled as they are registered.  Returns 0 or the
 * error of one that could not be registered and is not optional.
 */
static int _tap_kprobes_undirect(struct _tap_kprobe *k, int n)
{
	int i, ret;

	_tap_ftops_release(k);
	for (i = 0; i < n; i++) {
		if (!k[i].direct)
			continue;
		k[i].direct = false;
		k[i].kp.addr = NULL;
		_tap_kprobe_place(&k[i].kp, k[i].file_addr, k[i].anchor);
		ret = register_kprobe(&k[i].kp);
		if (ret == 0) {
			k[i].registered = true;
			continue;
		}
		ret = _tap_probe_failed(k[i].pp, k[i].flags, ret, "kprobe",
					_tap_kprobe_detail(k[i].kp.symbol_name,
							   ret));
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Arm table k (n entries): the direct probes and the registered, disabled
 * kprobes on ftrace sites through the table's ftrace_ops, the other
 * kprobes (and all of them when the ops cannot be had) by enabling each.
 * Returns 0 or the error of a probe that could not be armed and is not
 * optional.
 */
static __maybe_unused int _tap_kprobes_arm(struct _tap_kprobe *k, int n)
{
	struct _tap_ftops *fo = _tap_ftops_of(k);
	struct kprobe **site = NULL;
	unsigned long *ips = NULL;
	bool armed = false, taken = false;
	int i, d, m, lo, nips = 0, ret;

	if (!fo)
		fo = _tap_ftops_claim(k);
	if (fo) {
		site = tap_alloc(n * sizeof(*site));
		ips = tap_alloc(n * sizeof(*ips));
	}
	if (site && ips) {
		/* the direct probes, then the kprobes on ftrace sites */
		d = m = fo->n;
		if (d)
			memcpy(site, fo->site, d * sizeof(*site));
		for (i = 0; i < n; i++)
			if (k[i].registered && kprobe_ftrace(&k[i].kp))
				site[m++] = &k[i].kp;
		sort(site + d, m - d, sizeof(*site), _tap_site_cmp, NULL);
		/* the kprobes' addresses the filter does not hold yet */
		for (i = d; i < m; i++) {
			unsigned long a = (unsigned long)site[i]->addr;

			if ((nips && ips[nips - 1] == a) ||
			    _tap_site_find(site, d, a, &lo) > lo)
				continue;
			ips[nips++] = a;
		}
		taken = m > d && _tap_ftops_filter(fo, ips, nips) == nips;
		if (!taken)
			m = d;
		sort(site, m, sizeof(*site), _tap_site_cmp, NULL);
		armed = _tap_ftops_start(fo, site, m);
		if (armed)
			site = NULL;		/* the ops keeps it */
	}
	tap_free(site);
	tap_free(ips);
	if (!armed) {
		taken = false;
		ret = _tap_kprobes_undirect(k, n);
		if (ret)
			return ret;
	}
	for (i = 0; i < n; i++) {
		if (!k[i].registered)
			continue;
		if (taken && kprobe_ftrace(&k[i].kp))
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
	_tap_ftops_release(k);
}
#define _TAP_KPROBE_REGISTER_FLAGS KPROBE_FLAG_DISABLED
#else
static void _tap_kprobes_place_direct(struct _tap_kprobe *k, int n)
{
}
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
	struct kprobe **batch = tap_alloc((n + 1) * sizeof(*batch));
	struct kprobe *lookup_kp = _tap_kallsyms_kprobe_take();
	unsigned long missed = 0;
	int i, nb = 0;

	/* the ftrace_ops first: unregistering it waits for its callers */
	_tap_kprobes_disarm(k);

	/* the kprobe that found kallsyms_lookup_name(), in the same batch */
	if (lookup_kp && batch)
		batch[nb++] = lookup_kp;
	else if (lookup_kp)
		unregister_kprobe(lookup_kp);

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
		k[i].direct = false;
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

	/* those the table's ftrace_ops takes without a kprobe */
	_tap_kprobes_place_direct(k, n);
	for (i = 0; i < n; i++) {
		if (k[i].direct)
			continue;
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

#if TAP_FPROBE_RETURN || TAP_FTRACE_RETURN
/*
 * The return probes of table k that one fprobe or ftrace_ops can take
 * into site[] (sorted by _tap_site_cmp); returns how many.  The
 * kretprobes are registered disabled first: the kernel resolves each
 * symbol and says whether it sits on an ftrace site (kprobe_ftrace()).
 * An address goes whole to the batch, or stays with kretprobes enabled
 * one by one: when a probe there is kret_only, or when it has more than
 * limit probes.  *most is the most probes of one address taken.
 */
static int _tap_kret_sites(struct _tap_kretprobe *k, int n, struct kprobe **site,
			   int limit, int *most)
{
	struct kprobe **cand = tap_alloc(n * sizeof(*cand));
	int i, j, m = 0, taken = 0;

	*most = 0;
	if (!cand)
		return 0;
	for (i = 0; i < n; i++)
		if (k[i].registered && kprobe_ftrace(&k[i].rp.kp))
			cand[m++] = &k[i].rp.kp;
	sort(cand, m, sizeof(*cand), _tap_site_cmp, NULL);
	for (i = 0; i < m; i = j) {
		bool ok = true;

		for (j = i; j < m && cand[j]->addr == cand[i]->addr; j++)
			ok = ok && !container_of(cand[j], struct _tap_kretprobe,
						 rp.kp)->kret_only;
		if (!ok || j - i > limit)
			continue;
		*most = max(*most, j - i);
		for (; i < j; i++)
			site[taken++] = cand[i];
	}
	tap_free(cand);
	return taken;
}
#endif

#if TAP_FPROBE_RETURN
/*
 * The return probes of one table on ftrace sites, armed through one
 * fprobe whose addresses are all given at once (register_fprobe_ips: one
 * code update, where enabling each kretprobe made one per probe); the
 * rest (no ftrace site, kret_only, the fprobe refused) are then enabled
 * one by one, as before.
 *
 * site[] finds the probes of the address a call came from.  One call's
 * entry data holds a mask of the probes that skip this return, then one
 * slot of stride bytes per probe of the address (their _tap_kret_data or
 * tap_kret_N).  The probes of an address run as the kernel runs
 * kretprobes of one address: entries newest (last in the table) first,
 * returns in table order.
 */
struct _tap_fret {
	struct fprobe fp;
	struct _tap_kretprobe *table;
	struct kprobe **site;
	int n;
	size_t stride;
};
static struct _tap_fret _tap_frets[4];

static inline struct _tap_kretprobe *_tap_fret_probe(struct _tap_fret *fr, int i)
{
	return container_of(fr->site[i], struct _tap_kretprobe, rp.kp);
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
	hi = _tap_site_find(fr->site, fr->n, ip, &lo);
	for (i = hi - 1; i >= lo; i--) {
		struct _tap_kretprobe *k = _tap_fret_probe(fr, i);

		if (k->entry && k->entry(k, regs, slot + (i - lo) * fr->stride))
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

	hi = _tap_site_find(fr->site, fr->n, ip, &lo);
	for (i = lo; i < hi; i++) {
		struct _tap_kretprobe *k = _tap_fret_probe(fr, i);

		if (!(*skip & (1UL << (i - lo))))
			k->ret(k, regs, slot + (i - lo) * fr->stride);
	}
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
 * those it takes are marked batched.  Any failure leaves them all to
 * their kretprobes.
 */
static void _tap_kret_batch_arm(struct _tap_kretprobe *k, int n)
{
	struct _tap_fret *fr = _tap_fret_of(NULL);
	unsigned long *ips = NULL;
	int i, m, nips, most;
	size_t stride = 0;

	if (!fr)
		return;
	fr->site = tap_alloc(n * sizeof(*fr->site));
	if (!fr->site)
		goto fail;
	/* the entry data's skip mask has a bit per probe of an address */
	m = _tap_kret_sites(k, n, fr->site, BITS_PER_LONG, &most);
	ips = tap_alloc((m ?: 1) * sizeof(*ips));
	if (!m || !ips)
		goto fail;
	nips = _tap_site_ips(fr->site, m, ips);
	for (i = 0; i < m; i++)
		stride = max_t(size_t, stride,
			       ALIGN(_tap_fret_probe(fr, i)->rp.data_size, 8));
	fr->n = m;
	fr->stride = stride;
	fr->fp.entry_handler = _tap_fret_entry;
	fr->fp.exit_handler = _tap_fret_exit;
	fr->fp.entry_data_size = sizeof(unsigned long) + stride * most;
	/* each function as many calls in flight as a kretprobe's default */
	fr->fp.nr_maxactive = nips * max_t(int, 10, 2 * num_possible_cpus());
	if (register_fprobe_ips(&fr->fp, ips, nips) != 0)
		goto fail;
	fr->table = k;
	for (i = 0; i < m; i++)
		_tap_fret_probe(fr, i)->batched = true;
	tap_free(ips);
	return;
fail:
	tap_free(ips);
	tap_free(fr->site);
	memset(fr, 0, sizeof(*fr));
}

/* Unregister the table's fprobe (it waits for its handlers); its misses
 * (no free return slot, or a probed function called from a handler: the
 * fprobe does not tell them apart) count as missed return probes. */
static void _tap_kret_batch_disarm(struct _tap_kretprobe *k)
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
#elif TAP_FTRACE_RETURN
/*
 * No fprobe (6.1): the return probes of one table on ftrace sites are
 * armed through one ftrace_ops (_tap_ftops_arm), whose callback calls the
 * kp.pre_handler of their disabled kretprobes, the kernel's kretprobe
 * entry: it takes one of the kretprobe's instances (its maxactive, its
 * misses counted as the kretprobe's), runs the probe's entry function
 * and hooks the return through rethook, whose return side does not look
 * at the disabled flag.  The kprobe layer's own ftrace callback does no
 * more for a kretprobe: its pre_handler reads the stack pointer, not the
 * ip or current_kprobe.  The probes of an address run newest first, as
 * the kprobe layer runs them, so their returns come in table order.
 */
static void _tap_kret_batch_arm(struct _tap_kretprobe *k, int n)
{
	struct kprobe **site = tap_alloc(n * sizeof(*site));
	int i, m = 0, most;

	if (site)
		m = _tap_kret_sites(k, n, site, INT_MAX, &most);
	if (!_tap_ftops_arm(k, site, m))
		return;
	for (i = 0; i < m; i++)
		container_of(site[i], struct _tap_kretprobe, rp.kp)->batched = true;
}

/* The ops first: unregistering it waits for its callbacks; returns still
 * outstanding are the kretprobes' (their unregistering frees them). */
static void _tap_kret_batch_disarm(struct _tap_kretprobe *k)
{
	_tap_ftops_release(k);
}
#define _TAP_KRETPROBE_REGISTER_FLAGS KPROBE_FLAG_DISABLED
#else
static void _tap_kret_batch_arm(struct _tap_kretprobe *k, int n)
{
}
static void _tap_kret_batch_disarm(struct _tap_kretprobe *k)
{
}
#define _TAP_KRETPROBE_REGISTER_FLAGS 0
#endif

static __maybe_unused void _tap_kretprobes_unregister(struct _tap_kretprobe *k, int n)
{
	struct kretprobe **batch = tap_alloc(n * sizeof(*batch));
	unsigned long missed = 0, reentrant = 0;
	int i, nb = 0;

	/* the fprobe or ops first: its handlers may still run until it is
	 * gone */
	_tap_kret_batch_disarm(k);

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
		k[i].batched = false;
	}
	while (missed--)
		tap_count_skip(TAP_SKIP_KRETPROBE);
	while (reentrant--)
		tap_count_skip(TAP_SKIP_REENTRANT);
}

/*
 * Arm the registered kretprobes of table k: those on ftrace sites
 * together where the kernel allows, then enable those the batch did not
 * take (all of them where registration left them enabled).  Returns 0 or
 * the error of one that could not be enabled and is not optional.
 */
static int _tap_kretprobes_arm(struct _tap_kretprobe *k, int n)
{
	int i, ret;

	if (!_TAP_KRETPROBE_REGISTER_FLAGS)
		return 0;
	_tap_kret_batch_arm(k, n);
	for (i = 0; i < n; i++) {
		if (!k[i].registered || k[i].batched)
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
