/* test_debuginfo.c - unit tests for translator/debuginfo/ (debuginfo.h):
 * what an ELF object holds (its functions and its .note.stapsdt markers,
 * read from this test program itself), and program paths.
 */
#include "tapc.h"
#include "debuginfo/debuginfo.h"
#include "families/process.h"
#include "arch/arch.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

/* A note "tapctest:NAME" at 0x401500 with argument text ARGS (labels
 * L..L+3). */
#define BAD_NOTE(L, NAME, ARGS) \
	".4byte " #L "1f-" #L "0f, " #L "3f-" #L "2f, 3\n" \
	#L "0: .asciz \"stapsdt\"\n" \
	#L "1: .balign 4\n" \
	#L "2: .8byte 0x401500, 0, 0\n" \
	".asciz \"tapctest\"\n" \
	".asciz \"" NAME "\"\n" \
	".asciz \"" ARGS "\"\n" \
	#L "3: .balign 4\n"

/* Two SDT markers as <sys/sdt.h> lays them out (pc, base, semaphore,
 * provider, name, arguments), with constant addresses so the test knows
 * them; the second has no arguments. */
__asm__(".pushsection .note.stapsdt,\"\",\"note\"\n"
	".balign 4\n"
	".4byte 2f-1f, 4f-3f, 3\n"
	"1: .asciz \"stapsdt\"\n"
	"2: .balign 4\n"
	"3: .8byte 0x401234, 0, 0x404010\n"
	".asciz \"tapctest\"\n"
	".asciz \"two_args\"\n"
	".asciz \"8@%rdi -4@%esi\"\n"
	"4: .balign 4\n"
	".4byte 6f-5f, 8f-7f, 3\n"
	"5: .asciz \"stapsdt\"\n"
	"6: .balign 4\n"
	"7: .8byte 0x401300, 0, 0\n"
	".asciz \"tapctest\"\n"
	".asciz \"no_args\"\n"
	".asciz \"\"\n"
	"8: .balign 4\n"
	/* every operand form the parser reads */
	".4byte 10f-9f, 12f-11f, 3\n"
	"9: .asciz \"stapsdt\"\n"
	"10: .balign 4\n"
	"11: .8byte 0x401400, 0, 0\n"
	".asciz \"tapctest\"\n"
	".asciz \"operands\"\n"
	".asciz \"-4@%esi 8@%rax 1@%ah -2@%r9w 1@%r15b 4@%r10d 8@-16(%rbp) "
	"8@8(%rax,%rbx,8) 4@(%rdx) -8@$-42 8@$0x10 -4@tapc_sdt_counter+4(%rip) "
	"2@(,%rcx,2) %rsp 8@tapc_sdt_counter(%rip) -1@%dil 8@$tapc_sdt_counter 8@-0x20(%r12,%r13) "
	"8f@%rax\"\n"
	"12: .balign 4\n"
	/* operands that do not parse, one note each */
	BAD_NOTE(20, "bad1", "8@%rax 4@nosuchsym(%rip)")
	BAD_NOTE(30, "bad2", "8@%xyz")
	BAD_NOTE(40, "bad3", "3@%rax")
	BAD_NOTE(50, "bad4", "8@8(%rip)")
	BAD_NOTE(60, "bad5", "8@(%rax,%rsp,2)")
	BAD_NOTE(70, "bad6", "8@-8(%rbp,%rax,3)")
	BAD_NOTE(80, "bad7", "8@%rax) 4@%ebx")
	BAD_NOTE(90, "bad8", "8@%fs:8")
	BAD_NOTE(91, "bad9", "4f@%xmm0")
	BAD_NOTE(92, "bad10", "-8f@%rax")
	/* a note of a file moved after linking (prelink): its base is
	 * 0x1000 below where .stapsdt.base is, so are its pc and semaphore */
	".4byte 14f-13f, 16f-15f, 3\n"
	"13: .asciz \"stapsdt\"\n"
	"14: .balign 4\n"
	"15: .8byte 0x401600, tapc_test_sdt_base - 0x1000, 0x404000\n"
	".asciz \"tapctest\"\n"
	".asciz \"moved\"\n"
	".asciz \"\"\n"
	"16: .balign 4\n"
	".popsection\n"
	".pushsection .stapsdt.base,\"a\",\"progbits\"\n"
	"tapc_test_sdt_base: .space 1\n"
	".popsection\n");

/* A data object an operand names. */
int tapc_sdt_counter[4] = { 1, 2, 3, 4 };

/* A function the symbol table must list. */
int tapc_debuginfo_probe_me(int x);
int tapc_debuginfo_probe_me(int x)
{
	return x + 1;
}

static const SdtNote *find_note(const ObjectFacts *f, const char *name)
{
	for (int i = 0; i < f->sdt.len; i++) {
		const SdtNote *s = f->sdt.data[i];
		if (!strcmp(s->provider, "tapctest") && !strcmp(s->name, name))
			return s;
	}
	return NULL;
}

static void test_object(void)
{
	const char *self = process_program(getpid());
	CHECK(self != NULL);
	if (!self)
		return;
	const ObjectFacts *f = object_facts(self);
	CHECK(f->readable);
	CHECK(namelist_has(&f->funcs, "tapc_debuginfo_probe_me"));
	CHECK(namelist_has(&f->funcs, "main"));
	CHECK(!namelist_has(&f->funcs, "no_such_function_here"));
	CHECK(object_facts(self) == f);         /* read once */

	const SdtNote *two = find_note(f, "two_args");
	CHECK(two != NULL);
	if (two) {
		CHECK(two->pc == 0x401234);
		CHECK(two->base == 0);
		CHECK(two->semaphore == 0x404010);
		CHECK(!strcmp(two->args, "8@%rdi -4@%esi"));
		CHECK(two->nargs == 2);
	}
	const SdtNote *moved = find_note(f, "moved");
	CHECK(moved != NULL);
	if (moved) {
		CHECK(moved->base > 0x1000);
		CHECK(moved->pc == 0x402600);
		CHECK(moved->semaphore == 0x405000);
	}
	const SdtNote *none = find_note(f, "no_args");
	CHECK(none != NULL);
	if (none) {
		CHECK(none->pc == 0x401300);
		CHECK(none->semaphore == 0);
		CHECK(!strcmp(none->args, ""));
		CHECK(none->nargs == 0);
	}

	/* addresses: the function's symbol, the symbol holding an address
	 * inside it, and the file offset its code is at (the test program
	 * is a PIE, so the code is read back through the offset) */
	const ObjSym *sym = object_symbol(f, "tapc_debuginfo_probe_me");
	CHECK(sym != NULL);
	if (sym) {
		CHECK(sym->func && sym->global && sym->size > 0);
		CHECK(object_symbol_at(f, sym->addr) == sym);
		CHECK(object_symbol_at(f, sym->addr + sym->size - 1) == sym);
		uint64_t off = 0;
		CHECK(object_file_offset(f, sym->addr, &off));
		FILE *fp = fopen(self, "rb");
		unsigned char file_bytes[8] = { 0 };
		CHECK(fp && fseek(fp, (long)off, SEEK_SET) == 0 &&
		      fread(file_bytes, 1, sizeof file_bytes, fp) == sizeof file_bytes);
		if (fp)
			fclose(fp);
		uint64_t bias = (uint64_t)(uintptr_t)&tapc_debuginfo_probe_me - sym->addr;
		CHECK(!f->pie || bias != 0 || sym->addr != 0);
		CHECK(!memcmp(file_bytes, (void *)(uintptr_t)(sym->addr + bias),
			      sizeof file_bytes));
	}
	CHECK(object_symbol(f, "no_such_function_here") == NULL);
	CHECK(f->segments.len >= 2);
	uint64_t off;
	CHECK(!object_file_offset(f, 0xffffffffffff0000ull, &off));
	for (int i = 1; i < f->syms.len; i++)
		CHECK(((ObjSym *)f->syms.data[i - 1])->addr <=
		      ((ObjSym *)f->syms.data[i])->addr);

	/* the PLT entry of getppid, a libc function this program calls:
	 * its stub (at the entry's address plus the load bias) jumps
	 * through a GOT slot (ff 25 disp32, rip-relative, after an
	 * endbr64 and bnd prefix with IBT) that holds getppid's address
	 * once the call was made (its address is taken through dlsym: an
	 * &getppid here would make the linker call through the GOT) */
	CHECK(getppid() > 0);
	const ObjSym *plt = NULL;
	for (int i = 0; i < f->plt_entries.len; i++)
		if (!strcmp(((ObjSym *)f->plt_entries.data[i])->name, "getppid"))
			plt = f->plt_entries.data[i];
	CHECK(plt != NULL && sym != NULL);
	if (plt && sym) {
		uint64_t bias = (uint64_t)(uintptr_t)&tapc_debuginfo_probe_me - sym->addr;
		const unsigned char *stub = (const unsigned char *)(uintptr_t)(plt->addr + bias);
		int at = -1;
		for (int i = 0; i < 8 && at < 0; i++)
			if (stub[i] == 0xff && stub[i + 1] == 0x25)
				at = i;
		CHECK(at >= 0);
		if (at >= 0) {
			int32_t disp;
			memcpy(&disp, stub + at + 2, 4);
			void *const *slot = (void *const *)(stub + at + 6 + disp);
			CHECK(*slot == dlsym(RTLD_DEFAULT, "getppid"));
		}
	}

	/* not an ELF file */
	const ObjectFacts *t = object_facts("/proc/self/status");
	CHECK(!t->readable);
	CHECK(t->sdt.len == 0);
}

static const SdtArg *arg(const SdtNote *s, int i)
{
	return s && i < s->argv.len ? s->argv.data[i] : NULL;
}

#define CHECK_REG(a, sz, sg, r, sh) \
	CHECK((a) && (a)->kind == SDT_ARG_REG && (a)->size == (sz) && \
	      (a)->is_signed == (sg) && (a)->reg == (r) && (a)->reg_shift == (sh))
#define CHECK_MEM(a, sz, sg, b, i, sc, v) \
	CHECK((a) && (a)->kind == SDT_ARG_MEM && (a)->size == (sz) && \
	      (a)->is_signed == (sg) && (a)->reg == (b) && (a)->index == (i) && \
	      (a)->scale == (sc) && (a)->value == (v))
#define CHECK_EXPR(a, text) \
	CHECK((a) && !strcmp(process_sdt_arg_expr((a), "regs"), (text)))

/* The operands of the notes: parsed (SdtArg), and their C. */
static void test_sdt_args(void)
{
	const ObjectFacts *f = object_facts(process_program(getpid()));
	const SdtNote *two = find_note(f, "two_args");
	CHECK(two && two->argv.len == 2 && !two->args_error);
	CHECK_REG(arg(two, 0), 8, false, 5, 0);                 /* 8@%rdi */
	CHECK_REG(arg(two, 1), 4, true, 4, 0);                  /* -4@%esi */
	CHECK(!strcmp(arg(two, 1)->text, "-4@%esi"));
	const SdtNote *none = find_note(f, "no_args");
	CHECK(none && none->argv.len == 0 && !none->args_error);

	const SdtNote *s = find_note(f, "operands");
	CHECK(s != NULL);
	if (!s)
		return;
	if (s->args_error)
		fprintf(stderr, "operands: %s\n", s->args_error);
	CHECK(!s->args_error && s->nargs == 19 && s->argv.len == 19);
	uint64_t counter = 0;
	for (int i = 0; i < f->syms.len; i++) {
		const ObjSym *o = f->syms.data[i];
		if (!strcmp(o->name, "tapc_sdt_counter"))
			counter = o->addr;
	}
	CHECK(counter != 0);
	CHECK_REG(arg(s, 0), 4, true, 4, 0);                    /* -4@%esi */
	CHECK_REG(arg(s, 1), 8, false, 0, 0);                   /* 8@%rax */
	CHECK_REG(arg(s, 2), 1, false, 0, 8);                   /* 1@%ah */
	CHECK_REG(arg(s, 3), 2, true, 9, 0);                    /* -2@%r9w */
	CHECK_REG(arg(s, 4), 1, false, 15, 0);                  /* 1@%r15b */
	CHECK_REG(arg(s, 5), 4, false, 10, 0);                  /* 4@%r10d */
	CHECK_MEM(arg(s, 6), 8, false, 6, -1, 1, -16);          /* 8@-16(%rbp) */
	CHECK_MEM(arg(s, 7), 8, false, 0, 3, 8, 8);             /* 8@8(%rax,%rbx,8) */
	CHECK_MEM(arg(s, 8), 4, false, 1, -1, 1, 0);            /* 4@(%rdx) */
	CHECK(arg(s, 9) && arg(s, 9)->kind == SDT_ARG_CONST && arg(s, 9)->value == -42 &&
	      arg(s, 9)->is_signed && arg(s, 9)->reg == -1);
	CHECK(arg(s, 10) && arg(s, 10)->kind == SDT_ARG_CONST && arg(s, 10)->value == 16);
	/* symbols: relative to the marker's pc (0x401400) */
	CHECK_MEM(arg(s, 11), 4, true, 16, -1, 1, (int64_t)(counter + 4 - 0x401400));
	CHECK(arg(s, 11) && !strcmp(arg(s, 11)->symbol, "tapc_sdt_counter"));
	CHECK_MEM(arg(s, 12), 2, false, -1, 2, 2, 0);           /* 2@(,%rcx,2) */
	CHECK_REG(arg(s, 13), 8, false, 7, 0);                  /* %rsp: no size */
	CHECK_MEM(arg(s, 14), 8, false, 16, -1, 1, (int64_t)(counter - 0x401400));
	CHECK_REG(arg(s, 15), 1, true, 5, 0);                   /* -1@%dil */
	CHECK(arg(s, 16) && arg(s, 16)->kind == SDT_ARG_CONST && arg(s, 16)->reg == 16 &&
	      arg(s, 16)->value == (int64_t)(counter - 0x401400));
	CHECK_MEM(arg(s, 17), 8, false, 12, 13, 1, -0x20);
	CHECK_REG(arg(s, 18), 8, false, 0, 0);                  /* 8f@%rax: the bits */

	/* their C */
	CHECK_EXPR(arg(s, 0), "((int64_t)(int32_t)(regs)->si)");
	CHECK_EXPR(arg(s, 1), "((int64_t)(regs)->ax)");
	CHECK_EXPR(arg(s, 2), "((int64_t)(uint8_t)((regs)->ax >> 8))");
	CHECK_EXPR(arg(s, 3), "((int64_t)(int16_t)(regs)->r9)");
	CHECK_EXPR(arg(s, 5), "((int64_t)(uint32_t)(regs)->r10)");
	CHECK_EXPR(arg(s, 6),
		   "({ uint64_t __tap_sdt_v = 0; unsigned long __tap_sdt_a = "
		   "(unsigned long)((regs)->bp + -0x10LL); "
		   "if (tap_read_user(&__tap_sdt_v, (const void __user *)__tap_sdt_a, 8)) { "
		   "__tap_sdt_v = 0; tap_error(c, \"user read fault at 0x%lx\", __tap_sdt_a); } "
		   "((int64_t)__tap_sdt_v); })");
	CHECK_EXPR(arg(s, 7),
		   "({ uint64_t __tap_sdt_v = 0; unsigned long __tap_sdt_a = "
		   "(unsigned long)((regs)->ax + (regs)->bx * 8 + 0x8LL); "
		   "if (tap_read_user(&__tap_sdt_v, (const void __user *)__tap_sdt_a, 8)) { "
		   "__tap_sdt_v = 0; tap_error(c, \"user read fault at 0x%lx\", __tap_sdt_a); } "
		   "((int64_t)__tap_sdt_v); })");
	CHECK_EXPR(arg(s, 8),
		   "({ uint64_t __tap_sdt_v = 0; unsigned long __tap_sdt_a = "
		   "(unsigned long)((regs)->dx); "
		   "if (tap_read_user(&__tap_sdt_v, (const void __user *)__tap_sdt_a, 4)) { "
		   "__tap_sdt_v = 0; tap_error(c, \"user read fault at 0x%lx\", __tap_sdt_a); } "
		   "((int64_t)(uint32_t)__tap_sdt_v); })");
	CHECK_EXPR(arg(s, 9), "((int64_t)-0x2aLL)");
	CHECK_EXPR(arg(s, 10), "((int64_t)0x10LL)");
	const char *rel = xsprintf("(regs)->ip + %s0x%llxLL", counter + 4 >= 0x401400 ? "" : "-",
				   (unsigned long long)(counter + 4 >= 0x401400
							? counter + 4 - 0x401400
							: 0x401400 - counter - 4));
	CHECK_EXPR(arg(s, 11), xsprintf(
		   "({ uint64_t __tap_sdt_v = 0; unsigned long __tap_sdt_a = "
		   "(unsigned long)(%s); "
		   "if (tap_read_user(&__tap_sdt_v, (const void __user *)__tap_sdt_a, 4)) { "
		   "__tap_sdt_v = 0; tap_error(c, \"user read fault at 0x%%lx\", __tap_sdt_a); } "
		   "((int64_t)(int32_t)__tap_sdt_v); })", rel));
	CHECK_EXPR(arg(s, 12),
		   "({ uint64_t __tap_sdt_v = 0; unsigned long __tap_sdt_a = "
		   "(unsigned long)((regs)->cx * 2); "
		   "if (tap_read_user(&__tap_sdt_v, (const void __user *)__tap_sdt_a, 2)) { "
		   "__tap_sdt_v = 0; tap_error(c, \"user read fault at 0x%lx\", __tap_sdt_a); } "
		   "((int64_t)(uint16_t)__tap_sdt_v); })");
	CHECK_EXPR(arg(s, 13), "((int64_t)(regs)->sp)");
	CHECK_EXPR(arg(s, 15), "((int64_t)(int8_t)(regs)->di)");
	CHECK(arg(s, 16) && strstr(process_sdt_arg_expr(arg(s, 16), "regs"), "((int64_t)((regs)->ip + "));
	CHECK_EXPR(arg(s, 17),
		   "({ uint64_t __tap_sdt_v = 0; unsigned long __tap_sdt_a = "
		   "(unsigned long)((regs)->r12 + (regs)->r13 + -0x20LL); "
		   "if (tap_read_user(&__tap_sdt_v, (const void __user *)__tap_sdt_a, 8)) { "
		   "__tap_sdt_v = 0; tap_error(c, \"user read fault at 0x%lx\", __tap_sdt_a); } "
		   "((int64_t)__tap_sdt_v); })");

	/* what does not parse is named, and no operand is given */
	static const struct { const char *name, *error; } bad[] = {
		{ "bad1", "operand 2 '4@nosuchsym(%rip)': its symbol 'nosuchsym' is not "
			  "in the file's symbol table" },
		{ "bad2", "operand 1 '8@%xyz': it names no general register" },
		{ "bad3", "operand 1 '3@%rax': its size is not 1, 2, 4 or 8 (negative: signed)" },
		{ "bad4", "operand 1 '8@8(%rip)': a %rip-relative operand without a symbol" },
		{ "bad5", "operand 1 '8@(%rax,%rsp,2)': its index is not a 64-bit general register" },
		{ "bad6", "operand 1 '8@-8(%rbp,%rax,3)': its scale is not 1, 2, 4 or 8" },
		{ "bad7", "operand 1 '8@%rax)': text follows the register" },
		{ "bad8", "operand 1 '8@%fs:8': it names no general register" },
		{ "bad9", "operand 1 '4f@%xmm0': it names no general register" },
		{ "bad10", "operand 1 '-8f@%rax': a floating-point size cannot be negative" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		const SdtNote *b = find_note(f, bad[i].name);
		CHECK(b && b->args_error && b->argv.len == 0);
		if (b && b->args_error && strcmp(b->args_error, bad[i].error)) {
			fprintf(stderr, "%s: %s\n", bad[i].name, b->args_error);
			CHECK(!strcmp(b->args_error, bad[i].error));
		}
	}
}

/* arm64's operand forms, as gcc prints them for aarch64 (arch/arm64.c):
 * the parser alone, the size prefix being elf.c's. */
static const char *arm64_operand(const char *text, int size, SdtArg *a)
{
	memset(a, 0, sizeof *a);
	a->text = text;
	a->size = size;
	a->reg = a->index = -1;
	return arch_arm64.sdt_parse_operand(text, a);
}

static void test_sdt_args_arm64(void)
{
	SdtArg buf, *a = &buf;
	CHECK(!arm64_operand("x1", 8, a));
	CHECK_REG(a, 8, false, 1, 0);
	CHECK(!arm64_operand("w30", 8, a));
	CHECK_REG(a, 4, false, 30, 0);
	CHECK(!arm64_operand("sp", 8, a));
	CHECK_REG(a, 8, false, 31, 0);
	CHECK(!arm64_operand("[sp, 12]", 4, a));
	CHECK_MEM(a, 4, false, 31, -1, 1, 12);
	CHECK(!arm64_operand("[x29, -8]", 8, a));
	CHECK_MEM(a, 8, false, 29, -1, 1, -8);
	CHECK(!arm64_operand("[x0]", 4, a));
	CHECK_MEM(a, 4, false, 0, -1, 1, 0);
	CHECK(!arm64_operand("[x21, #32]", 8, a));
	CHECK_MEM(a, 8, false, 21, -1, 1, 32);
	CHECK(!arm64_operand("42", 8, a));
	CHECK(a->kind == SDT_ARG_CONST && a->value == 42);
	CHECK(!arm64_operand("-7", 8, a));
	CHECK(a->kind == SDT_ARG_CONST && a->value == -7);
	CHECK(!arm64_operand("#0x10", 8, a));
	CHECK(a->kind == SDT_ARG_CONST && a->value == 16);
	CHECK(!arm64_operand("xzr", 8, a));
	CHECK(a->kind == SDT_ARG_CONST && a->value == 0);
	CHECK(arm64_operand("x31", 8, a) != NULL);
	CHECK(arm64_operand("x01", 8, a) != NULL);
	CHECK(arm64_operand("[w1]", 8, a) != NULL);
	CHECK(arm64_operand("[x1, #:lo12:.LANCHOR0]", 8, a) != NULL);
	CHECK(arm64_operand("[x1, 8", 8, a) != NULL);
	CHECK(arm64_operand("%rdi", 8, a) != NULL);

	/* their C, with arm64's pt_regs names */
	const Arch *host = arch_target();
	arch_set_target(&arch_arm64);
	arm64_operand("w2", 4, a);
	a->is_signed = true;
	CHECK_EXPR(a, "((int64_t)(int32_t)(regs)->regs[2])");
	arm64_operand("[x29, -8]", 8, a);
	CHECK_EXPR(a,
		   "({ uint64_t __tap_sdt_v = 0; unsigned long __tap_sdt_a = "
		   "(unsigned long)((regs)->regs[29] + -0x8LL); "
		   "if (tap_read_user(&__tap_sdt_v, (const void __user *)__tap_sdt_a, 8)) { "
		   "__tap_sdt_v = 0; tap_error(c, \"user read fault at 0x%lx\", __tap_sdt_a); } "
		   "((int64_t)__tap_sdt_v); })");
	arch_set_target(host);
}

static void test_programs(void)
{
	const char *self = process_program(getpid());
	CHECK(self && self[0] == '/');
	CHECK(program_path(self) == self);
	CHECK(program_path("/no/such/program") == NULL);
	CHECK(program_path("") == NULL);
	Vec m = programs_matching(self);
	CHECK(m.len == 1 && m.data[0] == self);
	m = programs_matching("/no/such/dir/*");
	CHECK(m.len == 0);
	CHECK(process_program(-1) == NULL);
}

int main(void)
{
	sess.color = 0;
	test_object();
	test_sdt_args();
	test_sdt_args_arm64();
	test_programs();
	if (failures)
		fprintf(stderr, "test_debuginfo: %d failures\n", failures);
	return failures ? 1 : 0;
}
