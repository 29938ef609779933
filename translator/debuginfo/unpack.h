/* unpack.h - files read whole and streams unpacked (unpack.c), for the
 * readers of kernel images and modules.  Private to translator/debuginfo/. */
#ifndef TAPC_UNPACK_H
#define TAPC_UNPACK_H

#include "tapc.h"

/* Nothing unpacked may grow past this: the vmlinux in a vmlinuz is
 * ~70 MB, a module without its debug sections a few MB. */
#define UNPACK_LIMIT ((size_t)256 << 20)

/* A heap buffer (freed by the caller): these are megabytes read once, so
 * they stay out of the arena. */
typedef struct Bytes {
	unsigned char *data;
	size_t len;
	void *map;              /* a mapped file data points into, or NULL */
	size_t map_len;
} Bytes;

void bytes_free(Bytes *b);
/* The whole file into b; false with errno set. */
bool read_bytes(const char *path, Bytes *b);

/* What a buffer starts with. */
typedef enum Packing { PACK_NONE, PACK_XZ, PACK_ZSTD, PACK_GZIP, PACK_ELF } Packing;

Packing packing_of(const unsigned char *p, size_t len);

/* Unpack an xz, zstd or gzip stream (an ELF is copied as it is) into out;
 * NULL, or what went wrong.  size_hint is the unpacked size when known. */
const char *unpack(const unsigned char *in, size_t len, size_t size_hint,
		   Bytes *out);

#endif
