/*
 * lines.h - the line tables a module carries for symfile/symline/
 * symfileline and their user twins, written by pass 3
 * (translator/emit/lines.c) as static data before the runtime's code:
 * rows taking an address to a source file and line.
 *
 * User objects (usyms.h's tap_uobj) hold their rows by file address.
 * Kernel rows are held per function, by offset from the function's
 * symbol, so the kernel's load offset (KASLR) and where a module was
 * loaded do not matter: an address is found through kallsyms as
 * symbol+offset/size [module] first; of functions with the same name
 * (statics of different files), the one whose size fits the symbol's
 * (kallsyms counts the padding up to the next symbol too).
 */
#ifndef TAP_LINES_H
#define TAP_LINES_H

/* Code from addr to the next row's addr is from files[file]:line; line 0
 * where there is none (between sequences, past the last). */
struct tap_line {
	unsigned long addr;
	unsigned int file;
	unsigned int line;
};

struct tap_kfunc_lines {
	const char *module;		/* NULL: vmlinux */
	const char *name;		/* the function's symbol */
	unsigned long size;		/* its code's size (DWARF) */
	const struct tap_line *rows;	/* addr: offset from the symbol */
	unsigned int nrows;
	const char *const *files;
};

#endif /* TAP_LINES_H */
