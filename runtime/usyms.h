/*
 * usyms.h - the tables of user-space objects a module carries (the
 * programs and libraries its process probes are in, -d FILE, --ldd):
 * each object's function symbols and its unwind rows, written by pass 3
 * (translator/emit/usyms.c) as static data before the runtime's code.
 * runtime/usyms.c reads them: addresses of the current task to
 * symbol+offset [path] (usymname, usymdata, umodname) and its user stack
 * walked through the rows (ubacktrace).
 *
 * All addresses in the tables are the object's file addresses (ELF
 * st_value, p_vaddr); a mapping's file offset takes an address back to
 * one through the segment that holds it.
 */
#ifndef TAP_USYMS_H
#define TAP_USYMS_H

#include "lines.h"

struct tap_usym {
	unsigned long addr;
	unsigned int name;		/* offset in the object's strs */
};

/* kind: as UnwindKind in translator/debuginfo/debuginfo.h */
#define TAP_UNW_NONE		0	/* no CFI: follow the frame pointer */
#define TAP_UNW_SP		1	/* CFA = sp + cfa_off */
#define TAP_UNW_BP		2	/* CFA = frame pointer + cfa_off */
#define TAP_UNW_PLT		3	/* PLT entry: tap_arch_plt_cfa() */
#define TAP_UNW_OUTERMOST	4	/* no caller (_start) */

/* From pc to the next row's pc. */
struct tap_urow {
	unsigned long pc;
	int cfa_off;
	short fp_off;			/* caller's frame pointer at CFA +
					 * fp_off; 0: kept */
	signed char ra_off;		/* return address at CFA + ra_off; 0:
					 * in the link register (arm64: at a
					 * function's entry, in a leaf) */
	unsigned char kind;
};

struct tap_useg {
	unsigned long vaddr, offset, filesz;
};

struct tap_uobj {
	const char *path;		/* canonical: what umodname prints */
	const struct tap_useg *segs;
	unsigned int nsegs;
	const struct tap_usym *syms;	/* functions and data, by address */
	unsigned int nsyms;
	const char *strs;
	const struct tap_urow *rows;	/* by pc */
	unsigned int nrows;
	const char *build_id;		/* hex (umodbuildid), or NULL */
	const struct tap_line *lines;	/* by file address (lines.h), when
					 * the script asks for lines and
					 * the object has DWARF */
	unsigned int nlines;
	const char *const *files;
};

#endif /* TAP_USYMS_H */
