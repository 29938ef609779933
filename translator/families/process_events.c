/* process_events.c - the life of user processes: process.begin, .end,
 * .thread.begin, .thread.end and process.syscall(.return), for every
 * process (no argument), process(PID) and process("PATH").
 *
 * Pass 2 checks the program (it must exist; a wildcard expands to the
 * programs it matches) and gives syscall probes $syscall, $arg1..$arg6
 * and $return.  process.insn and .insn.block (single-stepping) are
 * refused here.  Without an argument a point stands for every user
 * process (stap allows it); -c/-x restrict every process event to the
 * target's process tree at run time.
 *
 * Pass 3 writes one small function per probe that enters the probe
 * context and runs the body, and the tables of
 * runtime/families/process_events.c, which does the rest (the
 * sched_process_* and raw syscall tracepoints, the walk of the processes
 * running at the start).
 */
#include "emit_glue.h"

#include <string.h>

typedef enum EventKind {
	EV_BEGIN, EV_END, EV_THREAD_BEGIN, EV_THREAD_END, EV_SYSCALL,
	EV_SYSCALL_RETURN,
} EventKind;

/* ResolvedPoint.data of the family. */
typedef struct EventData {
	EventKind kind;
	const char *path;       /* the program, or NULL */
	int64_t pid;            /* process(PID), else 0 */
} EventData;

static const char *const kind_names[] = {
	"TAP_PE_BEGIN", "TAP_PE_END", "TAP_PE_THREAD_BEGIN",
	"TAP_PE_THREAD_END", "TAP_PE_SYSCALL", "TAP_PE_SYSCALL_RETURN",
};

static EventKind event_kind(ProbePoint *pp)
{
	ProbePointComp *c = vec_get(&pp->comps, 1);
	bool ret = pp_has(pp, "return");
	if (!strcmp(c->name, "begin"))
		return EV_BEGIN;
	if (!strcmp(c->name, "end"))
		return EV_END;
	if (!strcmp(c->name, "thread"))
		return pp_has(pp, "begin") ? EV_THREAD_BEGIN : EV_THREAD_END;
	return ret ? EV_SYSCALL_RETURN : EV_SYSCALL;
}

static void add_point(const ProbeFamily *fam, ProbePoint *pp, EventKind kind,
		      const char *path, int64_t pid, Vec *out)
{
	EventData *d = NEW(EventData);
	d->kind = kind;
	d->path = path;
	d->pid = pid;
	ResolvedPoint *rp = rp_push(out, fam, pp);
	rp->data = d;
	rp->user_space = true;
	rp->program = path;
	if (kind == EV_SYSCALL || kind == EV_SYSCALL_RETURN)
		rp_var(rp, "syscall", TY_LONG, NULL)->scalar = true;
	if (kind == EV_SYSCALL)
		for (int i = 1; i <= 6; i++)
			rp_var(rp, xsprintf("arg%d", i), TY_LONG, NULL)->scalar = true;
	if (kind == EV_SYSCALL_RETURN)
		rp_var(rp, "return", TY_LONG, NULL)->scalar = true;
}

static int resolve_event(const ProbeFamily *fam, ProbePoint *pp, Vec *out)
{
	ProbePointComp *head = vec_get(&pp->comps, 0);
	ProbePointComp *c = vec_get(&pp->comps, 1);

	if (!strcmp(c->name, "insn")) {
		if (pp_is_optional(pp))
			return 0;
		error_at(c->loc, _("%s probes (single-stepping every instruction) "
				   "are not supported"),
			 pp_names_upto(pp, pp->comps.len - 1));
		return -1;
	}
	EventKind kind = event_kind(pp);
	if (!head->arg) {
		add_point(fam, pp, kind, NULL, 0, out);
		return 1;
	}
	if (!comp_is_str(head)) {
		int64_t pid = comp_num(head);
		if (pid <= 0) {
			error_at(head->arg->loc, _("process(%lld): a PID must be positive"),
				 (long long)pid);
			return -1;
		}
		add_point(fam, pp, kind, NULL, pid, out);
		return 1;
	}
	const char *name = comp_str(head);
	if (!*name) {
		error_at(head->arg->loc, _("process needs a program path, not an empty string"));
		return -1;
	}
	Vec paths = { 0 };
	if (arg_has_glob(name)) {
		paths = programs_matching(name);
	} else {
		const char *p = program_path(name);
		if (!p) {
			if (pp_is_optional(pp))
				return 0;
			error_at(head->arg->loc, _("cannot find program '%s'%s"), name,
				 strchr(name, '/') ? "" : _(" in $PATH"));
			return -1;
		}
		vec_push(&paths, (void *)p);
	}
	for (int i = 0; i < paths.len; i++) {
		const char *path = paths.data[i];
		ProbePoint *cp = strcmp(path, name) ? pp_with_str(pp, 0, path) : pp;
		add_point(fam, cp, kind, path, 0, out);
	}
	return paths.len;
}

/* ---- pass 3 ---- */

static const EventData *data_of(const EmitProbe *ep)
{
	return ep->rp->data;
}

static bool emit_event_decls(Emitter *e, EmitProbe **probes, int n)
{
	(void)probes;
	(void)n;
	emit(e, "#include \"runtime/families/process_events.c\"");
	emit_blank(e);
	return true;
}

/* The index of path in paths (added when new). */
static int path_index(Vec *paths, const char *path)
{
	for (int i = 0; i < paths->len; i++)
		if (!strcmp(paths->data[i], path))
			return i;
	vec_push(paths, (void *)path);
	return paths->len - 1;
}

static bool emit_event_code(Emitter *e, EmitProbe **probes, int n,
			    FamilyCode *out)
{
	Vec paths = { 0 };
	for (int i = 0; i < n; i++) {
		const EmitProbe *ep = probes[i];
		EventKind k = data_of(ep)->kind;
		bool sys = k == EV_SYSCALL || k == EV_SYSCALL_RETURN;
		emit_void_handler(e, ep, xsprintf("tappe_%d", ep->index), "void *pdata",
				  "NULL", sys ? "utrace_syscall" : "utrace",
				  k == EV_SYSCALL_RETURN, "pdata");
	}
	for (int i = 0; i < n; i++)
		if (data_of(probes[i])->path)
			path_index(&paths, data_of(probes[i])->path);
	emit(e, "static struct _tap_pe_path _tap_pe_path_table[%d] = {",
	     paths.len ? paths.len : 1);
	for (int i = 0; i < paths.len; i++)
		emit(e, "\t{ .name = %s },", c_string(paths.data[i]));
	emit(e, "};");
	emit_blank(e);
	emit(e, "static struct _tap_pe_probe _tap_pe_table[] = {");
	for (int i = 0; i < n; i++) {
		const EmitProbe *ep = probes[i];
		const EventData *d = data_of(ep);
		emit(e, "\t{ .pp = %s, .fire = tappe_%d, .kind = %s,", ep->pp,
		     ep->index, kind_names[d->kind]);
		emit(e, "\t  .pid = %lld, .path = %d, .flags = %s },", (long long)d->pid,
		     d->path ? path_index(&paths, d->path) : -1,
		     emit_point_flags(ep->rp));
	}
	emit(e, "};");
	emit_blank(e);
	emit(e, "static int _tap_pe_family_start(void)");
	emit(e, "{");
	emit(e, "\treturn _tap_pe_start(_tap_pe_table, ARRAY_SIZE(_tap_pe_table),");
	emit(e, "\t\t\t     _tap_pe_path_table, %d);", paths.len);
	emit(e, "}");
	emit_blank(e);
	emit(e, "static void _tap_pe_family_stop(void)");
	emit(e, "{");
	emit(e, "\t_tap_pe_stop();");
	emit(e, "}");
	emit_blank(e);
	out->start_fn = "_tap_pe_family_start";
	out->stop_fn = "_tap_pe_family_stop";
	return true;
}

static const char *event_ctx_expr(const EmitProbe *ep, const CtxVar *v,
				  bool write)
{
	EventKind k = data_of(ep)->kind;
	if (write || (k != EV_SYSCALL && k != EV_SYSCALL_RETURN))
		return NULL;
	const char *a = "((const struct _tap_pe_sysargs *)pdata)";
	if (!strcmp(v->name, "syscall"))
		return xsprintf("%s->nr", a);
	if (!strcmp(v->name, "return"))
		return xsprintf("%s->ret", a);
	if (!strncmp(v->name, "arg", 3) && v->name[3] >= '1' && v->name[3] <= '6' &&
	    !v->name[4])
		return xsprintf("(int64_t)%s->arg[%d]", a, v->name[3] - '1');
	return NULL;
}

static const char *const event_shapes[] = {
	"process(s|n?).{begin|end|thread.begin|thread.end|syscall|syscall.return}",
	NULL
};

/* Known, so that pass 2 can say they are not supported. */
static const char *const insn_shapes[] = {
	"process(s|n?).insn[.block]",
	NULL
};

const ProbeFamily family_process_events = {
	.name = "process", .shapes = event_shapes,
	.untranslatable_shapes = insn_shapes, .resolve = resolve_event,
	.emit_decls = emit_event_decls, .emit_code = emit_event_code,
	.ctx_expr = event_ctx_expr,
};
