/* arm64.c - the arm64 (AArch64) target: registers as the kernel's struct
 * pt_regs (arch/arm64/include/asm/ptrace.h: regs[31], sp, pc) and the
 * AArch64 DWARF ABI number them, the AAPCS64 calling convention, and SDT
 * operands as gcc prints them for aarch64 ("x1", "[sp, 12]", "42").  The
 * syscall entry points (__arm64_sys_*) belong in tapsets/arm64/, the
 * module's register and unwinder code in runtime/arch/arm64.h.
 */
#include "tapc.h"
#include "arch/arch.h"
#include "debuginfo/debuginfo.h"

#include <elf.h>
#include <string.h>

#ifndef EM_AARCH64
#define EM_AARCH64 183
#endif

static const char *const spellings[] = { "arm64", "aarch64", NULL };

/* struct pt_regs members by DWARF register number: 0-30 are x0-x30 (x29
 * the frame pointer, x30 the link register), 31 sp, 32 the pc (the
 * AArch64 DWARF ABI's numbering). */
static const char *const regs[] = {
	"regs[0]", "regs[1]", "regs[2]", "regs[3]", "regs[4]", "regs[5]",
	"regs[6]", "regs[7]", "regs[8]", "regs[9]", "regs[10]", "regs[11]",
	"regs[12]", "regs[13]", "regs[14]", "regs[15]", "regs[16]", "regs[17]",
	"regs[18]", "regs[19]", "regs[20]", "regs[21]", "regs[22]", "regs[23]",
	"regs[24]", "regs[25]", "regs[26]", "regs[27]", "regs[28]", "regs[29]",
	"regs[30]", "sp", "pc",
};

#define SP_REG 31
#define PC_REG 32

/* AAPCS64: the first eight integer arguments in x0-x7, the result in x0. */
static const int arg_regs[] = { 0, 1, 2, 3, 4, 5, 6, 7 };

/* ---- SDT operands ---- */

/* A register at *p: "xN" / "wN" (N 0-30; w is the low 32 bits), "sp" /
 * "wsp", "xzr" / "wzr" (reads as zero: *zero set).  Its DWARF number and
 * width in bytes, *p moved past it; -1 when there is none. */
static int sdt_reg_at(const char **p, int *width, bool *zero)
{
	const char *s = *p;
	size_t n = 0;
	while ((s[n] >= 'a' && s[n] <= 'z') || (s[n] >= '0' && s[n] <= '9'))
		n++;
	*zero = false;
	int reg = -1;
	if ((n == 2 && !memcmp(s, "sp", 2)) || (n == 3 && !memcmp(s, "wsp", 3))) {
		reg = SP_REG;
		*width = n == 2 ? 8 : 4;
	} else if (n == 3 && (s[0] == 'x' || s[0] == 'w') && !memcmp(s + 1, "zr", 2)) {
		reg = 0;        /* any: the value is 0 */
		*zero = true;
		*width = s[0] == 'x' ? 8 : 4;
	} else if (n >= 2 && n <= 3 && (s[0] == 'x' || s[0] == 'w') &&
		   s[1] >= '0' && s[1] <= '9' && (n == 2 || (s[1] != '0' &&
		   s[2] >= '0' && s[2] <= '9'))) {
		int num = s[1] - '0';
		if (n == 3)
			num = num * 10 + (s[2] - '0');
		if (num > 30)
			return -1;
		reg = num;
		*width = s[0] == 'x' ? 8 : 4;
	}
	if (reg >= 0)
		*p = s + n;
	return reg;
}

/* The operand after "N@" (a->size is N's): a register (x1, w2, sp), a
 * constant (42, -7, #42) or memory ([base], [base, offset], [base, #offset]). */
static const char *parse_operand(const char *s, SdtArg *a)
{
	int width;
	bool zero;
	if (*s == '#' || *s == '-' || *s == '+' || (*s >= '0' && *s <= '9')) {
		if (*s == '#')
			s++;
		a->kind = SDT_ARG_CONST;
		if (!arch_sdt_number_at(&s, &a->value))
			return _("its constant is not a number");
		if (*s)
			return _("text follows the constant");
		return NULL;
	}
	if (*s != '[') {
		int reg = sdt_reg_at(&s, &width, &zero);
		if (reg < 0)
			return _("it is not a register, constant or memory operand");
		if (*s)
			return _("text follows the register");
		if (zero) {
			a->kind = SDT_ARG_CONST;
			a->value = 0;
			return NULL;
		}
		a->kind = SDT_ARG_REG;
		a->reg = reg;
		if (width < a->size)
			a->size = width;
		return NULL;
	}
	/* memory: [base] or [base, offset] */
	s++;
	a->kind = SDT_ARG_MEM;
	a->scale = 1;
	int reg = sdt_reg_at(&s, &width, &zero);
	if (reg < 0 || width != 8 || zero)
		return _("its base is not a 64-bit register");
	a->reg = reg;
	if (*s == ',') {
		s++;
		while (*s == ' ')
			s++;
		if (*s == '#')
			s++;
		if (*s == ':')
			return _("its offset is a relocation (\":lo12:\"), which tapc does not "
				 "resolve");
		if (!arch_sdt_number_at(&s, &a->value))
			return _("its offset is not a number");
	}
	if (*s != ']')
		return _("its memory operand is not closed by ']'");
	s++;
	if (*s)
		return _("text follows the memory operand");
	return NULL;
}

/*
 * What arm64's kprobes refuse (arch/arm64/kernel/probes/, 6.1 and 6.12),
 * so that pass 2 can say so instead of register_kprobe()'s -EINVAL at
 * run time (6.1's, checked in the arm64 VM with one kprobe per place):
 *
 * - A hint instruction (HINT #imm: NOP, the pointer-authentication and
 *   BTI ones, YIELD, WFE...) other than those the kernel steps out of
 *   line: NOP, PACIASP/PACIBSP and their Z and 1716 forms, XPACLRI and
 *   the BTI landing pads.  So the AUTIASP before every return of a
 *   function that signs its return address is refused (in the VM:
 *   AUTIASP refused, PACIASP and NOP taken).
 * - Any instruction within 32 instructions after an exclusive or
 *   load-acquire load (LDXR, LDAXR, LDAR, CAS... the kernel's "load
 *   exclusive" class) in the same function with no store of that class
 *   (STXR, STLXR, STLR) between: the kernel takes it for the middle of an
 *   exclusive-monitor sequence, which a breakpoint would break.  A place
 *   in an inlined instance after an atomic of its caller is refused too.
 */
#define A64_LOOKBACK_INSNS 32

static uint32_t a64_insn(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static bool a64_is_hint(uint32_t insn)
{
	return (insn & 0xfffff01fu) == 0xd503201fu;
}

/* The hints the kernel steps out of line: by their CRm:op2 number. */
static bool a64_hint_steppable(uint32_t insn)
{
	switch ((insn >> 5) & 0x7f) {
	case 0x00:                      /* NOP */
	case 0x07:                      /* XPACLRI */
	case 0x08: case 0x0a:           /* PACIA1716, PACIB1716 */
	case 0x18: case 0x19:           /* PACIAZ, PACIASP */
	case 0x1a: case 0x1b:           /* PACIBZ, PACIBSP */
	case 0x20: case 0x22:           /* BTI, BTI c */
	case 0x24: case 0x26:           /* BTI j, BTI jc */
		return true;
	}
	return false;
}

static bool a64_is_load_excl(uint32_t insn)
{
	return (insn & 0x3f400000u) == 0x08400000u;
}

static bool a64_is_store_excl(uint32_t insn)
{
	return (insn & 0x3f400000u) == 0x08000000u;
}

static const char *a64_kprobe_refusal(const unsigned char *code, size_t before,
				      size_t *culprit)
{
	uint32_t insn = a64_insn(code + before);
	if (a64_is_hint(insn) && !a64_hint_steppable(insn)) {
		*culprit = before;
		return _("arm64's kprobes cannot step this hint instruction "
			 "(an AUTIASP, say) out of line");
	}
	for (size_t at = before & ~(size_t)3; at >= 4; ) {
		at -= 4;
		uint32_t prev = a64_insn(code + at);
		if (a64_is_store_excl(prev))
			break;
		if (a64_is_load_excl(prev)) {
			*culprit = at;
			return _("arm64's kprobes refuse a place up to 32 "
				 "instructions after an exclusive or "
				 "load-acquire load with no exclusive store "
				 "between (an atomic sequence, maybe)");
		}
	}
	return NULL;
}

const Arch arch_arm64 = {
	.name = "arm64",
	.spellings = spellings,
	.kbuild_arch = "arm64",
	.kconfig = "CONFIG_ARM64",
	.multiarch = "aarch64-linux-gnu",
	.elf_machine = EM_AARCH64,
	.elf_machine_compat = EM_ARM,
	.regs = regs,
	.nregs = sizeof regs / sizeof regs[0],
	.ngprs = 32,            /* x0-x30 and sp */
	.sp_reg = SP_REG,
	.pc_reg = PC_REG,
	.fp_reg = 29,
	.arg_regs = arg_regs,
	.narg_regs = sizeof arg_regs / sizeof arg_regs[0],
	.ret_reg = 0,
	.sdt_parse_operand = parse_operand,
	.sdt_pc_operand = "pc",
	/* .plt starts with the 32-byte resolver stub, then 16-byte entries
	 * (with BTI too: the landing pad replaces a nop) */
	.plt_header = 32,
	.plt_entry = 16,
	/* the lowest linear-map address with 52-bit VAs; Debian's 48-bit
	 * kernels start at 0xffff000000000000, user space ends far below */
	.kernel_space_start = 0xfff0000000000000ULL,
	/* the module area's start, below the image (KIMAGE_VADDR is
	 * MODULES_END: 0xffff800008000000 on 6.1, 0xffff800080000000 on
	 * 6.12).  arm64's per-CPU section is linked inside the image, not
	 * at 0, so no vmlinux address is taken for a per-CPU offset. */
	.kernel_image_start = 0xffff800000000000ULL,
	/* watchpoints per CPU: 2 to 16 (ID_AA64DFR0_EL1.WRPs); 4 on the
	 * common cores and QEMU's; the kernel refuses what is more */
	.hw_breakpoints = 4,
	.kprobe_refusal = a64_kprobe_refusal,
	.kprobe_lookback = A64_LOOKBACK_INSNS * 4,
	.script_regs = (const char *const[]){
		"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9",
		"x10", "x11", "x12", "x13", "x14", "x15", "x16", "x17", "x18",
		"x19", "x20", "x21", "x22", "x23", "x24", "x25", "x26", "x27",
		"x28", "x29", "x30",
		"w0", "w1", "w2", "w3", "w4", "w5", "w6", "w7", "w8", "w9",
		"w10", "w11", "w12", "w13", "w14", "w15", "w16", "w17", "w18",
		"w19", "w20", "w21", "w22", "w23", "w24", "w25", "w26", "w27",
		"w28", "w29", "w30",
		"fp", "lr", "sp", "pc", "pstate", "orig_x0", NULL },
};
