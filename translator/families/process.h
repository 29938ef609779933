/* process.h - the facts process(...) points carry from pass 2 to pass 3
 * (ResolvedPoint.data of the process family), what other parts of pass 2
 * read of them (dvars.c: where a point's $variables are), and what the
 * family's files share (process_dwarf.c, process_sdt.c).  A family file,
 * not a general header.
 */
#ifndef TAPC_FAMILIES_PROCESS_H
#define TAPC_FAMILIES_PROCESS_H

#include "family.h"

typedef struct ProcessData {
	const char *path;       /* the program (NULL: every process) */
	int64_t pid;            /* process(PID), else 0 */
	const char *library;    /* .library("..."): the object probed, or NULL */
	const char *object;     /* the file the probe's code is in: library
				 * when set, else path */
	const char *name;       /* function, PLT entry or mark name */
	const char *provider;   /* SDT provider */
	int64_t address;        /* statement(N) as written */
	int sdt_args;           /* SDT marker argument count */
	const char *glob;       /* the wildcard (process or library) object
				 * is one match of, or NULL: a match where
				 * the point cannot be placed for want of
				 * the function or of debug information is
				 * left out with a warning, not an error */

	/* Where the probe goes, as pass 2 found it (0 / NULL until then). */
	uint64_t pc;            /* the instruction's file address in object
				 * (SDT marks: see sites) */
	Vec sites;              /* SDT marks: SdtNote *, every site of the
				 * one provider:name (each its own pc,
				 * semaphore and operands) */
	/* From the object's DWARF when it has one: the function or inlined
	 * instance the probe is in (di_variables_at(difunc, pc) gives the
	 * $variables there), else NULL. */
	const DiFunction *difunc;
	/* From its symbols when there is no DWARF: the function symbol. */
	const ObjSym *sym;
} ProcessData;

/* A point that cannot be placed in proto's object for want of what
 * message says: true (after a warning naming the object and its
 * wildcard) when the object is one match of a wildcard, or silently
 * when the point is optional, and the caller makes no point there;
 * false: the caller reports the error. */
bool process_drop_match(ProbePoint *pp, Loc loc, const ProcessData *proto,
			const char *message);

/* Resolve a process(...).function("...") or .statement("...") point pp
 * in object (the program or a library of it) through the object's DWARF
 * (process_dwarf.c): the points made, each ProcessData a copy of proto
 * with difunc and pc set, or -1 after an error; PROCESS_NO_DWARF when the
 * object has no DWARF, or the point names a function only its symbols
 * have: resolve it through the symbols. */
#define PROCESS_NO_DWARF (-2)
int process_resolve_dwarf(const ProbeFamily *fam, ProbePoint *pp,
			  const char *object, const ProcessData *proto, Vec *out);

/* process(...).function("f").offset(N) and .offset (process_insn.c):
 * replace the function points out[first..] that resolving pp as
 * function("f") made by one point per instruction (pc each
 * instruction's), or by the one at offset N after checking that N is
 * where an instruction begins: the points made, or -1 after an error. */
int process_insn_expand(ProbePoint *pp, Vec *out, int first);

/* Pass 3 (process_sdt.c): the C expression (type int64_t) of one SDT
 * marker operand, read from the user registers `regs` (a struct pt_regs *
 * expression) at the marker, where regs->ip is the marker's run-time
 * address, and for a memory operand from user memory through
 * tap_read_user (a fault gives 0 and sets the error of the context `c`,
 * so it is used where `c` is the probe's struct tap_context *); sign- or
 * zero-extended from the operand's size.  The operand must have parsed
 * (SdtNote.argv). */
const char *process_sdt_arg_expr(const SdtArg *a, const char *regs);

#endif
