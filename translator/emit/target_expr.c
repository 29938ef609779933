/* target_expr.c - pass 3: target expressions.  Context variables ($var,
 * @var), @cast and autocast ->, @entry, registers and kernel memory,
 * each read through the fault-safe fetch macros. */
#include "emit_priv.h"
#include "passes.h"
#include "debuginfo/debuginfo.h"

#include <string.h>

/* ---- context variables and kernel memory ---- */

/* The helper macros of target paths, once per file. */
static void need_target_macros(Emitter *e)
{
	static const char text[] =
"/* Target paths ($var->a->b, @cast): each step follows a pointer member\n"
" * by reading it with a fault-safe copy, and a struct member by address. */\n"
"#define TAP_FETCH(rd, what, x, err) ({ __typeof__(x) _tv; \\\n"
"\tif (rd(&_tv, (void *)&(x), sizeof(_tv))) { \\\n"
"\t\ttap_error(c, what \" read fault at 0x%lx\", (unsigned long)&(x)); \\\n"
"\t\tgoto err; \\\n"
"\t} \\\n"
"\t_tv; })\n"
"#define TAP_ISPTR(x) (__builtin_classify_type(x) == 5)\n"
"#define TAP_ISARRAY(x) (!__builtin_types_compatible_p(__typeof__(x), __typeof__((x) + 0)))\n"
"#define TAP_SIGNED(x) _Generic((x), char: ((char)-1 < 0), signed char: 1, short: 1, \\\n"
"\tint: 1, long: 1, long long: 1, default: 0)\n"
"#define TAP_STEP(rd, what, x, err) \\\n"
"\t__builtin_choose_expr(TAP_ISPTR(x), TAP_FETCH(rd, what, x, err), &(x))\n"
"#define TAP_ELEMS(rd, what, x, err) \\\n"
"\t__builtin_choose_expr(TAP_ISARRAY(x), (x), TAP_FETCH(rd, what, x, err))\n"
"#define TAP_VALUE(rd, what, x, err) __builtin_choose_expr(TAP_ISPTR(x), \\\n"
"\t({ int64_t _r; \\\n"
"\t   if (TAP_ISARRAY(x)) \\\n"
"\t\t_r = (unsigned long)((x) + 0); \\\n"
"\t   else \\\n"
"\t\t_r = (unsigned long)TAP_FETCH(rd, what, x, err); \\\n"
"\t   _r; }), \\\n"
"\t({ u64 _u = 0; const int _n = sizeof(x) < 8 ? sizeof(x) : 8; \\\n"
"\t   if (rd(&_u, (void *)&(x), _n)) { \\\n"
"\t\ttap_error(c, what \" read fault at 0x%lx\", (unsigned long)&(x)); \\\n"
"\t\tgoto err; \\\n"
"\t   } \\\n"
"\t   TAP_SIGNED(x) ? (int64_t)(_u << (64 - 8 * _n)) >> (64 - 8 * _n) : (int64_t)_u; }))\n";
	if (e->target_macros)
		return;
	e->target_macros = true;
	sb_puts(&e->decls, text);
}

/* #include <header> among the declarations, once. */
static void include_header(Emitter *e, const char *header)
{
	const char *inc = xsprintf("#include <%s>\n", header);
	if (!strstr(sb_cstr(&e->decls), inc))
		sb_puts(&e->decls, inc);
}

/* "kernel<linux/sched.h><linux/fs.h>": include the headers it names.
 * A module without "kernel" names a user-space program or header, whose
 * types only its debug information knows. */
static bool cast_headers(Emitter *e, Node *n, const char *module)
{
	if (module && strncmp(module, "kernel", 6) && strchr(module, '<')) {
		emit_error_at(e, n->loc, _("@cast to a type of user-space header %s needs "
					   "debug information, which is not supported yet"),
			      strchr(module, '<'));
		return false;
	}
	for (const char *p = module ? strchr(module, '<') : NULL; p; p = strchr(p, '<')) {
		const char *end = strchr(p, '>');
		if (!end)
			break;
		include_header(e, xstrndup(p + 1, end - p - 1));
		p = end;
	}
	return true;
}

/* The header of the target kernel that defines the struct ctype points
 * to (kheaders.c), so a path can follow its members; pass 4 adds the
 * headers of deeper steps. */
static void include_struct_of(Emitter *e, const char *ctype)
{
	const char *h = kernel_struct_header(struct_name_of(ctype));
	if (h)
		include_header(e, h);
}

static const CtxVar *target_ctx_var(Body *b, Node *n)
{
	if (!b->ep || !b->ep->rp)
		return NULL;
	const char *name = n->name && n->name[0] == '$' ? n->name + 1 : n->name;
	return resolved_ctx_var(b->ep->rp, name ? name : "");
}

static void no_ctx_var(Body *b, Node *n)
{
	if (b->ep && b->ep->rp && b->ep->rp->needs_debuginfo)
		emit_error_at(b->e, n->loc, _("context variable '%s' needs debug information "
					      "of '%s', which is not supported yet"), n->name,
			      probe_point_text(b->ep->rp->point));
	else
		emit_error_at(b->e, n->loc, _("context variable '%s' is not available here"),
			      n->name);
}

/* The reader for a path: user memory in process probes. */
static void reader_of(Body *b, Node *n, const char **rd, const char **what)
{
	bool user = b->ep && b->ep->rp && b->ep->rp->user_space;
	if (n->kind == N_CAST && n->module) {
		if (!strncmp(n->module, "kernel", 6))
			user = false;
		else if (strchr(n->module, '/'))
			user = true;
	}
	*rd = user ? "tap_read_user" : "tap_read_kernel";
	*what = user ? "\"user\"" : "\"kernel\"";
}

/* The steps of a path from a typed pointer p0; returns the C lvalue of
 * the last member.  Declarations go to the open block. */
static const char *path_steps(Body *b, const char *p0, Vec *comps, Val *idx,
			      const char *rd, const char *what, const char *err)
{
	Emitter *e = b->e;
	const char *cur = p0;
	for (int i = 0; i < comps->len; i++) {
		Component *c = vec_get(comps, i);
		const char *x;
		if (c->kind == COMP_MEMBER)
			x = xsprintf("(%s)->%s", cur, c->name);
		else
			x = xsprintf("(%s)[%s]", cur, idx[i].c);
		if (i == comps->len - 1)
			return x;
		Component *next = vec_get(comps, i + 1);
		const char *p = xsprintf("p%d", i + 1);
		emit(e, "__auto_type %s = %s(%s, %s, %s, %s);", p,
		     next->kind == COMP_MEMBER ? "TAP_STEP" : "TAP_ELEMS", rd, what, x, err);
		cur = p;
	}
	return xsprintf("(*%s)", cur);
}

/* The [index] values of a path, computed before its block opens. */
static Val *path_indexes(Body *b, Vec *comps)
{
	Node **nodes = xalloc(sizeof(Node *) * (comps->len ? comps->len : 1));
	Val *vals = xalloc(sizeof(Val) * (comps->len ? comps->len : 1));
	for (int i = 0; i < comps->len; i++) {
		Component *c = vec_get(comps, i);
		nodes[i] = c->kind == COMP_INDEX ? c->index : NULL;
	}
	ex_list(b, nodes, comps->len, vals);
	return vals;
}

/* Everything before the path: the typed pointer it starts from. */
static const char *path_base(Body *b, Node *n, const char **ptype)
{
	*ptype = NULL;
	if (n->kind == N_TARGET) {
		const CtxVar *cv = target_ctx_var(b, n);
		if (!cv) {
			no_ctx_var(b, n);
			return NULL;
		}
		const char *x = family_ctx_expr(b->ep, cv, false);
		if (!x) {
			emit_error_at(b->e, n->loc, _("context variable '%s' cannot be read in "
						      "'%s' probes yet"), n->name,
				      b->ep->rp->family->name);
			return NULL;
		}
		ASSERT(n->ctype_base);   /* pass 2 rejects a path without one */
		*ptype = n->ctype_base;
		include_struct_of(b->e, n->ctype_base);
		return xsprintf("(unsigned long)(%s)", x);
	}
	if (n->kind == N_CAST) {
		if (!cast_headers(b->e, n, n->module))
			return NULL;
		ASSERT(n->ctype_base);   /* pass 2 sets it on every @cast */
		*ptype = n->ctype_base;
		if (!n->module || !strchr(n->module, '<'))
			include_struct_of(b->e, *ptype);
	} else {
		*ptype = n->ctype_base;   /* pass 2's, from the type n->lhs carries */
		if (!*ptype) {
			emit_error_at(b->e, n->loc, _("'->' needs a value with a known C type"));
			return NULL;
		}
	}
	Val base = ex(b, n->lhs);
	return xsprintf("(unsigned long)(%s)", base.c);
}

Val ex_target(Body *b, Node *n)
{
	Emitter *e = b->e;
	if (n->deref)
		return error_val(b, n->loc, _("pretty-printing with '$' or '$$' needs debug "
					      "information, which is not supported yet"));
	if (b->entry == false && b->ep == NULL && n->kind == N_TARGET)
		return error_val(b, n->loc, _("context variables are only available in probes"));
	/* a plain context variable */
	if (n->kind == N_TARGET && !n->comps.len) {
		const CtxVar *cv = target_ctx_var(b, n);
		if (!cv) {
			no_ctx_var(b, n);
			return val_num(0);
		}
		if (cv->write_only)
			return error_val(b, n->loc, xsprintf(_("context variable '%s' can only be "
							       "written"), n->name));
		const char *x = family_ctx_expr(b->ep, cv, false);
		if (!x)
			return error_val(b, n->loc, xsprintf(_("context variable '%s' cannot be "
							       "read in '%s' probes yet"), n->name,
							     b->ep->rp->family->name));
		if (n->addressof)
			return error_val(b, n->loc, _("'&' of a context variable needs debug "
						      "information"));
		if (cv->type == TY_STRING) {
			const char *s = tmp_str(b);
			emit(e, "tap_str_assign(%s, %s);", s, x);
			return val_c(s, true);
		}
		const char *t = tmp_long(b);
		emit(e, "%s = (int64_t)(%s);", t, x);
		return val_c(t, true);
	}
	const char *ptype;
	const char *base = path_base(b, n, &ptype);
	if (!base)
		return val_num(0);
	need_target_macros(e);
	const char *rd, *what;
	reader_of(b, n, &rd, &what);
	Val *idx = path_indexes(b, &n->comps);
	const char *t = tmp_long(b);
	const char *err = ((Label *)vec_last(&b->errs))->name;
	((Label *)vec_last(&b->errs))->used = true;
	where(b, n->loc, n->kind == N_CAST ? "operator '@cast'" :
		  xsprintf("identifier '%s'", n->name ? n->name : "->"));
	emit_open(e, "{");
	emit(e, "%s p0 = (%s)%s;", ptype, ptype, base);
	if (!n->comps.len) {
		emit(e, "%s = (int64_t)(unsigned long)p0;", t);
		emit_close(e, "}");
		return val_c(t, true);
	}
	const char *x = path_steps(b, "p0", &n->comps, idx, rd, what, err);
	if (n->addressof)
		emit(e, "%s = (int64_t)(unsigned long)&%s;", t, x);
	else
		emit(e, "%s = TAP_VALUE(%s, %s, %s, %s);", t, rd, what, x, err);
	emit_close(e, "}");
	return val_c(t, true);
}

Val write_target(Body *b, Node *lhs, Val r)
{
	Emitter *e = b->e;
	b->effects++;
	if (lhs->kind == N_TARGET && !lhs->comps.len) {
		const CtxVar *cv = target_ctx_var(b, lhs);
		if (!cv || !cv->writable)
			return error_val(b, lhs->loc, xsprintf(_("context variable '%s' cannot be "
								 "written"), lhs->name));
		const char *x = family_ctx_expr(b->ep, cv, true);
		if (!x)
			return error_val(b, lhs->loc, xsprintf(_("context variable '%s' cannot be "
								 "written in '%s' probes yet"),
							       lhs->name, b->ep->rp->family->name));
		if (cv->type == TY_STRING)
			emit(e, "tap_str_assign(%s, %s);", x, r.c);
		else
			emit(e, "%s = %s;", x, r.c);
		return r;
	}
	const char *ptype;
	const char *base = path_base(b, lhs, &ptype);
	if (!base)
		return val_num(0);
	need_target_macros(e);
	const char *rd, *what;
	reader_of(b, lhs, &rd, &what);
	Val *idx = path_indexes(b, &lhs->comps);
	const char *err = ((Label *)vec_last(&b->errs))->name;
	((Label *)vec_last(&b->errs))->used = true;
	bool user = !strcmp(rd, "tap_read_user");
	where(b, lhs->loc, "operator '='");
	emit_open(e, "{");
	emit(e, "%s p0 = (%s)%s;", ptype, ptype, base);
	const char *x = lhs->comps.len ? path_steps(b, "p0", &lhs->comps, idx, rd, what, err)
				       : "(*p0)";
	emit(e, "__typeof__(%s) w = (__typeof__(%s))(%s);", x, x, r.c);
	emit(e, "if (%s((void *)&%s, &w, sizeof(w))) {",
	     user ? "tap_write_user" : "tap_write_kernel", x);
	emit(e, "\ttap_error(c, \"%s write fault at 0x%%lx\", (unsigned long)&%s);",
	     user ? "user" : "kernel", x);
	emit(e, "\tgoto %s;", err);
	emit(e, "}");
	emit_close(e, "}");
	return r;
}

Val ex_target_vars(Body *b, Node *n)
{
	Emitter *e = b->e;
	ResolvedPoint *rp = b->ep ? b->ep->rp : NULL;
	if (!rp)
		return error_val(b, n->loc, xsprintf(_("'%s' is only available in probes"),
						     n->name));
	const char *which = n->name ? n->name : "$$vars";
	bool want_return = strstr(which, "return") != NULL;
	bool want_locals = strstr(which, "locals") != NULL;
	Vec items = { 0 };
	Vec nodes = { 0 };
	Vec vals = { 0 };
	for (int i = 0; i < rp->ctx_vars.len; i++) {
		CtxVar *cv = vec_get(&rp->ctx_vars, i);
		bool is_ret = !strcmp(cv->name, "return");
		if (cv->write_only || want_locals || is_ret != want_return)
			continue;
		const char *x = family_ctx_expr(b->ep, cv, false);
		if (!x)
			continue;
		fmt_item_lit(&items, xsprintf("%s%s=", items.len ? " " : "", cv->name));
		Node *fake = node_new(N_NUMBER, n->loc);
		fake->type = cv->type;
		Val *v = NEW(Val);
		if (cv->type == TY_STRING) {
			*v = val_c(x, false);
			fmt_item_lit(&items, "\"");
			fmt_item_conv(&items, FMT_STRING);
			fmt_item_lit(&items, "\"");
		} else {
			*v = val_c(xsprintf("(int64_t)(%s)", x), false);
			fmt_item_conv(&items, FMT_HEX)->flags = FMT_ALT;
		}
		vec_push(&nodes, fake);
		vec_push(&vals, v);
	}
	const char *s = tmp_str(b);
	if (!items.len) {
		emit(e, "%s[0] = '\\0';", s);
		return val_c(s, true);
	}
	Val *va = xalloc(sizeof(Val) * vals.len);
	for (int i = 0; i < vals.len; i++)
		va[i] = *(Val *)vec_get(&vals, i);
	print_items(b, &items, (Node **)nodes.data, va, vals.len, s, n->loc);
	return val_c(s, true);
}

Val ex_entry(Body *b, Node *n)
{
	if (b->entry)
		return ex(b, n->lhs);
	for (int i = 0; i < b->entries.len; i++) {
		if (vec_get(&b->entries, i) != n)
			continue;
		if (!b->ep || !b->ep->entry_type)
			return val_num(0);   /* reported already */
		const char *f = xsprintf("((%s *)pdata)->e%d", b->ep->entry_type, i);
		return val_c(f, false);
	}
	return error_val(b, n->loc, _("@entry is only available in .return probes"));
}

Val ex_register(Body *b, Node *n)
{
	Emitter *e = b->e;
	bool user = n->op && !strcmp(n->op, "@uregister");
	ASSERT(n->str);   /* pass 2's register name */
	const char *r = user ? "c->user_regs" : "c->regs";
	const char *t = tmp_long(b);
	where(b, n->loc, xsprintf("operator '%s'", n->op));
	emit_open(e, "if (!%s) {", r);
	emit(e, "tap_error(c, \"no registers are available here\");");
	emit(e, "%s", err_goto(b));
	emit_close(e, "}");
	emit(e, "#ifdef CONFIG_X86_64");
	emit(e, "%s = (int64_t)%s->%s;", t, r, n->str);
	emit(e, "#else");
	emit(e, "%s = 0;", t);
	emit(e, "#endif");
	return val_c(t, true);
}

Val ex_deref(Body *b, Node *n)
{
	Emitter *e = b->e;
	bool user = n->op && !strcmp(n->op, "@uderef");
	ASSERT(n->args.len == 2);   /* pass 2 checked the size and the address */
	Node *sz = vec_get(&n->args, 0);
	Val a = ex(b, vec_get(&n->args, 1));
	const char *ty = sz->num == 1 ? "u8" : sz->num == 2 ? "u16" : sz->num == 4 ? "u32" : "s64";
	const char *t = tmp_long(b);
	where(b, n->loc, xsprintf("operator '%s'", n->op));
	emit_open(e, "{");
	emit(e, "%s v;", ty);
	emit_open(e, "if (%s(&v, (void *)(unsigned long)(%s), sizeof(v))) {",
		  user ? "tap_read_user" : "tap_read_kernel", a.c);
	emit(e, "tap_error(c, \"%s read fault at 0x%%lx\", (unsigned long)(%s));",
	     user ? "user" : "kernel", a.c);
	emit(e, "%s", err_goto(b));
	emit_close(e, "}");
	emit(e, "%s = v;", t);
	emit_close(e, "}");
	return val_c(t, true);
}
