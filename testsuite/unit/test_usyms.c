/* test_usyms.c - unit tests for what a module carries of a user object
 * (debuginfo/uobjects.c, emit/usyms.c): the unwind rows of an object
 * whose CFI is written out in assembly (so the rows are known exactly,
 * whatever gcc's code generation), its symbols one name per address,
 * and the --ldd closure of a program and two libraries, all built with
 * gcc at test time.
 */
#include "tapc.h"
#include "passes.h"
#include "debuginfo/debuginfo.h"
#include "emit/emit_priv.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

Session sess;  /* options.c is not linked here */

#include "check.h"

/* f1: push rbp; rbp as the CFA register; leave; ret.  f2: a stack frame
 * of 40 bytes through rsp.  f3 calls ext() through the PLT.  alias and
 * f2 are one address (alias is local, f2 global; f2 is named), as are
 * the data object fobj and f3 (the function is named); dvar is data. */
static const char obj_s[] =
	"	.text\n"
	"	.globl f1\n"
	"	.type f1, @function\n"
	"f1:\n"
	"	.cfi_startproc\n"
	"	pushq %rbp\n"                   /* 1 byte */
	"	.cfi_def_cfa_offset 16\n"
	"	.cfi_offset %rbp, -16\n"
	"	movq %rsp, %rbp\n"              /* 3 bytes */
	"	.cfi_def_cfa_register %rbp\n"
	"	nop\n"
	"	leave\n"
	"	.cfi_def_cfa %rsp, 8\n"
	"	ret\n"
	"	.cfi_endproc\n"
	"	.size f1, .-f1\n"
	"	.globl f2\n"
	"	.type f2, @function\n"
	"	.type alias, @function\n"
	"alias:\n"
	"f2:\n"
	"	.cfi_startproc\n"
	"	subq $40, %rsp\n"               /* 4 bytes */
	"	.cfi_def_cfa_offset 48\n"
	"	nop\n"
	"	addq $40, %rsp\n"
	"	.cfi_def_cfa_offset 8\n"
	"	ret\n"
	"	.cfi_endproc\n"
	"	.size f2, .-f2\n"
	"	.size alias, .-alias\n"
	"	.globl f3\n"
	"	.type f3, @function\n"
	"	.globl fobj\n"
	"	.type fobj, @object\n"
	"fobj:\n"
	"f3:\n"
	"	.cfi_startproc\n"
	"	jmp ext@PLT\n"
	"	.cfi_endproc\n"
	"	.size f3, .-f3\n"
	"	.size fobj, 1\n"
	"	.data\n"
	"	.globl dvar\n"
	"	.type dvar, @object\n"
	"dvar:\n"
	"	.quad 42\n"
	"	.size dvar, 8\n"
	"	.section .note.GNU-stack,\"\",@progbits\n";

static const char *dir;

static bool run(const char *cmd)
{
	int rc = system(cmd);
	return rc == 0;
}

static const UnwindRow *row_at(Vec *rows, uint64_t pc)
{
	const UnwindRow *found = NULL;
	for (int i = 0; i < rows->len; i++) {
		const UnwindRow *r = rows->data[i];
		if (r->pc <= pc)
			found = r;
	}
	return found;
}

static bool row_is(Vec *rows, uint64_t pc, int kind, int cfa_off, int rbp_off, int ra_off)
{
	const UnwindRow *r = row_at(rows, pc);
	if (!r || r->pc != pc || r->kind != kind || r->cfa_off != cfa_off ||
	    r->rbp_off != rbp_off || r->ra_off != ra_off) {
		fprintf(stderr, "row at 0x%llx: ", (unsigned long long)pc);
		if (r)
			fprintf(stderr, "pc 0x%llx kind %d cfa %d rbp %d ra %d\n",
				(unsigned long long)r->pc, r->kind, r->cfa_off,
				r->rbp_off, r->ra_off);
		else
			fprintf(stderr, "none\n");
		return false;
	}
	return true;
}

static void test_rows(void)
{
	const char *so = xsprintf("%s/libobj.so", dir);
	const ObjectFacts *f = object_facts(so);
	CHECK(f->readable);
	const ObjSym *f1 = object_symbol(f, "f1"), *f2 = object_symbol(f, "f2"),
		     *f3 = object_symbol(f, "f3");
	CHECK(f1 && f2 && f3);
	if (!f1 || !f2 || !f3)
		return;
	Vec rows = object_unwind_rows(so);
	uint64_t a = f1->addr;
	/* f1: entry, after the push, after the mov (rbp-based), after leave */
	CHECK(row_is(&rows, a, UNW_SP, 8, 0, -8));
	CHECK(row_is(&rows, a + 1, UNW_SP, 16, -16, -8));
	CHECK(row_is(&rows, a + 4, UNW_BP, 16, -16, -8));
	CHECK(row_is(&rows, a + 6, UNW_SP, 8, -16, -8));
	/* f2: entry, after the sub, after the add */
	uint64_t b = f2->addr;
	CHECK(row_is(&rows, b, UNW_SP, 8, 0, -8));
	CHECK(row_is(&rows, b + 4, UNW_SP, 48, 0, -8));
	CHECK(row_is(&rows, b + 9, UNW_SP, 8, 0, -8));
	/* f3 has the same rule as f2's last row: merged into it */
	const UnwindRow *r3 = row_at(&rows, f3->addr);
	CHECK(r3 && r3->kind == UNW_SP && r3->cfa_off == 8 && r3->pc < f3->addr);
	/* after the last FDE: no rule */
	const UnwindRow *end = row_at(&rows, f3->addr + f3->size);
	CHECK(end && end->kind == UNW_NONE && end->pc == f3->addr + f3->size);
	/* the PLT (ld's own CFI): its entries' expression rule */
	bool plt = false;
	for (int i = 0; i < rows.len; i++)
		plt |= ((UnwindRow *)rows.data[i])->kind == UNW_PLT;
	CHECK(plt);
	/* rows are sorted and no two neighbours have the same rule */
	for (int i = 1; i < rows.len; i++) {
		const UnwindRow *p = rows.data[i - 1], *q = rows.data[i];
		CHECK(p->pc < q->pc);
		CHECK(p->kind != q->kind || p->cfa_off != q->cfa_off ||
		      p->rbp_off != q->rbp_off || p->ra_off != q->ra_off);
	}

	/* one name per address: f2 (global) over alias (local), f3 (a
	 * function) over fobj (data); data objects are there too */
	Vec fns = usyms_symbols(f);
	int at_f2 = 0, at_f3 = 0, dvar = 0;
	for (int i = 0; i < fns.len; i++) {
		const ObjSym *s = fns.data[i];
		if (s->addr == f2->addr) {
			at_f2++;
			CHECK(!strcmp(s->name, "f2"));
		}
		if (s->addr == f3->addr) {
			at_f3++;
			CHECK(!strcmp(s->name, "f3"));
		}
		dvar += !strcmp(s->name, "dvar");
		if (i)
			CHECK(((const ObjSym *)fns.data[i - 1])->addr < s->addr);
	}
	CHECK(at_f2 == 1 && at_f3 == 1 && dvar == 1);

	/* not an ELF file: no rows */
	CHECK(object_unwind_rows(xsprintf("%s/obj.s", dir)).len == 0);
	CHECK(object_unwind_rows(xsprintf("%s/nonexistent", dir)).len == 0);
}

/* prog needs liba.so (found through its $ORIGIN run path), which needs
 * libb.so (found through liba's own run path): the closure is both, in
 * that order, and the interpreter and libc of a normal link. */
static void test_needed(void)
{
	const char *prog = xsprintf("%s/prog", dir);
	Vec libs = object_needed(prog);
	char *real = realpath(dir, NULL);
	const char *la = xsprintf("%s/sub/liba.so", real), *lb = xsprintf("%s/sub/libb.so", real);
	free(real);
	int ia = -1, ib = -1, libc = -1, ld = -1;
	for (int i = 0; i < libs.len; i++) {
		const char *l = libs.data[i];
		if (!strcmp(l, la))
			ia = i;
		else if (!strcmp(l, lb))
			ib = i;
		else if (strstr(l, "/libc.so.6"))
			libc = i;
		else if (strstr(l, "/ld-linux-x86-64.so.2"))
			ld = i;
		else
			fprintf(stderr, "unexpected library %s\n", l);
		CHECK(l[0] == '/');
		for (int j = 0; j < i; j++)
			CHECK(libs.data[j] != libs.data[i]);    /* each once */
	}
	CHECK(ia >= 0 && ib > ia && libc >= 0 && ld >= 0);
	CHECK(libs.len == 4);
	/* a file that is not there, or not ELF: nothing */
	CHECK(object_needed(xsprintf("%s/nonexistent", dir)).len == 0);
	CHECK(object_needed(xsprintf("%s/obj.s", dir)).len == 0);
}

int main(void)
{
	char tmpl[] = "/tmp/test_usyms.XXXXXX";
	dir = mkdtemp(tmpl);
	if (!dir)
		return 99;
	FILE *fp = fopen(xsprintf("%s/obj.s", dir), "w");
	if (!fp)
		return 99;
	fputs(obj_s, fp);
	fclose(fp);
	bool built = run(xsprintf(
		"cd '%s' && gcc -shared -nostdlib -o libobj.so obj.s && mkdir sub && "
		"echo 'int b(void) { return 2; }' >b.c && "
		"echo 'int b(void); int a(void) { return b(); }' >a.c && "
		"echo 'int a(void); int main(void) { return a() != 2; }' >p.c && "
		"gcc -shared -fPIC -o sub/libb.so b.c && "
		"gcc -shared -fPIC -o sub/liba.so a.c -Lsub -lb -Wl,-rpath,'$ORIGIN' && "
		"gcc -o prog p.c -Lsub -la -Wl,-rpath-link,sub -Wl,-rpath,'$ORIGIN/sub'",
		dir));
	if (!built) {
		fprintf(stderr, "test_usyms: cannot build the fixtures with gcc; skipped\n");
		run(xsprintf("rm -rf '%s'", dir));
		return 77;
	}
	test_rows();
	test_needed();
	run(xsprintf("rm -rf '%s'", dir));
	return failures ? 1 : 0;
}
