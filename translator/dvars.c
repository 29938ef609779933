/* dvars.c - pass 2: target expressions typed from the debug information
 * (DWARF, else BTF).  $var at a kernel.function/statement point, its
 * members, indexes and address, $return, @cast to a kernel or module type
 * or to a type of user-space headers (@cast(p, "T", "<sys/un.h>")),
 * @var("name@file.c"), and the typed context variables of other families
 * (tracepoint arguments): each becomes a TargetPath (tpath.h) on its
 * node, with every user error reported here, at the node.
 */
#include "elab.h"
#include "tpath.h"
#include "families/family.h"
#include "arch/arch.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- the function and pc a probe's variables are read at ---- */

/* Where rp's handler runs, when debug information says (the family's
 * debug_point hook). */
static bool debug_point(const ResolvedPoint *rp, DebugPoint *out)
{
	return rp && rp->family && rp->family->debug_point &&
	       rp->family->debug_point(rp, out);
}

static bool is_user_module(const char *module)
{
	return module && module[0] == '/';
}

typedef struct VarsCache {
	const ResolvedPoint *rp;
	bool entry;
	Vec vars;               /* DiVariable * */
	DebugPoint dp;
	struct VarsCache *next; /* the next in its slot of vars_index */
} VarsCache;

/* The cache, by point: a script can have a hundred thousand points (a
 * .plt of every library), each asked for several times, so a search
 * through a list would make pass 2 quadratic.  Chained slots, a power
 * of two, doubled when there are as many entries as slots. */
static VarsCache **vars_index;
static size_t vars_index_cap, vars_count;

static size_t vars_slot(const ResolvedPoint *rp, bool entry, size_t cap)
{
	return (((uintptr_t)rp >> 4) * 2654435761u + entry) & (cap - 1);
}

static void vars_index_add(VarsCache *vc)
{
	if (vars_count >= vars_index_cap) {
		size_t cap = vars_index_cap ? vars_index_cap * 2 : 1024;
		VarsCache **slots = calloc(cap, sizeof *slots);
		if (!slots)
			fatal(_("out of memory"));
		for (size_t i = 0; i < vars_index_cap; i++) {
			for (VarsCache *e = vars_index[i], *n; e; e = n) {
				n = e->next;
				size_t k = vars_slot(e->rp, e->entry, cap);
				e->next = slots[k];
				slots[k] = e;
			}
		}
		free(vars_index);
		vars_index = slots;
		vars_index_cap = cap;
	}
	size_t k = vars_slot(vc->rp, vc->entry, vars_index_cap);
	vc->next = vars_index[k];
	vars_index[k] = vc;
	vars_count++;
}

/* Before its prologue has run, unoptimised user code (whose probes go
 * after the prologue, di_probe_pc) has its parameters where the caller
 * put them, not yet in the frame slots its DWARF names: at the entry
 * of a .return probe (and @entry) they are read from the registers of
 * the target's calling convention (arch/) instead, as long as each one before
 * is an integer or pointer in a register.  A parameter passed another
 * way (a float, a struct by value, past the sixth) is not known
 * there. */
static void entry_params_by_abi(VarsCache *vc)
{
	const Arch *arch = arch_target();
	const DiFunction *f = vc->dp.func;
	if (f->inlined || vc->dp.pc != f->entry_pc || di_probe_pc(f) == f->entry_pc)
		return;
	int next = 0;
	bool lost = false;
	for (int i = 0; i < vc->vars.len; i++) {
		const DiVariable *v = vec_get(&vc->vars, i);
		if (!v->is_param)
			continue;
		DiVariable *c = NEW(DiVariable);
		*c = *v;
		vc->vars.data[i] = c;
		const DiType *t = di_type_strip(v->type);
		bool in_int_reg = t && (t->kind == DI_TYPE_INT || t->kind == DI_TYPE_ENUM ||
					t->kind == DI_TYPE_POINTER) && t->size <= 8;
		if (t && t->kind == DI_TYPE_FLOAT) {
			c->loc = (DiLocation){ .kind = DI_LOC_NONE };
			continue;       /* a floating-point register: not counted */
		}
		if (lost || !in_int_reg || next == arch->narg_regs) {
			lost = true;    /* where the rest are is not known */
			c->loc = (DiLocation){ .kind = DI_LOC_NONE };
			continue;
		}
		c->loc = (DiLocation){ .kind = DI_LOC_REG, .reg = arch->arg_regs[next++] };
	}
}

/* The variables a handler of rp sees (entry: at the function's entry, for
 * @entry and the parameters of .return probes), or NULL. */
static VarsCache *point_vars(const ResolvedPoint *rp, bool entry)
{
	if (vars_index_cap) {
		for (VarsCache *vc = vars_index[vars_slot(rp, entry, vars_index_cap)]; vc;
		     vc = vc->next)
			if (vc->rp == rp && vc->entry == entry)
				return vc->dp.func ? vc : NULL;
	}
	VarsCache *vc = NEW(VarsCache);
	vc->rp = rp;
	vc->entry = entry;
	vars_index_add(vc);
	if (!debug_point(rp, &vc->dp)) {
		vc->dp.func = NULL;
		return NULL;
	}
	if (entry && !vc->dp.at_entry) {
		vc->dp.pc = vc->dp.func->entry_pc;
		vc->dp.at_entry = !vc->dp.func->inlined;
	}
	vc->vars = di_variables_at(vc->dp.func, vc->dp.pc);
	if (entry && is_user_module(vc->dp.module))
		entry_params_by_abi(vc);
	return vc;
}

bool rp_has_debug_vars(const ResolvedPoint *rp)
{
	return point_vars(rp, false) != NULL;
}

/* The variable NAME (the innermost of that name), or NULL. */
static const DiVariable *find_var(VarsCache *vc, const char *name)
{
	for (int i = vc->vars.len - 1; i >= 0; i--) {
		const DiVariable *v = vec_get(&vc->vars, i);
		if (v->name && !strcmp(v->name, name))
			return v;
	}
	return NULL;
}

/* ---- walking a path through the types ---- */

static const char *type_text(const DiType *t)
{
	return t ? di_type_text(t) : "void";
}

/* A type by name from module's debug information or, when `module` is a
 * list of user-space headers ("<sys/un.h>", as @cast's walk passes it),
 * from theirs. */
static const DiType *named_type(const char *module, const char *name)
{
	const char *why;
	if (module && module[0] == '<')
		return di_header_type(module, name, &why);
	return di_find_type(module, name);
}

/* t behind typedefs and qualifiers, a declared-only struct replaced by
 * its definition when one is known. */
static const DiType *strip(const DiType *t, const char *module)
{
	t = di_type_strip(t);
	if (t && t->kind == DI_TYPE_FWD && t->name) {
		const DiType *def = named_type(module, xsprintf("struct %s", t->name));
		if (!def || di_type_strip(def)->kind == DI_TYPE_FWD)
			def = named_type(module, xsprintf("union %s", t->name));
		if (def && di_type_strip(def)->kind != DI_TYPE_FWD)
			t = di_type_strip(def);
	}
	return t;
}

static bool is_void(const DiType *t)
{
	return !t || t->kind == DI_TYPE_VOID;
}

/* A member of struct/union s by name, looking into anonymous members;
 * its type, bit offset from s's start and bit size. */
static bool find_member(const DiType *s, const char *name, const char *module,
			const DiType **type, uint64_t *bit_offset, int *bit_size)
{
	for (int i = 0; i < s->members.len; i++) {
		const DiMember *m = vec_get(&s->members, i);
		if (m->name && !strcmp(m->name, name)) {
			*type = m->type;
			*bit_offset = m->bit_offset;
			*bit_size = m->bit_size;
			return true;
		}
		if (!m->name) {
			const DiType *in = strip(m->type, module);
			if (in && (in->kind == DI_TYPE_STRUCT || in->kind == DI_TYPE_UNION) &&
			    find_member(in, name, module, type, bit_offset, bit_size)) {
				*bit_offset += m->bit_offset;
				return true;
			}
		}
	}
	return false;
}

static void member_names(const DiType *s, const char *module, Vec *out)
{
	for (int i = 0; i < s->members.len; i++) {
		const DiMember *m = vec_get(&s->members, i);
		if (m->name) {
			vec_push(out, (void *)intern(m->name));
			continue;
		}
		const DiType *in = strip(m->type, module);
		if (in && (in->kind == DI_TYPE_STRUCT || in->kind == DI_TYPE_UNION))
			member_names(in, module, out);
	}
}

/* The text of a path up to (not including) component k. */
static const char *path_upto(const char *base, Vec *comps, int k)
{
	StrBuf sb = { 0 };
	sb_puts(&sb, base);
	for (int i = 0; i < k && i < comps->len; i++) {
		Component *c = vec_get(comps, i);
		if (c->kind == COMP_MEMBER)
			sb_printf(&sb, "->%s", c->name);
		else if (c->index && c->index->kind == N_NUMBER)
			sb_printf(&sb, "[%lld]", (long long)c->index->num);
		else
			sb_puts(&sb, "[...]");
	}
	const char *r = intern(sb_cstr(&sb));
	sb_free(&sb);
	return r;
}

static void list_note(Loc loc, const char *what, Vec *names, const char *prefix)
{
	StrBuf sb = { 0 };
	int shown = 0;
	for (int i = 0; i < names->len; i++) {
		if (shown == 24) {
			sb_puts(&sb, " ...");
			break;
		}
		sb_printf(&sb, " %s%s", prefix, (const char *)vec_get(names, i));
		shown++;
	}
	if (!names->len)
		sb_puts(&sb, _(" (none)"));
	note_at(loc, "%s:%s", what, sb_cstr(&sb));
	sb_free(&sb);
}

#define REPORT(...) do { if (report) error_at(__VA_ARGS__); } while (0)

/* The steps of n's components from a value of type t; false after an
 * error (reported when `report`). */
static bool walk(TargetPath *tp, Node *n, const char *base, const char *module,
		 bool report)
{
	const DiType *t = tp->start_type;
	tp->bit_size = 0;
	for (int i = 0; i < n->comps.len; i++) {
		Component *c = vec_get(&n->comps, i);
		const char *here = path_upto(base, &n->comps, i);
		const DiType *s = strip(t, module);
		TpStep *st = NEW(TpStep);
		st->comp = i;
		st->kind = c->kind == COMP_MEMBER ? TP_MEMBER : TP_INDEX;
		if (tp->bit_size) {
			REPORT(c->loc, _("'%s' is a bitfield: it has no members and cannot "
					 "be indexed"), here);
			return false;
		}
		if (c->kind == COMP_MEMBER) {
			if (s && s->kind == DI_TYPE_POINTER) {
				st->through_ptr = true;
				if (is_void(s->target) || is_void(strip(s->target, module))) {
					REPORT(c->loc, _("'%s' is a void pointer: '->%s' needs a "
							 "type (use @cast)"), here, c->name);
					return false;
				}
				s = strip(s->target, module);
			}
			if (!s || (s->kind != DI_TYPE_STRUCT && s->kind != DI_TYPE_UNION)) {
				if (s && s->kind == DI_TYPE_FWD)
					REPORT(c->loc, _("'%s' is a %s, whose definition the debug "
							 "information does not have: no member '%s' "
							 "can be read"), here, type_text(t), c->name);
				else
					REPORT(c->loc, _("'%s' is a %s, which has no members (no "
							 "'%s' to read)"), here, type_text(t), c->name);
				return false;
			}
			const DiType *mt;
			uint64_t bits;
			int bsize;
			if (!find_member(s, c->name, module, &mt, &bits, &bsize)) {
				if (report) {
					Vec names = { 0 };
					member_names(s, module, &names);
					error_at(c->loc, _("'%s->%s': %s has no member '%s'%s"),
						 here, c->name, type_text(s), c->name,
						 similar_names(intern(c->name), &names));
					list_note(c->loc, xsprintf(_("the members of %s"),
								  type_text(s)), &names, "");
				}
				return false;
			}
			st->offset = bits / 8;
			if (bsize) {
				tp->bit_size = bsize;
				tp->bit_offset = (int)(bits % 8);
			}
			t = mt;
		} else {
			if (s && s->kind == DI_TYPE_POINTER) {
				st->through_ptr = true;
				if (is_void(strip(s->target, module))) {
					REPORT(c->loc, _("'%s' is a void pointer, which cannot be "
							 "indexed (use @cast)"), here);
					return false;
				}
			} else if (!s || s->kind != DI_TYPE_ARRAY) {
				REPORT(c->loc, _("'%s' is a %s, which cannot be indexed"), here,
				       type_text(t));
				return false;
			}
			const DiType *et = strip(s->target, module);
			if (!et || !et->size) {
				REPORT(c->loc, _("the elements of '%s' (%s) have no known size"),
				       here, type_text(t));
				return false;
			}
			st->elem_size = et->size;
			t = s->target;
		}
		vec_push(&tp->steps, st);
	}
	tp->type = t;
	return true;
}

static bool location_ok(TargetPath *tp, const char **why);

/* Is a variable's location an address (in memory), not a value? */
bool location_in_memory(TargetPath *tp)
{
	LocEnv env = { .regs = "r", .at_entry = tp->at_entry, .err = "e", .tmp = "t",
		       .reloc = tp->reloc ? "k" : NULL };
	LocCode lc;
	const char *why;
	return loc_compile(&tp->loc, &env, &lc, &why) && lc.is_addr;
}

/* How the end of a path is read, and the errors of its use. */
static bool finish(TargetPath *tp, Node *n, const char *text, const char *module,
		   bool report)
{
	const DiType *s = strip(tp->type, module);
	bool in_register = tp->start == TP_RETURN ||
		(tp->start == TP_VAR && !location_in_memory(tp));
	bool followed = false;
	for (int i = 0; i < tp->steps.len; i++)
		if (((TpStep *)vec_get(&tp->steps, i))->through_ptr)
			followed = true;
	tp->addressof = n->addressof;
	if (n->addressof) {
		if (n->deref) {
			REPORT(n->loc, _("cannot take the address of a pretty-printed value"));
			return false;
		}
		if (tp->start == TP_RETURN && !followed) {
			REPORT(n->loc, _("cannot take the address of '$return': it is a "
					 "register"));
			return false;
		}
		if (tp->bit_size) {
			REPORT(n->loc, _("cannot take the address of bitfield '%s'"), text);
			return false;
		}
		if (tp->start == TP_POINTER && !n->comps.len) {
			if (n->kind != N_CAST) {
				REPORT(n->loc, _("cannot take the address of '%s': it is a "
						 "value"), text);
				return false;
			}
			/* &@cast(p, "T") is p, a T * */
			tp->final = TP_FINAL_INT;
			tp->size = 8;
			tp->addr_is_value = true;
			return true;
		}
		if (in_register && !followed) {
			REPORT(n->loc, _("cannot take the address of '%s': it is held in a "
					 "register here, not in memory"), text);
			return false;
		}
		tp->final = TP_FINAL_INT;
		tp->size = 8;
		return true;
	}
	if (n->deref)
		return true;    /* printed from its type in pass 3 */
	if (!s || s->kind == DI_TYPE_VOID) {
		REPORT(n->loc, _("'%s' has type void: it has no value"), text);
		return false;
	}
	switch (s->kind) {
	case DI_TYPE_INT:
	case DI_TYPE_ENUM:
	case DI_TYPE_POINTER:
		if (!s->size || s->size > 8) {
			REPORT(n->loc, _("'%s' is a %s of %llu bytes, which does not fit a "
					 "script number"), text, type_text(tp->type),
			       (unsigned long long)s->size);
			return false;
		}
		tp->final = TP_FINAL_INT;
		tp->size = s->kind == DI_TYPE_POINTER && !s->size ? 8 : s->size;
		tp->is_signed = s->kind != DI_TYPE_POINTER && s->is_signed;
		return true;
	case DI_TYPE_ARRAY:
	case DI_TYPE_FUNC:
		if (in_register && !followed) {
			REPORT(n->loc, _("'%s' is a %s held in registers: it has no address "
					 "to be its value"), text, type_text(tp->type));
			return false;
		}
		tp->final = TP_FINAL_ADDR;
		tp->size = 8;
		return true;
	case DI_TYPE_FLOAT:
		REPORT(n->loc, _("'%s' is a floating-point %s, which tapc does not read"),
		       text, type_text(tp->type));
		return false;
	default:
		REPORT(n->loc, _("'%s' is a %s, not a number: name one of its members, "
				 "or pretty-print it with '%s$'"), text, type_text(tp->type),
		       text);
		return false;
	}
}

/* A location tapc can read?  (The same compiler pass 3 uses.) */
static bool location_ok(TargetPath *tp, const char **why)
{
	LocEnv env = { .regs = "r", .at_entry = tp->at_entry, .err = "e", .tmp = "t",
		       .reloc = tp->reloc ? "k" : NULL };
	LocCode lc;
	return loc_compile(&tp->loc, &env, &lc, why);
}

/* The static address of jiffies_64 in vmlinux, through which pass 3
 * finds where KASLR put the kernel (0 when unknown). */
static uint64_t kaslr_ref(void)
{
	const DiVariable *v = di_find_global(NULL, "jiffies_64", NULL);
	return v && v->loc.kind == DI_LOC_ADDR ? v->loc.addr : 0;
}

/* Is addr in vmlinux's per-CPU section, where that is linked inside the
 * image ([__per_cpu_start, __per_cpu_end) of its symbol table: arm64)?
 * Such an address is the boot copy's, which nothing uses once the
 * per-CPU areas are set up: a CPU's copy is at it plus KASLR's offset
 * plus that CPU's per-CPU offset. */
static bool in_image_percpu(uint64_t addr)
{
	static uint64_t start, end;
	static bool looked;
	if (!looked) {
		looked = true;
		start = di_any_symbol_addr(NULL, "__per_cpu_start");
		end = di_any_symbol_addr(NULL, "__per_cpu_end");
		if (start < arch_target()->kernel_image_start || end <= start)
			start = end = 0;
	}
	return addr >= start && addr < end;
}

/* A DWARF location in vmlinux with a fixed address needs relocating:
 * 1 for an address in the kernel image, 2 for a per-CPU offset, 3 for a
 * per-CPU variable of a section linked in the image, 0 for none.  Where
 * the per-CPU section is linked at 0 (x86-64), an address below where
 * the kernel image is linked (arch/) is a per-CPU variable's offset. */
static int reloc_kind(uint64_t addr)
{
	if (addr < arch_target()->kernel_image_start)
		return 2;
	return in_image_percpu(addr) ? 3 : 1;
}

static int needs_reloc(const DiLocation *l)
{
	if (l->kind == DI_LOC_ADDR)
		return reloc_kind(l->addr);
	for (size_t i = 0; l->kind == DI_LOC_EXPR && i < l->expr_len; i++)
		if (l->expr[i].op == 0x03 /* DW_OP_addr */)
			return reloc_kind(l->expr[i].n1);
	return 0;
}

/* A fixed address in a user object (DW_OP_addr: a global, a static
 * local) is a file address: in a PIE or a library it moves by the load
 * bias, which a probe in that object learns at run time as the address
 * it is hit at minus its file address (pc: where the read happens, the
 * probe's own instruction, or the function's entry for what a .return
 * probe reads there).  rp_module: the object of the probe the read is
 * in, or NULL when there is none (a begin probe, a function). */
static bool set_user_reloc(TargetPath *tp, const char *module, const char *rp_module,
			   uint64_t pc, Loc loc, bool report)
{
	tp->user = true;
	if (!needs_reloc(&tp->loc))
		return true;
	const ObjectFacts *of = object_facts(module);
	if (!of->pie)
		return true;    /* ET_EXEC: loaded where it is linked */
	if (!rp_module || strcmp(rp_module, module)) {
		REPORT(loc, _("'%s' is at a fixed address of %s, a position-independent "
			      "object whose load address only a probe in it knows: read "
			      "it in a process(\"%s\") probe"),
		       tp->name, module, module);
		return false;
	}
	tp->ureloc = true;
	tp->ureloc_pc = pc;
	return true;
}

static bool set_reloc(TargetPath *tp, const char *module, Loc loc, bool report)
{
	int kind = needs_reloc(&tp->loc);
	if (!kind)
		return true;
	if (module) {
		REPORT(loc, _("'%s' is at a fixed address of module %s, which tapc does "
			      "not relocate yet"), tp->name, module);
		return false;
	}
	tp->reloc = true;
	if (kind == 2) {        /* the running CPU's copy: no KASLR offset */
		tp->reloc_percpu = true;
		return true;
	}
	tp->reloc_percpu = kind == 3;   /* the running CPU's copy, moved
					 * by KASLR too */
	tp->reloc_ref = kaslr_ref();
	if (!tp->reloc_ref) {
		REPORT(loc, _("'%s' is at a fixed address in the kernel, and the kernel's "
			      "debug information has no jiffies_64 to find where KASLR "
			      "put it"), tp->name);
		return false;
	}
	return true;
}

/* "$name" of every variable there, once each. */
static void var_names(VarsCache *vc, Vec *names)
{
	for (int i = 0; i < vc->vars.len; i++) {
		const DiVariable *v = vec_get(&vc->vars, i);
		const char *n = v->name ? intern(xsprintf("$%s", v->name)) : NULL;
		if (n && !vec_has(names, (void *)n))
			vec_push(names, (void *)n);
	}
}

/* $name (or $return) at rp, read at the entry when `entry`. */
TargetPath *debug_target(ResolvedPoint *rp, Node *n, bool entry, bool report)
{
	VarsCache *vc = point_vars(rp, entry);
	if (!vc)
		return NULL;
	const char *name = n->name && n->name[0] == '$' ? n->name + 1 : n->name;
	TargetPath *tp = NEW(TargetPath);
	tp->name = intern(xsprintf("$%s", name));
	tp->module = di_module(vc->dp.module);
	tp->at_entry = vc->dp.at_entry;
	tp->user = is_user_module(vc->dp.module);
	const char *fname = vc->dp.func->name;
	if (!strcmp(name, "return")) {
		if (!vc->dp.func->ret || vc->dp.func->ret->kind == DI_TYPE_VOID) {
			REPORT(n->loc, _("'$return' is not available: function '%s' returns "
					 "nothing"), fname);
			return NULL;
		}
		tp->start = TP_RETURN;
		tp->start_type = vc->dp.func->ret;
	} else {
		const DiVariable *v = find_var(vc, name);
		bool global = false;
		/* a global of the function's compilation unit, as stap
		 * finds one by $name (@var("name") is the same) */
		if (!v && vc->dp.func->decl.file && !vc->dp.func->inlined &&
		    di_source(vc->dp.module) == DI_SRC_DWARF) {
			v = di_find_global(vc->dp.module, name, vc->dp.func->decl.file);
			global = v != NULL;
		}
		if (!v) {
			if (report) {
				Vec names = { 0 };
				var_names(vc, &names);
				error_at(n->loc, _("no variable '$%s' in function '%s' at this "
						   "probe point%s"), name, fname,
					 similar_names(intern(xsprintf("$%s", name)), &names));
				list_note(n->loc, xsprintf(_("the variables of '%s' there"), fname),
					  &names, "");
				/* BTF names parameters only: say where the
				 * rest would come from */
				if (di_source(vc->dp.module) == DI_SRC_BTF)
					note_at(n->loc, _("only the parameters are known: "
							  "locals need DWARF debuginfo, and %s"),
						di_why_no_dwarf(vc->dp.module));
			}
			return NULL;
		}
		tp->start = TP_VAR;
		tp->loc = v->loc;
		tp->start_type = v->type;
		const char *why;
		if (global && !is_user_module(vc->dp.module) && vc->dp.module) {
			REPORT(n->loc, _("'$%s' is a global of module %s, which tapc does "
					 "not relocate yet"), name, vc->dp.module);
			return NULL;
		}
		if (is_user_module(vc->dp.module)
		    ? !set_user_reloc(tp, vc->dp.module, vc->dp.module, vc->dp.pc, n->loc,
				      report)
		    : !set_reloc(tp, vc->dp.module, n->loc, report))
			return NULL;
		if (!location_ok(tp, &why)) {
			REPORT(n->loc, _("'$%s' of function '%s' cannot be read at this probe "
					 "point: %s"), name, fname, why);
			return NULL;
		}
	}
	if (!walk(tp, n, tp->name, vc->dp.module, report))
		return NULL;
	if (!finish(tp, n, path_upto(tp->name, &n->comps, n->comps.len), vc->dp.module,
		    report))
		return NULL;
	return tp;
}

/* ---- @cast, @var, typed pointers of other families ---- */

/* The object a user-space probe's code is in (its library, else its
 * program), or NULL for another probe. */
static const char *user_object(const ResolvedPoint *rp)
{
	return rp ? rp->user_object : NULL;
}

/* A program or library as @cast and @var name it ("/usr/bin/prog", or a
 * name found as process("NAME") finds it), as the path the debug
 * information is keyed by. */
static const char *user_path(const char *m)
{
	const char *p = program_path(m);
	return p ? p : m;
}

/* The module whose types a @cast names: NULL for the kernel; *ok false
 * for a user-space module (types from its headers, not here). */
static const char *cast_module(Node *n, ResolvedPoint *rp, bool *ok)
{
	const char *m = n->module;
	*ok = true;
	if (!m) {
		DebugPoint dp;
		if (rp && rp->user_space) {
			/* the types of the probe's program (or library) */
			const char *obj = user_object(rp);
			*ok = obj != NULL;
			return obj;
		}
		return debug_point(rp, &dp) ? dp.module : NULL;
	}
	if (!strncmp(m, "kernel", 6))
		return NULL;
	if (strchr(m, '<')) {
		*ok = false;    /* user-space headers (cast_headers()) */
		return NULL;
	}
	if (strchr(m, '/'))
		return user_path(m);
	return m;
}

/* The pointer type to t, one per t (printers are shared by type). */
static const DiType *pointer_to(const DiType *t)
{
	static Vec from, to;
	for (int i = 0; i < from.len; i++)
		if (from.data[i] == t)
			return to.data[i];
	DiType *p = NEW(DiType);
	vec_push(&from, (void *)t);
	vec_push(&to, p);
	p->kind = DI_TYPE_POINTER;
	p->size = 8;
	p->target = t;
	return p;
}

/* The user-space headers @cast names ("<sys/un.h>", "<a.h><b.h>"), whose
 * types come from their compiled DWARF; NULL for any other module. */
static const char *cast_headers(const Node *n)
{
	const char *m = n->module;
	while (m && *m == ' ')
		m++;
	return m && *m == '<' ? m : NULL;
}

/* A type by name from the headers, when there are headers, else from
 * module's debug information; *why as di_header_type() sets it. */
static const DiType *find_type_in(const char *module, const char *headers,
				  const char *name, const char **why)
{
	if (!headers)
		return di_find_type(module, name);
	return di_header_type(headers, name, why);
}

/* @cast's type string ("task_struct", "struct file", "char *") as a
 * type; NULL when the debug information (or the headers) has no such
 * type, or, with *why set, when the headers cannot be compiled. */
static const DiType *cast_type_of(const char *module, const char *headers,
				  const char *text, const char **why)
{
	*why = NULL;
	const char *s = text;
	while (*s == ' ')
		s++;
	size_t len = strlen(s);
	int stars = 0;
	while (len && (s[len - 1] == ' ' || s[len - 1] == '*'))
		stars += s[--len] == '*';
	const char *name = xstrndup(s, len);
	const DiType *t = find_type_in(module, headers, name, why);
	if (*why)
		return NULL;
	if (!t && !strchr(name, ' ')) {
		t = find_type_in(module, headers, xsprintf("struct %s", name), why);
		if (!t)
			t = find_type_in(module, headers, xsprintf("union %s", name), why);
	}
	if (!t && !strcmp(name, "void"))
		t = NULL;
	else if (!t)
		return NULL;
	while (stars--)
		t = pointer_to(t);
	return t ? t : pointer_to(NULL);
}

/* Debug information for @cast's module exists? */
static bool have_types(const char *module)
{
	return di_source(module) != DI_SRC_NONE;
}

TargetPath *cast_target(ResolvedPoint *rp, Node *n, bool report)
{
	bool ok;
	const char *module = cast_module(n, rp, &ok);
	const char *headers = cast_headers(n);
	if (headers)
		module = NULL;
	else if (!ok || !have_types(module))
		return NULL;
	const char *text = n->str ? n->str : "";
	const char *why;
	const DiType *t = NULL;
	/* a list of places ("kernel:nfs:sunrpc"): the first whose types
	 * have the name; "kernel" is the kernel proper */
	const char *list = !headers && n->module && strchr(n->module, ':')
		&& !strchr(n->module, '/') ? n->module : NULL;
	for (const char *s = list; s && *s;) {
		const char *colon = strchr(s, ':');
		const char *one = colon ? xstrndup(s, colon - s) : s;
		const char *mod = !strcmp(one, "kernel") ? NULL : one;
		if (*one && have_types(mod) &&
		    (t = cast_type_of(mod, NULL, text, &why))) {
			module = mod;
			break;
		}
		s = colon ? colon + 1 : NULL;
	}
	if (!t)
		t = cast_type_of(module, headers, text, &why);
	if (why) {
		REPORT(n->loc, _("cannot read the types of %s: %s"), headers, why);
		return NULL;
	}
	/* with no module named, a module probe's @cast also looks in the
	 * kernel, where most of what a module points at is declared */
	if (!t && module && !n->module && !headers && !is_user_module(module) &&
	    have_types(NULL)) {
		module = NULL;
		t = cast_type_of(NULL, NULL, text, &why);
	}
	if (!t) {
		REPORT(n->loc, _("no type '%s' in the debug information of %s"), text,
		       headers ? xsprintf(_("the headers %s"), headers)
		       : list ? xsprintf(_("any of %s"), list)
		       : is_user_module(module) ? module
		       : module ? xsprintf(_("module %s"), module) : _("the kernel"));
		return NULL;
	}
	TargetPath *tp = NEW(TargetPath);
	tp->name = intern(xsprintf("@cast(..., \"%s\")", text));
	tp->start = TP_POINTER;
	tp->start_type = pointer_to(t);
	tp->user = (rp && rp->user_space && (!n->module || headers)) ||
		   is_user_module(module);
	/* a declared-only struct on the way is looked up where T was */
	const char *where = headers ? headers : module;
	if (!walk(tp, n, "@cast(...)", where, report))
		return NULL;
	if (!finish(tp, n, path_upto("@cast(...)", &n->comps, n->comps.len), where,
		    report))
		return NULL;
	return tp;
}

/* The module @var reads: the one named ("kernel", a module, a program
 * or library path), else the probe's object in a process probe, else
 * the kernel (NULL). */
static const char *atvar_module(const ResolvedPoint *rp, const Node *n)
{
	const char *m = n->module;
	if (!m)
		return user_object(rp);
	if (!strcmp(m, "kernel"))
		return NULL;
	if (strchr(m, '/'))
		return user_path(m);
	return m;
}

/* @var("name@file.c"[, "module"]); entry: inside @entry(...) of a
 * .return probe, read at the function's entry. */
TargetPath *atvar_target(ResolvedPoint *rp, Node *n, bool entry, bool report)
{
	const char *module = atvar_module(rp, n);
	if (module && strchr(module, '<'))
		return NULL;
	if (!have_types(module))
		return NULL;
	const char *text = n->str ? n->str : "";
	const char *at = strchr(text, '@');
	const char *name = at ? xstrndup(text, at - text) : text;
	const char *file = at ? at + 1 : NULL;
	const DiVariable *v = di_find_global(module, name, file);
	if (!v) {
		REPORT(n->loc, _("no global variable '%s'%s in the debug information of %s"),
		       name, file ? xsprintf(_(" in a file matching '%s'"), file) : "",
		       is_user_module(module) ? module
		       : module ? xsprintf(_("module %s"), module) : _("the kernel"));
		return NULL;
	}
	TargetPath *tp = NEW(TargetPath);
	tp->name = intern(xsprintf("@var(\"%s\")", text));
	tp->start = TP_VAR;
	tp->loc = v->loc;
	tp->start_type = v->type;
	tp->module = di_module(module);
	const char *why;
	if (is_user_module(module)) {
		/* read where the probe is: at its own pc, or at the
		 * function's entry inside @entry of a .return probe */
		DebugPoint dp = { 0 };
		const char *obj = user_object(rp);
		uint64_t pc = 0;
		if (obj) {
			debug_point(rp, &dp);   /* the pc also without a function */
			pc = dp.pc;
		}
		if (obj && rp->is_return && !entry) {
			if (needs_reloc(&tp->loc) && object_facts(module)->pie) {
				REPORT(n->loc, _("'%s' is at a fixed address of %s, a "
					      "position-independent object whose load address "
					      "a .return probe does not know: read it at the "
					      "entry, @entry(%s)"), tp->name, module, tp->name);
				return NULL;
			}
		}
		if (obj && rp->is_return && dp.func)
			pc = dp.func->entry_pc;
		if (!set_user_reloc(tp, module, obj, pc, n->loc, report))
			return NULL;
	} else if (!set_reloc(tp, module, n->loc, report)) {
		return NULL;
	}
	if (!location_ok(tp, &why)) {
		REPORT(n->loc, _("'%s' cannot be read: %s"), tp->name, why);
		return NULL;
	}
	if (!walk(tp, n, tp->name, module, report))
		return NULL;
	if (!finish(tp, n, path_upto(tp->name, &n->comps, n->comps.len), module, report))
		return NULL;
	return tp;
}

/* A family's context variable with a C pointer type ("struct task_struct
 * *"), followed through the kernel's types; NULL when they do not know
 * the struct (the C type then stays, with its header). */
TargetPath *typed_ctx_target(ResolvedPoint *rp, Node *n, const char *ctype,
			     bool report)
{
	const char *sn = struct_name_of(ctype);
	if (!sn || !have_types(NULL) || (rp && rp->user_space))
		return NULL;
	const char *kind = strstr(ctype, "union ") ? "union" : "struct";
	const DiType *t = di_find_type(NULL, xsprintf("%s %s", kind, sn));
	if (!t)
		return NULL;
	int stars = 0;
	for (const char *p = ctype; *p; p++)
		stars += *p == '*';
	TargetPath *tp = NEW(TargetPath);
	const char *name = n->name && n->name[0] == '$' ? n->name : xsprintf("$%s", n->name);
	tp->name = intern(name);
	tp->start = TP_POINTER;
	tp->start_type = t;
	while (stars--)
		tp->start_type = pointer_to(tp->start_type);
	if (!walk(tp, n, tp->name, NULL, report))
		return NULL;
	if (!finish(tp, n, path_upto(tp->name, &n->comps, n->comps.len), NULL, report))
		return NULL;
	return tp;
}

/* An autocast '->' on a value whose type is t. */
TargetPath *autocast_target(const DiType *t, Node *n, bool report)
{
	TargetPath *tp = NEW(TargetPath);
	const char *base = n->lhs && n->lhs->kind == N_SYMBOL && n->lhs->name
		? n->lhs->name : "(...)";
	tp->name = "->";
	tp->start = TP_POINTER;
	tp->start_type = t;
	if (!walk(tp, n, base, NULL, report))
		return NULL;
	if (!finish(tp, n, path_upto(base, &n->comps, n->comps.len), NULL, report))
		return NULL;
	return tp;
}

/* $$vars, $$parms, $$locals, $$return (and their $ and $$ forms): one
 * path per variable, NULL for those that cannot be read. */
TargetPath *debug_target_vars(ResolvedPoint *rp, Node *n, bool entry)
{
	VarsCache *vc = point_vars(rp, entry);
	if (!vc)
		return NULL;
	TargetPath *all = NEW(TargetPath);
	all->name = n->name;
	const char *which = n->name ? n->name : "$$vars";
	bool want_parms = !strstr(which, "locals"), want_locals = !strstr(which, "parms");
	if (strstr(which, "return")) {
		Node fake = *n;
		fake.name = "$return";
		fake.comps = (Vec){ 0 };
		fake.addressof = false;
		TargetPath *tp = debug_target(rp, &fake, false, false);
		vec_push(&all->var_names, (void *)"return");
		vec_push(&all->vars, tp);
		return all;
	}
	/* stap's order: the innermost block's locals first, out to the
	 * function's parameters and own locals; an inner one hides an
	 * outer one of the same name */
	Vec order = { 0 };
	int deepest = 0;
	for (int i = 0; i < vc->vars.len; i++) {
		const DiVariable *v = vec_get(&vc->vars, i);
		if (v->block > deepest)
			deepest = v->block;
	}
	for (int d = deepest; d >= 0; d--)
		for (int i = 0; i < vc->vars.len; i++)
			if (((const DiVariable *)vec_get(&vc->vars, i))->block == d)
				vec_push(&order, vec_get(&vc->vars, i));
	Vec seen = { 0 };
	for (int i = 0; i < order.len; i++) {
		const DiVariable *v = vec_get(&order, i);
		if (!v->name || (v->is_param ? !want_parms : !want_locals))
			continue;
		if (vec_has(&seen, (void *)intern(v->name)))
			continue;
		vec_push(&seen, (void *)intern(v->name));
		Node fake = *n;
		fake.name = intern(xsprintf("$%s", v->name));
		fake.comps = (Vec){ 0 };
		fake.addressof = false;
		TargetPath *tp = debug_target(rp, &fake, entry, false);
		vec_push(&all->var_names, (void *)intern(v->name));
		vec_push(&all->vars, tp);
	}
	return all;
}

/* Would cast_target() answer for n from types (so a NULL from it means
 * "no such type or member")? */
bool cast_types_known(Node *n)
{
	bool ok;
	const char *module = cast_module(n, NULL, &ok);
	if (cast_headers(n))
		return true;    /* headers that do not compile declare nothing */
	return ok && have_types(module);
}

bool atvar_types_known(ResolvedPoint *rp, Node *n)
{
	const char *module = atvar_module(rp, n);
	if (module && strchr(module, '<'))
		return false;
	return have_types(module);
}

/* $$vars$, $$parms$ (and $$) of a family's typed context variables (a
 * tracepoint's arguments): a struct pointer through the kernel's types,
 * anything else as the number it is. */
TargetPath *ctx_target_vars(ResolvedPoint *rp, Node *n)
{
	TargetPath *all = NEW(TargetPath);
	all->name = n->name;
	static DiType long_type = { .kind = DI_TYPE_INT, .name = "long int", .size = 8,
				    .is_signed = true };
	for (int i = 0; i < rp->ctx_vars.len; i++) {
		CtxVar *cv = vec_get(&rp->ctx_vars, i);
		if (cv->write_only || cv->name[0] == '$' || !strcmp(cv->name, "return") ||
		    cv->type != TY_LONG)
			continue;
		Node fake = *n;
		fake.name = intern(xsprintf("$%s", cv->name));
		fake.comps = (Vec){ 0 };
		fake.addressof = false;
		TargetPath *tp = cv->ctype && !cv->scalar
			? typed_ctx_target(rp, &fake, cv->ctype, false) : NULL;
		if (!tp) {
			tp = NEW(TargetPath);
			tp->name = fake.name;
			tp->start = TP_POINTER;
			tp->start_type = &long_type;
			tp->type = &long_type;
			tp->final = TP_FINAL_INT;
			tp->size = 8;
			tp->is_signed = true;
		}
		tp->ctx_var = cv->name;
		vec_push(&all->var_names, (void *)cv->name);
		vec_push(&all->vars, tp);
	}
	return all;
}
