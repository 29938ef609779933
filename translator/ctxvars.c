/* ctxvars.c - pass 2: context variables and target expressions ($var,
 * @cast, @entry, autocast ->), writes to them, guru-only things. */
#include "elab.h"
#include "tpath.h"
#include "families/family.h"
#include "arch/arch.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- context variables, @entry, guru-only things ---- */

typedef struct Checker {
	Scope *sc;
	Node *assigned;         /* the node being written, if any */
	bool in_entry;          /* inside @entry(...) of a .return probe */
} Checker;

static CtxVar *find_ctx(ResolvedPoint *rp, const char *name)
{
	if (!rp)
		return NULL;
	for (int i = 0; i < rp->ctx_vars.len; i++) {
		CtxVar *cv = vec_get(&rp->ctx_vars, i);
		if (!strcmp(cv->name, name))
			return cv;
	}
	return NULL;
}

static void set_path_types(Scope *sc, Node *n);

/* The probe as the user knows it: the alias point the user's point matched
 * (syscall.read.return), not the point inside the alias it resolved to
 * (kprobe.function("__x64_sys_read").return). */
static const char *probe_text(Scope *sc)
{
	if (sc->probe && sc->probe->alias_point)
		return sc->probe->alias_point;
	return sc->rp ? probe_point_plain_text(sc->rp->point) : "?";
}

/* Can a write reach the end of tp: memory, or the register a variable
 * or $return is in? */
static bool tp_in_storage(TargetPath *tp)
{
	for (int i = 0; i < tp->steps.len; i++)
		if (((TpStep *)vec_get(&tp->steps, i))->through_ptr)
			return !tp->addressof;
	if (tp->addressof || tp->addr_is_value)
		return false;
	if (tp->start == TP_RETURN)
		return !tp->steps.len;
	if (tp->start == TP_VAR)
		return location_in_memory(tp) || (tp->loc.kind == DI_LOC_REG && !tp->steps.len);
	return false;
}

/* A $var, $return or $$... of a probe whose variables come from the
 * debug information: its TargetPath, and the errors of writing it. */
static void check_debug_target(Checker *ck, Node *n, bool written, bool is_ret)
{
	ResolvedPoint *rp = ck->sc->rp;
	const char *name = n->name[0] == '$' ? n->name + 1 : n->name;
	bool entry = ck->in_entry || (rp->is_return && !is_ret);
	if (written) {
		if (n->deref) {
			error_at(n->loc, _("cannot assign to a pretty-printed value"));
			return;
		}
		if (rp->is_return && !is_ret) {
			error_at(n->loc, _("cannot write to context variable '$%s' in a "
					   ".return probe"), name);
			return;
		}
		if (!sess.guru) {
			error_at(n->loc, _("writing to context variable '$%s' needs guru "
					   "mode (-g)"), name);
			return;
		}
	}
	TargetPath *tp = debug_target(rp, n, entry, true);
	if (!tp)
		return;
	n->tpath = tp;
	n->type = n->deref ? TY_STRING : TY_LONG;
	if (!written)
		return;
	if (n->addressof)
		error_at(n->loc, _("cannot assign to an address ('&')"));
	else if (tp->bit_size)
		error_at(n->loc, _("writing to bitfield '$%s...' is not supported"), name);
	else if (tp->final != TP_FINAL_INT)
		error_at(n->loc, _("cannot assign to '$%s': it is not a number"), name);
	else if (!tp_in_storage(tp))
		error_at(n->loc, _("cannot assign to '$%s': at this probe point it is "
				   "a computed value, not kept in a register or in memory"),
			 name);
}

static void check_target(Checker *ck, Node *n, bool written)
{
	Scope *sc = ck->sc;
	const char *name = n->name && n->name[0] == '$' ? n->name + 1 : n->name;
	if (!name)
		return;
	if (sc->func) {
		error_at(n->loc, _("context variable '$%s' cannot be used in a function "
				   "(only in probe handlers)"), name);
		return;
	}
	ResolvedPoint *rp = sc->rp;
	bool is_ret = !strcmp(name, "return");
	CtxVar *cv = find_ctx(rp, name);
	set_path_types(sc, n);
	if (is_ret && rp && !rp->is_return) {
		error_at(n->loc, _("'$return' is only available in .return probes, "
				   "not in '%s'"), probe_text(sc));
		return;
	}
	if (rp_has_debug_vars(rp)) {
		check_debug_target(ck, n, written, is_ret);
		return;
	}
	if (cv && cv->ctype && !cv->scalar && (n->comps.len || n->deref) && !written) {
		int before = error_count;
		TargetPath *tp = typed_ctx_target(rp, n, cv->ctype, true);
		if (tp) {
			n->tpath = tp;
			n->type = n->deref ? TY_STRING : TY_LONG;
			return;
		}
		if (error_count != before)
			return;
	}
	if (!cv && !(rp && rp->needs_debuginfo)) {
		if (sess.skip_badvars) {
			warning_at(n->loc, _("context variable '$%s' not available in "
					     "'%s'; --skip-badvars makes it 0"),
				   name, probe_text(sc));
			n->kind = N_NUMBER;
			n->num = 0;
			n->type = TY_LONG;
			return;
		}
		error_at(n->loc, _("context variable '$%s' is not available in probe "
				   "'%s'"), name, probe_text(sc));
		return;
	}
	if (cv) {
		n->type = cv->type;
		if (cv->unreadable) {
			error_at(n->loc, _("cannot read '$%s' in probe '%s': %s"), name,
				 probe_text(sc), cv->unreadable);
			return;
		}
		if ((n->comps.len || n->addressof) && cv->scalar) {
			error_at(n->loc, _("'$%s' is a plain %s: it cannot be dereferenced, "
					   "indexed or have its address taken"), name,
				 type_name(cv->type));
			return;
		}
		if (n->comps.len && !cv->ctype) {
			error_at(n->loc, _("context variable '$%s' has no known C type to "
					   "follow"), name);
			return;
		}
		if (cv->write_only && !written) {
			error_at(n->loc, _("'$%s' can only be written in probe '%s'"), name,
				 probe_text(sc));
			return;
		}
		if (cv->guru_only && !sess.guru) {
			error_at(n->loc, _("'$%s' needs guru mode (-g)"), name);
			return;
		}
	} else {
		n->type = TY_LONG;
	}
	if (!written)
		return;
	if (n->deref)
		error_at(n->loc, _("cannot assign to a pretty-printed value"));
	else if (cv && cv->writable && (!cv->guru_write || sess.guru))
		return;
	else if (cv && cv->guru_write)
		error_at(n->loc, _("writing to context variable '$%s' needs guru "
				   "mode (-g)"), name);
	else if (cv && (cv->scalar || !rp->needs_debuginfo))
		error_at(n->loc, _("'$%s' is read-only in probe '%s'"), name, probe_text(sc));
	else if (rp && rp->is_return && !is_ret)
		error_at(n->loc, _("cannot write to context variable '$%s' in a "
				   ".return probe"), name);
	else if (!sess.guru)
		error_at(n->loc, _("writing to context variable '$%s' needs guru "
				   "mode (-g)"), name);
}

/* ---- @cast(p, "type", "kernel<header>") ---- */

/* A header as #include names it: a path in the tree ("include/linux/x.h",
 * "arch/x86/include/asm/y.h") loses everything up to its include/. */
static const char *include_name(const char *h)
{
	if (!strncmp(h, "include/", 8))
		return h + 8;
	const char *inc = strstr(h, "/include/");
	if (!strncmp(h, "arch/", 5) && inc)
		return inc + 9;
	return h;
}

/* H (as #include names it) is in an include folder of the target's
 * kbuild (source tree and build tree, Debian's -common split included);
 * true when the target has no headers to look in (pass 4 says so). */
static bool kernel_header_exists(const char *h)
{
	const Vec *dirs = kernel_header_dirs();
	const char *arch = kernel_arch_dir();
	const char *subs[] = { "include", "include/uapi", "include/generated",
		"include/generated/uapi", xsprintf("arch/%s/include", arch),
		xsprintf("arch/%s/include/uapi", arch),
		xsprintf("arch/%s/include/generated", arch),
		xsprintf("arch/%s/include/generated/uapi", arch) };
	for (int i = 0; i < dirs->len; i++)
		for (size_t j = 0; j < sizeof subs / sizeof subs[0]; j++)
			if (access(xsprintf("%s/%s/%s", (char *)vec_get(dirs, i), subs[j], h),
				   R_OK) == 0)
				return true;
	return !dirs->len;
}

/* "kernel<include/linux/sched.h><linux/fs.h>": each header must be one
 * the module can include; the node keeps the names #include takes
 * ("kernel<linux/sched.h><linux/fs.h>") for pass 3. */
static void check_cast_headers(Node *n)
{
	const char *m = n->module;
	if (!m || strncmp(m, "kernel<", 7))
		return;
	StrBuf out = { 0 };
	sb_puts(&out, "kernel");
	for (const char *p = strchr(m, '<'); p; p = strchr(p, '<')) {
		const char *end = strchr(p, '>');
		if (!end)
			break;
		const char *h = xstrndup(p + 1, end - p - 1);
		const char *inc = include_name(h);
		if (!*inc || !kernel_header_exists(inc))
			error_at(n->loc, _("no header '%s' in the kernel headers of %s"), h,
				 target_release());
		sb_printf(&out, "<%s>", inc);
		p = end;
	}
	n->module = intern(sb_cstr(&out));
	sb_free(&out);
}

/* register("NAME") and u_register("NAME") of the registers tapset with a
 * literal name: a name the target does not have is found here, not at
 * run time ("Unknown register"), and one of another architecture's says
 * whose it is. */
static void check_register_name(Node *n)
{
	if (!n->func || !n->func->from_tapset || n->args.len != 1 ||
	    (strcmp(n->name, "register") && strcmp(n->name, "u_register")))
		return;
	Node *a = vec_get(&n->args, 0);
	const Arch *t = arch_target();
	if (a->kind != N_STRING || !t->script_regs || arch_has_script_reg(t, a->str))
		return;
	const Arch *other = arch_other_with_script_reg(t, a->str);
	if (other)
		error_at(a->loc, _("'%s' is a register of %s, not of %s, the "
				   "architecture this script is built for"),
			 a->str, other->name, t->name);
	else
		error_at(a->loc, _("unknown register '%s' for %s"), a->str, t->name);
}

static void check_node(Node **slot, void *ctx);
static void check_autocast(Checker *ck, Node *n);
static bool check_typed(Checker *ck, Node *n);

static bool is_target_like(Node *n)
{
	return n && (n->kind == N_TARGET || n->kind == N_CAST || n->kind == N_AUTOCAST ||
		     n->kind == N_ATVAR);
}

static void check_write(Checker *ck, Node *lhs)
{
	if (!lhs)
		return;
	if (lhs->kind == N_TARGET) {
		check_target(ck, lhs, true);
		for_each_child(lhs, check_node, ck);
		return;
	}
	if (is_target_like(lhs)) {
		if (lhs->kind == N_CAST)
			check_cast_headers(lhs);
		if (lhs->deref)
			error_at(lhs->loc, _("cannot assign to a pretty-printed value"));
		else if (!sess.guru)
			error_at(lhs->loc, _("writing to kernel memory needs guru mode (-g)"));
		else if (lhs->kind == N_AUTOCAST)
			check_autocast(ck, lhs);
		if (lhs->kind == N_CAST)
			set_path_types(ck->sc, lhs);
		if (!lhs->deref && sess.guru && (lhs->kind == N_CAST || lhs->kind == N_ATVAR) &&
		    check_typed(ck, lhs) && lhs->tpath) {
			TargetPath *tp = lhs->tpath;
			if (lhs->addressof)
				error_at(lhs->loc, _("cannot assign to an address ('&')"));
			else if (tp->bit_size)
				error_at(lhs->loc, _("writing to a bitfield is not supported"));
			else if (tp->final != TP_FINAL_INT)
				error_at(lhs->loc, _("cannot assign to this: it is not a number"));
			else if (!tp_in_storage(tp))
				error_at(lhs->loc, _("cannot assign to this: it is a value, not "
						     "kept in memory (name a member)"));
		}
		if (!lhs->deref && sess.guru && lhs->kind == N_AUTOCAST && lhs->tpath) {
			TargetPath *tp = lhs->tpath;
			if (tp->bit_size)
				error_at(lhs->loc, _("writing to a bitfield is not supported"));
			else if (tp->final != TP_FINAL_INT || !tp_in_storage(tp))
				error_at(lhs->loc, _("cannot assign to this: it is not a number "
						     "kept in memory"));
		}
		for_each_child(lhs, check_node, ck);
		return;
	}
	if (lhs->kind != N_SYMBOL && lhs->kind != N_INDEX) {
		error_at(lhs->loc, _("only a variable, an array element or a context "
				     "variable can be assigned to"));
		return;
	}
	if (lhs->kind == N_INDEX && lhs->base && lhs->base->kind == N_HIST) {
		error_at(lhs->loc, _("a histogram bucket cannot be assigned to"));
		return;
	}
	check_node(&lhs, ck);
}

/* ---- C types of target expressions ----
 * A target expression's value has a C type: from @cast's type string, from
 * the context variable (the family knows it), or, for expr->member, from
 * the type expr carries.  That type flows through locals, ternaries,
 * assignments and function returns when every source agrees.  Globals and
 * array elements do not carry it.  Pass 2 works it out once and stores it
 * on the node (ctype, ctype_base); pass 3 only reads it. */

/* A value's C type as the flow sees it.  id tells types apart by where
 * they come from (so two @casts to one type through different modules
 * differ, as in stap); c is the C type's text, NULL when only debug
 * information knows it. */
typedef struct CType {
	const char *id;
	const char *c;
	const DiType *dt;       /* its type in the debug information, or NULL */
} CType;

typedef struct TypeFlow {
	Scope *sc;
	Vec visiting;           /* Var * and Func * being followed */
	bool conflict;
} TypeFlow;

static CType c_type_of(TypeFlow *tf, Node *e);

typedef struct StoreScan {
	TypeFlow *tf;
	Var *v;
	Vec *out;               /* right-hand sides stored into v */
} StoreScan;

static void scan_stores(Node **slot, void *ctx)
{
	StoreScan *ss = ctx;
	Node *n = *slot;
	if (n->kind == N_ASSIGN && n->op && !strcmp(n->op, "=") && n->lhs &&
	    n->lhs->kind == N_SYMBOL && n->lhs->var == ss->v)
		vec_push(ss->out, n->rhs);
	if (n->kind == N_RETURN && !ss->v && n->lhs)
		vec_push(ss->out, n->lhs);
	for_each_child(n, scan_stores, ctx);
}

/* The common C type of several sources, or none. */
static CType common_type(TypeFlow *tf, Vec *srcs)
{
	CType t = { NULL, NULL, NULL }, none = { NULL, NULL, NULL };
	for (int i = 0; i < srcs->len; i++) {
		CType u = c_type_of(tf, vec_get(srcs, i));
		if (!u.id)
			return none;
		if (t.id && strcmp(t.id, u.id)) {
			tf->conflict = true;
			return none;
		}
		t = u;
	}
	return t;
}

static const char *path_text(Node *e, const char *base)
{
	StrBuf sb = { 0 };
	sb_puts(&sb, base);
	for (int i = 0; i < e->comps.len; i++) {
		Component *c = vec_get(&e->comps, i);
		if (c->kind == COMP_MEMBER)
			sb_printf(&sb, "->%s", c->name);
		else
			sb_puts(&sb, "[]");
	}
	if (e->addressof)
		sb_puts(&sb, "&");
	const char *r = xstrdup(sb_cstr(&sb));
	sb_free(&sb);
	return r;
}

/* A C type name for @cast's type string. */
static const char *cast_type(const char *s)
{
	while (*s == ' ')
		s++;
	if (!strncmp(s, "struct ", 7) || !strncmp(s, "union ", 6) || !strncmp(s, "enum ", 5) ||
	    strchr(s, '*') || strchr(s, ' '))
		return s;
	static const char *const basic[] = { "char", "short", "int", "long", "void",
		"u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "size_t", "pid_t",
		"uid_t", "gid_t", "loff_t", "dev_t", "umode_t", NULL };
	for (int i = 0; basic[i]; i++)
		if (!strcmp(s, basic[i]))
			return s;
	return xsprintf("struct %s", s);
}

/* The C expression, in an unevaluated null-based form, of a path's last
 * member: __typeof__ of it is the path's type. */
static const char *null_path(const char *ptype, Vec *comps)
{
	const char *cur = xsprintf("((%s)0)", ptype);
	for (int i = 0; i < comps->len; i++) {
		Component *c = vec_get(comps, i);
		const char *x = c->kind == COMP_MEMBER ? xsprintf("(%s)->%s", cur, c->name)
						       : xsprintf("(%s)[0]", cur);
		if (i == comps->len - 1)
			return x;
		Component *next = vec_get(comps, i + 1);
		cur = next->kind == COMP_MEMBER
			? xsprintf("__builtin_choose_expr(TAP_ISPTR(%s), %s, &(%s))", x, x, x)
			: x;
	}
	return cur;
}

/* The C type of a path's value, from the pointer type it starts from. */
static const char *path_type(const char *ptype, Vec *comps)
{
	if (!ptype)
		return NULL;
	if (!comps->len)
		return ptype;
	/* + 0: an array member's value is its address */
	return xsprintf("__typeof__((%s) + 0)", null_path(ptype, comps));
}

/* The C pointer type a target expression's path starts from, when the
 * node itself says (@cast, a context variable); NULL otherwise. */
static const char *path_start_type(Scope *sc, Node *e)
{
	if (e->kind == N_CAST)
		return xsprintf("%s *", cast_type(e->str ? e->str : "void"));
	if (e->kind == N_TARGET && !sc->func && sc->rp) {
		const char *name = e->name && e->name[0] == '$' ? e->name + 1 : e->name;
		CtxVar *cv = find_ctx(sc->rp, name ? name : "");
		return cv ? cv->ctype : NULL;
	}
	return NULL;
}

/* The debug-information type of a path's value (the address's type
 * for '&'), worked out quietly. */
static const DiType *path_ditype(TargetPath *tp, Node *e)
{
	if (!tp || e->deref)
		return NULL;
	if (!e->addressof || tp->addr_is_value)
		return tp->type;
	DiType *p = NEW(DiType);
	p->kind = DI_TYPE_POINTER;
	p->size = 8;
	p->target = tp->type;
	return p;
}

static CType c_type_of(TypeFlow *tf, Node *e)
{
	CType none = { NULL, NULL, NULL };
	if (!e)
		return none;
	ResolvedPoint *rp = tf->sc->func ? NULL : tf->sc->rp;
	switch (e->kind) {
	case N_CAST:
		return (CType){ path_text(e, xsprintf("@cast(%s|%s)", e->str ? e->str : "",
						      e->module ? e->module : "")),
				path_type(path_start_type(tf->sc, e), &e->comps),
				path_ditype(e->tpath ? e->tpath : cast_target(rp, e, false), e) };
	case N_ATVAR:
		return (CType){ path_text(e, xsprintf("@var(%s|%s)", e->str ? e->str : "",
						      e->module ? e->module : "")), NULL,
				path_ditype(e->tpath ? e->tpath : atvar_target(rp, e, false, false), e) };
	case N_TARGET: {
		if (tf->sc->func || !tf->sc->rp)
			return none;
		const char *name = e->name && e->name[0] == '$' ? e->name + 1 : e->name;
		CtxVar *cv = find_ctx(tf->sc->rp, name ? name : "");
		if (rp_has_debug_vars(rp)) {
			bool entry = rp->is_return && strcmp(name ? name : "", "return");
			const DiType *dt = path_ditype(e->tpath ? e->tpath
						       : debug_target(rp, e, entry, false), e);
			if (!dt)
				return none;
			return (CType){ path_text(e, xsprintf("$%s", name)), NULL, dt };
		}
		if (cv ? cv->scalar || !cv->ctype : !tf->sc->rp->needs_debuginfo)
			return none;
		const DiType *dt = NULL;
		if (cv && cv->ctype) {
			TargetPath *tp = e->tpath ? e->tpath
				: typed_ctx_target(rp, e, cv->ctype, false);
			dt = path_ditype(tp, e);
		}
		return (CType){ path_text(e, xsprintf("$%s", name)),
				path_type(path_start_type(tf->sc, e), &e->comps), dt };
	}
	case N_AUTOCAST: {
		CType b = c_type_of(tf, e->lhs);
		if (!b.id)
			return none;
		TargetPath *tp = b.dt ? autocast_target(b.dt, e, false) : NULL;
		return (CType){ path_text(e, b.id), path_type(b.c, &e->comps),
				path_ditype(tp, e) };
	}
	case N_ASSIGN:
		return e->op && !strcmp(e->op, "=") ? c_type_of(tf, e->rhs) : none;
	case N_ENTRY:
		return c_type_of(tf, e->lhs);
	case N_TERNARY: {
		Vec two = { 0 };
		vec_push(&two, e->then);
		vec_push(&two, e->els);
		return common_type(tf, &two);
	}
	case N_SYMBOL: {
		Var *v = e->var;
		if (!v || v->scope != VS_LOCAL || vec_has(&tf->visiting, v))
			return none;
		vec_push(&tf->visiting, v);
		Vec stores = { 0 };
		StoreScan ss = { tf, v, &stores };
		Node *body = tf->sc->probe ? tf->sc->probe->body : tf->sc->func->body;
		if (body)
			scan_stores(&body, &ss);
		CType t = stores.len ? common_type(tf, &stores) : none;
		tf->visiting.len--;
		return t;
	}
	case N_CALL: {
		Func *f = e->func;
		if (!f || !f->body || f->body->kind != N_BLOCK || vec_has(&tf->visiting, f))
			return none;
		vec_push(&tf->visiting, f);
		Vec rets = { 0 };
		StoreScan ss = { tf, NULL, &rets };
		Node *body = f->body;
		scan_stores(&body, &ss);
		Scope fsc = { NULL, f, &f->locals, f->file, NULL, f->from_tapset };
		Scope *save = tf->sc;
		tf->sc = &fsc;
		CType t = rets.len ? common_type(tf, &rets) : none;
		tf->sc = save;
		tf->visiting.len--;
		return t;
	}
	default:
		return none;
	}
}

/* The debug-information type of e's value, followed through locals,
 * assignments and function returns as for autocast; NULL when unknown. */
const DiType *value_ditype(Scope *sc, Node *e)
{
	TypeFlow tf = { sc, { 0 }, false };
	CType t = c_type_of(&tf, e);
	return t.id ? t.dt : NULL;
}

/* @cast and a context variable: the C types their paths start from and
 * end in, stored on the node. */
static void set_path_types(Scope *sc, Node *n)
{
	n->ctype_base = path_start_type(sc, n);
	n->ctype = path_type(n->ctype_base, &n->comps);
}

/* "expr->member" needs expr to carry a C type; it is stored on the node
 * (NULL when only debug information knows it: pass 3 says so). */
static void check_autocast(Checker *ck, Node *n)
{
	TypeFlow tf = { ck->sc, { 0 }, false };
	CType t = c_type_of(&tf, n->lhs);
	if (t.id && t.dt) {
		TargetPath *tp = autocast_target(t.dt, n, true);
		if (tp) {
			n->tpath = tp;
			n->type = n->deref ? TY_STRING : TY_LONG;
		}
		return;
	}
	if (t.id) {
		n->ctype_base = t.c;
		n->ctype = path_type(t.c, &n->comps);
		return;
	}
	if (tf.conflict)
		error_at(n->loc, _("'->' on a value whose C type differs between the "
				   "places it comes from"));
	else
		error_at(n->loc, _("'->' needs a pointer with a known C type (from "
				   "@cast, @var or a context variable); this value has "
				   "none"));
}

/* @perf("NAME") reads the counter a perf probe defines with
 * .counter("NAME"), from a process probe in the program that counter is
 * bound to (any program, when it counts system-wide). */
static void check_perf(Checker *ck, Node *n)
{
	Scope *sc = ck->sc;
	const char *program = NULL;
	if (sc->func) {
		error_at(n->loc, _("@perf can only be used in the handler of a "
				   "process(...) probe, not in a function"));
		return;
	}
	if (!sc->rp || !sc->rp->user_space) {
		error_at(n->loc, _("@perf reads a perf counter in process(...) probes "
				   "only, not in '%s'"), probe_text(sc));
		return;
	}
	program = sc->rp->program;
	Scope *other = NULL;
	const char *other_prog = NULL;
	Vec names = { 0 };
	for (int i = 0; i < elab.scopes.len; i++) {
		Scope *ps = vec_get(&elab.scopes, i);
		if (!ps->probe || !ps->rp || !ps->rp->perf_counter)
			continue;
		const char *name = ps->rp->perf_counter, *prog = ps->rp->program;
		if (!vec_has(&names, (void *)intern(name)))
			vec_push(&names, (void *)intern(name));
		if (strcmp(name, n->str))
			continue;
		if (!prog || (program && !strcmp(prog, program)))
			return;
		other = ps;
		other_prog = prog;
	}
	if (other) {
		error_at(n->loc, _("perf counter '%s' counts program '%s', but probe "
				   "'%s' runs in %s"), n->str, other_prog,
			 probe_text(sc), program ? program : _("every process"));
		note_at(other->probe->loc, _("counter '%s' is defined here"), n->str);
		return;
	}
	error_at(n->loc, _("no perf counter named '%s' (a perf probe defines one "
			   "with .counter(\"%s\"))"), n->str, n->str);
	const char *sim = similar_names(intern(n->str), &names);
	if (*sim)
		note_at(n->loc, _("did you mean one of these?%s"), sim);
}

/* @kregister(N), @uregister(N): N is a DWARF register number of the
 * target (arch/); the node keeps the pt_regs member it names. */
static void check_register(Node *n)
{
	if (!n->lhs || n->lhs->kind != N_NUMBER) {
		error_at(n->loc, _("the register number must be a literal"));
		return;
	}
	int64_t num = n->lhs->num;
	const char *r = num >= 0 && num <= INT32_MAX ? arch_reg((int)num) : NULL;
	if (!r) {
		error_at(n->loc, _("no DWARF register %lld on %s"), (long long)num,
			 arch_target()->name);
		return;
	}
	n->str = r;
}

/* @kderef(SIZE, ADDR), @uderef(SIZE, ADDR) */
static void check_deref(Node *n)
{
	if (n->args.len != 2) {
		error_at(n->loc, _("%s takes a size and an address"), n->op);
		return;
	}
	Node *sz = vec_get(&n->args, 0);
	if (sz->kind != N_NUMBER || (sz->num != 1 && sz->num != 2 && sz->num != 4 &&
				     sz->num != 8))
		error_at(sz->loc, _("the size must be 1, 2, 4 or 8"));
}

typedef struct CallScan {
	Func *f;
	bool found;
} CallScan;

static void scan_calls(Node **slot, void *ctx)
{
	CallScan *cs = ctx;
	if ((*slot)->kind == N_CALL && (*slot)->func == cs->f)
		cs->found = true;
	if (!cs->found)
		for_each_child(*slot, scan_calls, ctx);
}

/* A user-space probe whose handler calls f, or NULL. */
static Scope *user_caller(Func *f)
{
	for (int i = 0; i < elab.scopes.len; i++) {
		Scope *ps = vec_get(&elab.scopes, i);
		if (!ps->probe || !ps->rp || !ps->rp->user_space || !ps->probe->body)
			continue;
		CallScan cs = { f, false };
		Node *body = ps->probe->body;
		scan_calls(&body, &cs);
		if (cs.found)
			return ps;
	}
	return NULL;
}

/* Is n (a pretty-print, @cast, @var) read through the debug information?
 * Sets n->tpath; false when it has none (the caller's old ways apply). */
static bool check_typed(Checker *ck, Node *n)
{
	Scope *sc = ck->sc;
	ResolvedPoint *rp = sc->func ? NULL : sc->rp;
	int before = error_count;
	TargetPath *tp = NULL;
	switch (n->kind) {
	case N_CAST:
		if (sc->func && !n->module && (!sess.compatible ||
					       version_cmp(sess.compatible, "4.2") >= 0)) {
			/* a function takes the module of @cast from the probe
			 * that calls it, as stap since 4.2 */
			Scope *ps = user_caller(sc->func);
			if (ps) {
				error_at(n->loc, _("@cast(..., \"%s\") in function '%s' names a "
						   "type of the program of probe '%s', which calls "
						   "it; tapc types a function's @cast once, not "
						   "per calling probe (give the module: @cast(..., "
						   "\"%s\", \"PROGRAM\") or \"kernel\")"),
					 n->str ? n->str : "", sc->func->name,
					 probe_text(ps), n->str ? n->str : "");
				return true;
			}
		}
		tp = cast_target(rp, n, true);
		break;
	case N_ATVAR:
		tp = atvar_target(rp, n, ck->in_entry, true);
		break;
	default:
		return false;
	}
	if (tp) {
		n->tpath = tp;
		n->type = n->deref ? TY_STRING : TY_LONG;
	}
	return tp || error_count != before;
}

/* In a .return probe a variable other than $return is read at the
 * function's entry, as @entry($var) would: wrap it so pass 3 saves it
 * there. */
static bool wrap_entry(Checker *ck, Node **slot)
{
	Node *n = *slot;
	ResolvedPoint *rp = ck->sc->func ? NULL : ck->sc->rp;
	if (ck->in_entry || !rp || !rp->is_return || !rp_has_debug_vars(rp))
		return false;
	if (n->kind == N_TARGET) {
		const char *name = n->name && n->name[0] == '$' ? n->name + 1 : n->name;
		if (!name || !strcmp(name, "return"))
			return false;
	} else if (n->kind != N_TARGET_VARS || (n->name && strstr(n->name, "return"))) {
		return false;
	}
	Node *e = node_new(N_ENTRY, n->loc);
	e->lhs = n;
	e->synthetic = true;
	*slot = e;
	ck->in_entry = true;
	check_node(&e->lhs, ck);
	ck->in_entry = false;
	e->type = e->lhs->type;
	return true;
}

/* The family's say (family.h): a point whose variables wait for debug
 * information still has its ctx_vars for $$vars. */
static bool deferred_vars_are_ctx(const ResolvedPoint *rp)
{
	return rp->family && rp->family->deferred_vars_are_ctx;
}

static void check_target_vars(Checker *ck, Node *n)
{
	Scope *sc = ck->sc;
	if (sc->func) {
		error_at(n->loc, _("'%s' cannot be used in a function"), n->name);
	} else if (sc->rp && !sc->rp->needs_debuginfo && !sc->rp->ctx_vars.len &&
		   !rp_has_debug_vars(sc->rp)) {
		error_at(n->loc, _("'%s' is not available in probe '%s'"), n->name,
			 probe_text(sc));
	} else if (n->name && strstr(n->name, "return") && sc->rp && !sc->rp->is_return) {
		error_at(n->loc, _("'%s' is only available in .return probes"), n->name);
	} else if (sc->rp && rp_has_debug_vars(sc->rp)) {
		n->tpath = debug_target_vars(sc->rp, n, ck->in_entry);
	} else if (n->deref && sc->rp && !sc->rp->user_space &&
		   (!sc->rp->needs_debuginfo || deferred_vars_are_ctx(sc->rp)) &&
		   di_source(NULL) != DI_SRC_NONE && !strstr(n->name, "return") &&
		   !strstr(n->name, "locals")) {
		n->tpath = ctx_target_vars(sc->rp, n);
	} else if (n->deref) {
		error_at(n->loc, _("pretty-printing with '%s' needs debug information, "
				   "which is not supported yet"), n->deref);
	} else if (sc->rp && sc->rp->needs_debuginfo && !deferred_vars_are_ctx(sc->rp)) {
		/* the variables of such a point come from debug
		 * information: without it the list would be empty (a
		 * tracepoint's prototype that is not known prints what is) */
		error_at(n->loc, _("'%s' in probe '%s' needs debug information, "
				   "which is not supported yet"), n->name,
			 probe_text(sc));
	}
	n->type = TY_STRING;
}

static void check_node(Node **slot, void *ctx)
{
	Checker *ck = ctx;
	Scope *sc = ck->sc;
	Node *n = *slot;
	/* @entry(x) of a local: the entry runs none of the handler, so x
	 * has no value there */
	if (ck->in_entry && n->kind == N_SYMBOL && n->var && n->var->scope == VS_LOCAL)
		warning_at(n->loc, _("local '%s' has no value at the function's entry: "
				     "@entry reads it as 0 (@entry wants context "
				     "variables, $x)"), n->var->name);
	if ((n->kind == N_TARGET || n->kind == N_TARGET_VARS) && wrap_entry(ck, slot))
		return;
	if (n->deref && (n->kind == N_CAST || n->kind == N_ATVAR) && check_typed(ck, n)) {
		for_each_child(n, check_node, ck);
		return;
	}
	if (n->deref && n->kind == N_TARGET && !sc->func && rp_has_debug_vars(sc->rp)) {
		check_target(ck, n, false);
		for_each_child(n, check_node, ck);
		return;
	}
	if (n->deref && n->kind == N_AUTOCAST) {
		check_autocast(ck, n);
		if (!n->tpath)
			error_at(n->loc, _("pretty-printing with '%s' needs debug information, "
					   "which is not supported yet"), n->deref);
		for_each_child(n, check_node, ck);
		return;
	}
	if (n->deref && n->kind == N_TARGET && !sc->func && sc->rp) {
		const char *name = n->name && n->name[0] == '$' ? n->name + 1 : n->name;
		CtxVar *cv = find_ctx(sc->rp, name ? name : "");
		if (cv && cv->ctype && !cv->scalar) {
			check_target(ck, n, false);
			if (!n->tpath)
				error_at(n->loc, _("pretty-printing with '%s' needs debug "
						   "information, which is not supported yet"),
					 n->deref);
			for_each_child(n, check_node, ck);
			return;
		}
	}
	if (n->deref && n->kind != N_TARGET_VARS && is_target_like(n)) {
		/* $var$, $var$$, @cast(...)$ ... print a value with its
		 * type's layout, which only debug information gives */
		error_at(n->loc, _("pretty-printing with '%s' needs debug information, "
				   "which is not supported yet"), n->deref);
		for_each_child(n, check_node, ck);
		return;
	}
	switch (n->kind) {
	case N_AUTOCAST:
		check_autocast(ck, n);
		break;
	case N_CAST:
		check_cast_headers(n);
		set_path_types(sc, n);
		check_typed(ck, n);
		break;
	case N_REGISTER:
		check_register(n);
		break;
	case N_DEREF:
		check_deref(n);
		break;
	case N_ATVAR:
		/* @var("name") without a CU or module is another way to write
		 * $name (stapprobes); it stays @var when it names a global of
		 * a compilation unit, which needs debug information. */
		if (n->str && !n->module && !strchr(n->str, '@')) {
			n->kind = N_TARGET;
			n->name = intern(xsprintf("$%s", n->str));
			check_target(ck, n, false);
		} else {
			check_typed(ck, n);
		}
		break;
	case N_TARGET:
		check_target(ck, n, false);
		break;
	case N_TARGET_VARS:
		check_target_vars(ck, n);
		return;
	case N_ENTRY:
		if (sc->func || !sc->rp || !sc->rp->is_return) {
			error_at(n->loc, _("@entry is only available in .return probes"));
			return;
		}
		if (!ck->in_entry) {
			ck->in_entry = true;
			for_each_child(n, check_node, ck);
			ck->in_entry = false;
			return;
		}
		break;
	case N_ASSIGN:
		check_write(ck, n->lhs);
		if (n->rhs)
			check_node(&n->rhs, ck);
		return;
	case N_PREINC:
	case N_POSTINC:
		if (is_target_like(n->lhs)) {
			error_at(n->loc, _("context variables cannot be incremented or "
					   "decremented"));
			return;
		}
		check_write(ck, n->lhs);
		return;
	case N_DELETE:
		if (n->lhs && is_target_like(n->lhs)) {
			error_at(n->lhs->loc, _("context variables cannot be deleted"));
			return;
		}
		break;
	case N_CALL:
		if (n->func && n->func->guru && !sess.guru && !sc->from_tapset)
			error_at(n->loc, _("function '%s' needs guru mode (-g)"), n->name);
		if (n->func && n->func->unavailable)
			error_at(n->loc, _("function '%s' does not work in tapc yet: %s"),
				 n->name, n->func->unavailable);
		check_register_name(n);
		break;
	case N_PERF:
		check_perf(ck, n);
		break;
	case N_NEXT:
		break;
	default:
		break;
	}
	for_each_child(n, check_node, ck);
}

void check_contexts(void)
{
	for (int i = 0; i < elab.scopes.len; i++) {
		Scope *sc = vec_get(&elab.scopes, i);
		Node *body = sc->probe ? sc->probe->body : sc->func->body;
		if (sc->func && !sc->func->used)
			continue;
		Checker ck = { sc, NULL, false };
		if (body)
			check_node(&body, &ck);
	}
}

