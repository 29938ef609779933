/* test_usyms.c - unit tests for what a module carries of a user object
 * (debuginfo/uobjects.c, emit/usyms.c): the unwind rows of an object
 * whose CFI is written out in assembly (so the rows are known exactly,
 * whatever gcc's code generation), its symbols one name per address,
 * the --ldd closure of a program and two libraries, and the line rows
 * of a -g program (di_line_rows, for usymline & co) against binutils'
 * addr2line, all built with gcc at test time.
 */
#include "tapc.h"
#include "passes.h"
#include "debuginfo/debuginfo.h"
#include "emit/emit_priv.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

static bool row_is(Vec *rows, uint64_t pc, int kind, int cfa_off, int fp_off, int ra_off)
{
	const UnwindRow *r = row_at(rows, pc);
	if (!r || r->pc != pc || r->kind != kind || r->cfa_off != cfa_off ||
	    r->fp_off != fp_off || r->ra_off != ra_off) {
		fprintf(stderr, "row at 0x%llx: ", (unsigned long long)pc);
		if (r)
			fprintf(stderr, "pc 0x%llx kind %d cfa %d rbp %d ra %d\n",
				(unsigned long long)r->pc, r->kind, r->cfa_off,
				r->fp_off, r->ra_off);
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
		      p->fp_off != q->fp_off || p->ra_off != q->ra_off);
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

/* Every row of lprog (gcc -g -O0) against addr2line at its address;
 * rows by address, one per address, an end row last; main's entry has
 * its row (line 10, its "{", where gcc -O0 puts it); an object without
 * DWARF has none. */
static void test_lines(void)
{
	const char *prog = xsprintf("%s/lprog", dir);
	Vec rows = di_line_rows(prog, 0, 0);
	CHECK(rows.len > 4);
	if (rows.len < 2)
		return;
	CHECK(((DiLineRow *)vec_last(&rows))->line == 0);
	StrBuf cmd = { 0 };
	sb_printf(&cmd, "cd '%s' && addr2line -e lprog", dir);
	for (int i = 0; i < rows.len; i++) {
		DiLineRow *r = rows.data[i];
		if (i)
			CHECK(r->addr > ((DiLineRow *)rows.data[i - 1])->addr);
		if (r->line)
			sb_printf(&cmd, " 0x%llx", (unsigned long long)r->addr);
	}
	sb_puts(&cmd, " | sed 's/ (discriminator [0-9]*)$//' >a2l.out && "
		"nm lprog | sed -n 's/^0*\\([0-9a-f]*\\) T main$/\\1/p' >main.addr");
	CHECK(run(sb_cstr(&cmd)));
	FILE *fp = fopen(xsprintf("%s/a2l.out", dir), "r");
	CHECK(fp != NULL);
	if (!fp)
		return;
	char want[4096];
	int checked = 0;
	for (int i = 0; i < rows.len; i++) {
		DiLineRow *r = rows.data[i];
		if (!r->line)
			continue;
		if (!fgets(want, sizeof want, fp))
			break;
		want[strcspn(want, "\n")] = '\0';
		const char *got = xsprintf("%s:%d", r->file, r->line);
		if (strcmp(got, want))
			fprintf(stderr, "row 0x%llx: %s, addr2line says %s\n",
				(unsigned long long)r->addr, got, want);
		CHECK(!strcmp(got, want));
		checked++;
	}
	fclose(fp);
	CHECK(checked == rows.len - 1);
	unsigned long long main_addr = 0;
	fp = fopen(xsprintf("%s/main.addr", dir), "r");
	CHECK(fp && fscanf(fp, "%llx", &main_addr) == 1);
	if (fp)
		fclose(fp);
	bool found = false;
	for (int i = 0; i < rows.len; i++)
		found |= ((DiLineRow *)rows.data[i])->addr == main_addr &&
			 ((DiLineRow *)rows.data[i])->line == 10;
	CHECK(found);
	CHECK(di_line_rows(xsprintf("%s/sub/libb.so", dir), 0, 0).len == 0);
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
		"gcc -o prog p.c -Lsub -la -Wl,-rpath-link,sub -Wl,-rpath,'$ORIGIN/sub' && "
		"printf 'int sink;\\n\\nint twice(int x)\\n{\\n\\tsink = x;\\n"
		"\\treturn 2 * x;\\n}\\n\\nint main(void)\\n{\\n\\treturn twice(1) != 2;\\n}\\n' >l.c && "
		"gcc -g -O0 -o lprog l.c",
		dir));
	if (!built) {
		fprintf(stderr, "test_usyms: cannot build the fixtures with gcc; skipped\n");
		run(xsprintf("rm -rf '%s'", dir));
		return 77;
	}
	test_rows();
	test_needed();
	test_lines();
	run(xsprintf("rm -rf '%s'", dir));
	return failures ? 1 : 0;
}
