/* elfsections.h - the .BTF section and build-id of an ELF image
 * (elfsections.c).  Private to translator/debuginfo/. */
#ifndef TAPC_ELFSECTIONS_H
#define TAPC_ELFSECTIONS_H

#include "unpack.h"

/* What an ELF image holds for us: its .BTF (a heap copy, or NULL when it
 * has none) and its build-id. */
typedef struct ElfBtf {
	Bytes btf;
	const char *build_id;
} ElfBtf;

/* The NT_GNU_BUILD_ID in a run of ELF notes (as /sys/kernel/notes has
 * them), in hex; NULL when none. */
const char *build_id_in_notes(const unsigned char *p, size_t len);
/* The same of a file of notes (/sys/kernel/notes, a module's
 * .note.gnu.build-id in sysfs); NULL when it has none or cannot be read. */
const char *build_id_of_notes_file(const char *path);
/* An ELF image in memory; false (with *why) when libelf cannot read it. */
bool elf_btf_of_memory(Bytes *image, ElfBtf *out, const char **why);
/* An ELF image packed with xz, zstd or gzip (size_hint: its unpacked
 * size when known, else 0); false with *why, which names no file. */
bool elf_btf_of_packed(const unsigned char *data, size_t len, size_t size_hint,
		       ElfBtf *out, const char **why);
/* A file that is an ELF image, packed or not (a .ko, .ko.xz, vmlinux);
 * false with *why ("PATH: what went wrong"). */
bool elf_btf_of_file(const char *path, ElfBtf *out, const char **why);

#endif
