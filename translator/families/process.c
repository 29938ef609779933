/* process.c - process(...) probes: process lifetime and system-call events,
 * and uprobes on a program's functions, statements, PLT entries and
 * static (SDT) markers.
 *
 * The program must exist (an optional point that names a missing one
 * resolves to nothing).  What its file holds comes from debuginfo.h
 * (object_facts): which functions exist (a full symbol table can say a
 * name is not there; a stripped file's dynamic symbols are what a
 * wildcard expands to), the .plt entries, and the SDT markers with their
 * argument counts ($arg1..$argN).
 */
#include "process.h"

#include <string.h>

/* ---- the family ---- */

static const char *const event_kinds[] = {
	"begin", "end", "thread", "syscall", "insn",
};

static bool is_event_point(ProbePoint *pp)
{
	ProbePointComp *c = vec_get(&pp->comps, 1);
	for (size_t i = 0; i < sizeof event_kinds / sizeof event_kinds[0]; i++)
		if (!strcmp(c->name, event_kinds[i]))
			return true;
	return false;
}

static ProcessData *new_data(const char *path, int64_t pid)
{
	ProcessData *d = NEW(ProcessData);
	d->path = path;
	d->pid = pid;
	return d;
}

static int resolve_event(const ProbeFamily *fam, ProbePoint *pp,
			 const char *path, int64_t pid, Vec *out)
{
	ResolvedPoint *rp = rp_push(out, fam, pp);
	rp->data = new_data(path, pid);
	ProbePointComp *c = vec_get(&pp->comps, 1);
	if (!strcmp(c->name, "syscall")) {
		rp_var(rp, "syscall", TY_LONG, NULL)->scalar = true;
		if (pp_has(pp, "return")) {
			rp_var(rp, "return", TY_LONG, NULL)->scalar = true;
		} else {
			for (int i = 1; i <= 6; i++)
				rp_var(rp, xsprintf("arg%d", i), TY_LONG, NULL)->scalar = true;
		}
	}
	return 1;
}

/* function("f"), statement("f@file:N"), plt("f"), mark("m") in one
 * object file (the program, or a library of it). */
static int resolve_in_object(const ProbeFamily *fam, ProbePoint *pp,
			     const char *object, ProcessData *proto, Vec *out)
{
	const ObjectFacts *ef = object_facts(object);
	int ci = -1;
	const char *kind = NULL;
	for (int i = 1; i < pp->comps.len && !kind; i++) {
		const char *n = ((ProbePointComp *)pp->comps.data[i])->name;
		if (!strcmp(n, "function") || !strcmp(n, "statement") ||
		    !strcmp(n, "plt") || !strcmp(n, "mark")) {
			kind = n;
			ci = i;
		}
	}
	ProbePointComp *kc = pp->comps.data[ci];
	Vec names = { 0 };
	int total = 0;

	if (!strcmp(kind, "statement")) {
		ProcessData *d = NEW(ProcessData);
		*d = *proto;
		d->address = comp_is_str(kc) ? 0 : comp_num(kc);
		d->name = comp_is_str(kc) ? comp_str(kc) : NULL;
		ResolvedPoint *rp = rp_push(out, fam, pp);
		rp->data = d;
		rp->needs_debuginfo = !pp_has(pp, "absolute");
		return 1;
	}

	if (!strcmp(kind, "plt")) {
		const char *pat = kc->arg ? comp_str(kc) : "*";
		for (int i = 0; i < ef->plt.len; i++)
			if (arg_glob_match(pat, ef->plt.names[i]))
				vec_push(&names, (void *)ef->plt.names[i]);
		for (int i = 0; i < names.len; i++) {
			const char *f = names.data[i];
			ProbePoint *c = kc->arg && !strcmp(f, comp_str(kc)) ? pp
					: pp_with_str(pp, ci, f);
			ProcessData *d = NEW(ProcessData);
			*d = *proto;
			d->name = f;
			ResolvedPoint *rp = rp_push(out, fam, c);
			rp->data = d;
			/* $$name: the function the PLT entry leads to */
			rp_var(rp, "$name", TY_STRING, NULL)->scalar = true;
		}
		return names.len;
	}

	if (!strcmp(kind, "mark")) {
		ProbePointComp *pc = pp_comp(pp, "provider");
		const char *ppat = pc ? comp_str(pc) : "*";
		const char *mpat = comp_str(kc);
		for (int i = 0; i < ef->sdt.len; i++) {
			SdtNote *s = ef->sdt.data[i];
			if (!arg_glob_match(ppat, s->provider) || !arg_glob_match(mpat, s->name))
				continue;
			/* One probe per distinct provider:name (a marker may sit
			 * at several sites). */
			bool dup = false;
			for (int j = 0; j < i && !dup; j++) {
				SdtNote *o = ef->sdt.data[j];
				dup = o->provider == s->provider && o->name == s->name;
			}
			if (dup)
				continue;
			ProbePoint *c = strcmp(s->name, mpat) ? pp_with_str(pp, ci, s->name) : pp;
			if (pc && strcmp(s->provider, ppat)) {
				for (int j = 1; j < c->comps.len; j++)
					if (!strcmp(((ProbePointComp *)c->comps.data[j])->name, "provider"))
						c = pp_with_str(c, j, s->provider);
			}
			ProcessData *d = NEW(ProcessData);
			*d = *proto;
			d->name = s->name;
			d->provider = s->provider;
			d->sdt_args = s->nargs;
			ResolvedPoint *rp = rp_push(out, fam, c);
			rp->data = d;
			for (int a = 1; a <= s->nargs; a++)
				rp_var(rp, xsprintf("arg%d", a), TY_LONG, "long");
			/* $$name and $$provider: the parts of the marker's name */
			rp_var(rp, "$name", TY_STRING, NULL)->scalar = true;
			rp_var(rp, "$provider", TY_STRING, NULL)->scalar = true;
			total++;
		}
		return total;
	}

	/* function("pattern") */
	const char *text = comp_str(kc);
	if (!*text) {
		error_at(kc->loc, _("empty function pattern"));
		return -1;
	}
	const char *func = xstrndup(text, strcspn(text, "@:+"));
	bool plain = !strpbrk(text, "@:+") && !strstr(text, "::");
	if (!strcmp(func, "_start") && pp_has(pp, "return")) {
		error_at(kc->loc, _("cannot probe the return of '_start': it never returns"));
		return -1;
	}
	/* Only a complete symbol list can say a function does not exist
	 * (inline instances and C++ names still need DWARF).  A stripped
	 * file's dynamic symbols are what a wildcard expands to; a name or
	 * wildcard with none among them is left for its debug information,
	 * which may yet be found, but -l lists only the functions known. */
	bool glob = arg_has_glob(func), some = false;
	for (int i = 0; glob && i < ef->funcs.len && !some; i++)
		some = arg_glob_match(func, ef->funcs.names[i]);
	if (glob && ef->dynamic_only && !some && sess.listing)
		return 0;
	if (!ef->readable || !plain || pp_has(pp, "inline") ||
	    (!ef->complete && !(glob ? ef->dynamic_only && some
				      : namelist_has(&ef->funcs, func)))) {
		if (ef->readable && !plain && !arg_has_glob(func) && *func &&
		    ef->complete && !strstr(text, "::") && !namelist_has(&ef->funcs, func))
			return 0;
		ProcessData *d = NEW(ProcessData);
		*d = *proto;
		d->name = func;
		ResolvedPoint *rp = rp_push(out, fam, pp);
		rp->data = d;
		rp->needs_debuginfo = true;
		return 1;
	}
	if (arg_has_glob(func)) {
		for (int i = 0; i < ef->funcs.len; i++)
			if (arg_glob_match(func, ef->funcs.names[i]))
				vec_push(&names, (void *)ef->funcs.names[i]);
	} else if (namelist_has(&ef->funcs, func)) {
		vec_push(&names, (void *)func);
	} else {
		for (int i = 0; i < ef->funcs.len; i++)
			family_near_miss(pp, ci, func, ef->funcs.names[i],
					 ef->funcs.names[i]);
	}
	for (int i = 0; i < names.len; i++) {
		const char *f = names.data[i];
		if (!strcmp(f, "_start") && pp_has(pp, "return"))
			continue;
		ProbePoint *c = strcmp(f, text) ? pp_with_str(pp, ci, f) : pp;
		ProcessData *d = NEW(ProcessData);
		*d = *proto;
		d->name = f;
		ResolvedPoint *rp = rp_push(out, fam, c);
		rp->data = d;
		rp->needs_debuginfo = true;
		total++;
	}
	return total;
}

static int resolve_process_points(const ProbeFamily *fam, ProbePoint *pp,
				  Vec *out);

/* Every process probe runs for a user process, bound to its program (a
 * library probe to the program, not the library). */
static int resolve_process(const ProbeFamily *fam, ProbePoint *pp, Vec *out)
{
	int first = out->len;
	int r = resolve_process_points(fam, pp, out);
	for (int i = first; r > 0 && i < out->len; i++) {
		ResolvedPoint *rp = out->data[i];
		const ProcessData *d = rp->data;
		rp->user_space = true;
		rp->program = d ? d->path : NULL;
		rp->user_object = d ? (d->library ? d->library : d->path) : NULL;
	}
	return r;
}

static int resolve_process_points(const ProbeFamily *fam, ProbePoint *pp,
				  Vec *out)
{
	ProbePointComp *head = vec_get(&pp->comps, 0);
	bool event = is_event_point(pp);
	const char *what = pp_names_upto(pp, pp->comps.len - 1);
	int64_t pid = 0;
	Vec paths = { 0 };       /* the programs this point stands for */
	bool renamed = false;

	if (!head->arg) {
		if (event && !sess.target_cmd && sess.target_pid <= 0 && !sess.guru) {
			error_at(head->loc, _("%s needs a program path or PID (or -c CMD / -x PID)"),
				 what);
			return -1;
		}
		if (event) {
			vec_push(&paths, NULL);
		} else {
			const char *p = program_path(NULL);
			if (!p) {
				if (!sess.target_cmd && sess.target_pid <= 0) {
					error_at(head->loc, _("%s needs a program path or PID (or -c CMD / -x PID)"),
						 what);
					return -1;
				}
				if (pp_is_optional(pp))
					return 0;
				error_at(head->loc, _("cannot find the program of -c '%s'"),
					 sess.target_cmd ? sess.target_cmd : "");
				return -1;
			}
			vec_push(&paths, (void *)p);
		}
	} else if (!comp_is_str(head)) {
		pid = comp_num(head);
		if (pid <= 0) {
			error_at(head->loc, _("process(%lld): a PID must be positive"), (long long)pid);
			return -1;
		}
		const char *exe = event ? NULL : process_program(pid);
		if (!event && !exe) {
			if (pp_is_optional(pp))
				return 0;
			error_at(head->loc, _("no running process with PID %lld"), (long long)pid);
			return -1;
		}
		vec_push(&paths, (void *)exe);
	} else {
		const char *name = comp_str(head);
		if (!*name) {
			error_at(head->loc, _("process needs a program path, not an empty string"));
			return -1;
		}
		if (arg_has_glob(name)) {
			paths = programs_matching(name);
			if (!paths.len)
				return 0;
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
		renamed = true;
	}

	int total = 0;
	for (int i = 0; i < paths.len; i++) {
		const char *path = paths.data[i];
		ProbePoint *c = renamed && strcmp(path, comp_str(head)) ? pp_with_str(pp, 0, path) : pp;
		int r;
		if (event) {
			r = resolve_event(fam, c, path, pid, out);
		} else {
			ProcessData proto = { .path = path, .pid = pid };
			ProbePointComp *lc = pp_comp(c, "library");
			if (!lc) {
				r = resolve_in_object(fam, c, path, &proto, out);
			} else {
				Vec libs = find_libraries(comp_str(lc));
				int li = 1;
				r = 0;
				for (int j = 0; j < libs.len && r >= 0; j++) {
					const char *lib = libs.data[j];
					proto.library = lib;
					ProbePoint *lp = strcmp(lib, comp_str(lc)) ? pp_with_str(c, li, lib) : c;
					int k = resolve_in_object(fam, lp, lib, &proto, out);
					r = k < 0 ? -1 : r + k;
				}
			}
		}
		if (r < 0)
			return -1;
		total += r;
	}
	return total;
}

static const char *const process_shapes[] = {
	"process(s|n?).{begin|end|thread.begin|thread.end|syscall|syscall.return"
		"|insn|insn.block}",
	"process(s|n?)[.library(s)].function(s)[.call|.inline|.label(s)|.return"
		"|.callee(s)[.call|.return]|.callees(n?)]",
	"process(s|n?)[.library(s)].statement(s)[.nearest]",
	"process(s|n?).statement(n)[.absolute]",
	"process(s|n?)[.library(s)].plt(s?)[.return]",
	"process(s|n?)[.library(s)][.provider(s)].mark(s)",
	NULL
};

const ProbeFamily family_process = {
	.name = "process", .shapes = process_shapes, .resolve = resolve_process,
};
