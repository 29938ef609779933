/* kimages.h - what btf.c asks kimages.c of the target kernel's image and
 * module files (kreaders.h has what kdebug.c asks).  Private to
 * translator/debuginfo/. */
#ifndef TAPC_KIMAGES_H
#define TAPC_KIMAGES_H

#include "kreaders.h"
#include "elfsections.h"

/* The vmlinux or vmlinuz of the target that is not the running kernel,
 * read once: its .BTF (NULL when it has none) and build-id. */
typedef struct Image {
	bool done;
	const char *path;       /* the file read, or NULL */
	const char *build_id;
	Bytes btf;
	const char *why;        /* why btf is NULL: "PATH: why; ..." */
} Image;

Image *target_image(void);

/* A module's file: a packed one (.ko.xz: ~50 ms to unpack) through the
 * cache, a plain .ko mapped as it is (~1 ms). */
bool module_btf_of_file(const char *path, ElfBtf *out, const char **why);
/* A module's name as the kernel knows it ('-' as '_'), interned. */
const char *norm_module(const char *name);
/* Remember module NAME's build-id (NULL: none could be read), read with
 * its BTF, for kernel_module_build_id(). */
void module_id_note(const char *name, const char *id);
/* One more place looked in, "PATH: why", for a message. */
void looked_add(StrBuf *sb, const char *what);

#endif
