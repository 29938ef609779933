/* process_dwarf.c - process(...).function/.statement points resolved
 * through the DWARF of the object they are in (a program or library,
 * with its separate debug file), as kernel.function's are (dipoints.c):
 * function and file globs, :N, :N-M, :*, +N, .call, .inline, .return,
 * .label, .callee(s) of inlined callees, .statement("F@FILE:LINE"),
 * .statement("F@*:*") (one probe per line of F) and .nearest.
 *
 * Each point's ProcessData gets the DiFunction (or inlined instance) it
 * is in and its pc, the file address of the probed instruction: after
 * the prologue for a function's entry, the entry itself for .return
 * (the uretprobe goes there) and for inlined instances.  Pass 3
 * (process.c's glue) places the uprobe at object_file_offset(pc) and
 * reads no DWARF; dvars.c reads the $variables at difunc and pc.
 */
#include "dipoints.h"
#include "process.h"

#include <string.h>

typedef struct ProcCtx {
	const ProcessData *proto;
	const ObjectFacts *of;
	bool symbols_left;      /* a plain name only the symbols have */
} ProcCtx;

static void *process_place(DiResolver *r, const DiFunction *f, uint64_t pc,
			   const char **why)
{
	ProcCtx *c = r->ctx;
	uint64_t off;
	if (!object_file_offset(c->of, pc, &off)) {
		*why = xsprintf(_("address 0x%llx of %s is in no loaded segment of %s"),
				(unsigned long long)pc, f->name, c->of->path);
		return NULL;
	}
	ProcessData *d = NEW(ProcessData);
	*d = *c->proto;
	d->name = f->name;
	d->difunc = f;
	d->pc = pc;
	return d;
}

/* An out-of-line callee is probed on its entry, where every caller's
 * call arrives: telling this caller's apart needs the return address
 * check kernel probes have, which uprobes do not have here. */
static const char *process_callee_refused(DiResolver *r, const DiCallSite *cs)
{
	(void)r;
	return xsprintf(_("%s is an out-of-line callee: a probe on its entry "
			  "cannot tell this caller's calls from the others' "
			  "(probe %s itself, or its call site by .statement)"),
			cs->callee->name, cs->callee->name);
}

/* "Did you mean": the DWARF's functions and the symbol table's. */
static void process_near(DiResolver *r, const char *want)
{
	ProcCtx *c = r->ctx;
	const NameList *l = dip_function_names(r->module);
	for (int i = 0; i < l->len; i++)
		family_near_miss(r->pp, r->fi, want, l->names[i], l->names[i]);
	for (int i = 0; i < c->of->funcs.len; i++)
		if (!namelist_has(l, c->of->funcs.names[i]))
			family_near_miss(r->pp, r->fi, want, c->of->funcs.names[i],
					 c->of->funcs.names[i]);
}

/* A plain name the DWARF does not have: a symbol that is another name
 * of a function the DWARF has (libc's malloc is __libc_malloc), that
 * function, as stap; else (_start, code of an object without -g linked
 * in) the symbol table's, as without DWARF. */
static int process_fallback(DiResolver *r)
{
	ProcCtx *c = r->ctx;
	if (!namelist_has(&c->of->funcs, r->fp.func))
		return DIP_NO_FALLBACK;
	const ObjSym *sym = object_symbol(c->of, r->fp.func);
	const DiFunction *f = sym ? di_function_at(r->module, sym->addr) : NULL;
	if (f && f->entry_pc == sym->addr && !r->k.inl)
		return dip_function_point(r, f);
	c->symbols_left = true;
	return 0;
}

static const DiPointOps process_ops = {
	.place = process_place, .callee_refused = process_callee_refused,
	.near = process_near, .fallback = process_fallback,
	.after_prologue = true,
};

/* The functions a plain function glob also stands for by their symbols
 * (as stap lists them): a symbol that is another name of a DWARF
 * function (libc's strdup is __strdup) stands for that function, once;
 * a symbol of code with no DWARF (_start, _init, code built without -g)
 * is a symbol-only point.  Compiler clones ("f.part.0") are their
 * functions'. */
static int symbol_points(DiResolver *r, const char *object,
			 const ProcessData *proto, int first)
{
	const ObjectFacts *of = object_facts(object);
	const NameList *dw = dip_function_names(object);
	Vec made = { 0 };       /* entry pcs of the functions with a point */
	for (int i = first; i < r->out->len; i++) {
		const ProcessData *d = ((ResolvedPoint *)r->out->data[i])->data;
		if (d && d->difunc)
			vec_push(&made, (void *)(uintptr_t)d->difunc->entry_pc);
	}
	int n = 0;
	for (int i = 0; i < of->funcs.len; i++) {
		const char *name = of->funcs.names[i];
		if (!arg_glob_match(r->fp.func, name) || namelist_has(dw, name) ||
		    strchr(name, '.'))
			continue;
		const ObjSym *sym = object_symbol(of, name);
		if (!sym || (!strcmp(name, "_start") && r->k.ret))
			continue;
		const DiFunction *f = di_function_at(object, sym->addr);
		if (f && f->entry_pc == sym->addr) {
			bool dup = false;
			for (int j = 0; j < made.len && !dup; j++)
				dup = (uint64_t)(uintptr_t)made.data[j] == f->entry_pc;
			if (dup)
				continue;
			vec_push(&made, (void *)(uintptr_t)f->entry_pc);
			n += dip_function_point(r, f);
			continue;
		}
		ProcessData *d = NEW(ProcessData);
		*d = *proto;
		d->name = name;
		d->sym = sym;
		d->pc = sym->addr;
		ResolvedPoint *rp = rp_push(r->out, r->fam, pp_with_str(r->pp, r->fi, name));
		rp->data = d;
		rp->needs_debuginfo = false;
		n++;
	}
	return n;
}

/* What a point asks for that only DWARF gives, or NULL. */
static const char *needs_dwarf(const DiResolver *r)
{
	if (r->k.stmt)
		return ".statement";
	if (r->fp.file)
		return _("a source file (@FILE)");
	if (r->fp.line)
		return _("a line number");
	if (r->k.inl)
		return ".inline";
	if (r->k.label)
		return ".label";
	if (r->k.callee || r->k.callees)
		return ".callee";
	return NULL;
}

/* (process.h; here, below process.c, which calls both) */
bool process_drop_match(ProbePoint *pp, Loc loc, const ProcessData *proto,
			const char *message)
{
	if (pp_is_optional(pp))
		return true;
	if (!proto->glob)
		return false;
	warning_at(loc, _("%s, a match of \"%s\", left out: %s"),
		   proto->object, proto->glob, message);
	return true;
}

int process_resolve_dwarf(const ProbeFamily *fam, ProbePoint *pp,
			  const char *object, const ProcessData *proto, Vec *out)
{
	ProcCtx c = { .proto = proto, .of = object_facts(object) };
	DiResolver r;
	if (di_source(object) != DI_SRC_DWARF) {
		/* what only DWARF can place is refused here, in pass 2;
		 * a plain function name is the symbols' */
		if (!dip_init(&r, fam, pp, object, DI_SRC_NONE, &process_ops, &c, out))
			return -1;
		const char *need = needs_dwarf(&r);
		if (!need)
			return PROCESS_NO_DWARF;
		Loc loc = ((ProbePointComp *)pp->comps.data[r.fi])->loc;
		const char *m = xsprintf(
			_("'%s' needs the DWARF debug information of %s (for %s), "
			  "which tapc did not find: %s"),
			pp_text(pp), object, need, di_why_no_dwarf(object));
		ProcessData at = *proto;
		at.object = object;
		if (process_drop_match(pp, loc, &at, m))
			return 0;
		error_at(loc, "%s", m);
		return -1;
	}
	if (!dip_init(&r, fam, pp, object, DI_SRC_DWARF, &process_ops, &c, out))
		return -1;
	if (!strcmp(r.fp.func, "_start") && r.k.ret) {
		error_at(((ProbePointComp *)pp->comps.data[r.fi])->loc,
			 _("cannot probe the return of '_start': it never returns"));
		return -1;
	}
	int first = out->len;
	int n = dip_resolve(&r);
	if (c.symbols_left)
		return PROCESS_NO_DWARF;
	/* function("GLOB"): the functions its symbols name too */
	if (n >= 0 && !r.k.stmt && !r.fp.file && !r.fp.line && !r.k.inl &&
	    !r.k.label && !r.k.callee && !r.k.callees && arg_has_glob(r.fp.func))
		n += symbol_points(&r, object, proto, first);
	return n;
}
