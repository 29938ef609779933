/* kreaders.h - what kdebug.c asks the kernel's debug-information readers
 * (dwarf.c, btf.c) and the finder of the kernel's files (kimages.c).  Private to translator/debuginfo/: everything else
 * goes through the di_* calls of debuginfo.h. */
#ifndef TAPC_KREADERS_H
#define TAPC_KREADERS_H

#include "debuginfo.h"

/* ---- dwarf.c: the kernel's and modules' DWARF through libdwfl/libdw ----
 *
 * A module's DWARF is one file (vmlinux, or a .ko with its debug
 * sections), read through libdwfl's offline reporting, so a module's
 * relocations are applied.  Addresses are libdwfl's: the vmlinux's own,
 * and for a .ko its sections laid out from a small base (bias 0, not a
 * load address: a probe in a module goes on a symbol plus an offset). */

/* Open the DWARF in path for module (NULL: the kernel): its DiModule
 * (kind, name, path and debug_path, build_id, low/high).  NULL with *why
 * set when path is not an ELF file with DWARF. */
const DiModule *dwarf_open(const char *module, const char *path,
			   const char **why);
/* Open a user-space object's DWARF (DiModule.kind DI_USER, name and path
 * the object's path): from debug_path, the object itself or its separate
 * debug file.  Addresses are the object's file addresses (bias 0). */
const DiModule *dwarf_open_user(const char *path, const char *debug_path,
				const char **why);
/* Close what dwarf_open() opened (a file refused after all). */
void dwarf_close(const DiModule *m);
/* The di_* calls, answered from an opened module's DWARF.  A DiFunction
 * passed in must be one dwarf_functions() (or another dwarf_* call)
 * returned. */
Vec dwarf_functions(const DiModule *m, const char *func_glob,
		    const char *file_glob, bool want_inline);
uint64_t dwarf_probe_pc(const DiFunction *f);
const DiFunction *dwarf_function_at(const DiModule *m, uint64_t pc);
Vec dwarf_function_lines(const DiFunction *f, int lo, int hi);
Vec dwarf_source_lines(const DiModule *m, const char *file_glob, int lo,
		       int hi, bool nearest);
Vec dwarf_line_rows(const DiModule *m, uint64_t lo, uint64_t hi);
Vec dwarf_function_labels(const DiFunction *f, const char *glob);
Vec dwarf_function_callees(const DiFunction *f, const char *glob, int depth);
Vec dwarf_variables_at(const DiFunction *f, uint64_t pc);
bool dwarf_cfa_at(const DiModule *m, uint64_t pc, DiLocation *out);
const DiType *dwarf_find_type(const DiModule *m, const char *name);
const DiVariable *dwarf_find_global(const DiModule *m, const char *name,
				    const char *file_glob);
/* A function symbol's address in m's ELF symbol table, in the same
 * (libdwfl) addresses as the DWARF's; 0 when there is none. */
uint64_t dwarf_symbol_addr(const DiModule *m, const char *name);
/* The same for a symbol of any type (a variable, a linker-script mark). */
uint64_t dwarf_any_symbol_addr(const DiModule *m, const char *name);
/* Where the function symbol holding pc begins (DWARF addresses); 0 when
 * no function symbol holds it. */
uint64_t dwarf_symbol_start(const DiModule *m, uint64_t pc);
/* Copy len bytes of m's file at address addr (DWARF addresses) into buf:
 * false when they are not all in one section that holds them (a
 * separate debug file's NOBITS text, say). */
bool dwarf_read_code(const DiModule *m, uint64_t addr, void *buf, size_t len);
/* A type by name ("struct x", "union x", "enum x", a typedef or base
 * name) among the top-level types of every compilation unit of m, with
 * no index (a small object: a compiled header); a definition is
 * preferred to a declaration.  NULL when there is none. */
const DiType *dwarf_object_type(const DiModule *m, const char *name);
/* True when f came from dwarf.c. */
bool dwarf_owns(const DiFunction *f);

/* ---- btf.c: the kernel's BTF through libbpf ----
 *
 * The running kernel: /sys/kernel/btf/vmlinux and /sys/kernel/btf/MODULE.
 * Another release (-r): the .BTF section of the vmlinux packed in
 * /boot/vmlinuz-RELEASE, and of the module's .ko (split BTF on the
 * kernel's). */

/* Open module's BTF (NULL: the kernel), filling m (kind, name, path).
 * False with *why set to where tapc looked when there is none. */
bool btf_open(const char *module, DiModule *m, const char **why);
/* di_functions() from BTF: out-of-line functions (BTF_KIND_FUNC), their
 * parameters (DiVariable, is_param, located by the target's calling
 * convention, arch/: DI_LOC_REG with the DWARF numbers of its argument
 * registers; DI_LOC_NONE past the last or for a struct passed by value)
 * and return type.  entry_pc, low_pc, high_pc are 0: BTF has no
 * addresses (the kprobe goes on the symbol). */
Vec btf_functions(const DiModule *m, const char *func_glob);
/* di_find_type() from BTF. */
const DiType *btf_find_type(const DiModule *m, const char *name);
/* For the unit tests: the kernel's BTF (module NULL) or a module's (split
 * on the kernel's) from raw BTF bytes, instead of the target's files.
 * False with *why when they do not parse. */
bool btf_load_raw(const char *module, const void *data, size_t len, const char **why);

/* ---- kimages.c: the target kernel's image and module files ---- */

/* The build-id (hex) of the target kernel's image, which a DWARF vmlinux
 * must match: the running kernel's from /sys/kernel/notes, another
 * release's from the vmlinux packed in /boot/vmlinuz-RELEASE (read once,
 * cached with its BTF).  NULL when it cannot be read. */
const char *kernel_image_build_id(void);
/* The file of module ('-' and '_' alike) under /lib/modules/RELEASE/,
 * from modules.dep (else a walk of kernel/ and updates/): its .ko, .ko.xz,
 * .ko.zst or .ko.gz.  NULL when there is none. */
const char *kernel_module_file(const char *module);
/* The build-id (hex) of module's image: a loaded module of the running
 * kernel from /sys/module/NAME/notes, else the .ko (.ko.xz, .ko.zst,
 * .ko.gz) under /lib/modules/RELEASE/.  NULL when it cannot be read. */
const char *kernel_module_build_id(const char *module);
/* For the unit tests: the .BTF bytes (a heap copy for the caller to free,
 * NULL when it has none) and build-id of the vmlinux in an image file (a
 * bzImage packed with xz, zstd or gzip, or an ELF file), through the cache.
 * False with *why when it cannot be read. */
bool btf_image_read(const char *path, void **btf, size_t *len,
		    const char **build_id, const char **why);

#endif
