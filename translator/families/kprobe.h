/* kprobe.h - what kprobe.c offers the families that put their probes on
 * kprobes (kernel_function.c): the point data, the checks they share and
 * the pass-3 glue.  A family file, not a general header.
 */
#ifndef TAPC_FAMILIES_KPROBE_H
#define TAPC_FAMILIES_KPROBE_H

#include "family.h"

/* ResolvedPoint.data of kprobe.*, kernel.function, module().function,
 * kernel.statement. */
typedef struct KernelPointData {
	const char *module;     /* NULL for the kernel itself */
	const char *function;   /* function or symbol name, or NULL */
	int64_t address;        /* statement(N) */
	int64_t maxactive;      /* -1 when not given */
	/* Where DWARF or BTF put the probe (kernel.function/statement; NULL
	 * and 0 otherwise): the function or inlined instance it is in, and
	 * its address as the module's file has it (di_variables_at(difunc,
	 * pc) gives the $variables there). */
	const DiFunction *difunc;
	uint64_t pc;
	/* The probe's place at run time: the out-of-line function symbol
	 * `function` plus offset (pc minus that function's low_pc), or, with
	 * kernel_anchor set, the kernel address pc moved by the kernel's
	 * load offset (KASLR), which the module learns at start from where
	 * kfree is: kernel_anchor is kfree's address in the same file. */
	uint64_t offset;
	uint64_t kernel_anchor;
	/* With kernel_anchor: the kernel address the kprobe goes at when it
	 * is not pc (an out-of-line function's entry on arm64: its symbol,
	 * 8 bytes before the DWARF's low_pc), else 0. */
	uint64_t place_pc;
	/* .callee of an out-of-line function: the probe (on the callee's
	 * entry) runs only when the return address on the stack is this
	 * call site's (a kernel address, moved as pc is), else 0. */
	uint64_t caller_ret;
} KernelPointData;

/* True for the functions no probe may be put on. */
bool blocked_function(const char *name);
/* .maxactive(N) into d->maxactive (-1 when absent); -1 after an error. */
int check_maxactive(ProbePoint *pp, KernelPointData *d);
/* 0 in guru mode, else an error naming `what` and -1. */
int need_guru(ProbePoint *pp, const char *what);
/* One resolved point per name of `names` (a function of the point's
 * component fi, whose text was `text`): pp itself for the name written,
 * else a copy naming that function; its data a copy of proto with the
 * function set.  Returns how many. */
int push_function_points(const ProbeFamily *fam, ProbePoint *pp, int fi,
			 const char *text, const Vec *names,
			 const KernelPointData *proto, bool needs_debuginfo,
			 Vec *out);
/* Resolve a module("PATTERN")... point once per module it stands for:
 * each(fam, point with that module, module, its function symbols or NULL
 * when they cannot be read, out).  The sum of what each returned, or -1
 * after an error. */
typedef int (*ModuleResolver)(const ProbeFamily *fam, ProbePoint *pp,
			      const char *module, const NameList *syms, Vec *out);
int resolve_each_module(const ProbeFamily *fam, ProbePoint *pp,
			ProbePointComp *mc, ModuleResolver each, Vec *out);
/* "Did you mean": the functions of l for a function name `want`
 * (component fi) that matched none. */
void near_functions(ProbePoint *pp, int fi, const char *want, const NameList *l);

/* pass 3: the kprobe glue of probes whose data is KernelPointData; `tag`
 * keeps the tables and functions of the families using it apart. */
bool kprobe_emit_decls(Emitter *e, EmitProbe **probes, int n);
bool kprobe_emit_code_as(Emitter *e, const char *tag, EmitProbe **probes,
			 int n, FamilyCode *out);
/* Return probes run an @entry saver. */
bool kprobe_supports_entry(const ResolvedPoint *rp);

#endif
