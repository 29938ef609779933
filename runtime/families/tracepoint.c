/*
 * tracepoints.c - kernel.trace("system:event") probes.
 *
 * Pass 3 emits, per probe, a callback whose prototype is the
 * tracepoint's TP_PROTO (after the `void *data` every tracepoint callback
 * gets), a struct that holds the arguments while the body runs (the
 * body's $name reads it through `pdata`), and a table of struct
 * _tap_tracepoint.  The tracepoint itself is found by name, first among
 * the kernel's own (for_each_kernel_tracepoint) and then among those of
 * the loaded modules (the tracepoint module notifier, which also tells
 * when such a module goes away: its probes are then unregistered).
 * Tracepoints of modules loaded after the start are not looked for.
 */
/* Included once even when two families share it (kprobe and
 * kernel.function both use kprobes.c). */
#ifndef TAP_PROBES_TRACEPOINTS_C
#define TAP_PROBES_TRACEPOINTS_C

#include "probe_common.h"

#include <linux/tracepoint.h>
#include <linux/module.h>
#include <linux/mutex.h>

struct _tap_tracepoint {
	/* from pass 3 */
	const char *pp;
	const char *name;		/* the tracepoint: "sched_switch" */
	void *func;			/* the generated callback */
	unsigned int flags;		/* TAP_PROBE_* */

	/* run time */
	struct tracepoint *tp;
	struct module *mod;		/* the tracepoint's module, or NULL */
	bool registered;
};

/*
 * A TP_PROTO argument as a script long: pointers and integers by value
 * (sign-extended as their C type says), anything else (a struct passed
 * by value) by address.  `x` is an lvalue (a field of the argument
 * struct); every branch is valid C for any type, so it works for types
 * pass 3 only knows by name.
 */
#define TAP_ARG_I64(x)							\
	__builtin_choose_expr(__builtin_classify_type(x) == 5,		\
		(int64_t)*(const unsigned long *)&(x),			\
	_Generic((x),							\
		_Bool: (int64_t)*(const _Bool *)&(x),			\
		char: (int64_t)*(const char *)&(x),			\
		signed char: (int64_t)*(const signed char *)&(x),	\
		unsigned char: (int64_t)*(const unsigned char *)&(x),	\
		short: (int64_t)*(const short *)&(x),			\
		unsigned short: (int64_t)*(const unsigned short *)&(x),	\
		int: (int64_t)*(const int *)&(x),			\
		unsigned int: (int64_t)*(const unsigned int *)&(x),	\
		long: (int64_t)*(const long *)&(x),			\
		unsigned long: (int64_t)*(const unsigned long *)&(x),	\
		long long: (int64_t)*(const long long *)&(x),		\
		unsigned long long:					\
			(int64_t)*(const unsigned long long *)&(x),	\
		default: (int64_t)(unsigned long)&(x)))

/* Serialises the module notifier against start and stop. */
static DEFINE_MUTEX(_tap_tp_mutex);
static struct _tap_tracepoint *_tap_tp_table;
static int _tap_tp_count;
static bool _tap_tp_notifier_on;

struct _tap_tp_lookup {
	struct _tap_tracepoint *t;
	int n;
};

/* for_each_kernel_tracepoint: note every table entry this one is. */
static void _tap_tp_match_kernel(struct tracepoint *tp, void *priv)
{
	struct _tap_tp_lookup *l = priv;
	int i;

	for (i = 0; i < l->n; i++)
		if (!l->t[i].tp && !strcmp(tp->name, l->t[i].name))
			l->t[i].tp = tp;
}

static int _tap_tp_register_one(struct _tap_tracepoint *t)
{
	int ret = tracepoint_probe_register(t->tp, t->func, NULL);

	if (ret == 0)
		t->registered = true;
	return ret;
}

/* A module's tracepoints are there (the notifier's registration calls
 * this for every loaded module): note where the missing ones are, for
 * _tap_tracepoints_register().  A module loaded after the start is noted
 * too, but not probed. */
static void _tap_tp_module_coming(struct module *mod)
{
#ifdef CONFIG_TRACEPOINTS
	unsigned int i;
	int j;

	for (i = 0; i < mod->num_tracepoints; i++) {
		struct tracepoint *tp = tracepoint_ptr_deref(&mod->tracepoints_ptrs[i]);

		for (j = 0; j < _tap_tp_count; j++) {
			struct _tap_tracepoint *t = &_tap_tp_table[j];

			if (t->tp || strcmp(tp->name, t->name))
				continue;
			t->tp = tp;
			t->mod = mod;
		}
	}
#endif
}

/* A module goes away: its tracepoints must have no probes left. */
static void _tap_tp_module_going(struct module *mod)
{
	bool any = false;
	int j;

	for (j = 0; j < _tap_tp_count; j++) {
		struct _tap_tracepoint *t = &_tap_tp_table[j];

		if (t->mod != mod)
			continue;
		if (t->registered) {
			tracepoint_probe_unregister(t->tp, t->func, NULL);
			any = true;
		}
		t->registered = false;
		t->tp = NULL;
		t->mod = NULL;
	}
	if (any)
		tracepoint_synchronize_unregister();
}

static int _tap_tp_notify(struct notifier_block *nb, unsigned long what,
			  void *data)
{
	struct tp_module *tpm = data;

	mutex_lock(&_tap_tp_mutex);
	if (_tap_tp_table) {
		if (what == MODULE_STATE_COMING)
			_tap_tp_module_coming(tpm->mod);
		else if (what == MODULE_STATE_GOING)
			_tap_tp_module_going(tpm->mod);
	}
	mutex_unlock(&_tap_tp_mutex);
	return NOTIFY_OK;
}

static struct notifier_block _tap_tp_nb = {
	.notifier_call = _tap_tp_notify,
};

static void _tap_tracepoints_unregister(struct _tap_tracepoint *t, int n)
{
	bool any = false;
	int i;

	mutex_lock(&_tap_tp_mutex);
	for (i = 0; i < n; i++) {
		if (t[i].registered) {
			tracepoint_probe_unregister(t[i].tp, t[i].func, NULL);
			any = true;
		}
		t[i].registered = false;
	}
	_tap_tp_table = NULL;
	_tap_tp_count = 0;
	mutex_unlock(&_tap_tp_mutex);
	/* The notifier does nothing now, but must not be called any more
	 * once the module is gone. */
	if (_tap_tp_notifier_on) {
		unregister_tracepoint_module_notifier(&_tap_tp_nb);
		_tap_tp_notifier_on = false;
	}
	/* no callback of ours runs after this */
	if (any)
		tracepoint_synchronize_unregister();
}

static int _tap_tracepoints_register(struct _tap_tracepoint *t, int n)
{
	struct _tap_tp_lookup l = { t, n };
	bool missing = false;
	int i, ret = 0;

	for_each_kernel_tracepoint(_tap_tp_match_kernel, &l);
	for (i = 0; i < n; i++)
		missing |= !t[i].tp;

	mutex_lock(&_tap_tp_mutex);
	_tap_tp_table = t;
	_tap_tp_count = n;
	mutex_unlock(&_tap_tp_mutex);
	/* It is called back at once for every loaded module. */
	if (missing && register_tracepoint_module_notifier(&_tap_tp_nb) == 0)
		_tap_tp_notifier_on = true;

	mutex_lock(&_tap_tp_mutex);
	for (i = 0; i < n && !ret; i++) {
		ret = t[i].tp ? _tap_tp_register_one(&t[i]) : -ENOENT;
		if (ret)
			ret = _tap_probe_failed(t[i].pp, t[i].flags, ret,
						"tracepoint", ret == -ENOENT ?
						"no such tracepoint in the running "
						"kernel or its loaded modules" : NULL);
	}
	mutex_unlock(&_tap_tp_mutex);
	if (ret)
		_tap_tracepoints_unregister(t, n);
	return ret;
}

#endif /* TAP_PROBES_TRACEPOINTS_C */
