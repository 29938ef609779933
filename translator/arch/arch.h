/* arch.h - everything the translator knows that differs by the target's
 * architecture, behind one struct (as QBE's Target): register names and
 * DWARF numbers, the calling convention, SDT operand syntax, the names
 * kbuild, uname and Debian use, and address-space facts.  One file per
 * architecture (arch/x86_64.c, arch/arm64.c) fills one Arch; arch.c lists them and
 * holds the target's; sdt_operand.c has what their SDT parsers share.  No other translator file names an architecture.
 *
 * The other side of the seam: runtime/arch/ (the module's registers and
 * unwinder) and tapsets/NAME/ (syscall entries, the registers tapset).
 */
#ifndef TAPC_ARCH_H
#define TAPC_ARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct SdtArg;

typedef struct Arch {
	/* ---- names ---- */
	const char *name;               /* what scripts test (arch == "...",
					 * @arch), the tapsets/NAME/ folder,
					 * part of the cache key */
	const char *const *spellings;   /* what -a and uname -m may say,
					 * NULL-terminated */
	const char *kbuild_arch;        /* kbuild's ARCH and the kernel
					 * tree's arch/ folder */
	const char *kconfig;            /* the kernel config symbol that is
					 * set when the module is built for
					 * it (guards register reads in the
					 * generated C) */
	const char *multiarch;          /* Debian's multiarch triplet (the
					 * library and header folders) */
	int elf_machine;                /* e_machine of its 64-bit objects */
	int elf_machine_compat;         /* of its 32-bit tasks' objects, or
					 * EM_NONE */

	/* ---- registers: struct pt_regs members by DWARF number ---- */
	const char *const *regs;        /* nregs of them */
	int nregs;
	int ngprs;                      /* regs[0..ngprs) are the general
					 * registers a variable can live in */
	int sp_reg;                     /* the stack pointer, read through
					 * kernel_stack_pointer() */
	int pc_reg;                     /* the program counter (pc-relative
					 * SDT operands are based on it) */
	int fp_reg;                     /* the frame pointer (user unwind
					 * rows) */

	/* ---- calling convention ($argN, int_arg(), $return) ---- */
	const int *arg_regs;            /* integer arguments' DWARF numbers */
	int narg_regs;
	int ret_reg;                    /* the integer return value's */

	/* ---- SDT operands (.note.stapsdt's argument text) ---- */
	/* One operand, "[N@]OPERAND": NULL when it parsed, else why not. */
	const char *(*sdt_parse_operand)(const char *text, struct SdtArg *a);
	const char *sdt_pc_operand;     /* the pc as the assembler names it */

	/* ---- code and address space ---- */
	unsigned plt_header;            /* bytes of .plt before the first
					 * entry (the resolver's stub) */
	unsigned plt_entry;             /* bytes of one PLT entry (also in
					 * .plt.sec), 0: PLT entries are not
					 * placed */
	uint64_t kernel_space_start;    /* lowest kernel address */
	uint64_t kernel_image_start;    /* where the kernel image is linked
					 * (vmlinux addresses below are
					 * per-CPU offsets) */
	int hw_breakpoints;             /* debug registers per CPU */

	/* ---- kprobes ---- */
	/* Why the target's kernel refuses a kprobe on the instruction at
	 * code + before, or NULL when it takes it (as far as its bytes
	 * tell).  code[0..before) are the bytes before it, back to the
	 * start of its function's symbol but at most kprobe_lookback of
	 * them; *culprit is set to the offset in code of the instruction
	 * that makes it refused (the probed one or an earlier one).  NULL
	 * member: nothing is checked. */
	const char *(*kprobe_refusal)(const unsigned char *code, size_t before,
				      size_t *culprit);
	unsigned kprobe_lookback;

	/* ---- the registers tapset ---- */
	const char *const *script_regs; /* the names register() and
					 * u_register() take (tapsets/NAME/
					 * registers.stp), NULL-terminated:
					 * a literal name not among them is
					 * a pass-2 error */
} Arch;

extern const Arch arch_x86_64;
extern const Arch arch_arm64;

/* Whether NAME is one of ARCH's register() names. */
bool arch_has_script_reg(const Arch *arch, const char *name);
/* Another architecture that has register() name NAME, or NULL. */
const Arch *arch_other_with_script_reg(const Arch *arch, const char *name);

/* The architecture -a or uname -m names (any of its spellings), or NULL. */
const Arch *arch_by_name(const char *name);
/* The architecture whose objects have this e_machine (its own or its
 * 32-bit tasks'), or NULL. */
const Arch *arch_by_elf_machine(int machine);
/* Every architecture tapc knows, NULL-terminated. */
const Arch *const *arch_all(void);
/* The names tapc knows, for a message: "x86_64". */
const char *arch_names(void);

/* The target's architecture: set by target_init() from -a or uname -m;
 * before that (unit tests), the host's. */
void arch_set_target(const Arch *a);
const Arch *arch_target(void);

/* The pt_regs member of DWARF register reg of the target, or NULL. */
const char *arch_reg(int reg);
/* path with its "MULTIARCH" replaced by the target's triplet. */
const char *arch_multiarch_path(const char *path);

/* Shared by the SDT operand parsers (sdt_operand.c): a number (decimal or
 * 0x hex, with a sign) and a symbol name at *p, *p moved past it. */
bool arch_sdt_number_at(const char **p, int64_t *v);
const char *arch_sdt_symbol_at(const char **p);

#endif
