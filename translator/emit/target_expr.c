/* target_expr.c - pass 3: target expressions.  Context variables ($var,
 * @var), @cast and autocast ->, @entry, registers and kernel memory,
 * each read through the fault-safe fetch macros. */
#include "emit_priv.h"
#include "passes.h"
#include "debuginfo/debuginfo.h"
#include "tpath.h"
#include "arch/arch.h"

#include <stdarg.h>
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
	expr_list(b, nodes, comps->len, vals);
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
	Val base = expr_eval(b, n->lhs);
	return xsprintf("(unsigned long)(%s)", base.c);
}

static Val ex_tpath(Body *b, Node *n);
static Val write_tpath(Body *b, Node *lhs, Val r);
static Val ex_tpath_vars(Body *b, Node *n);

Val tx_target(Body *b, Node *n)
{
	Emitter *e = b->e;
	if (n->tpath)
		return ex_tpath(b, n);
	if (n->kind == N_ATVAR)
		return body_error(b, n->loc, _("@var needs kernel debug information, which is "
					       "not supported yet"));
	if (n->deref)
		return body_error(b, n->loc, _("pretty-printing with '$' or '$$' needs debug "
					       "information, which is not supported yet"));
	if (b->entry == false && b->ep == NULL && n->kind == N_TARGET)
		return body_error(b, n->loc, _("context variables are only available in probes"));
	/* a plain context variable */
	if (n->kind == N_TARGET && !n->comps.len) {
		const CtxVar *cv = target_ctx_var(b, n);
		if (!cv) {
			no_ctx_var(b, n);
			return val_num(0);
		}
		if (cv->write_only)
			return body_error(b, n->loc, xsprintf(_("context variable '%s' can only be "
								"written"), n->name));
		const char *x = family_ctx_expr(b->ep, cv, false);
		if (!x)
			return body_error(b, n->loc, xsprintf(_("context variable '%s' cannot be "
								"read in '%s' probes yet"), n->name,
							      b->ep->rp->family->name));
		if (n->addressof)
			return body_error(b, n->loc, _("'&' of a context variable needs debug "
						       "information"));
		if (cv->type == TY_STRING) {
			const char *s = body_tmp_str(b);
			emit(e, "tap_str_assign(%s, %s);", s, x);
			return val_c(s, true);
		}
		const char *t = body_tmp_long(b);
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
	const char *t = body_tmp_long(b);
	const char *err = ((Label *)vec_last(&b->errs))->name;
	((Label *)vec_last(&b->errs))->used = true;
	body_where(b, n->loc, n->kind == N_CAST ? "operator '@cast'" :
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

Val tx_write(Body *b, Node *lhs, Val r)
{
	Emitter *e = b->e;
	if (lhs->tpath)
		return write_tpath(b, lhs, r);
	b->effects++;
	if (lhs->kind == N_TARGET && !lhs->comps.len) {
		const CtxVar *cv = target_ctx_var(b, lhs);
		if (!cv || !cv->writable)
			return body_error(b, lhs->loc, xsprintf(_("context variable '%s' cannot be "
								  "written"), lhs->name));
		const char *x = family_ctx_expr(b->ep, cv, true);
		if (!x)
			return body_error(b, lhs->loc, xsprintf(_("context variable '%s' cannot be "
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
	body_where(b, lhs->loc, "operator '='");
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

Val tx_append(Body *b, Node *lhs, Val r)
{
	Emitter *e = b->e;
	const CtxVar *cv = target_ctx_var(b, lhs);
	if (!cv || !cv->writable || cv->type != TY_STRING)
		return tx_write(b, lhs, r);   /* reports the error */
	if (!cv->appendable) {
		Val cur = tx_target(b, lhs);
		const char *s = body_tmp_str(b);
		emit(e, "tap_str_concat(%s, %s, %s);", s, cur.c, r.c);
		return tx_write(b, lhs, val_c(s, true));
	}
	const char *x = family_ctx_expr(b->ep, cv, true);
	if (!x)
		return tx_write(b, lhs, r);
	b->effects++;
	emit_open(e, "{");
	emit(e, "char *w = %s;", x);
	emit(e, "tap_str_assign(w + strlen(w), %s);", r.c);
	emit_close(e, "}");
	return r;
}

Val tx_target_vars(Body *b, Node *n)
{
	Emitter *e = b->e;
	if (n->tpath)
		return ex_tpath_vars(b, n);
	ResolvedPoint *rp = b->ep ? b->ep->rp : NULL;
	if (!rp)
		return body_error(b, n->loc, xsprintf(_("'%s' is only available in probes"),
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
		/* "$name" is $$name, no variable of the code */
		if (cv->write_only || want_locals || is_ret != want_return ||
		    cv->name[0] == '$')
			continue;
		const char *x = family_ctx_expr(b->ep, cv, false);
		if (!x)
			continue;
		printf_lit(&items, xsprintf("%s%s=", items.len ? " " : "",
					    cv->parms_name ? cv->parms_name : cv->name));
		Node *fake = node_new(N_NUMBER, n->loc);
		fake->type = cv->type;
		Val *v = NEW(Val);
		if (cv->type == TY_STRING) {
			*v = val_c(x, false);
			printf_lit(&items, "\"");
			printf_conv(&items, FMT_STRING);
			printf_lit(&items, "\"");
		} else {
			*v = val_c(xsprintf("(int64_t)(%s)", x), false);
			printf_conv(&items, FMT_HEX)->flags = FMT_ALT;
		}
		vec_push(&nodes, fake);
		vec_push(&vals, v);
	}
	const char *s = body_tmp_str(b);
	if (!items.len) {
		emit(e, "%s[0] = '\\0';", s);
		return val_c(s, true);
	}
	Val *va = xalloc(sizeof(Val) * vals.len);
	for (int i = 0; i < vals.len; i++)
		va[i] = *(Val *)vec_get(&vals, i);
	printf_items(b, &items, (Node **)nodes.data, va, vals.len, s, n->loc);
	return val_c(s, true);
}

Val tx_entry(Body *b, Node *n)
{
	if (b->entry)
		return expr_eval(b, n->lhs);
	for (int i = 0; i < b->entries.len; i++) {
		if (vec_get(&b->entries, i) != n)
			continue;
		if (!b->ep || !b->ep->entry_type)
			return val_num(0);   /* reported already */
		const char *f = xsprintf("((%s *)pdata)->e%d", b->ep->entry_type, i);
		return val_c(f, false);
	}
	return body_error(b, n->loc, _("@entry is only available in .return probes"));
}

Val tx_register(Body *b, Node *n)
{
	Emitter *e = b->e;
	bool user = n->op && !strcmp(n->op, "@uregister");
	ASSERT(n->str);   /* pass 2's register name */
	const char *r = user ? "c->user_regs" : "c->regs";
	const char *t = body_tmp_long(b);
	body_where(b, n->loc, xsprintf("operator '%s'", n->op));
	emit_open(e, "if (!%s) {", r);
	emit(e, "tap_error(c, \"no registers are available here\");");
	emit(e, "%s", body_err_goto(b));
	emit_close(e, "}");
	emit(e, "#ifdef %s", arch_target()->kconfig);   /* the names are its */
	emit(e, "%s = (int64_t)%s->%s;", t, r, n->str);
	emit(e, "#else");
	emit(e, "%s = 0;", t);
	emit(e, "#endif");
	return val_c(t, true);
}

Val tx_deref(Body *b, Node *n)
{
	Emitter *e = b->e;
	bool user = n->op && !strcmp(n->op, "@uderef");
	ASSERT(n->args.len == 2);   /* pass 2 checked the size and the address */
	Node *sz = vec_get(&n->args, 0);
	Val a = expr_eval(b, vec_get(&n->args, 1));
	const char *ty = sz->num == 1 ? "u8" : sz->num == 2 ? "u16" : sz->num == 4 ? "u32" : "s64";
	const char *t = body_tmp_long(b);
	body_where(b, n->loc, xsprintf("operator '%s'", n->op));
	emit_open(e, "{");
	emit(e, "%s v;", ty);
	emit_open(e, "if (%s(&v, (void *)(unsigned long)(%s), sizeof(v))) {",
		  user ? "tap_read_user" : "tap_read_kernel", a.c);
	emit(e, "tap_error(c, \"%s read fault at 0x%%lx\", (unsigned long)(%s));",
	     user ? "user" : "kernel", a.c);
	emit(e, "%s", body_err_goto(b));
	emit_close(e, "}");
	emit(e, "%s = v;", t);
	emit_close(e, "}");
	return val_c(t, true);
}

/* ---- target paths typed from the debug information (tpath.h) ----
 *
 * Pass 2 left the path as a start (a variable's location, $return, a
 * pointer value) and steps of byte offsets; here each becomes address
 * arithmetic and fault-safe reads of the sizes the types give.  Two C
 * variables carry the value along a path: _ta, the address of the object
 * reached so far (in memory), or _tv, its value (in a register, computed,
 * or a pointer just loaded). */

typedef enum PState { ST_ADDR, ST_VALUE } PState;

static void need_tpath_macros(Emitter *e)
{
	static const char text[] =
"/* Typed target paths: a fault-safe read of n (1..8) bytes, zero-extended,\n"
" * and the string of a pretty-print (\"<unknown>\" when it cannot be read). */\n"
"#define TAP_LOAD(rd, what, dst, addr, n, err) do { u64 _lv = 0; \\\n"
"\tif (rd(&_lv, (void *)(unsigned long)(addr), (n))) { \\\n"
"\t\ttap_error(c, what \" read fault at 0x%lx\", (unsigned long)(addr)); \\\n"
"\t\tgoto err; \\\n"
"\t} \\\n"
"\t(dst) = _lv; } while (0)\n"
"#define TAP_SEXT(v, bits) ((u64)((s64)((u64)(v) << (64 - (bits))) >> (64 - (bits))))\n"
"static __maybe_unused void _tap_pp_string(char *dst, unsigned long addr, long n, int user)\n"
"{\n"
"\tlong i;\n"
"\n"
"\tif (n <= 0 || n > MAXSTRINGLEN)\n"
"\t\tn = MAXSTRINGLEN;\n"
"\tfor (i = 0; i < n - 1; i++) {\n"
"\t\tif (user ? tap_read_user(&dst[i], (const void __user *)(addr + i), 1)\n"
"\t\t\t : tap_read_kernel(&dst[i], (const void *)(addr + i), 1)) {\n"
"\t\t\tstrscpy(dst, \"<unknown>\", MAXSTRINGLEN);\n"
"\t\t\treturn;\n"
"\t\t}\n"
"\t\tif (!dst[i])\n"
"\t\t\treturn;\n"
"\t}\n"
"\tdst[i] = '\\0';\n"
"}\n";
	if (strstr(sb_cstr(&e->decls), "#define TAP_LOAD("))
		return;
	sb_puts(&e->decls, text);
}

static const char *tp_reader(const TargetPath *tp)
{
	return tp->user ? "tap_read_user" : "tap_read_kernel";
}

static const char *tp_what(const TargetPath *tp)
{
	return tp->user ? "\"user\"" : "\"kernel\"";
}

/* What KASLR added to the kernel's addresses. */
static const char *reloc_expr(const TargetPath *tp)
{
	if (tp->ureloc)         /* a user object's load bias */
		return xsprintf("(instruction_pointer(c->regs) - 0x%llxUL)",
				(unsigned long long)tp->ureloc_pc);
	if (!tp->reloc)
		return NULL;
	if (tp->reloc_percpu && tp->reloc_ref)  /* a per-CPU section in the
						 * image: KASLR's offset, then
						 * this CPU's per-CPU offset */
		return xsprintf("((unsigned long)&jiffies_64 - 0x%llxUL + "
				"(unsigned long)raw_cpu_ptr((char __percpu *)0))",
				(unsigned long long)tp->reloc_ref);
	if (tp->reloc_percpu)   /* this CPU's per-CPU base */
		return "(unsigned long)raw_cpu_ptr((char __percpu *)0)";
	return xsprintf("((unsigned long)&jiffies_64 - 0x%llxUL)",
			(unsigned long long)tp->reloc_ref);
}

/* The value a TP_POINTER path starts from, before its block opens. */
static bool pointer_base(Body *b, Node *n, Val *out)
{
	if (n->kind == N_TARGET || n->kind == N_TARGET_VARS) {
		const CtxVar *cv = n->kind == N_TARGET ? target_ctx_var(b, n) : NULL;
		if (n->kind == N_TARGET_VARS && b->ep && b->ep->rp)
			cv = resolved_ctx_var(b->ep->rp, n->name);
		const char *x = cv ? family_ctx_expr(b->ep, cv, false) : NULL;
		if (!x) {
			no_ctx_var(b, n);
			return false;
		}
		*out = val_c(xsprintf("(u64)(%s)", x), false);
		return true;
	}
	*out = expr_eval(b, n->lhs);
	return true;
}

/* The code of tp's path, in the open block, up to its last object:
 * declares _tv and _ta. */
static PState emit_path(Body *b, TargetPath *tp, Val base, const Val *idx,
			const char *err)
{
	Emitter *e = b->e;
	const char *rd = tp_reader(tp), *what = tp_what(tp);
	PState st = ST_VALUE;
	emit(e, "u64 _tv = 0;");
	emit(e, "unsigned long _ta __maybe_unused = 0;");
	switch (tp->start) {
	case TP_VAR: {
		LocEnv env = { .regs = "c->regs", .at_entry = tp->at_entry,
			       .reloc = reloc_expr(tp), .err = err, .tmp = "_tl",
			       .user = tp->user };
		LocCode lc;
		const char *why = NULL;
		bool ok = loc_compile(&tp->loc, &env, &lc, &why);
		ASSERT(ok);   /* pass 2 asked first */
		if (strstr(lc.stmts, "c->regs") || strstr(lc.expr, "c->regs")) {
			emit(e, "if (!c->regs) {");
			emit(e, "\ttap_error(c, \"no registers are available here\");");
			emit(e, "\tgoto %s;", err);
			emit(e, "}");
		}
		for (const char *p = lc.stmts; p && *p;) {
			const char *nl = strchr(p, '\n');
			emit(e, "%s", xstrndup(p, nl ? (size_t)(nl - p) : strlen(p)));
			p = nl ? nl + 1 : p + strlen(p);
		}
		if (lc.is_addr) {
			emit(e, "_ta = (unsigned long)(%s);", lc.expr);
			st = ST_ADDR;
		} else {
			emit(e, "_tv = %s;", lc.expr);
		}
		break;
	}
	case TP_RETURN:
		emit(e, "if (!c->regs) {");
		emit(e, "\ttap_error(c, \"no registers are available here\");");
		emit(e, "\tgoto %s;", err);
		emit(e, "}");
		emit(e, "_tv = (u64)regs_return_value(c->regs);");
		break;
	case TP_POINTER:
		emit(e, "_tv = (u64)(%s);", base.c);
		break;
	}
	for (int i = 0; i < tp->steps.len; i++) {
		const TpStep *s = vec_get(&tp->steps, i);
		if (s->through_ptr) {
			if (st == ST_ADDR)
				emit(e, "TAP_LOAD(%s, %s, _tv, _ta, 8, %s);", rd, what, err);
			emit(e, "_ta = (unsigned long)_tv;");
			st = ST_ADDR;
		}
		const char *off = s->kind == TP_MEMBER
			? xsprintf("%lluUL", (unsigned long long)s->offset)
			: xsprintf("(unsigned long)(%s) * %lluUL", idx[s->comp].c,
				   (unsigned long long)s->elem_size);
		if (st == ST_ADDR) {
			if (strcmp(off, "0UL"))
				emit(e, "_ta += %s;", off);
		} else {
			emit(e, "_tv = (%s) < 64 / 8 ? _tv >> (8 * (%s)) : 0;", off, off);
		}
	}
	return st;
}

/* The value at the end of a path into _tv, as the type says. */
static void emit_final(Body *b, const TargetPath *tp, PState st, const char *err)
{
	Emitter *e = b->e;
	if (tp->addr_is_value)
		return;
	if (tp->addressof || tp->final == TP_FINAL_ADDR) {
		emit(e, "_tv = _ta;");
		return;
	}
	int bytes = (int)tp->size;
	if (tp->bit_size)
		bytes = (tp->bit_offset + tp->bit_size + 7) / 8;
	if (bytes > 8)
		bytes = 8;
	if (st == ST_ADDR)
		emit(e, "TAP_LOAD(%s, %s, _tv, _ta, %d, %s);", tp_reader(tp), tp_what(tp),
		     bytes, err);
	if (tp->bit_size) {
		if (tp->bit_offset)
			emit(e, "_tv >>= %d;", tp->bit_offset);
		if (tp->is_signed)
			emit(e, "_tv = TAP_SEXT(_tv, %d);", tp->bit_size);
		else if (tp->bit_size < 64)
			emit(e, "_tv &= 0x%llxULL;",
			     (unsigned long long)((1ULL << tp->bit_size) - 1));
	} else if (tp->size < 8) {
		if (tp->is_signed)
			emit(e, "_tv = TAP_SEXT(_tv, %d);", (int)tp->size * 8);
		else if (st == ST_VALUE)
			emit(e, "_tv &= 0x%llxULL;",
			     (unsigned long long)((1ULL << (8 * tp->size)) - 1));
	}
}

/* The error label of the code being written (marked used). */
static const char *err_label(Body *b)
{
	Label *l = vec_last(&b->errs);
	l->used = true;
	return l->name;
}

static Val ex_pretty(Body *b, Node *n);

static Val ex_tpath(Body *b, Node *n)
{
	Emitter *e = b->e;
	TargetPath *tp = n->tpath;
	if (n->deref)
		return ex_pretty(b, n);
	need_tpath_macros(e);
	Val base = val_num(0);
	if (tp->start == TP_POINTER && !pointer_base(b, n, &base))
		return val_num(0);
	Val *idx = path_indexes(b, &n->comps);
	const char *t = body_tmp_long(b);
	body_where(b, n->loc, n->kind == N_CAST ? "operator '@cast'" :
		       n->kind == N_ATVAR ? "operator '@var'" :
		       xsprintf("identifier '%s'", n->name ? n->name : "->"));
	const char *err = err_label(b);
	emit_open(e, "{");
	PState st = emit_path(b, tp, base, idx, err);
	emit_final(b, tp, st, err);
	emit(e, "%s = (int64_t)_tv;", t);
	emit_close(e, "}");
	return val_c(t, true);
}

static Val write_tpath(Body *b, Node *lhs, Val r)
{
	Emitter *e = b->e;
	TargetPath *tp = lhs->tpath;
	need_tpath_macros(e);
	Val base = val_num(0);
	if (tp->start == TP_POINTER && !pointer_base(b, lhs, &base))
		return val_num(0);
	Val *idx = path_indexes(b, &lhs->comps);
	body_where(b, lhs->loc, "operator '='");
	const char *err = err_label(b);
	emit_open(e, "{");
	PState st = emit_path(b, tp, base, idx, err);
	if (st == ST_ADDR) {
		emit(e, "u64 _w = (u64)(%s);", r.c);
		emit(e, "if (%s((void *)_ta, &_w, %d)) {",
		     tp->user ? "tap_write_user" : "tap_write_kernel", (int)tp->size);
		emit(e, "\ttap_error(c, \"%s write fault at 0x%%lx\", _ta);",
		     tp->user ? "user" : "kernel");
		emit(e, "\tgoto %s;", err);
		emit(e, "}");
	} else {
		/* in a register: the probed code sees the new value */
		const char *reg = tp->start == TP_RETURN ? arch_reg(arch_target()->ret_reg)
			: tp_dwarf_reg_name(tp->loc.reg);
		ASSERT(reg && (tp->start == TP_RETURN || tp->loc.kind == DI_LOC_REG));
		uint64_t mask = tp->size >= 8 ? ~0ULL : (1ULL << (8 * tp->size)) - 1;
		emit(e, "c->regs->%s = (c->regs->%s & ~0x%llxULL) | ((u64)(%s) & 0x%llxULL);",
		     reg, reg, (unsigned long long)mask, r.c, (unsigned long long)mask);
	}
	emit_close(e, "}");
	b->effects++;
	return r;
}

/* ---- pretty-printing: $var$, $var$$, @cast(...)$, $$vars$ ...
 *
 * The format is stap's: a struct prints as {.a=1, .b=0x..., .c={...}},
 * one level of members with '$' (nested structs "{...}", arrays "[...]")
 * and every level with '$$'; a pointer is %p, but at the top its target
 * is printed; char pointers and char arrays print as "string"; a char as
 * '%#c'; other integers %i or %u; an array its first element, then
 * ", ..."; a bitfield as a number.  At most 32 values; a read that faults
 * makes the whole string "ERROR". */

typedef struct Pretty {
	Emitter *e;
	bool full;              /* '$$' */
	bool user;              /* user-space memory */
	StrBuf code;            /* the printer function's statements */
	int nl, ns;             /* its long and string temporaries */
	Vec items;
	Vec args;               /* const char *: TAP_ARG_...(x) of each value */
} Pretty;

#define PRETTY_MAX_ARGS 32

/* A literal, joined to the one before it: one table entry, not many. */
static void pp_lit(Vec *items, const char *s)
{
	FmtDirective *last = items->len ? vec_last(items) : NULL;
	if (last && last->conv == FMT_LIT) {
		last->lit = xsprintf("%s%s", last->lit, s);
		last->lit_len = strlen(last->lit);
		return;
	}
	printf_lit(items, s);
}

static void pp_emit(Pretty *pp, const char *fmt, ...) PRINTF(2, 3);
static void pp_emit(Pretty *pp, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sb_putc(&pp->code, '\t');
	sb_vprintf(&pp->code, fmt, ap);
	sb_putc(&pp->code, '\n');
	va_end(ap);
}

static const DiType *pp_strip(const DiType *t)
{
	t = di_type_strip(t);
	if (t && t->kind == DI_TYPE_FWD && t->name) {
		const DiType *d = di_find_type(NULL, xsprintf("struct %s", t->name));
		if (d && di_type_strip(d)->kind != DI_TYPE_FWD)
			return di_type_strip(d);
	}
	return t;
}

static bool pp_is_char(const DiType *t)
{
	return t && t->kind == DI_TYPE_INT && t->size == 1 && t->name &&
	       strstr(t->name, "char");
}

/* A char or unsigned char: printed as a string when pointed to. */
static bool pp_is_string_char(const DiType *t)
{
	return t && t->kind == DI_TYPE_INT && t->name &&
	       (!strcmp(t->name, "char") || !strcmp(t->name, "unsigned char"));
}

/* An integer of `bytes` bytes at address `a`, or the value `v` (when a is
 * NULL), into a new long temporary. */
static const char *pp_int(Pretty *pp, const char *a, const char *v, int bytes,
			  bool is_signed)
{
	const char *t = xsprintf("n[%d]", pp->nl++);
	if (a)
		pp_emit(pp, "TAP_LOAD(%s, %s, %s, %s, %d, fail);",
			pp->user ? "tap_read_user" : "tap_read_kernel",
			pp->user ? "\"user\"" : "\"kernel\"", t, a, bytes);
	else
		pp_emit(pp, "%s = (int64_t)(%s);", t, v);
	if (bytes < 8) {
		if (is_signed)
			pp_emit(pp, "%s = (int64_t)TAP_SEXT(%s, %d);", t, t, bytes * 8);
		else
			pp_emit(pp, "%s &= 0x%llxLL;", t,
				(unsigned long long)((1ULL << (8 * bytes)) - 1));
	}
	return t;
}

/* The string at address expression `a` (at most n bytes; 0: any). */
static void pp_string(Pretty *pp, const char *a, uint64_t n)
{
	const char *s = xsprintf("s[%d]", pp->ns++);
	pp_emit(pp, "_tap_pp_string(%s, (unsigned long)(%s), %lld, %d);", s, a,
		(long long)(n ? n + 1 : 0), pp->user);
	pp_lit(&pp->items, "\"");
	printf_conv(&pp->items, FMT_STRING);
	pp_lit(&pp->items, "\"");
	vec_push(&pp->args, xsprintf("TAP_ARG_STR(%s)", s));
}

static void pp_conv(Pretty *pp, FmtConv conv, char letter, int flags, const char *c)
{
	FmtDirective *d = printf_conv(&pp->items, conv);
	d->letter = letter;
	d->flags = flags;
	vec_push(&pp->args, xsprintf("TAP_ARG_LONG(%s)", c));
}

static void pp_value(Pretty *pp, const DiType *t, const char *a, const char *v, bool top);

static void pp_base(Pretty *pp, const DiType *s, const char *a, const char *v)
{
	if (s->kind == DI_TYPE_FLOAT || !s->size || s->size > 8) {
		pp_lit(&pp->items, "?");
		return;
	}
	const char *x = pp_int(pp, a, v, (int)s->size, s->is_signed);
	if (pp_is_char(s)) {
		pp_lit(&pp->items, "'");
		pp_conv(pp, FMT_CHAR, 'c', FMT_ALT, x);
		pp_lit(&pp->items, "'");
	} else if (s->kind == DI_TYPE_INT && !s->is_signed) {
		pp_conv(pp, FMT_UNSIGNED, 'u', 0, x);
	} else {
		pp_conv(pp, FMT_SIGNED, 'i', 0, x);
	}
}

static void pp_members(Pretty *pp, const DiType *s, const char *a, int *count)
{
	for (int i = 0; i < s->members.len; i++) {
		const DiMember *m = vec_get(&s->members, i);
		const DiType *ms = pp_strip(m->type);
		if (++*count > 1)
			pp_lit(&pp->items, ", ");
		if (pp->args.len >= PRETTY_MAX_ARGS) {
			pp_lit(&pp->items, "...");
			return;
		}
		if (m->name)
			pp_lit(&pp->items, xsprintf(".%s", m->name));
		else if (ms && ms->kind == DI_TYPE_UNION)
			pp_lit(&pp->items, "<union>");
		else if (ms && ms->kind == DI_TYPE_STRUCT)
			pp_lit(&pp->items, "<class>");
		pp_lit(&pp->items, "=");
		uint64_t off = m->bit_offset / 8;
		const char *ma = off ? xsprintf("%s + %lluUL", a, (unsigned long long)off) : a;
		if (m->bit_size) {
			if (!ms || (ms->kind != DI_TYPE_INT && ms->kind != DI_TYPE_ENUM)) {
				pp_lit(&pp->items, "?");
				continue;
			}
			int shift = (int)(m->bit_offset % 8);
			int bytes = (shift + m->bit_size + 7) / 8;
			const char *x = pp_int(pp, ma, NULL, bytes > 8 ? 8 : bytes, false);
			if (shift)
				pp_emit(pp, "%s = (int64_t)((u64)%s >> %d);", x, x, shift);
			if (ms->is_signed)
				pp_emit(pp, "%s = (int64_t)TAP_SEXT(%s, %d);", x, x, m->bit_size);
			else if (m->bit_size < 64)
				pp_emit(pp, "%s &= 0x%llxLL;", x,
					(unsigned long long)((1ULL << m->bit_size) - 1));
			if (ms->is_signed)
				pp_conv(pp, FMT_SIGNED, 'i', 0, x);
			else
				pp_conv(pp, FMT_UNSIGNED, 'u', 0, x);
			continue;
		}
		pp_value(pp, m->type, ma, NULL, false);
	}
}

/* The value of type t at address a (in memory), or of value v. */
static void pp_value(Pretty *pp, const DiType *t, const char *a, const char *v, bool top)
{
	const DiType *s = pp_strip(t);
	if (!s) {
		pp_lit(&pp->items, "?");
		return;
	}
	switch (s->kind) {
	case DI_TYPE_INT:
	case DI_TYPE_ENUM:
	case DI_TYPE_FLOAT:
		pp_base(pp, s, a, v);
		return;
	case DI_TYPE_ARRAY: {
		if (!top && !pp->full) {
			pp_lit(&pp->items, "[...]");
			return;
		}
		const DiType *el = pp_strip(s->target);
		if (!a) {
			pp_lit(&pp->items, "?");
			return;
		}
		if (pp_is_string_char(el)) {
			pp_string(pp, a, s->count > 0 ? (uint64_t)s->count : 0);
			return;
		}
		pp_lit(&pp->items, "[");
		if (pp->args.len < PRETTY_MAX_ARGS)
			pp_value(pp, s->target, a, NULL, false);
		pp_lit(&pp->items, ", ...]");
		return;
	}
	case DI_TYPE_POINTER: {
		const DiType *to = pp_strip(s->target);
		const char *p = a ? pp_int(pp, a, NULL, 8, false) : v;
		if (to && to->kind != DI_TYPE_VOID) {
			if (pp_is_string_char(to)) {
				pp_string(pp, p, 0);
				return;
			}
			if (top) {
				const char *pa = xsprintf("n[%d]", pp->nl++);
				pp_emit(pp, "%s = (int64_t)(%s);", pa, p);
				pp_value(pp, s->target, xsprintf("(unsigned long)%s", pa), NULL, true);
				return;
			}
		}
		pp_conv(pp, FMT_POINTER, 'p', 0, p);
		return;
	}
	case DI_TYPE_FUNC:
		pp_lit(&pp->items, "<function>:");
		pp_conv(pp, FMT_POINTER, 'p', 0, a ? xsprintf("(int64_t)(%s)", a) : v);
		return;
	case DI_TYPE_STRUCT:
	case DI_TYPE_UNION: {
		pp_lit(&pp->items, "{");
		if (!a)
			pp_lit(&pp->items, "?");
		else if (top || pp->full) {
			int count = 0;
			pp_members(pp, s, a, &count);
		} else {
			pp_lit(&pp->items, "...");
		}
		pp_lit(&pp->items, "}");
		return;
	}
	case DI_TYPE_FWD:
		pp_lit(&pp->items, "{...}");
		return;
	default:
		pp_lit(&pp->items, "?");
		return;
	}
}

/* One printer function per type, depth, memory and whether the object
 * is in memory (addr) or a value: many probes print the same types. */
typedef struct PrinterFn {
	const DiType *type;
	bool full, user, in_memory;
	const char *name;
	int nl, ns, na;         /* the temporaries it takes */
} PrinterFn;

static Vec printer_fns;         /* PrinterFn * */
static Emitter *printer_fns_of;

static const PrinterFn *printer_fn(Emitter *e, const DiType *t, bool full, bool user,
				   bool in_memory)
{
	if (printer_fns_of != e) {
		printer_fns = (Vec){ 0 };
		printer_fns_of = e;
	}
	for (int i = 0; i < printer_fns.len; i++) {
		const PrinterFn *f = vec_get(&printer_fns, i);
		if (f->type == t && f->full == full && f->user == user &&
		    f->in_memory == in_memory)
			return f;
	}
	PrinterFn *f = NEW(PrinterFn);
	f->type = t;
	f->full = full;
	f->user = user;
	f->in_memory = in_memory;
	f->name = emit_fresh_name(e, "_tap_pp");
	Pretty pp = { .e = e, .full = full, .user = user };
	pp_value(&pp, t, in_memory ? "addr" : NULL, in_memory ? NULL : "value", true);
	if (!pp.items.len)
		pp_lit(&pp.items, "");
	const char *tab = printf_table(e, &pp.items);
	StrBuf *d = &e->decls;
	sb_printf(d, "/* pretty-print %s ('%s') */\n", di_type_text(t), full ? "$$" : "$");
	sb_printf(d, "static noinline int %s(struct tap_context *c, char *dst, unsigned long addr,\n"
		  "\t\tu64 value, int64_t *n, char (*s)[MAXSTRINGLEN], struct tap_arg *a)\n{\n",
		  f->name);
	sb_puts(d, "\t(void)addr; (void)value; (void)n; (void)s; (void)a;\n");
	sb_puts(d, sb_cstr(&pp.code));
	for (int i = 0; i < pp.args.len; i++)
		sb_printf(d, "\ta[%d] = (struct tap_arg)%s;\n", i,
			  (const char *)vec_get(&pp.args, i));
	sb_printf(d, "\ttap_format_spec(dst, MAXSTRINGLEN, %s, %d, %s, %d);\n", tab,
		  pp.items.len, pp.args.len ? "a" : "NULL", pp.args.len);
	sb_puts(d, "\treturn 0;\n");
	if (strstr(sb_cstr(&pp.code), "fail)"))
		sb_puts(d, "fail:\n\treturn -1;\n");
	sb_puts(d, "}\n");
	sb_free(&pp.code);
	f->nl = pp.nl;
	f->ns = pp.ns;
	f->na = pp.args.len;
	vec_push(&printer_fns, f);
	return f;
}

const char *tx_pretty_printer(Emitter *e, const DiType *t, bool full, bool user,
			      bool in_memory)
{
	return printer_fn(e, t, full, user, in_memory)->name;
}

/* The pretty string of one path into dst: a read that faults makes it
 * "ERROR". */
static void pretty_into(Body *b, Node *n, TargetPath *tp, bool full, Val base,
			const Val *idx, const char *dst)
{
	Emitter *e = b->e;
	(void)n;
	need_tpath_macros(e);
	Label *catch = body_label(b, "pp_error");
	Label *done = body_label(b, "pp_done");
	vec_push(&b->errs, catch);
	int nl = b->nlong, ns = b->nstr;
	const char *where_t = body_tmp_long(b);
	emit_open(e, "{");
	PState st = emit_path(b, tp, base, idx, catch->name);
	catch->used = true;
	emit(e, "%s = (int64_t)%s;", where_t, st == ST_ADDR ? "_ta" : "_tv");
	emit_close(e, "}");
	const PrinterFn *f = printer_fn(e, tp->type, full, tp->user, st == ST_ADDR);
	/* its temporaries are the frame's, after the ones in use */
	const char *n0 = "NULL", *s0 = "NULL";
	for (int i = 0; i < f->nl; i++) {
		const char *t = body_tmp_long(b);
		if (!i)
			n0 = xsprintf("&%s", t);
	}
	for (int i = 0; i < f->ns; i++) {
		const char *t = body_tmp_str(b);
		if (!i)
			s0 = xsprintf("&%s", t);
	}
	if (f->na > b->max_arg)
		b->max_arg = f->na;
	emit(e, "if (%s(c, %s, (unsigned long)%s, (u64)%s, %s, %s, %s))", f->name, dst,
	     where_t, where_t, n0, s0, f->na ? "l->a" : "NULL");
	emit(e, "\tgoto %s;", catch->name);
	vec_pop(&b->errs);
	b->nlong = nl;
	b->nstr = ns;
	emit(e, "%s", body_goto(done));
	body_put_label(e, catch);
	emit(e, "if (c->aborted || c->actions > c->action_limit)");
	emit(e, "\t%s", body_err_goto(b));
	emit(e, "tap_error_clear(c);");
	emit(e, "tap_str_assign(%s, \"ERROR\");", dst);
	body_put_label(e, done);
}

static Val ex_pretty(Body *b, Node *n)
{
	TargetPath *tp = n->tpath;
	Val base = val_num(0);
	if (tp->start == TP_POINTER && !pointer_base(b, n, &base))
		return val_num(0);
	Val *idx = path_indexes(b, &n->comps);
	const char *s = body_tmp_str(b);
	body_where(b, n->loc, xsprintf("identifier '%s'", n->name ? n->name : "$"));
	pretty_into(b, n, tp, n->deref && !strcmp(n->deref, "$$"), base, idx, s);
	return val_c(s, true);
}

/* $$vars, $$parms, $$locals, $$return and their '$'/'$$' forms. */
static Val ex_tpath_vars(Body *b, Node *n)
{
	Emitter *e = b->e;
	TargetPath *all = n->tpath;
	Vec items = { 0 }, nodes = { 0 }, vals = { 0 };
	body_where(b, n->loc, xsprintf("identifier '%s'", n->name));
	for (int i = 0; i < all->vars.len; i++) {
		TargetPath *tp = vec_get(&all->vars, i);
		const char *name = vec_get(&all->var_names, i);
		if (tp && tp->ctx_var) {
			/* as for plain $$parms: what the family cannot read is
			 * left out */
			const CtxVar *cv = b->ep && b->ep->rp
				? resolved_ctx_var(b->ep->rp, tp->ctx_var) : NULL;
			if (!cv || !family_ctx_expr(b->ep, cv, false))
				continue;
		}
		pp_lit(&items, xsprintf("%s%s=", items.len ? " " : "", name));
		if (!tp) {
			pp_lit(&items, "?");
			continue;
		}
		const DiType *s = pp_strip(tp->type);
		if (!n->deref && s && (s->kind == DI_TYPE_STRUCT || s->kind == DI_TYPE_UNION)) {
			pp_lit(&items, "{...}");
			continue;
		}
		if (!n->deref && s && s->kind == DI_TYPE_ARRAY) {
			pp_lit(&items, "[...]");
			continue;
		}
		Node *fake = node_new(N_NUMBER, n->loc);
		Val *v = NEW(Val);
		if (n->deref) {
			Val base = val_num(0);
			if (tp->ctx_var) {
				Node fake = *n;
				fake.name = tp->ctx_var;
				if (!pointer_base(b, &fake, &base))
					continue;
			}
			const char *str = body_tmp_str(b);
			pretty_into(b, n, tp, !strcmp(n->deref, "$$"), base, NULL, str);
			fake->type = TY_STRING;
			*v = val_c(str, true);
			printf_conv(&items, FMT_STRING);
		} else {
			need_tpath_macros(e);
			const char *t = body_tmp_long(b);
			const char *err = err_label(b);
			emit_open(e, "{");
			PState st = emit_path(b, tp, val_num(0), NULL, err);
			emit_final(b, tp, st, err);
			emit(e, "%s = (int64_t)_tv;", t);
			emit_close(e, "}");
			fake->type = TY_LONG;
			*v = val_c(t, true);
			FmtDirective *d = printf_conv(&items, FMT_HEX);
			d->flags = FMT_ALT;
		}
		vec_push(&nodes, fake);
		vec_push(&vals, v);
	}
	const char *s = body_tmp_str(b);
	if (!items.len) {
		emit(e, "%s[0] = '\\0';", s);
		return val_c(s, true);
	}
	Val *va = xalloc(sizeof(Val) * (vals.len ? vals.len : 1));
	for (int i = 0; i < vals.len; i++)
		va[i] = *(Val *)vec_get(&vals, i);
	printf_items(b, &items, (Node **)nodes.data, va, vals.len, s, n->loc);
	return val_c(s, true);
}
