/* test_udwarf.c - unit tests for user-space DWARF (kdebug.c, dwarf.c with
 * an absolute path as module): a small program built with gcc at test
 * time, unoptimised (a PIE) and optimised (with an inlined function),
 * a copy whose DWARF is in a separate file named by .gnu_debuglink, and
 * a copy with none, read through the di_* calls of debuginfo.h.
 */
#include "tapc.h"
#include "passes.h"
#include "debuginfo/debuginfo.h"

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "check.h"

/* Line numbers matter: line_of() finds them. */
static const char prog_c[] =
	"struct point {\n"
	"	int x, y;\n"
	"	struct point *next;\n"
	"};\n"
	"long total = 7;\n"
	"static inline int twice(int v) { return v + v; }\n"
	"int walk(struct point *p, int limit)\n"
	"{\n"
	"	int sum = 0;\n"
	"	while (p && limit-- > 0) {\n"
	"		int here = twice(p->x) + p->y;\n"
	"		sum += here;\n"
	"		p = p->next;\n"
	"	}\n"
	"out:\n"
	"	total += sum;\n"
	"	if (total < 0)\n"
	"		goto out;\n"
	"	return sum;\n"
	"}\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"	struct point b = { 3, 4, 0 }, a = { 1, 2, &b };\n"
	"	(void)argv;\n"
	"	return walk(&a, argc) > 100;\n"
	"}\n";

static const char *dir;

static int line_of(const char *needle)
{
	const char *p = strstr(prog_c, needle);
	int line = 1;
	for (const char *s = prog_c; p && s < p; s++)
		line += *s == '\n';
	return p ? line : -1;
}

static bool run(const char *cmd)
{
	int rc = system(cmd);
	return rc != -1 && WIFEXITED(rc) && WEXITSTATUS(rc) == 0;
}

static bool build(void)
{
	dir = make_temp_dir("tapc-test-udwarf");
	if (!dir)
		return false;
	write_file_atomic(xsprintf("%s/prog.c", dir), prog_c, strlen(prog_c));
	return run(xsprintf(
		"cd '%s' && gcc -g -O0 -fPIE -pie -o prog prog.c 2>/dev/null && "
		"gcc -g -O2 -o progopt prog.c 2>/dev/null && "
		"cp prog progsplit && objcopy --only-keep-debug progsplit progsplit.debug && "
		"objcopy --strip-debug progsplit && "
		"objcopy --add-gnu-debuglink=progsplit.debug progsplit && "
		"gcc -O0 -o prognone prog.c 2>/dev/null", dir));
}

static const DiFunction *func(const char *obj, const char *name, bool inl)
{
	Vec v = di_functions(obj, name, NULL, inl);
	for (int i = 0; i < v.len; i++) {
		const DiFunction *f = v.data[i];
		if (f->inlined == inl)
			return f;
	}
	return NULL;
}

static const DiVariable *var(const Vec *v, const char *name)
{
	const DiVariable *found = NULL;
	for (int i = 0; i < v->len; i++) {
		const DiVariable *d = vec_get(v, i);
		if (d->name && !strcmp(d->name, name))
			found = d;
	}
	return found;
}

static void test_program(void)
{
	const char *prog = xsprintf("%s/prog", dir);
	CHECK(di_source(prog) == DI_SRC_DWARF);
	const DiModule *m = di_module(prog);
	CHECK(m && m->kind == DI_USER && !strcmp(m->name, prog) &&
	      !strcmp(m->debug_path, prog));
	CHECK(m && m->build_id && !strcmp(m->build_id, object_facts(prog)->build_id));

	/* functions, named by the source file as libdw gives it */
	Vec all = di_functions(prog, "*", NULL, false);
	CHECK(all.len == 3);
	const DiFunction *walk = func(prog, "walk", false);
	CHECK(walk && walk->decl.line == line_of("int walk("));
	CHECK(walk && walk->decl.file && !strcmp(walk->decl.file, xsprintf("%s/prog.c", dir)));
	CHECK(di_functions(prog, "walk", "prog.c", false).len == 1);
	CHECK(di_functions(prog, "walk", "other.c", false).len == 0);

	/* the file address of its entry is its symbol's; unoptimised, the
	 * probe goes after the prologue, into the same function */
	const ObjSym *sym = object_symbol(object_facts(prog), "walk");
	CHECK(walk && sym && walk->entry_pc == sym->addr);
	uint64_t pc = walk ? di_probe_pc(walk) : 0;
	CHECK(walk && pc > walk->entry_pc && pc < walk->high_pc);

	/* the parameters and locals, in the frame (through the CFA of the
	 * object's CFI: rbp-relative after the prologue) */
	Vec vars = walk ? di_variables_at(walk, pc) : (Vec){ 0 };
	const DiVariable *p = var(&vars, "p"), *limit = var(&vars, "limit");
	CHECK(p && p->is_param && !strcmp(di_type_text(p->type), "struct point*"));
	CHECK(limit && !strcmp(di_type_text(limit->type), "int"));
	CHECK(p && p->loc.kind == DI_LOC_MEM_REG && p->loc.reg == 6);
	const DiVariable *sum = var(&vars, "sum");
	CHECK(sum && !sum->is_param && sum->block == 0);
	DiLocation cfa;
	CHECK(walk && di_cfa_at(m, walk->entry_pc, &cfa) && cfa.kind == DI_LOC_REG &&
	      cfa.reg == 7 && cfa.offset == 8);

	/* lines, an inner block's local, a label */
	int here_line = line_of("int here =");
	Vec lines = walk ? di_function_lines(walk, here_line, here_line) : (Vec){ 0 };
	CHECK(lines.len == 1);
	if (lines.len) {
		const DiLine *l = lines.data[0];
		Vec in = di_variables_at(walk, l->pc);
		const DiVariable *here = var(&in, "here");
		CHECK(here && here->block == 1);
	}
	Vec labels = walk ? di_function_labels(walk, "*") : (Vec){ 0 };
	CHECK(labels.len == 1 && !strcmp(((DiLabel *)labels.data[0])->name, "out") &&
	      ((DiLabel *)labels.data[0])->src.line == line_of("out:"));
	CHECK(di_source_lines(prog, "prog.c", here_line, here_line, false).len == 1);

	/* a global at its file address (a PIE: moved by the bias at run
	 * time), its type; a struct's members */
	const DiVariable *total = di_find_global(prog, "total", NULL);
	const ObjSym *tsym = NULL;
	const ObjectFacts *of = object_facts(prog);
	for (int i = 0; i < of->syms.len && !tsym; i++) {
		const ObjSym *s = of->syms.data[i];
		if (!strcmp(s->name, "total"))
			tsym = s;
	}
	CHECK(of->pie);
	CHECK(total && tsym && total->loc.kind == DI_LOC_ADDR && total->loc.addr == tsym->addr);
	const DiType *pt = di_find_type(prog, "struct point");
	CHECK(pt && pt->kind == DI_TYPE_STRUCT && pt->members.len == 3 && pt->size == 16);
	/* a user object's types are not the kernel's */
	CHECK(di_find_type(NULL, "struct point") == NULL);
}

static void test_optimised(void)
{
	const char *prog = xsprintf("%s/progopt", dir);
	CHECK(di_source(prog) == DI_SRC_DWARF);
	/* optimised: the probe is the entry, as stap's prologue search does */
	const DiFunction *walk = func(prog, "walk", false);
	CHECK(walk && di_probe_pc(walk) == walk->entry_pc);
	/* twice() is inlined into walk */
	const DiFunction *in = func(prog, "twice", true);
	CHECK(in && in->inlined && walk && in->entry_pc >= walk->low_pc &&
	      in->entry_pc < walk->high_pc);
	const DiFunction *outer = in ? di_function_at(prog, in->entry_pc) : NULL;
	CHECK(outer && !strcmp(outer->name, walk ? walk->name : ""));
}

static void test_separate(void)
{
	const char *prog = xsprintf("%s/progsplit", dir);
	CHECK(di_source(prog) == DI_SRC_DWARF);
	const DiModule *m = di_module(prog);
	CHECK(m && !strcmp(m->debug_path, xsprintf("%s/progsplit.debug", dir)));
	const DiFunction *walk = func(prog, "walk", false);
	CHECK(walk && walk->decl.line == line_of("int walk("));
	CHECK(walk && di_probe_pc(walk) > walk->entry_pc);

	const char *none = xsprintf("%s/prognone", dir);
	CHECK(di_source(none) == DI_SRC_NONE);
	const char *why = di_why_no_dwarf(none);
	CHECK(why && strstr(why, "no DWARF debug information for") && strstr(why, none));
	CHECK(di_functions(none, "*", NULL, false).len == 0);
}

int main(void)
{
	if (!build()) {
		fprintf(stderr, "test_udwarf: cannot build the programs with gcc; skipped\n");
		if (dir)
			remove_tree(dir);
		return 77;
	}
	setenv("XDG_CACHE_HOME", xsprintf("%s/cache", dir), 1);
	test_program();
	test_optimised();
	test_separate();
	remove_tree(dir);
	return failures ? 1 : 0;
}
