/* listing.c - what pass 2 prints: the -p2 program, -l/-L, and
 * --dump-functions / --dump-probe-aliases / --dump-globals. */
#include "elab.h"

#include <stdlib.h>
#include <string.h>

/* ---- -p2 output ---- */

static void print_var_type(FILE *out, Var *v)
{
	fprintf(out, "%s:%s", v->name, type_name(v->type));
	if (v->arity > 0) {
		fputs(" [", out);
		for (int i = 0; i < v->arity && i < 9; i++)
			fprintf(out, "%s%s", i ? ", " : "", type_name(v->key_types[i]));
		fputc(']', out);
	}
}

static void print_locals(FILE *out, Vec *locals)
{
	if (!locals->len)
		return;
	fputs("  # locals\n", out);
	for (int i = 0; i < locals->len; i++) {
		fputs("  ", out);
		print_var_type(out, vec_get(locals, i));
		fputc('\n', out);
	}
}

static void print_body(FILE *out, Node *body)
{
	if (!body) {
		fputs("{\n}\n", out);
		return;
	}
	print_node(out, body);
	fputc('\n', out);
}

static void print_signature(FILE *out, Func *f)
{
	fprintf(out, "%s:%s (", f->name, type_name(f->type));
	for (int i = 0; i < f->params.len; i++) {
		Var *v = vec_get(&f->params, i);
		fprintf(out, "%s%s:%s", i ? ", " : "", v->name, type_name(v->type));
	}
	fputc(')', out);
}

void print_program(FILE *out, Program *prog)
{
	if (prog->globals.len) {
		fputs("# global variables\n", out);
		for (int i = 0; i < prog->globals.len; i++) {
			print_var_type(out, vec_get(&prog->globals, i));
			fputc('\n', out);
		}
	}
	if (prog->funcs.len) {
		fputs("# functions\n", out);
		for (int i = 0; i < prog->funcs.len; i++) {
			Func *f = vec_get(&prog->funcs, i);
			print_signature(out, f);
			fputc('\n', out);
			print_locals(out, &f->locals);
			print_body(out, f->body);
		}
	}
	if (prog->probes.len) {
		fputs("# probes\n", out);
		for (int i = 0; i < prog->probes.len; i++) {
			Probe *p = vec_get(&prog->probes, i);
			ProbePoint *pp = vec_get(&p->points, 0);
			ProbePoint shown = *pp;
			shown.condition = NULL;
			shown.optional = shown.sufficient = false;
			fprintf(out, "%s", probe_point_text(&shown));
			if (pp->from) {
				ProbePoint from = *pp->from;
				from.condition = NULL;
				fprintf(out, " /* <- %s */", probe_point_text(&from));
			}
			fputc('\n', out);
			if (pp->condition) {
				fputs("  if (", out);
				print_node(out, pp->condition);
				fputs(")\n", out);
			}
			print_locals(out, &p->locals);
			print_body(out, p->body);
		}
	}
}

/* ---- -l / -L ---- */

static void print_sorted_unique(Vec *lines)
{
	if (lines->len)
		vec_sort(lines, cmp_cstr_ptr);
	for (int i = 0; i < lines->len; i++)
		if (!i || strcmp(vec_get(lines, i), vec_get(lines, i - 1)))
			printf("%s\n", (char *)vec_get(lines, i));
}

/* The " name:type" parts of a probe's -L line: an alias's variables, or
 * a plain point's context variables. */
static Vec probe_var_parts(Probe *p)
{
	Vec parts = { 0 };
	for (int i = 0; i < p->locals.len; i++) {
		Var *v = vec_get(&p->locals, i);
		if (v->name[0] == '_')
			continue;
		vec_push(&parts, (void *)xsprintf(" %s:%s", v->name, type_name(v->type)));
	}
	/* an alias names its variables; a plain point shows the context */
	ResolvedPoint *rp = p->from_alias ? NULL : p->rp;
	if (rp && rp->has_list_vars) {
		for (int i = 0; i < rp->list_vars.len; i++)
			vec_push(&parts, rp->list_vars.data[i]);
		return parts;
	}
	for (int i = 0; rp && i < rp->ctx_vars.len; i++) {
		CtxVar *cv = vec_get(&rp->ctx_vars, i);
		vec_push(&parts, (void *)xsprintf(" $%s:%s", cv->name,
						  cv->ctype ? cv->ctype : type_name(cv->type)));
	}
	return parts;
}

static const char *probe_vars_text(Probe *p)
{
	Vec parts = probe_var_parts(p);
	StrBuf sb = { 0 };
	for (int i = 0; i < parts.len; i++)
		sb_puts(&sb, parts.data[i]);
	const char *r = xstrdup(sb_cstr(&sb));
	sb_free(&sb);
	return r;
}

/* -l/-L entries by name, then in the order pass 2 made them. */
typedef struct ListEntry {
	Derived *dv;
	int order;
} ListEntry;

static int cmp_list_entry(const void *a, const void *b)
{
	const ListEntry *x = *(const ListEntry *const *)a;
	const ListEntry *y = *(const ListEntry *const *)b;
	int c = strcmp(x->dv->list_name, y->dv->list_name);
	return c ? c : x->order - y->order;
}

static bool has_part(const Vec *parts, const char *s)
{
	for (int i = 0; i < parts->len; i++)
		if (!strcmp(parts->data[i], s))
			return true;
	return false;
}

int list_probe_points(const char *pattern, bool with_vars)
{
	const char *text = xsprintf("probe %s {}\n", pattern);
	SrcFile *src = srcfile_new("<input>", text, strlen(text));
	Stapfile *f = parse_file(src, false);
	if (!f)
		return 1;
	for (int i = 0; i < f->probes.len; i++) {
		Probe *p = vec_get(&f->probes, i);
		for (int j = 0; j < p->points.len; j++)
			((ProbePoint *)vec_get(&p->points, j))->optional = true;
	}
	sess.unoptimized = true;
	Vec files = { 0 };
	vec_push(&files, f);
	init_program(&files);
	elab.listing = true;
	bind_pending();
	optimize_before_types();
	check_contexts();
	infer_types();
	/* One line per name: the probes of a name (the inlined instances of a
	 * function) list the variables all of them have. */
	Vec entries = { 0 };
	for (int i = 0; i < derived.len; i++) {
		Derived *dv = vec_get(&derived, i);
		if (dv->probe->from_tapset)
			continue;
		ListEntry *le = NEW(ListEntry);
		le->dv = dv;
		le->order = i;
		vec_push(&entries, le);
	}
	if (entries.len > 1)
		qsort(entries.data, entries.len, sizeof(void *), cmp_list_entry);
	Vec lines = { 0 };
	for (int i = 0; i < entries.len;) {
		Derived *first = ((ListEntry *)entries.data[i])->dv;
		Vec keep = with_vars ? probe_var_parts(first->probe) : (Vec){ 0 };
		int j = i + 1;
		for (; j < entries.len; j++) {
			Derived *dv = ((ListEntry *)entries.data[j])->dv;
			if (strcmp(dv->list_name, first->list_name))
				break;
			if (!with_vars)
				continue;
			Vec pv = probe_var_parts(dv->probe);
			int n = 0;
			for (int k = 0; k < keep.len; k++)
				if (has_part(&pv, keep.data[k]))
					keep.data[n++] = keep.data[k];
			keep.len = n;
		}
		StrBuf sb = { 0 };
		sb_puts(&sb, first->list_name);
		for (int k = 0; k < keep.len; k++)
			sb_puts(&sb, keep.data[k]);
		vec_push(&lines, (void *)xstrdup(sb_cstr(&sb)));
		sb_free(&sb);
		i = j;
	}
	print_sorted_unique(&lines);
	return error_count || !lines.len;
}

/* ---- --dump-functions and --dump-probe-aliases ---- */

static void load_every_tapset(void)
{
	memset(&elab, 0, sizeof elab);
	elab.prog = NEW(Program);
	elab.listing = true;
	sess.unoptimized = true;
	load_tapset_files(tapset_all_files());
	pending_probes.len = 0;   /* the library's own probes are not wanted */
}

/* The --dump-* lists: lines sorted, each printed once (an overloaded
 * function or an alias defined in two files is one line). */
static void print_sorted_once(FILE *out, Vec *lines)
{
	fflush(stdout);
	if (lines->len)
		vec_sort(lines, cmp_cstr_ptr);
	for (int i = 0; i < lines->len; i++)
		if (!i || strcmp(vec_get(lines, i), vec_get(lines, i - 1)))
			fprintf(out, "%s\n", (char *)vec_get(lines, i));
}

void dump_functions(FILE *out)
{
	load_every_tapset();
	for (int i = 0; i < func_pool.len; i++) {
		Func *f = vec_get(&func_pool, i);
		if (!f->is_private)
			queue_func(f);
	}
	bind_pending();
	infer_types();
	Vec lines = { 0 };
	for (int i = 0; i < func_pool.len; i++) {
		Func *f = vec_get(&func_pool, i);
		/* an unavailable function is declared only to say why it
		 * is not there: tapc does not have it */
		if (f->is_private || f->name[0] == '_' || f->unavailable)
			continue;
		char *buf = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&buf, &len);
		print_signature(m, f);
		fclose(m);
		vec_push(&lines, xstrdup(buf));
		free(buf);
	}
	print_sorted_once(out, &lines);
}

/* The public globals the tapsets declare, one name a line: what a script
 * may use without declaring it (argv, NULL, the MIB counters...). */
void dump_globals(FILE *out)
{
	load_every_tapset();
	Vec lines = { 0 };
	for (int i = 0; i < elab.prog->files.len; i++) {
		Stapfile *sf = vec_get(&elab.prog->files, i);
		for (int j = 0; sf->is_tapset && j < sf->globals.len; j++) {
			Var *v = vec_get(&sf->globals, j);
			if (!v->is_private && v->name[0] != '_')
				vec_push(&lines, (void *)v->name);
		}
	}
	print_sorted_once(out, &lines);
}

void dump_probe_aliases(FILE *out)
{
	load_every_tapset();
	/* each alias body on its own, with context variables left open */
	static ResolvedPoint open_rp = { .needs_debuginfo = true, .is_return = true };
	Vec probes = { 0 }, names = { 0 };
	for (int i = 0; i < alias_pool.len; i++) {
		Probe *a = vec_get(&alias_pool, i);
		if (a->is_private)
			continue;
		Probe *p = NEW(Probe);
		*p = *a;
		p->locals = (Vec){ 0 };
		p->body = copy_node(a->body);
		open_rp.point = vec_get(&a->alias_names, 0);
		p->rp = &open_rp;
		Scope *sc = new_scope(p, NULL);
		vec_push(&elab.scopes, sc);
		bind_scope(sc, p->body);
		vec_push(&probes, p);
	}
	bind_pending();
	infer_types();
	for (int i = 0; i < probes.len; i++) {
		Probe *p = vec_get(&probes, i);
		p->rp = NULL;
		for (int j = 0; j < p->alias_names.len; j++) {
			ProbePoint *an = vec_get(&p->alias_names, j);
			vec_push(&names, xsprintf("%s%s", probe_point_text(an),
						  probe_vars_text(p)));
		}
	}
	print_sorted_once(out, &names);
}
