/* process.c - process(...) probes: uprobes on a program's functions,
 * statements, PLT entries and static (SDT) markers.  (The process's
 * life and system calls, process.begin ... process.syscall, are the
 * family of process_events.c.)
 *
 * The program must exist (an optional point that names a missing one
 * resolves to nothing).  What its file holds comes from debuginfo.h
 * (object_facts): which functions exist (a full symbol table can say a
 * name is not there; a stripped file's dynamic symbols are what a
 * wildcard expands to), the .plt entries, and the SDT markers with their
 * argument counts ($arg1..$argN).
 */
#include "process.h"
#include "emit_glue.h"
#include "arch/arch.h"

#include <fnmatch.h>
#include <string.h>

/* ---- the family ---- */

/* Every site of the marker first (a provider:name may be used at several
 * places, each with its own pc, semaphore and operands): $arg1..$argN are
 * those every site has. */
static void resolve_mark_sites(const ObjectFacts *ef, const SdtNote *first,
			       ProcessData *d)
{
	d->sdt_args = first->nargs;
	for (int i = 0; i < ef->sdt.len; i++) {
		SdtNote *o = ef->sdt.data[i];
		if (o->provider != first->provider || o->name != first->name)
			continue;
		vec_push(&d->sites, o);
		if (o->nargs < d->sdt_args)
			d->sdt_args = o->nargs;
	}
}

/* $arg1..$argN of a marker (as stap, $$parms and $$vars print them as
 * "$arg1=0x.."; an operand that did not parse makes them an error where
 * the script reads them), and $$name and $$provider, the parts of its
 * name.  -L lists the arguments only, as stap does. */
static void add_mark_vars(ResolvedPoint *rp, const ProcessData *d)
{
	const SdtNote *bad = NULL;
	for (int i = 0; i < d->sites.len && !bad; i++) {
		const SdtNote *o = d->sites.data[i];
		if (o->args_error)
			bad = o;
	}
	rp->has_list_vars = true;
	for (int a = 1; a <= d->sdt_args; a++) {
		CtxVar *cv = rp_var(rp, xsprintf("arg%d", a), TY_LONG, NULL);
		cv->scalar = true;
		cv->parms_name = xsprintf("$arg%d", a);
		if (bad)
			cv->unreadable = xsprintf(_("the marker's operands at 0x%llx in %s "
						    "cannot be read: %s"),
						  (unsigned long long)bad->pc, d->object,
						  bad->args_error);
		vec_push(&rp->list_vars, (void *)xsprintf(" $arg%d:long", a));
	}
	rp_var(rp, "$name", TY_STRING, NULL)->scalar = true;
	rp_var(rp, "$provider", TY_STRING, NULL)->scalar = true;
}

/* ---- where a probe goes (symbols only) ---- */

/* A probe's file address must be code: in an executable PT_LOAD
 * segment's file bytes (uprobes are placed by file offset). */
static int check_code_address(const ObjectFacts *ef, ProbePointComp *at,
			      uint64_t addr)
{
	for (int i = 0; i < ef->segments.len; i++) {
		const ObjSegment *sg = ef->segments.data[i];
		if (sg->exec && addr >= sg->vaddr && addr - sg->vaddr < sg->filesz)
			return 0;
	}
	error_at(at->loc, _("address 0x%llx is not in an executable segment of %s"),
		 (unsigned long long)addr, ef->path);
	return -1;
}

static const ObjSym *plt_entry(const ObjectFacts *ef, const char *name)
{
	for (int i = 0; i < ef->plt_entries.len; i++) {
		const ObjSym *o = ef->plt_entries.data[i];
		if (o->name == name || !strcmp(o->name, name))
			return o;
	}
	return NULL;
}

/* Each site of a marker must be placeable: its pc code and its
 * semaphore in the file's bytes (the uprobe reference counter is a file
 * offset). */
static int check_sites(const ObjectFacts *ef, ProbePointComp *at,
		       const ProcessData *d)
{
	for (int i = 0; i < d->sites.len; i++) {
		const SdtNote *o = d->sites.data[i];
		if (check_code_address(ef, at, o->pc) < 0)
			return -1;
		uint64_t off;
		if (o->semaphore && !object_file_offset(ef, o->semaphore, &off)) {
			error_at(at->loc, _("the semaphore of marker %s:%s (0x%llx) is "
					    "not in the file's bytes of %s"),
				 o->provider, o->name,
				 (unsigned long long)o->semaphore, ef->path);
			return -1;
		}
	}
	return 0;
}

/* A function probe placed by its symbol: its arguments by the calling
 * convention (arch/: its argument registers), and at a .return the
 * return register. */
static void add_register_vars(ResolvedPoint *rp)
{
	if (rp->is_return) {
		/* guru mode may set it: the value the caller gets */
		CtxVar *v = rp_var(rp, "return", TY_LONG, NULL);
		v->scalar = true;
		v->writable = v->guru_write = true;
		return;
	}
	/* as many as the target passes in registers (x86-64 6, arm64 8) */
	for (int i = 1; i <= arch_target()->narg_regs; i++)
		rp_var(rp, xsprintf("arg%d", i), TY_LONG, NULL)->scalar = true;
}

/* function("f"), statement("f@file:N"), plt("f"), mark("m") in one
 * object file (the program, or a library of it). */
static int resolve_in_object(const ProbeFamily *fam, ProbePoint *pp,
			     const char *object, ProcessData *proto, Vec *out)
{
	const ObjectFacts *ef = object_facts(object);
	proto->object = object;
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

	/* through the object's DWARF when it has some */
	if (!strcmp(kind, "function") || (!strcmp(kind, "statement") && comp_is_str(kc))) {
		int r = process_resolve_dwarf(fam, pp, object, proto, out);
		if (r != PROCESS_NO_DWARF)
			return r;
	}

	if (!strcmp(kind, "statement")) {
		ProcessData *d = NEW(ProcessData);
		*d = *proto;
		d->address = comp_is_str(kc) ? 0 : comp_num(kc);
		d->name = comp_is_str(kc) ? comp_str(kc) : NULL;
		if (!comp_is_str(kc)) {
			if (check_code_address(ef, kc, d->address) < 0)
				return -1;
			d->pc = d->address;
			d->sym = object_symbol_at(ef, d->pc);
			if (d->sym && !d->sym->func)
				d->sym = NULL;
		}
		/* an address in code the DWARF describes has its variables */
		if (!comp_is_str(kc) && !pp_has(pp, "absolute") &&
		    di_source(object) == DI_SRC_DWARF)
			d->difunc = di_function_at(object, d->pc);
		ResolvedPoint *rp = rp_push(out, fam, pp);
		rp->data = d;
		if (!d->difunc)
			add_register_vars(rp);
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
			d->sym = plt_entry(ef, f);
			if (!d->sym) {
				error_at(kc->loc, _("cannot find where the PLT entry of '%s' "
						    "is in %s"), f, object);
				return -1;
			}
			d->pc = d->sym->addr;
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
			d->object = object;
			resolve_mark_sites(ef, s, d);
			if (check_sites(ef, kc, d) < 0)
				return -1;
			ResolvedPoint *rp = rp_push(out, fam, c);
			rp->data = d;
			add_mark_vars(rp, d);
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
	/* No DWARF places this point (process_resolve_dwarf() said so):
	 * the symbol table is all there is.  A stripped file's is its
	 * dynamic symbols, so a name missing there may be a function of the
	 * program all the same: say so, rather than pretend it is not. */
	if (!ef->readable) {
		const char *m = xsprintf(_("cannot read %s as an ELF object"), object);
		if (process_drop_match(pp, kc->loc, proto, m))
			return 0;
		error_at(kc->loc, "%s", m);
		return -1;
	}
	if (!plain || pp_has(pp, "inline")) {
		const char *m = xsprintf(
			_("'%s' needs the DWARF debug information of %s (for %s), "
			  "which tapc did not find: %s"),
			pp_text(pp), object,
			pp_has(pp, "inline") ? ".inline" : _("a C++ or qualified name"),
			di_why_no_dwarf(object));
		if (process_drop_match(pp, kc->loc, proto, m))
			return 0;
		error_at(kc->loc, "%s", m);
		return -1;
	}
	bool glob = arg_has_glob(func);
	if (!glob && !namelist_has(&ef->funcs, func) && !ef->complete) {
		const char *m = xsprintf(
			_("no function '%s' among the symbols of %s: the file is "
			  "stripped, and tapc found no debug information for it: %s"),
			func, object, di_why_no_dwarf(object));
		if (process_drop_match(pp, kc->loc, proto, m))
			return 0;
		error_at(kc->loc, "%s", m);
		return -1;
	}
	if (arg_has_glob(func)) {
		for (int i = 0; i < ef->funcs.len; i++)
			if (arg_glob_match(func, ef->funcs.names[i]))
				vec_push(&names, (void *)ef->funcs.names[i]);
	} else if (namelist_has(&ef->funcs, func)) {
		vec_push(&names, (void *)func);
	} else if (family_near_wanted(pp)) {
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
		d->sym = object_symbol(ef, f);
		ProbePointComp *fc = c->comps.data[ci];
		if (!d->sym) {
			error_at(fc->loc, _("cannot find the address of '%s' in %s"),
				 f, object);
			return -1;
		}
		if (check_code_address(ef, fc, d->sym->addr) < 0)
			return -1;
		d->pc = d->sym->addr;
		ResolvedPoint *rp = rp_push(out, fam, c);
		rp->data = d;
		/* no DWARF for it: the registers give $arg1..$arg6 and
		 * $return */
		add_register_vars(rp);
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
	if (r > 0 && pp_has(pp, "offset"))
		r = process_insn_expand(pp, out, first);
	for (int i = first; r > 0 && i < out->len; i++) {
		ResolvedPoint *rp = out->data[i];
		const ProcessData *d = rp->data;
		rp->user_space = true;
		rp->program = d ? d->path : NULL;
		rp->user_object = d ? (d->library ? d->library : d->path) : NULL;
	}
	return r;
}

/* The libraries a .library(pattern) of the program at path stands for.
 * A wildcard is matched, as stap does, against the libraries the program
 * loads (its DT_NEEDED closure and the dynamic loader, as --ldd carries
 * them): the file name for a pattern without '/', else the whole path.
 * Searching the system's library folders instead would give
 * .library("*") every library installed (thousands of files, hundreds of
 * thousands of probes, minutes of pass 2) where the program maps four.
 * A wildcard that matches none of them (a library the program opens with
 * dlopen) and a plain name are looked for on the disk. */
static Vec program_libraries(const char *path, const char *pat)
{
	if (arg_has_glob(pat)) {
		Vec needed = object_needed(path), out = { 0 };
		bool whole = strchr(pat, '/') != NULL;
		for (int i = 0; i < needed.len; i++) {
			const char *lib = needed.data[i];
			const char *base = strrchr(lib, '/');
			const char *name = whole || !base ? lib : base + 1;
			if (fnmatch(pat, name, 0) == 0)
				vec_push(&out, (void *)lib);
		}
		if (out.len)
			return out;
	}
	return find_libraries(pat);
}

static int resolve_process_points(const ProbeFamily *fam, ProbePoint *pp,
				  Vec *out)
{
	ProbePointComp *head = vec_get(&pp->comps, 0);
	const char *what = pp_names_upto(pp, pp->comps.len - 1);
	int64_t pid = 0;
	Vec paths = { 0 };       /* the programs this point stands for */
	bool renamed = false;

	if (!head->arg) {
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
	} else if (!comp_is_str(head)) {
		pid = comp_num(head);
		if (pid <= 0) {
			error_at(head->loc, _("process(%lld): a PID must be positive"), (long long)pid);
			return -1;
		}
		const char *exe = process_program(pid);
		if (!exe) {
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
		ProcessData proto = { .path = path, .pid = pid };
		ProbePointComp *lc = pp_comp(c, "library");
		if (!lc) {
			if (renamed && arg_has_glob(comp_str(head)))
				proto.glob = comp_str(head);
			r = resolve_in_object(fam, c, path, &proto, out);
		} else {
			Vec libs = program_libraries(path, comp_str(lc));
			int li = 1;
			r = 0;
			if (arg_has_glob(comp_str(lc)))
				proto.glob = comp_str(lc);
			for (int j = 0; j < libs.len && r >= 0; j++) {
				const char *lib = libs.data[j];
				proto.library = lib;
				ProbePoint *lp = strcmp(lib, comp_str(lc)) ? pp_with_str(c, li, lib) : c;
				int k = resolve_in_object(fam, lp, lib, &proto, out);
				r = k < 0 ? -1 : r + k;
			}
		}
		if (r < 0)
			return -1;
		total += r;
	}
	return total;
}

/* ---- pass 3 ----
 *
 * Every code probe (function, statement, plt, mark, in the program or a
 * library) is a uprobe on its file at the instruction's file offset, a
 * .return one a uretprobe on the function's entry: the table of
 * runtime/families/uprobe.c.  The kernel places it in every process
 * mapping the file, now and later, wherever the file is loaded, so no
 * load bias is needed.  An SDT marker is one uprobe per site, with its
 * semaphore's file offset as the reference counter.
 *
 * The callback enters the probe context with the user registers
 * (c->regs and c->user_regs: the probe is in user mode); a marker's
 * operands are read there, per site, into the argument struct the body
 * gets as pdata.
 */

/* A point on code (function, statement, plt, mark), not a process
 * event. */
static bool is_code_point(const ResolvedPoint *rp)
{
	return pp_has(rp->point, "function") || pp_has(rp->point, "statement") ||
	       pp_has(rp->point, "plt") || pp_has(rp->point, "mark");
}

static bool is_mark(const ResolvedPoint *rp)
{
	return pp_has(rp->point, "mark");
}

/* Why pass 3 cannot place the point, or NULL. */
static const char *unplaceable(const ResolvedPoint *rp)
{
	const ProcessData *d = rp->data;
	if (!is_code_point(rp))
		return _("process lifetime and system call probes are not uprobes");
	if (!d || !d->object)
		return _("the file its code is in is not known");
	if (is_mark(rp))
		return d->sites.len ? NULL : _("the marker's sites are not known");
	if (pp_has(rp->point, "callee") || pp_has(rp->point, "callees"))
		return _(".callee and .callees need the caller's DWARF call sites");
	if ((pp_has(rp->point, "inline") || pp_has(rp->point, "label")) && !d->difunc)
		return _("it needs the object's DWARF debug information");
	if (!d->difunc && !d->sym && !d->pc)
		return _("it needs the object's DWARF debug information");
	return NULL;
}

static bool emit_process_decls(Emitter *e, EmitProbe **probes, int n)
{
	bool ok = true;
	for (int i = 0; i < n; i++) {
		const ResolvedPoint *rp = probes[i]->rp;
		const char *why = unplaceable(rp);
		if (!why)
			continue;
		ProbePoint *up = rp->point->from ? rp->point->from : rp->point;
		error_at(up->loc, _("probe point '%s' cannot be translated yet: %s"),
			 pp_text(rp->point), why);
		ok = false;
	}
	if (!ok)
		return false;
	emit(e, "#include \"runtime/families/uprobe.c\"");
	emit_blank(e);
	return true;
}

/* The file address where probe goes: the DWARF or symbol pc (a return
 * probe: the function's entry). */
static uint64_t probe_pc(const ResolvedPoint *rp)
{
	const ProcessData *d = rp->data;
	if (rp->is_return && d->difunc)
		return d->difunc->entry_pc;
	if (rp->is_return && d->sym)
		return d->sym->addr;
	return d->pc;
}

static void emit_callback(Emitter *e, const EmitProbe *ep)
{
	const ResolvedPoint *rp = ep->rp;

	if (ep->entry_fn) {
		/* the entry of a return probe using @entry: the values go
		 * into the call's slot (runtime/families/uprobe.c) */
		emit(e, "static bool tapue_%d(const struct _tap_uprobe *u, struct pt_regs *regs,",
		     ep->index);
		emit(e, "\t\t\t void *data)");
		emit(e, "{");
		emit(e, "\tstruct tap_context *c;");
		emit(e, "\tbool ok;");
		emit_blank(e);
		emit(e, "\t(void)u;");
		emit(e, "\tc = tap_context_enter(%s, TAP_STATE_RUNNING);", ep->pp);
		emit(e, "\tif (!c)");
		emit(e, "\t\treturn false;");
		emit_context_fill(e, "regs", "uretprobe", false);
		emit(e, "\t%s(c, data);", ep->entry_fn);
		emit(e, "\tok = c->last_error == NULL;");
		emit(e, "\ttap_context_exit(c);");
		emit(e, "\treturn ok;");
		emit(e, "}");
		emit_blank(e);
	}
	emit(e, "static void tapu_%d(const struct _tap_uprobe *u, struct pt_regs *regs,",
	     ep->index);
	emit(e, "\t\t\tunsigned long func, void *pdata)");
	emit(e, "{");
	emit(e, "\tstruct tap_context *c;");
	emit_blank(e);
	emit(e, "\t(void)u;");
	emit(e, "\t(void)func;");
	emit(e, "\t(void)pdata;");
	emit(e, "\tc = tap_context_enter(%s, TAP_STATE_RUNNING);", ep->pp);
	emit(e, "\tif (!c)");
	emit(e, "\t\treturn;");
	emit_context_fill(e, "regs", rp->is_return ? "uretprobe" : "uprobe",
			  rp->is_return);
	/* a marker's operands are read where the body reads them (a fault
	 * in one it does not use must not stop it): pdata is the table
	 * entry, which says which site this is */
	emit(e, "\t%s(c, %s);", ep->body_fn,
	     is_mark(rp) ? "(void *)u" : ep->entry_fn ? "pdata" : "NULL");
	emit(e, "\ttap_context_exit(c);");
	emit(e, "}");
	emit_blank(e);
}

/* Registration flags of rp: .offset without a number stands for every
 * instruction of the function, and the kernel refuses a uprobe on some
 * (int3, for one): like a wildcard's matches, a failure there is a
 * warning. */
static const char *point_flags(const ResolvedPoint *rp)
{
	const char *f = emit_point_flags(rp);
	ProbePoint *up = rp->point->from ? rp->point->from : rp->point;
	ProbePointComp *oc = pp_comp(up, "offset");
	if (!oc || oc->arg || strstr(f, "TAP_PROBE_WILDCARD"))
		return f;
	return !strcmp(f, "0") ? "TAP_PROBE_WILDCARD" : xsprintf("%s | TAP_PROBE_WILDCARD", f);
}

/* One table entry per site of probe ep (one for all but marks); false
 * after an error (a pc pass 2 left outside the file's bytes). */
static bool emit_entries(Emitter *e, const EmitProbe *ep)
{
	const ResolvedPoint *rp = ep->rp;
	const ProcessData *d = rp->data;
	const ObjectFacts *ef = object_facts(d->object);
	int nsites = is_mark(rp) ? d->sites.len : 1;

	for (int s = 0; s < nsites; s++) {
		uint64_t pc = probe_pc(rp), sem = 0, off = 0, sem_off = 0;
		if (is_mark(rp)) {
			const SdtNote *n = d->sites.data[s];
			pc = n->pc;
			sem = n->semaphore;
		}
		if (!object_file_offset(ef, pc, &off) ||
		    (sem && !object_file_offset(ef, sem, &sem_off))) {
			ProbePoint *up = rp->point->from ? rp->point->from : rp->point;
			error_at(up->loc, _("probe point '%s': address 0x%llx is not in "
					    "the file's bytes of %s"), pp_text(rp->point),
				 (unsigned long long)(sem && object_file_offset(ef, pc, &off)
						      ? sem : pc), d->object);
			return false;
		}
		emit(e, "\t{ .pp = %s, .path = %s,", ep->pp, c_string(d->object));
		if (d->library && d->path)
			emit(e, "\t  .exe = %s,", c_string(d->path));
		emit(e, "\t  .offset = 0x%llx, .ref_ctr = 0x%llx, .pid = %lld,",
		     (unsigned long long)off, (unsigned long long)sem_off,
		     (long long)d->pid);
		emit(e, "\t  .is_return = %s, .site = %d, .flags = %s, .fn = tapu_%d,",
		     rp->is_return ? "true" : "false", s, point_flags(rp),
		     ep->index);
		if (ep->entry_fn)
			emit(e, "\t  .entry_fn = tapue_%d, .entry_size = sizeof(%s),",
			     ep->index, ep->entry_type);
		emit(e, "\t},");
	}
	return true;
}

static bool emit_process_code(Emitter *e, EmitProbe **probes, int n,
			      FamilyCode *out)
{
	for (int i = 0; i < n; i++)
		emit_callback(e, probes[i]);
	emit(e, "static struct _tap_uprobe _tap_uprobes[] = {");
	for (int i = 0; i < n; i++)
		if (!emit_entries(e, probes[i]))
			return false;
	emit(e, "};");
	emit_blank(e);
	emit(e, "static int _tap_uprobes_start(void)");
	emit(e, "{");
	emit(e, "\treturn _tap_uprobes_register(_tap_uprobes, ARRAY_SIZE(_tap_uprobes));");
	emit(e, "}");
	emit_blank(e);
	emit(e, "static void _tap_uprobes_stop(void)");
	emit(e, "{");
	emit(e, "\t_tap_uprobes_unregister(_tap_uprobes, ARRAY_SIZE(_tap_uprobes));");
	emit(e, "}");
	emit_blank(e);
	out->start_fn = "_tap_uprobes_start";
	out->stop_fn = "_tap_uprobes_stop";
	return true;
}

/* $argN of a marker: the operand of the site the hit is at (the table
 * entry, pdata, says which), each site's own; NULL when a site's
 * operands did not parse (pass 2 refused a read of them; $$parms leaves
 * them out). */
static const char *mark_arg_expr(const ProcessData *d, int a)
{
	StrBuf b = { 0 };
	sb_puts(&b, "({ int64_t __tap_arg = 0; "
		"switch (((const struct _tap_uprobe *)pdata)->site) { ");
	for (int i = 0; i < d->sites.len; i++) {
		const SdtNote *s = d->sites.data[i];
		if (s->args_error || s->argv.len < a)
			return NULL;
		sb_printf(&b, "case %d: __tap_arg = %s; break; ", i,
			  process_sdt_arg_expr(s->argv.data[a - 1], "c->regs"));
	}
	sb_puts(&b, "} __tap_arg; })");
	return sb_cstr(&b);
}

/* A .return probe's @entry values are saved by the same uprobe at the
 * function's entry, per call (runtime/families/uprobe.c). */
static bool process_supports_entry(const ResolvedPoint *rp)
{
	return rp->is_return && is_code_point(rp);
}

static const char *process_ctx_expr(const EmitProbe *ep, const CtxVar *v,
				    bool write)
{
	const ResolvedPoint *rp = ep->rp;
	const ProcessData *d = rp->data;
	if (!d)
		return NULL;
	if (write)      /* -g: the return register, before the caller sees it */
		return rp->is_return && !d->difunc && !strcmp(v->name, "return")
		       ? xsprintf("c->regs->%s", arch_reg(arch_target()->ret_reg)) : NULL;
	if (!strcmp(v->name, "$name"))
		return c_string(d->name ? d->name : "");
	if (!strcmp(v->name, "$provider"))
		return c_string(d->provider ? d->provider : "");
	if (is_mark(rp)) {
		int a;
		if (sscanf(v->name, "arg%d", &a) == 1 && a >= 1 && a <= d->sdt_args)
			return mark_arg_expr(d, a);
		return NULL;
	}
	if (d->difunc)
		return NULL;    /* typed, from DWARF (target_expr.c) */
	if (rp->is_return && !strcmp(v->name, "return"))
		return "((int64_t)regs_return_value(c->regs))";
	int a;
	/* without DWARF: the registers of the calling convention (arch/) */
	const Arch *arch = arch_target();
	if (!rp->is_return && sscanf(v->name, "arg%d", &a) == 1 && a >= 1 &&
	    a <= arch->narg_regs)
		return xsprintf("((int64_t)c->regs->%s)", arch_reg(arch->arg_regs[a - 1]));
	return NULL;
}

static const char *const process_shapes[] = {
	"process(s|n?)[.library(s)].function(s)[.call|.inline|.label(s)|.return]",
	"process(s|n?)[.library(s)].function(s).offset(n?)",
	"process(s|n?)[.library(s)].statement(s)[.nearest]",
	"process(s|n?).statement(n)[.absolute]",
	"process(s|n?)[.library(s)].plt(s?)[.return]",
	"process(s|n?)[.library(s)][.provider(s)].mark(s)",
	NULL
};

/* Accepted by pass 2, not translated: the call sites of .callee(s). */
static const char *const process_untranslatable_shapes[] = {
	"process(s|n?)[.library(s)].function(s).{callee(s)[.call|.return]|callees(n?)}",
	NULL
};

/* A point placed through the object's DWARF (difunc) is in that
 * function; module (the object's path, DI_USER) and pc are known of
 * the others too. */
static bool process_debug_point(const ResolvedPoint *rp, DebugPoint *out)
{
	const ProcessData *pd = rp->data;
	if (!pd)
		return false;
	*out = (DebugPoint){ .module = pd->object ? pd->object : pd->path,
			     .pc = pd->pc };
	if (!pd->difunc)
		return false;
	out->func = pd->difunc;
	out->at_entry = !pd->difunc->inlined && pd->pc == pd->difunc->entry_pc;
	return true;
}

const ProbeFamily family_process = {
	.name = "process", .shapes = process_shapes,
	.untranslatable_shapes = process_untranslatable_shapes,
	.resolve = resolve_process,
	.emit_decls = emit_process_decls, .emit_code = emit_process_code,
	.ctx_expr = process_ctx_expr,
	.supports_entry = process_supports_entry,
	.debug_point = process_debug_point,
};
