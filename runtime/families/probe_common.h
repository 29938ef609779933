/*
 * probe_common.h - what the probe families' glue shares (timers, kprobes,
 * tracepoints): registration flags, reporting a probe that cannot be
 * registered and the user registers of the current task (kernel API
 * differences are in compat.h).
 *
 * The generated module includes a family's runtime file (runtime/families/
 * NAME.c) once, before its probe bodies, when the script uses the family;
 * that file includes this header.  tap.h has been included before.
 */
#ifndef TAP_PROBE_COMMON_H
#define TAP_PROBE_COMMON_H

#include "compat.h"

#include <linux/kprobes.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/hrtimer.h>

/*
 * Registration flags of one probe, set by pass 3 from the probe point:
 *   TAP_PROBE_OPTIONAL  the point was marked '?' or '!': when it cannot be
 *                       registered the run goes on without it, silently;
 *   TAP_PROBE_WILDCARD  one of the matches of a wildcard: when it cannot be
 *                       registered the run goes on with a warning that
 *                       names it (a few of many candidates are usually off
 *                       limits to probes).
 * Anything else that fails to register stops the start: every probe
 * registered so far is unregistered and the error names the point.
 */
#define TAP_PROBE_OPTIONAL	0x1
#define TAP_PROBE_WILDCARD	0x2

/* Why a registration failed, in words; NULL when the errno says it all. */
static __maybe_unused const char *_tap_reg_errno_text(int err)
{
	switch (err) {
	case -ENOENT:
		return "no such symbol or tracepoint in the running kernel";
	case -EINVAL:
		return "the kernel does not allow a probe there (blacklisted, "
		       "noinstr/notrace code, or not an instruction boundary)";
	case -EILSEQ:
		return "the address is not at an instruction boundary";
	case -EBUSY:
		return "the address is in use by another tracer";
	case -EEXIST:
		return "already registered";
	case -ENOMEM:
		return "out of memory";
	case -ENOSYS:
	case -EOPNOTSUPP:
	case -524:	/* ENOTSUPP, kernel-internal */
		return "not supported at this address by this kernel";
	case -EPERM:
	case -EACCES:
		return "not permitted";
	default:
		return NULL;
	}
}

/*
 * A probe could not be registered: say so, naming the point.  Returns 0
 * when the run goes on without it (optional, or a wildcard match: then a
 * warning), else err (the caller unwinds).  `what` names the mechanism
 * ("kprobe", "tracepoint") and `detail` may add a better reason.
 */
static __maybe_unused int _tap_probe_failed(const char *pp, unsigned int flags,
					    int err, const char *what,
					    const char *detail)
{
	char msg[320];
	const char *why = detail ? detail : _tap_reg_errno_text(err);

	if (flags & TAP_PROBE_OPTIONAL)
		return 0;
	snprintf(msg, sizeof(msg), "probe %s registration error (%s, rc %d)%s%s",
		 pp, what, err, why ? ": " : "", why ? why : "");
	if (flags & TAP_PROBE_WILDCARD) {
		tap_msg_warning(msg);
		return 0;
	}
	tap_msg_error(msg);
	return err;
}

/*
 * The user-mode registers of the current task, for CONTEXT->user_regs:
 * regs themselves when they are user registers, else those saved at the
 * task's entry into the kernel, or NULL in a kernel thread.
 */
static inline struct pt_regs *_tap_user_regs(struct pt_regs *regs)
{
	if (regs && user_mode(regs))
		return regs;
	if (in_nmi() || !current->mm || (current->flags & PF_KTHREAD))
		return NULL;
	return task_pt_regs(current);
}

typedef unsigned long (*_tap_kallsyms_lookup_fn)(const char *name);

/*
 * kallsyms_lookup_name(), found through a kprobe on it: the function is
 * not exported, but a kprobe's registration resolves its symbol_name with
 * it, so the kprobe API gives its address.  The kprobe is registered
 * disabled (no code changes) and stays registered until the first family
 * that asked stops (_tap_kallsyms_kprobe_take()): unregistering it waits
 * for a grace period, ~20 ms under TCG, which the family's own batch pays
 * anyway.  NULL when the kernel will not say, or when this module may not
 * call it through a pointer (tap_arch_kprobe_func(): a sealed endbr64
 * under IBT).
 */
static struct kprobe _tap_kallsyms_kp = {
	.symbol_name = "kallsyms_lookup_name",
	.flags = KPROBE_FLAG_DISABLED,
};
static bool _tap_kallsyms_kp_held;

static __maybe_unused _tap_kallsyms_lookup_fn _tap_kallsyms_lookup(void)
{
	static _tap_kallsyms_lookup_fn fn;
	static bool tried;

	if (tried)
		return fn;
	tried = true;
	if (register_kprobe(&_tap_kallsyms_kp) == 0) {
		_tap_kallsyms_kp_held = true;
		fn = (_tap_kallsyms_lookup_fn)
			tap_arch_kprobe_func((unsigned long)_tap_kallsyms_kp.addr);
	}
	return fn;
}

/* The kprobe _tap_kallsyms_lookup() registered, for the caller to
 * unregister (with its own), or NULL; called when a family that used the
 * lookup stops (no family looks up anything after the first stops). */
static __maybe_unused struct kprobe *_tap_kallsyms_kprobe_take(void)
{
	if (!_tap_kallsyms_kp_held)
		return NULL;
	_tap_kallsyms_kp_held = false;
	return &_tap_kallsyms_kp;
}

#endif /* TAP_PROBE_COMMON_H */
