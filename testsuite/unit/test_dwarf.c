/* test_dwarf.c - unit tests for the DWARF reader (kdebug.c, dwarf.c):
 * a small kernel-like build tree made at test time (a vmlinux and a
 * module built with gcc -g -O2 from the C text below), read through the
 * di_* calls of debuginfo.h.  Nothing here depends on the -dbg packages
 * installed on the machine.
 */
#include "tapc.h"
#include "passes.h"
#include "debuginfo/debuginfo.h"
#include "debuginfo/kreaders.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

/* The fixture kernel.  Line numbers matter: line_of() finds them. */
static const char kernel_c[] =
	"#include \"fx.h\"\n"
	"struct fx_flags {\n"
	"	unsigned int a : 3;\n"
	"	unsigned int b : 5;\n"
	"	int c;\n"
	"	long arr[3];\n"
	"};\n"
	"enum fx_color { FX_RED, FX_GREEN = 5, FX_BLUE = -1 };\n"
	"typedef struct fx_flags fx_flags_t;\n"
	"int fx_global = 7;\n"
	"fx_flags_t fx_gflags;\n"
	"volatile int fx_sink;\n"
	"static inline __attribute__((always_inline)) int fx_inl(int v)\n"
	"{\n"
	"	return v * 3 + fx_sink;\n"
	"}\n"
	"__attribute__((noinline)) int fx_callee(int x)\n"
	"{\n"
	"	fx_sink += fx_hdr(x);\n"
	"	return fx_sink;\n"
	"}\n"
	"__attribute__((noinline)) int fx_main(struct fx_flags *f, enum fx_color c)\n"
	"{\n"
	"	int total = f->a;\n"
	"	if (c == FX_GREEN) {\n"
	"		int blockvar = fx_callee(f->b);\n"
	"		total += blockvar * fx_sink;\n"
	"	}\n"
	"	if (total == 7)\n"
	"		goto out;\n"
	"	total += fx_inl(total);\n"
	"out:\n"
	"	total += fx_sink;\n"
	"\n"
	"	/* nothing here */\n"
	"	return total;\n"
	"}\n"
	"__attribute__((noinline)) int fx_ev(int a)\n"
	"{\n"
	"	fx_callee(1);\n"
	"	fx_sink = 3;\n"
	"	return fx_sink;\n"
	"}\n"
	"struct fx_pair { long lo; long hi; };\n"
	"__attribute__((noinline)) long fx_pieces(struct fx_pair p)\n"
	"{\n"
	"	fx_sink += p.lo;\n"
	"	return p.hi * fx_sink;\n"
	"}\n"
	"void fx_entry(void)\n"
	"{\n"
	"	struct fx_flags f = { 1, 2, 3, { 0 } };\n"
	"	fx_sink = fx_main(&f, FX_GREEN) + fx_gflags.c + fx_ev(2);\n"
	"	fx_sink += fx_pieces((struct fx_pair){ 1, 2 });\n"
	"	for (;;)\n"
	"		;\n"
	"}\n";

/* A header of the fixture kernel, with an inline function. */
static const char header_h[] =
	"extern volatile int fx_sink;\n"
	"static inline __attribute__((always_inline)) int fx_hdr(int v)\n"
	"{\n"
	"	return v ^ fx_sink;\n"
	"}\n";

/* A unit built without optimisation: a real prologue, variables on the
 * frame. */
static const char plain_c[] =
	"int fx_plain(int a, int b)\n"
	"{\n"
	"	int s = a + b;\n"
	"	return s * 2;\n"
	"}\n";

/* The fixture module (a relocatable object, as a .ko is), in DWARF 2:
 * members at DW_OP_plus_uconst, bitfields counted from the high bit. */
static const char module_c[] =
	"extern int printk(const char *, ...);\n"
	"struct fxm_state { int count; const char *name; };\n"
	"struct fxm_state fxm_state;\n"
	"struct fxm_bits { unsigned int a : 3; unsigned int b : 5; int c; };\n"
	"struct fxm_bits fxm_bits;\n"
	"int fxm_open(struct fxm_state *s, const char *name)\n"
	"{\n"
	"	s->count++;\n"
	"	s->name = name;\n"
	"	return printk(\"%s\", name);\n"
	"}\n";

static const char *tree;

static int line_of(const char *text, const char *needle)
{
	const char *p = strstr(text, needle);
	if (!p)
		return -1;
	int line = 1;
	for (const char *s = text; s < p; s++)
		line += *s == '\n';
	return line;
}

static bool run(const char *cmd)
{
	int rc = system(cmd);
	return rc != -1 && WIFEXITED(rc) && WEXITSTATUS(rc) == 0;
}

static bool make_tree(void)
{
	tree = make_temp_dir("tapc-test-dwarf");
	if (!tree)
		return false;
	write_file_atomic(xsprintf("%s/fx.c", tree), kernel_c, strlen(kernel_c));
	write_file_atomic(xsprintf("%s/fx-mod.c", tree), module_c, strlen(module_c));
	write_file_atomic(xsprintf("%s/fx0.c", tree), plain_c, strlen(plain_c));
	write_file_atomic(xsprintf("%s/fx.h", tree), header_h, strlen(header_h));
	make_dirs(xsprintf("%s/include/config", tree));
	const char *rel = "9.9.9-tapc-fixture\n";
	write_file_atomic(xsprintf("%s/include/config/kernel.release", tree), rel,
			  strlen(rel));
	return run(xsprintf("cd '%s' && gcc -g -O0 -fno-pie -fno-asynchronous-unwind-tables "
			    "-c fx0.c 2>/dev/null && "
			    "gcc -g -O2 -fno-pie -no-pie -static -nostdlib "
			    "-fno-asynchronous-unwind-tables -Wl,--build-id -Wl,-e,fx_entry "
			    "-o vmlinux fx.c fx0.o 2>/dev/null && "
			    "mkdir -p kernel/drivers && gcc -gdwarf-2 -gstrict-dwarf -O2 -c fx-mod.c "
			    "-o kernel/drivers/fx-mod.ko 2>/dev/null && "
			    "mkdir stripped && objcopy --strip-debug vmlinux stripped/vmlinux",
			    tree));
}

static const DiVariable *find_var(const Vec *v, const char *name)
{
	const DiVariable *found = NULL;
	for (int i = 0; i < v->len; i++) {
		const DiVariable *d = vec_get(v, i);
		if (d->name && !strcmp(d->name, name))
			found = d;   /* the last one: inner blocks shadow */
	}
	return found;
}

static void test_finding(void)
{
	CHECK(di_source(NULL) == DI_SRC_DWARF);
	const DiModule *m = di_module(NULL);
	CHECK(m && m->kind == DI_KERNEL);
	CHECK(m && !strcmp(m->debug_path, xsprintf("%s/vmlinux", tree)));
	CHECK(m && m->build_id && strlen(m->build_id) == 40);
	CHECK(di_why_no_dwarf(NULL) == NULL);
	CHECK(di_why_none(NULL) == NULL);
	/* '-' and '_' alike */
	CHECK(di_source("fx_mod") == DI_SRC_DWARF);
	CHECK(di_module("fx-mod") == di_module("fx_mod"));
	CHECK(di_module("fx_mod")->kind == DI_KMODULE);
	CHECK(!strcmp(di_module("fx_mod")->debug_path,
		      xsprintf("%s/kernel/drivers/fx-mod.ko", tree)));
}

static void test_functions(void)
{
	Vec v = di_functions(NULL, "fx_*", NULL, false);
	const char *names[] = { "fx_callee", "fx_entry", "fx_ev", "fx_main", "fx_pieces",
				"fx_plain" };
	CHECK(v.len == 6);
	for (int i = 0; i < v.len && i < 6; i++)
		CHECK(!strcmp(((DiFunction *)vec_get(&v, i))->name, names[i]));
	Vec exact = di_functions(NULL, "fx_main", NULL, false);
	CHECK(exact.len == 1);
	const DiFunction *f = exact.len ? vec_get(&exact, 0) : NULL;
	if (!f)
		return;
	CHECK(!f->inlined && f->external);
	CHECK(f->decl.file && !strcmp(f->decl.file, "fx.c"));
	CHECK(f->decl.line == line_of(kernel_c, "__attribute__((noinline)) int fx_main"));
	CHECK(f->low_pc == f->entry_pc && f->high_pc > f->low_pc);
	CHECK(f->ret && !strcmp(di_type_text(f->ret), "int"));
	CHECK(f->params.len == 2);
	CHECK(v.len == 6 && f == vec_get(&v, 3));    /* one DiFunction per function */

	/* file globs: the path and its last components */
	CHECK(di_functions(NULL, "fx_main", "fx.c", false).len == 1);
	CHECK(di_functions(NULL, "fx_main", "f?.c", false).len == 1);
	CHECK(di_functions(NULL, "fx_main", "other.c", false).len == 0);
	CHECK(di_functions(NULL, "no_such_*", NULL, true).len == 0);

	/* the inline function: only inlined instances, with want_inline */
	CHECK(di_functions(NULL, "fx_inl", NULL, false).len == 0);
	Vec inl = di_functions(NULL, "fx_inl", NULL, true);
	CHECK(inl.len >= 1);
	for (int i = 0; i < inl.len; i++) {
		const DiFunction *g = vec_get(&inl, i);
		CHECK(g->inlined);
		CHECK(g->entry_pc >= f->low_pc && g->entry_pc < f->high_pc);
		CHECK(g->decl.line == line_of(kernel_c, "static inline"));
		CHECK(di_probe_pc(g) == g->entry_pc);
		CHECK(di_function_at(NULL, g->entry_pc) == f);   /* where it is inlined */
		CHECK(g->params.len == 1 &&
		      !strcmp(((DiVariable *)vec_get(&g->params, 0))->name, "v"));
	}

	CHECK(di_function_at(NULL, f->entry_pc) == f);
	CHECK(di_function_at(NULL, f->high_pc - 1) == f);
	CHECK(di_function_at(NULL, 1) == NULL);
	/* optimised code: the probe goes on the entry, where the locations
	 * of the parameters are exact; with -P after the prologue, at the
	 * first line after the function's opening line */
	CHECK(di_probe_pc(f) == f->entry_pc);
	sess.prologue_searching = true;
	uint64_t pc = di_probe_pc(f);
	sess.prologue_searching = false;
	CHECK(pc >= f->entry_pc && pc < f->high_pc);
	Vec first = di_function_lines(f, line_of(kernel_c, "	int total = f->a;"),
				      line_of(kernel_c, "	int total = f->a;"));
	CHECK(first.len == 1 && ((DiLine *)vec_get(&first, 0))->pc == pc);

	/* parameters at the entry: the calling convention's registers */
	Vec at_entry = di_variables_at(f, f->entry_pc);
	const DiVariable *pf = find_var(&at_entry, "f"), *pcol = find_var(&at_entry, "c");
	CHECK(at_entry.len >= 3);
	CHECK(pf && pf->is_param && pf->loc.kind == DI_LOC_REG && pf->loc.reg == 5);
	CHECK(pcol && pcol->is_param && pcol->loc.kind == DI_LOC_REG && pcol->loc.reg == 4);
	CHECK(pf && !strcmp(di_type_text(pf->type), "struct fx_flags*"));
	CHECK(pcol && !strcmp(di_type_text(pcol->type), "enum fx_color"));
	CHECK(at_entry.len >= 1 && vec_get(&at_entry, 0) == pf);
	const DiVariable *total = find_var(&at_entry, "total");
	CHECK(total && !total->is_param && !strcmp(di_type_text(total->type), "int"));
	CHECK(find_var(&at_entry, "blockvar") == NULL);   /* not in its block */
}

/* Locations that are expressions: a parameter's value at the function's
 * entry (DW_OP_entry_value, its operand expression after it) and a
 * struct passed in two registers (pieces). */
static void test_expressions(void)
{
	Vec v = di_functions(NULL, "fx_ev", NULL, false);
	CHECK(v.len == 1);
	if (v.len == 1) {
		const DiFunction *f = vec_get(&v, 0);
		int line = line_of(kernel_c, "	fx_sink = 3;");
		Vec lines = di_function_lines(f, line, line);
		CHECK(lines.len == 1);
		Vec at_entry = di_variables_at(f, f->entry_pc);
		const DiVariable *a = find_var(&at_entry, "a");
		CHECK(a && a->loc.kind == DI_LOC_REG && a->loc.reg == 5);
		if (lines.len == 1) {
			Vec later = di_variables_at(f, ((DiLine *)vec_get(&lines, 0))->pc);
			a = find_var(&later, "a");
			CHECK(a && a->loc.kind == DI_LOC_EXPR && a->loc.expr_len == 3);
			if (a && a->loc.kind == DI_LOC_EXPR && a->loc.expr_len == 3) {
				CHECK(a->loc.expr[0].op == DW_OP_entry_value &&
				      a->loc.expr[0].n1 == 1);
				CHECK(a->loc.expr[1].op == DW_OP_reg5);
				CHECK(a->loc.expr[2].op == DW_OP_stack_value);
			}
		}
	}
	v = di_functions(NULL, "fx_pieces", NULL, false);
	CHECK(v.len == 1);
	if (v.len == 1) {
		const DiFunction *f = vec_get(&v, 0);
		Vec vars = di_variables_at(f, f->entry_pc);
		const DiVariable *p = find_var(&vars, "p");
		CHECK(p && !strcmp(di_type_text(p->type), "struct fx_pair"));
		CHECK(p && p->loc.kind == DI_LOC_EXPR && p->loc.expr_len == 4);
		if (p && p->loc.kind == DI_LOC_EXPR && p->loc.expr_len == 4) {
			CHECK(p->loc.expr[0].op == DW_OP_reg5);
			CHECK(p->loc.expr[1].op == DW_OP_piece && p->loc.expr[1].n1 == 8);
			CHECK(p->loc.expr[2].op == DW_OP_reg4);
			CHECK(p->loc.expr[3].op == DW_OP_piece && p->loc.expr[3].n1 == 8);
		}
	}
}

/* Code built without optimisation: the probe after the prologue, and
 * variables on the frame, at the frame base (DW_OP_call_frame_cfa, the
 * CFA from .debug_frame: rbp + 16 once the frame is set up). */
static void test_unoptimised(void)
{
	Vec v = di_functions(NULL, "fx_plain", NULL, false);
	CHECK(v.len == 1);
	if (v.len != 1)
		return;
	const DiFunction *f = vec_get(&v, 0);
	uint64_t pc = di_probe_pc(f);
	Vec body = di_function_lines(f, 3, 3);
	CHECK(body.len == 1 && ((DiLine *)vec_get(&body, 0))->pc == pc);
	CHECK(pc > f->entry_pc);
	Vec vars = di_variables_at(f, pc);
	CHECK(vars.len == 3);
	for (int i = 0; i < vars.len; i++) {
		const DiVariable *d = vec_get(&vars, i);
		CHECK(d->loc.kind == DI_LOC_MEM_REG && d->loc.reg == 6);
		CHECK(d->loc.offset < 0 && d->loc.offset > -64);
		CHECK(d->is_param == (i < 2));
	}
	DiLocation cfa;
	CHECK(di_cfa_at(f->module, pc, &cfa));
	CHECK(cfa.kind == DI_LOC_REG && cfa.reg == 6 && cfa.offset == 16);
}

static void test_blocks_lines_labels(void)
{
	Vec v = di_functions(NULL, "fx_main", NULL, false);
	if (v.len != 1)
		return;
	const DiFunction *f = vec_get(&v, 0);
	int bline = line_of(kernel_c, "int blockvar");
	int tline = line_of(kernel_c, "total += blockvar");
	Vec lines = di_function_lines(f, tline, tline);
	CHECK(lines.len == 1);
	if (lines.len == 1) {
		const DiLine *l = vec_get(&lines, 0);
		CHECK(l->src.line == tline && !strcmp(l->src.file, "fx.c"));
		CHECK(l->func == f);
		CHECK(l->pc >= f->low_pc && l->pc < f->high_pc);
		Vec in_block = di_variables_at(f, l->pc);
		const DiVariable *b = find_var(&in_block, "blockvar");
		CHECK(b && !b->is_param && b->decl.line == bline);
	}
	/* the function's lines: each once, in order, all inside it */
	Vec all = di_function_lines(f, 0, 1 << 30);
	CHECK(all.len >= 4);
	for (int i = 1; i < all.len; i++)
		CHECK(((DiLine *)vec_get(&all, i - 1))->src.line <
		      ((DiLine *)vec_get(&all, i))->src.line);

	/* source lines by file; a line without code and nearest */
	int cline = line_of(kernel_c, "	fx_sink += fx_hdr(x);");
	Vec sl = di_source_lines(NULL, "fx.c", cline, cline, false);
	CHECK(sl.len == 1);
	if (sl.len == 1) {
		const DiLine *l = vec_get(&sl, 0);
		CHECK(l->func && !strcmp(l->func->name, "fx_callee"));
	}
	int empty = line_of(kernel_c, "	/* nothing here */");
	CHECK(di_source_lines(NULL, "fx.c", empty, empty, false).len == 0);
	Vec near = di_source_lines(NULL, "*.c", empty, empty, true);
	CHECK(near.len == 1);
	if (near.len == 1)
		CHECK(((DiLine *)vec_get(&near, 0))->src.line ==
		      line_of(kernel_c, "	return total;"));
	CHECK(di_source_lines(NULL, "other.c", 1, 100, true).len == 0);
	/* a header's line: where the units that include it have its code */
	Vec hl = di_source_lines(NULL, "fx.h", 4, 4, false);
	CHECK(hl.len == 1);
	if (hl.len == 1) {
		const DiLine *l = vec_get(&hl, 0);
		CHECK(!strcmp(l->src.file, "fx.h") && l->src.line == 4);
		CHECK(l->func && !strcmp(l->func->name, "fx_callee"));
	}
	CHECK(di_source_lines(NULL, "fx.h", 4, 4, false).len == 1);
	/* a glob for both files: each file's lines, once each, in order */
	Vec both = di_source_lines(NULL, "fx.[ch]", 1, 1000, false);
	int in_h = 0, in_c = 0, prev = 0;
	const char *pfile = NULL;
	for (int i = 0; i < both.len; i++) {
		const DiLine *l = vec_get(&both, i);
		in_h += !strcmp(l->src.file, "fx.h");
		in_c += !strcmp(l->src.file, "fx.c");
		if (l->src.file == pfile)
			CHECK(l->src.line > prev);
		pfile = l->src.file;
		prev = l->src.line;
	}
	CHECK(in_h >= 1 && in_c >= 10 && in_h + in_c == both.len);
	/* a range that ends without code: its last lines stand for the next
	 * one with code; one that ends with code takes nothing more */
	int sink = line_of(kernel_c, "	total += fx_sink;");
	CHECK(di_source_lines(NULL, "fx.c", sink, empty, false).len == 1);
	Vec range = di_source_lines(NULL, "fx.c", sink, empty, true);
	CHECK(range.len == 2);
	if (range.len == 2) {
		CHECK(((DiLine *)vec_get(&range, 0))->src.line == sink);
		CHECK(((DiLine *)vec_get(&range, 1))->src.line ==
		      line_of(kernel_c, "	return total;"));
	}
	CHECK(di_source_lines(NULL, "fx.c", sink - 1, sink, true).len ==
	      di_source_lines(NULL, "fx.c", sink - 1, sink, false).len);

	/* labels */
	Vec labels = di_function_labels(f, "o*");
	CHECK(labels.len == 1);
	if (labels.len == 1) {
		const DiLabel *l = vec_get(&labels, 0);
		CHECK(!strcmp(l->name, "out") && l->func == f);
		CHECK(l->src.line == line_of(kernel_c, "out:"));
		CHECK(l->pc >= f->low_pc && l->pc < f->high_pc);
	}
	CHECK(di_function_labels(f, "nope").len == 0);

	/* call sites */
	Vec calls = di_function_callees(f, "*", 1);
	CHECK(calls.len == 1);
	if (calls.len == 1) {
		const DiCallSite *c = vec_get(&calls, 0);
		CHECK(c->caller == f && !strcmp(c->callee->name, "fx_callee"));
		CHECK(!c->callee->inlined && c->callee->entry_pc != 0);
		CHECK(c->pc > f->low_pc && c->pc <= f->high_pc);
	}
	Vec entry = di_functions(NULL, "fx_entry", NULL, false);
	if (entry.len == 1) {
		const DiFunction *e = vec_get(&entry, 0);
		CHECK(di_function_callees(e, "fx_callee", 1).len == 0);
		Vec deep = di_function_callees(e, "fx_callee", 2);
		CHECK(deep.len == 2);   /* from fx_main and from fx_ev */
		bool from_main = false, from_ev = false;
		for (int i = 0; i < deep.len; i++) {
			const DiCallSite *c = vec_get(&deep, i);
			from_main |= !strcmp(c->caller->name, "fx_main");
			from_ev |= !strcmp(c->caller->name, "fx_ev");
			CHECK(!strcmp(c->callee->name, "fx_callee"));
		}
		CHECK(from_main && from_ev);
		CHECK(di_function_callees(e, "fx_*", 1).len == 3);
	}

	/* the frame: at a function's first instruction the CFA is rsp + 8 */
	DiLocation cfa;
	CHECK(di_cfa_at(f->module, f->entry_pc, &cfa));
	CHECK(cfa.kind == DI_LOC_REG && cfa.reg == 7 && cfa.offset == 8);
}

static void test_types(void)
{
	const DiType *t = di_find_type(NULL, "struct fx_flags");
	CHECK(t && t->kind == DI_TYPE_STRUCT && t->size == 32);
	CHECK(t && t->members.len == 4);
	if (t && t->members.len == 4) {
		const DiMember *a = vec_get(&t->members, 0), *b = vec_get(&t->members, 1);
		const DiMember *c = vec_get(&t->members, 2), *arr = vec_get(&t->members, 3);
		CHECK(!strcmp(a->name, "a") && a->bit_offset == 0 && a->bit_size == 3);
		CHECK(!strcmp(b->name, "b") && b->bit_offset == 3 && b->bit_size == 5);
		CHECK(!strcmp(c->name, "c") && c->bit_offset == 32 && c->bit_size == 0);
		CHECK(!strcmp(arr->name, "arr") && arr->bit_offset == 64);
		CHECK(arr->type->kind == DI_TYPE_ARRAY && arr->type->count == 3 &&
		      arr->type->size == 24);
		CHECK(!strcmp(di_type_text(arr->type), "long int[]"));
		CHECK(!strcmp(di_type_text(a->type), "unsigned int"));
	}
	CHECK(di_find_type(NULL, "struct   fx_flags ") == t);

	const DiType *e = di_find_type(NULL, "enum fx_color");
	CHECK(e && e->kind == DI_TYPE_ENUM && e->size == 4 && e->is_signed);
	CHECK(e && e->enumerators.len == 3);
	if (e && e->enumerators.len == 3) {
		const DiEnumerator *r = vec_get(&e->enumerators, 0);
		const DiEnumerator *g = vec_get(&e->enumerators, 1);
		const DiEnumerator *bl = vec_get(&e->enumerators, 2);
		CHECK(!strcmp(r->name, "FX_RED") && r->value == 0);
		CHECK(!strcmp(g->name, "FX_GREEN") && g->value == 5);
		CHECK(!strcmp(bl->name, "FX_BLUE") && bl->value == -1);
	}

	const DiType *td = di_find_type(NULL, "fx_flags_t");
	CHECK(td && td->kind == DI_TYPE_TYPEDEF && !strcmp(di_type_text(td), "fx_flags_t"));
	CHECK(td && di_type_strip(td) == t);
	const DiType *i = di_find_type(NULL, "int");
	CHECK(i && i->kind == DI_TYPE_INT && i->size == 4 && i->is_signed);
	CHECK(di_find_type(NULL, "struct no_such") == NULL);
	CHECK(di_find_type(NULL, "fx_flags") == NULL);

	/* a module's type, found from the kernel's name space too */
	const DiType *ms = di_find_type("fx_mod", "struct fxm_state");
	CHECK(ms && ms->members.len == 2);
	if (ms && ms->members.len == 2) {
		const DiMember *n = vec_get(&ms->members, 1);
		CHECK(!strcmp(n->name, "name") && n->bit_offset == 64);
		CHECK(!strcmp(di_type_text(n->type), "char const*"));
	}
	CHECK(di_find_type(NULL, "struct fxm_state") == ms);

	/* texts of composed types */
	DiType ch = { .kind = DI_TYPE_INT, .name = "char", .size = 1 };
	DiType cc = { .kind = DI_TYPE_CONST, .target = &ch };
	DiType pcc = { .kind = DI_TYPE_POINTER, .target = &cc, .size = 8 };
	DiType ppcc = { .kind = DI_TYPE_POINTER, .target = &pcc, .size = 8 };
	DiType vp = { .kind = DI_TYPE_POINTER, .target = NULL, .size = 8 };
	DiType flex = { .kind = DI_TYPE_ARRAY, .target = &ch, .count = -1 };
	CHECK(!strcmp(di_type_text(&ppcc), "char const**"));
	CHECK(!strcmp(di_type_text(&vp), "void*"));
	CHECK(!strcmp(di_type_text(&flex), "char[]"));
	DiType cflex = { .kind = DI_TYPE_ARRAY, .target = &cc, .count = 9 };
	DiType ccflex = { .kind = DI_TYPE_CONST, .target = &cflex };
	CHECK(!strcmp(di_type_text(&ccflex), "char const[] const"));   /* __func__ */
	DiType argv = { .kind = DI_TYPE_ARRAY, .target = &pcc, .count = 2 };
	CHECK(!strcmp(di_type_text(&argv), "char const*[]"));
	DiType tag = { .kind = DI_TYPE_STRUCT, .name = "__va_list_tag", .size = 24 };
	DiType va = { .kind = DI_TYPE_POINTER, .target = &tag, .size = 8 };
	CHECK(!strcmp(di_type_text(&va), "va_list"));
	DiType fn = { .kind = DI_TYPE_FUNC, .target = &ch };
	vec_push(&fn.members, &pcc);
	vec_push(&fn.members, &vp);
	DiType pfn = { .kind = DI_TYPE_POINTER, .target = &fn, .size = 8 };
	CHECK(!strcmp(di_type_text(&pfn), "char (*) (char const*, void*)"));
}

static void test_globals(void)
{
	const DiVariable *g = di_find_global(NULL, "fx_global", NULL);
	CHECK(g && g->loc.kind == DI_LOC_ADDR && g->loc.addr != 0);
	CHECK(g && !strcmp(di_type_text(g->type), "int"));
	CHECK(di_find_global(NULL, "fx_global", "fx.c") == g || 
	      (di_find_global(NULL, "fx_global", "fx.c") &&
	       di_find_global(NULL, "fx_global", "fx.c")->loc.addr == g->loc.addr));
	CHECK(di_find_global(NULL, "fx_global", "other.c") == NULL);
	CHECK(di_find_global(NULL, "no_such_global", NULL) == NULL);
	const DiVariable *gf = di_find_global(NULL, "fx_gflags", NULL);
	CHECK(gf && !strcmp(di_type_text(gf->type), "fx_flags_t"));
}

static void test_module(void)
{
	Vec v = di_functions("fx-mod", "fxm_*", NULL, false);
	CHECK(v.len == 1);
	if (v.len != 1)
		return;
	const DiFunction *f = vec_get(&v, 0);
	CHECK(!strcmp(f->name, "fxm_open") && f->module == di_module("fx_mod"));
	CHECK(f->decl.line == 6 && !strcmp(f->decl.file, "fx-mod.c"));
	Vec vars = di_variables_at(f, f->entry_pc);
	CHECK(vars.len == 2);
	const DiVariable *s = find_var(&vars, "s"), *n = find_var(&vars, "name");
	CHECK(s && s->loc.kind == DI_LOC_REG && s->loc.reg == 5);
	CHECK(n && n->loc.kind == DI_LOC_REG && n->loc.reg == 4);
	CHECK(s && !strcmp(di_type_text(s->type), "struct fxm_state*"));
	CHECK(di_functions("fx_mod", "fx_main", NULL, false).len == 0);
	CHECK(di_function_at("fx_mod", f->entry_pc + 1) == f);
	CHECK(di_function_at("no_such_mod", f->entry_pc) == NULL);
	const DiType *bits = di_find_type("fx_mod", "struct fxm_bits");
	CHECK(bits && bits->size == 8 && bits->members.len == 3);
	if (bits && bits->members.len == 3) {
		const DiMember *a = vec_get(&bits->members, 0), *b = vec_get(&bits->members, 1);
		const DiMember *c = vec_get(&bits->members, 2);
		CHECK(a->bit_offset == 0 && a->bit_size == 3);
		CHECK(b->bit_offset == 3 && b->bit_size == 5);
		CHECK(c->bit_offset == 32 && c->bit_size == 0);
	}
	const DiVariable *g = di_find_global("fx_mod", "fxm_state", NULL);
	CHECK(g && g->loc.kind == DI_LOC_ADDR);
	/* an unknown module: no DWARF, and a message naming where */
	CHECK(di_source("no_such_mod") != DI_SRC_DWARF);
	const char *why = di_why_no_dwarf("no_such_mod");
	CHECK(why && strstr(why, "no_such_mod.ko"));
	CHECK(di_functions("no_such_mod", "*", "x.c", true).len == 0);
}

/* The index in the cache: written once, and a damaged one rebuilt. */
static void test_cache(void)
{
	const DiModule *m = di_module(NULL);
	if (!m || !m->build_id)
		return;
	const char *idx = xsprintf("%s/cache/tapc/debuginfo/%s.idx", tree, m->build_id);
	struct stat st;
	CHECK(stat(idx, &st) == 0 && st.st_size > 200);
	off_t full = st.st_size;
	const char *why = NULL;
	const char *vmlinux = xsprintf("%s/vmlinux", tree);

	/* truncated */
	CHECK(truncate(idx, full / 2) == 0);
	const DiModule *m2 = dwarf_open(NULL, vmlinux, &why);
	CHECK(m2 != NULL);
	if (m2) {
		CHECK(dwarf_functions(m2, "fx_*", NULL, false).len == 6);
		CHECK(stat(idx, &st) == 0 && st.st_size == full);
	}
	/* a changed byte in the header (the build-id) */
	FILE *fp = fopen(idx, "r+");
	if (fp) {
		fseek(fp, 24, SEEK_SET);
		fputc('!', fp);
		fclose(fp);
	}
	const DiModule *m3 = dwarf_open(NULL, vmlinux, &why);
	CHECK(m3 && dwarf_functions(m3, "fx_main", NULL, false).len == 1);
	/* an offset pointing past the end */
	fp = fopen(idx, "r+");
	if (fp) {
		fseek(fp, 8 + 8 + 80 + 16 + 48, SEEK_SET);   /* off_funcs */
		uint64_t bad = (uint64_t)full * 2;
		fwrite(&bad, sizeof bad, 1, fp);
		fclose(fp);
	}
	const DiModule *m4 = dwarf_open(NULL, vmlinux, &why);
	CHECK(m4 && dwarf_functions(m4, "fx_callee", NULL, false).len == 1);
	CHECK(stat(idx, &st) == 0 && st.st_size == full);
	/* not an ELF file */
	CHECK(dwarf_open(NULL, xsprintf("%s/fx.c", tree), &why) == NULL && why);
}

/* $SYSTEMTAP_DEBUGINFO_PATH is the whole search path: in a child, so the
 * findings of this process stay as they are. */
static void test_env_path(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		setenv("SYSTEMTAP_DEBUGINFO_PATH", "/nonexistent:/nonexistent2", 1);
		const char *why = di_why_no_dwarf(NULL);
		bool ok = di_source(NULL) != DI_SRC_DWARF && why &&
			  strstr(why, "/nonexistent/boot/vmlinux-9.9.9-tapc-fixture") &&
			  strstr(why, "/nonexistent2/vmlinux-9.9.9-tapc-fixture");
		_exit(ok ? 0 : 1);
	}
	int st = 0;
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	      WEXITSTATUS(st) == 0);
	/* a file without DWARF is passed over, and named when nothing has */
	pid = fork();
	if (pid == 0) {
		setenv("SYSTEMTAP_DEBUGINFO_PATH", xsprintf("%s/stripped", tree), 1);
		const char *why = di_why_no_dwarf(NULL);
		_exit(di_source(NULL) != DI_SRC_DWARF && why &&
		      strstr(why, xsprintf("%s/stripped/vmlinux: no DWARF", tree)) ? 0 : 1);
	}
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	      WEXITSTATUS(st) == 0);
	pid = fork();
	if (pid == 0) {
		setenv("SYSTEMTAP_DEBUGINFO_PATH", xsprintf("+:/nonexistent:%s/stripped:%s",
							    tree, tree), 1);
		_exit(di_source(NULL) == DI_SRC_DWARF && di_source("fx_mod") == DI_SRC_DWARF
		      ? 0 : 1);
	}
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	      WEXITSTATUS(st) == 0);
}

int main(void)
{
	if (!make_tree()) {
		fprintf(stderr, "test_dwarf: cannot build the fixture with gcc; skipped\n");
		if (tree)
			remove_tree(tree);
		return 77;
	}
	setenv("XDG_CACHE_HOME", xsprintf("%s/cache", tree), 1);
	unsetenv("SYSTEMTAP_DEBUGINFO_PATH");
	sess.kernel_build_dir = tree;
	CHECK(target_init());
	test_env_path();
	test_finding();
	test_functions();
	test_unoptimised();
	test_expressions();
	test_blocks_lines_labels();
	test_types();
	test_globals();
	test_module();
	test_cache();
	remove_tree(tree);
	return failures ? 1 : 0;
}
