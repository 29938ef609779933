/* x86_64.c - the x86-64 target: registers as struct pt_regs and DWARF
 * (the psABI's numbering) name them, the SysV calling convention, and SDT
 * operands in AT&T syntax as gcc prints "%n[...]".  The syscall entry
 * points (__x64_sys_*, __ia32_*) live in tapsets/x86_64/, the module's
 * register and unwinder code in runtime/arch/x86_64.h.
 */
#include "tapc.h"
#include "arch/arch.h"
#include "debuginfo/debuginfo.h"

#include <elf.h>
#include <string.h>

static const char *const spellings[] = { "x86_64", "x86-64", "amd64", NULL };

/* struct pt_regs members by DWARF register number; 16 is the return
 * address column, which is ip at a probe. */
static const char *const regs[] = {
	"ax", "dx", "cx", "bx", "si", "di", "bp", "sp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "ip",
};

/* SysV: the first six integer-class arguments (rdi rsi rdx rcx r8 r9). */
static const int arg_regs[] = { 5, 4, 1, 2, 8, 9 };

/* ---- SDT operands ---- */

/* The general registers by every name of a part of them: DWARF number,
 * the part's width in bytes and its bit offset in the register. */
static const struct SdtReg {
	const char *name;
	signed char dwarf, width, shift;
} sdt_regs[] = {
	{ "rax", 0, 8, 0 }, { "eax", 0, 4, 0 }, { "ax", 0, 2, 0 }, { "al", 0, 1, 0 }, { "ah", 0, 1, 8 },
	{ "rdx", 1, 8, 0 }, { "edx", 1, 4, 0 }, { "dx", 1, 2, 0 }, { "dl", 1, 1, 0 }, { "dh", 1, 1, 8 },
	{ "rcx", 2, 8, 0 }, { "ecx", 2, 4, 0 }, { "cx", 2, 2, 0 }, { "cl", 2, 1, 0 }, { "ch", 2, 1, 8 },
	{ "rbx", 3, 8, 0 }, { "ebx", 3, 4, 0 }, { "bx", 3, 2, 0 }, { "bl", 3, 1, 0 }, { "bh", 3, 1, 8 },
	{ "rsi", 4, 8, 0 }, { "esi", 4, 4, 0 }, { "si", 4, 2, 0 }, { "sil", 4, 1, 0 },
	{ "rdi", 5, 8, 0 }, { "edi", 5, 4, 0 }, { "di", 5, 2, 0 }, { "dil", 5, 1, 0 },
	{ "rbp", 6, 8, 0 }, { "ebp", 6, 4, 0 }, { "bp", 6, 2, 0 }, { "bpl", 6, 1, 0 },
	{ "rsp", 7, 8, 0 }, { "esp", 7, 4, 0 }, { "sp", 7, 2, 0 }, { "spl", 7, 1, 0 },
	{ "rip", 16, 8, 0 },
};

/* r8..r15 with their d, w and b parts ("r9d"), else the table above. */
static const struct SdtReg *sdt_reg(const char *name, size_t len, struct SdtReg *num)
{
	if (len >= 2 && len <= 4 && name[0] == 'r' && name[1] >= '0' && name[1] <= '9') {
		size_t i = 1;
		int n = 0;
		while (i < len && name[i] >= '0' && name[i] <= '9' && n < 100)
			n = n * 10 + (name[i++] - '0');
		int width = i == len ? 8 : len - i != 1 ? 0 :
			    name[i] == 'd' ? 4 : name[i] == 'w' ? 2 : name[i] == 'b' ? 1 : 0;
		if (n < 8 || n > 15 || !width || (name[1] == '0') || i > 3)
			return NULL;
		num->name = NULL;
		num->dwarf = (signed char)n;
		num->width = (signed char)width;
		num->shift = 0;
		return num;
	}
	for (size_t i = 0; i < sizeof sdt_regs / sizeof sdt_regs[0]; i++)
		if (strlen(sdt_regs[i].name) == len && !memcmp(sdt_regs[i].name, name, len))
			return &sdt_regs[i];
	return NULL;
}

/* A register "%name" at *p: its entry, *p moved past it. */
static const struct SdtReg *sdt_reg_at(const char **p, struct SdtReg *num)
{
	const char *s = *p;
	if (*s != '%')
		return NULL;
	size_t n = 0;
	while ((s[1 + n] >= 'a' && s[1 + n] <= 'z') || (s[1 + n] >= '0' && s[1 + n] <= '9'))
		n++;
	const struct SdtReg *r = sdt_reg(s + 1, n, num);
	if (r)
		*p = s + 1 + n;
	return r;
}

/* A displacement: a number, or a symbol with an optional +N / -N. */
static bool sdt_disp_at(const char **p, SdtArg *a)
{
	const char *s = *p;
	a->symbol = arch_sdt_symbol_at(&s);
	if (a->symbol && (*s == '+' || *s == '-')) {
		if (!arch_sdt_number_at(&s, &a->value))
			return false;
	} else if (!a->symbol && !arch_sdt_number_at(&s, &a->value)) {
		return false;
	}
	*p = s;
	return true;
}

/* The operand after "N@" (a->size is N's): a register (%rdi, %eax, %r9d),
 * an immediate ($N, $sym, $sym+N) or memory ([disp](base[,index[,scale]]),
 * (,index,scale), disp). */
static const char *parse_operand(const char *s, SdtArg *a)
{
	struct SdtReg num;
	if (*s == '%') {                /* a register */
		const struct SdtReg *r = sdt_reg_at(&s, &num);
		if (!r || r->dwarf == 16)
			return _("it names no general register");
		if (*s)
			return _("text follows the register");
		a->kind = SDT_ARG_REG;
		a->reg = r->dwarf;
		a->reg_shift = r->shift;
		if (r->width < a->size)
			a->size = r->width;
		return NULL;
	}
	if (*s == '$') {                /* an immediate: $N, $sym, $sym+N */
		s++;
		a->kind = SDT_ARG_CONST;
		if (!arch_sdt_number_at(&s, &a->value) && !sdt_disp_at(&s, a))
			return _("its constant is not a number or symbol");
		if (*s)
			return _("text follows the constant");
		return NULL;
	}
	/* memory: [disp](base[,index[,scale]]), (,index,scale), disp */
	a->kind = SDT_ARG_MEM;
	a->scale = 1;
	if (*s != '(' && !sdt_disp_at(&s, a))
		return _("it is not a register, constant or memory operand");
	if (*s == '(') {
		s++;
		if (*s != ',') {
			const struct SdtReg *r = sdt_reg_at(&s, &num);
			if (!r || r->width != 8)
				return _("its base is not a 64-bit register");
			a->reg = r->dwarf;
		}
		if (*s == ',') {
			s++;
			const struct SdtReg *r = sdt_reg_at(&s, &num);
			if (!r || r->width != 8 || r->dwarf == 16 || r->dwarf == 7)
				return _("its index is not a 64-bit general register");
			a->index = r->dwarf;
			if (*s == ',') {
				s++;
				int64_t sc;
				if (!arch_sdt_number_at(&s, &sc) || (sc != 1 && sc != 2 && sc != 4 && sc != 8))
					return _("its scale is not 1, 2, 4 or 8");
				a->scale = (int)sc;
			}
		}
		if (*s != ')')
			return _("its memory operand is not closed by ')'");
		s++;
		if (a->reg == 16 && a->index >= 0)
			return _("a %rip-relative operand cannot have an index");
	}
	if (*s)
		return _("text follows the memory operand");
	return NULL;
}
const Arch arch_x86_64 = {
	.name = "x86_64",
	.spellings = spellings,
	.kbuild_arch = "x86",
	.kconfig = "CONFIG_X86_64",
	.multiarch = "x86_64-linux-gnu",
	.elf_machine = EM_X86_64,
	.elf_machine_compat = EM_386,
	.regs = regs,
	.nregs = sizeof regs / sizeof regs[0],
	.ngprs = 16,
	.sp_reg = 7,
	.pc_reg = 16,
	.fp_reg = 6,
	.arg_regs = arg_regs,
	.narg_regs = sizeof arg_regs / sizeof arg_regs[0],
	.ret_reg = 0,
	.sdt_parse_operand = parse_operand,
	.sdt_pc_operand = "%rip",
	/* .plt starts with the resolver's 16-byte stub; with IBT, .plt.sec
	 * has the entries from its start */
	.plt_header = 16,
	.plt_entry = 16,
	.kernel_space_start = 0xffff800000000000ULL,
	.kernel_image_start = 0xffffffff80000000ULL,
	.hw_breakpoints = 4,
	.script_regs = (const char *const[]){
		"rax", "ax", "rbx", "bx", "rcx", "cx", "rdx", "dx", "rsi", "si",
		"rdi", "di", "rbp", "bp", "rsp", "sp", "rip", "ip", "r8", "r9",
		"r10", "r11", "r12", "r13", "r14", "r15", "orig_rax", "orig_ax",
		"flags", "eflags", "xcs", "cs", "xss", "ss", "eax", "ebx", "ecx",
		"edx", "esi", "edi", "ebp", "esp", "eip", "orig_eax", NULL },
};
