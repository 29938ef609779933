/* tracepoint.c - kernel.trace("system:event"): static tracepoints.
 *
 * The candidates and their TP_PROTO arguments (what a handler reads as
 * $prev, $next ...) come from debuginfo.h (kernel_tracepoints()).  With no
 * list of them, a plain name is accepted as written (needs_debuginfo) and
 * a wildcard cannot be expanded.
 */
#include "emit_glue.h"

#include <ctype.h>
#include <string.h>

/* ResolvedPoint.data for tracepoints: the TraceEvent (debuginfo.h). */

/* ---- the family ---- */

/* Why no tracepoint can be listed for the target (load_events found
 * neither headers nor tracefs). */
static const char *no_list_reason(void)
{
	const char *rel = target_release();
	const char *headers = sess.kernel_build_dir ? sess.kernel_build_dir
		: xsprintf("/lib/modules/%s/build", rel);
	if (!target_is_running_kernel())
		return xsprintf(_("no tracepoint list for kernel %s: no tracepoint "
				  "headers in %s"), rel, headers);
	const char *tfs = "/sys/kernel/tracing";
	const char *why = is_dir(tfs)
		? xsprintf(_("tracefs is not mounted at %s (mount -t tracefs nodev %s)"),
			   tfs, tfs)
		: xsprintf(_("no tracefs at %s"), tfs);
	return xsprintf(_("no tracepoint list for the running kernel %s: %s, and "
			  "no tracepoint headers in %s"), rel, why, headers);
}

static void add_vars(ResolvedPoint *rp, TraceEvent *e)
{
	rp->data = e;
	/* $$system and $$name: the parts of the tracepoint's name */
	rp_var(rp, "$system", TY_STRING, NULL)->scalar = true;
	rp_var(rp, "$name", TY_STRING, NULL)->scalar = true;
	if (!e->have_args) {
		rp->needs_debuginfo = true;
		return;
	}
	for (int i = 0; i < e->args.len; i++) {
		TraceArg *a = e->args.data[i];
		rp_var(rp, a->name, TY_LONG, a->ctype);
	}
}

static int resolve_trace(const ProbeFamily *fam, ProbePoint *pp, Vec *out)
{
	ProbePointComp *tc = pp_comp(pp, "trace");
	const char *pat = comp_str(tc);
	if (!*pat) {
		error_at(tc->loc, _("kernel.trace needs a tracepoint name"));
		return -1;
	}
	const char *colon = strchr(pat, ':');
	const char *sys_pat = colon ? xstrndup(pat, colon - pat) : "*";
	const char *ev_pat = colon ? colon + 1 : pat;
	if (!*ev_pat || !*sys_pat) {
		error_at(tc->loc, _("bad tracepoint name '%s' (expected \"system:event\" or \"event\")"),
			 pat);
		return -1;
	}
	const Vec *events = kernel_tracepoints();
	if (!events) {
		if (arg_has_glob(pat)) {
			if (pp_is_optional(pp) && !sess.listing)
				return 0;
			if (!pp_is_optional(pp)) {
				error_at(tc->loc, _("cannot expand '%s': %s"), pat,
					 no_list_reason());
				return -1;
			}
			family_cannot_list(tc->loc, pat, no_list_reason());
			return 0;
		}
		TraceEvent *e = NEW(TraceEvent);
		e->system = colon ? intern(sys_pat) : NULL;
		e->name = intern(ev_pat);
		ResolvedPoint *rp = rp_push(out, fam, pp);
		add_vars(rp, e);
		return 1;
	}
	int n = 0;
	int ti = 1;    /* kernel.trace(...) */
	for (int i = 0; i < events->len; i++) {
		TraceEvent *e = events->data[i];
		if (!arg_glob_match(sys_pat, e->system) || !arg_glob_match(ev_pat, e->name))
			continue;
		const char *full = xsprintf("%s:%s", e->system, e->name);
		ProbePoint *c = strcmp(full, pat) ? pp_with_str(pp, ti, full) : pp;
		ResolvedPoint *rp = rp_push(out, fam, c);
		add_vars(rp, e);
		n++;
	}
	if (!n && !arg_has_glob(pat) && family_near_wanted(pp)) {
		/* "did you mean": in the form the point was written in */
		for (int i = 0; i < events->len; i++) {
			TraceEvent *e = events->data[i];
			const char *full = xsprintf("%s:%s", e->system, e->name);
			family_near_miss(pp, ti, colon ? pat : ev_pat,
					 colon ? full : e->name, colon ? full : e->name);
		}
	}
	return n;
}

/* ---- pass 3 ----
 *
 * A callback per probe with the tracepoint's prototype, the struct that carries its
 * arguments to the body, and the table of runtime/families/tracepoint.c.
 *
 * The module does not include the tracepoint headers: many of them only
 * compile inside the kernel tree (they name private headers, enums and
 * typedefs).  The callback is declared from the TP_PROTO text pass 2 read
 * instead, with types of the same size and passing convention: any
 * pointer becomes `const void *`, integer typedefs the module may not
 * know become their C type (x86-64, LP64), enums `unsigned int`, and a
 * typedef tapc does not know `unsigned long` (right for pointers and
 * 64-bit values; a 32-bit value still arrives in the low half).
 */
/* Integer typedefs of the kernel, as the C types they stand for. */
static const struct {
	const char *name, *ctype;
} known_types[] = {
	{ "bool", "_Bool" }, { "_Bool", "_Bool" },
	{ "u8", "unsigned char" }, { "__u8", "unsigned char" },
	{ "uint8_t", "unsigned char" }, { "u_int8_t", "unsigned char" },
	{ "s8", "signed char" }, { "__s8", "signed char" }, { "int8_t", "signed char" },
	{ "u16", "unsigned short" }, { "__u16", "unsigned short" },
	{ "uint16_t", "unsigned short" }, { "__le16", "unsigned short" },
	{ "__be16", "unsigned short" }, { "__sum16", "unsigned short" },
	{ "umode_t", "unsigned short" },
	{ "s16", "short" }, { "__s16", "short" }, { "int16_t", "short" },
	{ "u32", "unsigned int" }, { "__u32", "unsigned int" },
	{ "uint32_t", "unsigned int" }, { "__le32", "unsigned int" },
	{ "__be32", "unsigned int" }, { "__wsum", "unsigned int" },
	{ "gfp_t", "unsigned int" }, { "dev_t", "unsigned int" },
	{ "fmode_t", "unsigned int" }, { "uid_t", "unsigned int" },
	{ "gid_t", "unsigned int" }, { "errseq_t", "unsigned int" },
	{ "blk_opf_t", "unsigned int" }, { "blk_status_t", "unsigned char" },
	{ "vm_fault_t", "unsigned int" }, { "slab_flags_t", "unsigned int" },
	{ "s32", "int" }, { "__s32", "int" }, { "int32_t", "int" },
	{ "pid_t", "int" }, { "clockid_t", "int" }, { "dma_cookie_t", "int" },
	{ "u64", "unsigned long long" }, { "__u64", "unsigned long long" },
	{ "uint64_t", "unsigned long long" }, { "__le64", "unsigned long long" },
	{ "__be64", "unsigned long long" }, { "sector_t", "unsigned long long" },
	{ "blkcnt_t", "unsigned long long" }, { "phys_addr_t", "unsigned long long" },
	{ "dma_addr_t", "unsigned long long" },
	{ "resource_size_t", "unsigned long long" },
	{ "s64", "long long" }, { "__s64", "long long" }, { "int64_t", "long long" },
	{ "loff_t", "long long" }, { "ktime_t", "long long" },
	{ "time64_t", "long long" },
	{ "size_t", "unsigned long" }, { "uintptr_t", "unsigned long" },
	{ "pgoff_t", "unsigned long" }, { "ino_t", "unsigned long" },
	{ "irq_hw_number_t", "unsigned long" }, { "cycles_t", "unsigned long long" },
	{ "ssize_t", "long" }, { "ptrdiff_t", "long" }, { "off_t", "long" },
	{ "intptr_t", "long" }, { "time_t", "long" },
	/* one-word structs: passed like the word they hold */
	{ "pte_t", "unsigned long" }, { "pmd_t", "unsigned long" },
	{ "pud_t", "unsigned long" }, { "p4d_t", "unsigned long" },
	{ "pgd_t", "unsigned long" }, { "pgprot_t", "unsigned long" },
	{ "kuid_t", "unsigned int" }, { "kgid_t", "unsigned int" },
};

/* Words of the C integer type names. */
static bool c_int_word(const char *w)
{
	static const char *const words[] = {
		"char", "short", "int", "long", "signed", "unsigned", NULL
	};
	for (int i = 0; words[i]; i++)
		if (!strcmp(w, words[i]))
			return true;
	return false;
}

/* ctype without qualifiers, blanks squeezed: "const unsigned  int" ->
 * "unsigned int". */
static const char *strip_qualifiers(const char *ctype)
{
	StrBuf sb = { 0 };
	const char *p = ctype;
	while (*p) {
		while (*p == ' ')
			p++;
		const char *w = p;
		while (*p && *p != ' ')
			p++;
		size_t n = p - w;
		if (!n || (n == 5 && !strncmp(w, "const", 5)) ||
		    (n == 8 && !strncmp(w, "volatile", 8)) ||
		    (n == 6 && !strncmp(w, "__user", 6)))
			continue;
		if (sb.len)
			sb_putc(&sb, ' ');
		sb_putn(&sb, w, n);
	}
	const char *r = xstrdup(sb_cstr(&sb));
	sb_free(&sb);
	return r;
}

/* The C type the callback declares an argument of type ctype with, or
 * NULL when tapc cannot pass it (a struct or union by value). */
static const char *abi_type(const char *ctype)
{
	if (strchr(ctype, '*'))
		return "const void *";
	const char *t = strip_qualifiers(ctype);
	if (!strncmp(t, "enum ", 5))
		return "unsigned int";
	if (!strncmp(t, "struct ", 7) || !strncmp(t, "union ", 6))
		return NULL;
	bool all_int_words = *t != 0;
	char *copy = xstrdup(t);
	for (char *w = strtok(copy, " "); w; w = strtok(NULL, " "))
		all_int_words &= c_int_word(w);
	if (all_int_words)
		return t;
	for (size_t i = 0; i < sizeof known_types / sizeof known_types[0]; i++)
		if (!strcmp(t, known_types[i].name))
			return known_types[i].ctype;
	return "unsigned long";
}

/* abi_type with the blank a declaration puts before the name. */
static const char *decl_type(const char *ctype)
{
	const char *t = abi_type(ctype);
	return t[strlen(t) - 1] == '*' ? t : xsprintf("%s ", t);
}

static const TraceEvent *event_of(const EmitProbe *ep)
{
	return ep->rp->data;
}

/* True when the callback declares the arguments (else it takes only the
 * data pointer and the body has no $variables). */
static bool declares_args(const TraceEvent *ev)
{
	return ev->have_args && !ev->odd_args && ev->args.len > 0;
}

static bool check_event(const EmitProbe *ep)
{
	const TraceEvent *ev = event_of(ep);
	for (int i = 0; declares_args(ev) && i < ev->args.len; i++) {
		TraceArg *a = vec_get(&ev->args, i);
		if (!abi_type(a->ctype)) {
			ProbePoint *up = ep->rp->point->from ? ep->rp->point->from
							     : ep->rp->point;
			error_at(up->loc, _("tracepoint '%s' passes '%s %s' by value, "
					    "which is not supported yet"),
				 ev->name, a->ctype, a->name);
			return false;
		}
	}
	return true;
}

static void emit_args_struct(Emitter *e, const EmitProbe *ep)
{
	const TraceEvent *ev = event_of(ep);
	if (!declares_args(ev))
		return;
	emit(e, "struct tap_tpargs_%d {", ep->index);
	for (int i = 0; i < ev->args.len; i++) {
		TraceArg *a = vec_get(&ev->args, i);
		emit(e, "\t%sa_%s;", decl_type(a->ctype), a->name);
	}
	emit(e, "};");
	emit_blank(e);
}

static void emit_callback(Emitter *e, const EmitProbe *ep)
{
	const TraceEvent *ev = event_of(ep);
	bool args = declares_args(ev);
	StrBuf params = { 0 }, init = { 0 };

	sb_puts(&params, "void *data");
	for (int i = 0; args && i < ev->args.len; i++) {
		TraceArg *a = vec_get(&ev->args, i);
		sb_printf(&params, ", %sp%d", decl_type(a->ctype), i);
		sb_printf(&init, "%sp%d", i ? ", " : "", i);
	}
	emit(e, "static void taptp_%d(%s)", ep->index, sb_cstr(&params));
	emit(e, "{");
	if (args)
		emit(e, "\tstruct tap_tpargs_%d a = { %s };", ep->index, sb_cstr(&init));
	emit(e, "\tstruct tap_context *c = tap_context_enter(%s, TAP_STATE_RUNNING);",
	     ep->pp);
	emit_blank(e);
	emit(e, "\tif (!c)");
	emit(e, "\t\treturn;");
	emit_context_fill(e, "NULL", "tracepoint", false);
	emit(e, "\t%s(c, %s);", ep->body_fn, args ? "&a" : "NULL");
	emit(e, "\ttap_context_exit(c);");
	emit(e, "}");
	emit_blank(e);
	sb_free(&params);
	sb_free(&init);
}

static bool emit_trace_decls(Emitter *e, EmitProbe **probes, int n)
{
	bool ok = true;
	for (int i = 0; i < n; i++)
		ok &= check_event(probes[i]);
	if (!ok)
		return false;
	emit(e, "#include \"runtime/families/tracepoint.c\"");
	emit_blank(e);
	for (int i = 0; i < n; i++)
		emit_args_struct(e, probes[i]);
	return true;
}

static bool emit_trace_code(Emitter *e, EmitProbe **probes, int n,
			    FamilyCode *out)
{
	for (int i = 0; i < n; i++)
		emit_callback(e, probes[i]);
	emit(e, "static struct _tap_tracepoint _tap_tracepoint_table[] = {");
	for (int i = 0; i < n; i++) {
		const EmitProbe *ep = probes[i];
		emit(e, "\t{ .pp = %s, .name = %s, .func = (void *)taptp_%d, .flags = %s },",
		     ep->pp, c_string(event_of(ep)->name), ep->index,
		     emit_point_flags(ep->rp));
	}
	emit(e, "};");
	emit_blank(e);
	emit(e, "static int _tap_trace_family_start(void)");
	emit(e, "{");
	emit(e, "\treturn _tap_tracepoints_register(_tap_tracepoint_table,");
	emit(e, "\t\t\t\t\t ARRAY_SIZE(_tap_tracepoint_table));");
	emit(e, "}");
	emit_blank(e);
	emit(e, "static void _tap_trace_family_stop(void)");
	emit(e, "{");
	emit(e, "\t_tap_tracepoints_unregister(_tap_tracepoint_table,");
	emit(e, "\t\t\t\t    ARRAY_SIZE(_tap_tracepoint_table));");
	emit(e, "}");
	emit_blank(e);
	out->start_fn = "_tap_trace_family_start";
	out->stop_fn = "_tap_trace_family_stop";
	return true;
}

static const char *trace_ctx_expr(const EmitProbe *ep, const CtxVar *v,
				  bool write)
{
	const TraceEvent *ev = event_of(ep);
	if (write || !declares_args(ev))
		return NULL;
	for (int i = 0; i < ev->args.len; i++) {
		TraceArg *a = vec_get(&ev->args, i);
		if (!strcmp(a->name, v->name))
			return xsprintf("TAP_ARG_I64(((struct tap_tpargs_%d *)pdata)->a_%s)",
					ep->index, a->name);
	}
	return NULL;
}

static const char *const trace_shapes[] = { "kernel.trace(s)", NULL };

const ProbeFamily family_tracepoint = {
	.name = "kernel.trace", .shapes = trace_shapes, .resolve = resolve_trace,
	.emit_decls = emit_trace_decls, .emit_code = emit_trace_code,
	.ctx_expr = trace_ctx_expr,
	.deferred_vars_are_ctx = true,
};
