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
 */
/* Included once even when two families share it (kprobe and
 * kernel.function both use kprobes.c). */
#ifndef TAP_PROBES_KPROBES_C
#define TAP_PROBES_KPROBES_C

#include "probe_common.h"

#include <linux/kprobes.h>
#include <linux/slab.h>

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

static __maybe_unused void _tap_kprobes_unregister(struct _tap_kprobe *k, int n)
{
	struct kprobe **batch = tap_alloc(n * sizeof(*batch));
	unsigned long missed = 0;
	int i, nb = 0;

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
	return 0;
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
