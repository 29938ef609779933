/* tpath.h - a target expression as pass 2 decided it from the debug
 * information (DWARF or BTF), for pass 3 to write: where its value starts
 * (a variable's location, $return, a pointer value), the steps of its
 * path as byte offsets and element sizes, and the type it ends in.
 *
 * Pass 2 (ctxvars.c) builds one for each $var, @cast, @var, autocast
 * '->' and pretty-print whose probe point has debug information, and
 * reports every user error there; pass 3 (emit/target_expr.c,
 * location.c) only writes the reads.  No kernel header is needed:
 * the layout is in the offsets.
 */
#ifndef TAPC_TPATH_H
#define TAPC_TPATH_H

#include "debuginfo/debuginfo.h"

typedef enum TpStart {
	TP_VAR,                 /* a variable: loc says where it is */
	TP_RETURN,              /* $return: the return-value register */
	TP_POINTER,             /* a pointer value (@cast, autocast, a typed
				 * context variable of a family): node->lhs
				 * or the family's C expression */
} TpStart;

typedef enum TpStepKind {
	TP_MEMBER,              /* + offset */
	TP_INDEX,               /* + index * elem_size */
} TpStepKind;

typedef struct TpStep {
	TpStepKind kind;
	bool through_ptr;       /* the value before the step is a pointer:
				 * follow it (load it first when it is in
				 * memory) */
	uint64_t offset;        /* TP_MEMBER: bytes */
	uint64_t elem_size;     /* TP_INDEX */
	int comp;               /* the node's component (its index) */
} TpStep;

/* How the end of the path is read. */
typedef enum TpFinal {
	TP_FINAL_INT,           /* an integer, enum or pointer of `size` bytes */
	TP_FINAL_ADDR,          /* an array or function: its address */
	TP_FINAL_NONE,          /* not a value (struct, only with & or $) */
} TpFinal;

typedef struct TargetPath {
	TpStart start;
	const char *name;       /* for messages and pretty-printing */
	DiLocation loc;         /* TP_VAR */
	const DiModule *module; /* whose DWARF the location is of */
	bool at_entry;          /* read at the function's entry: an entry
				 * value is the register itself */
	bool reloc;             /* DW_OP_addr of vmlinux: add the KASLR
				 * offset (found through reloc_ref) */
	uint64_t reloc_ref;     /* jiffies_64's address in the file */
	bool reloc_percpu;      /* a per-CPU variable: without reloc_ref its
				 * offset (the kernel links them from 0): add the
				 * running CPU's per-CPU base instead; with it, its
				 * boot copy in the image (arm64): add both */
	bool user;              /* user-space memory */
	bool ureloc;            /* DW_OP_addr of a PIE or library: add its
				 * load bias, the probe's instruction pointer
				 * minus ureloc_pc (the file address where
				 * the read happens) */
	uint64_t ureloc_pc;
	const DiType *start_type;
	Vec steps;              /* TpStep * */
	const DiType *type;     /* the type the path ends in */
	TpFinal final;
	uint64_t size;          /* TP_FINAL_INT: bytes (1..8) */
	bool is_signed;
	int bit_size;           /* the last member is a bitfield of this */
	int bit_offset;         /* many bits, this far into the bytes at
				 * the member's (byte) offset */
	bool addressof;         /* &...: the address is the value */
	bool addr_is_value;     /* &@cast(p, "T"): p itself (type: T *) */
	const char *ctx_var;    /* TP_POINTER from a family's context
				 * variable (pretty-printing $$parms of a
				 * tracepoint): its name */
	/* pretty-printing of N_TARGET_VARS: one TargetPath * per variable,
	 * NULL where it cannot be read ("=?") */
	Vec vars;
	Vec var_names;          /* const char * */
} TargetPath;

/* DWARF register number -> the pt_regs member of that general register
 * of the target (arch/), or NULL. */
const char *tp_dwarf_reg_name(int reg);

/* ---- compiling a location to C (location.c) ---- */

typedef struct LocEnv {
	const char *regs;       /* C expression: struct pt_regs * */
	bool at_entry;          /* entry values are the registers */
	const char *reloc;      /* C expression added to a DW_OP_addr, or
				 * NULL (no relocation) */
	const char *err;        /* the label a fault jumps to */
	const char *tmp;        /* prefix of the temporaries it declares */
	bool user;              /* DW_OP_deref reads user memory */
} LocEnv;

typedef struct LocCode {
	const char *stmts;      /* C statements to run first ("" if none) */
	const char *expr;       /* C expression of type u64 */
	bool is_addr;           /* expr is the address of the value (else
				 * the value itself) */
} LocCode;

/* Compile loc to C.  False, with *why set, when tapc cannot read it (an
 * operation it does not support, optimised out); pass 2 asks first, so
 * pass 3 only ever gets true. */
bool loc_compile(const DiLocation *loc, const LocEnv *env, LocCode *out,
		 const char **why);

#endif
