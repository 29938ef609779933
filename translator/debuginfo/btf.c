/* btf.c - the kernel's and its modules' BTF, through libbpf, for when no
 * DWARF is installed: functions with their parameters and return types,
 * and every struct, union, enum and typedef.
 *
 * Where it comes from:
 *   the running kernel   /sys/kernel/btf/vmlinux, /sys/kernel/btf/MODULE
 *                        (split on vmlinux; a module that is not loaded
 *                        is read from its file, as for another release)
 *   another release      the .BTF section of the vmlinux packed in
 *                        /boot/vmlinuz-RELEASE (a bzImage: the payload is
 *                        an xz, zstd or gzip stream of an ELF file), or of
 *                        BUILDDIR/vmlinux with -r BUILDDIR; each module's
 *                        .BTF from its .ko (.ko.xz, .ko.zst, .ko.gz) under
 *                        /lib/modules/RELEASE/, split on the kernel's.
 *
 * Unpacking a vmlinuz takes about a second, so the .BTF bytes and the
 * vmlinux's build-id are kept in tapc's cache folder (btf/), keyed by the
 * image's path, size, time and inode.  A cache file carries a CRC; one
 * that does not check out is ignored and written again (atomically).
 *
 * Types are converted to DiType on demand, once per type id: BTF types
 * are cyclic through pointers, so a DiType is memoized before its parts
 * are converted.  A module's split BTF refers to the kernel's types by
 * their ids, which map to the kernel's DiTypes, so a type has one DiType
 * whichever module names it.
 */
#include "kreaders.h"
#include "cache.h"
#include "arch/arch.h"

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <libelf.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

/* ================= reading files and unpacking them ================= */

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

static void bytes_free(Bytes *b)
{
	if (b->map)
		munmap(b->map, b->map_len);
	else
		free(b->data);
	memset(b, 0, sizeof *b);
}

/* The whole file into b; false with errno set. */
static bool read_bytes(const char *path, Bytes *b)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	struct stat st;
	size_t cap = fstat(fd, &st) == 0 && st.st_size > 0 ? (size_t)st.st_size : 4096;
	b->data = xrealloc_heap(NULL, cap);
	b->len = 0;
	b->map = NULL;          /* read, not mapped: bytes_free() frees data */
	b->map_len = 0;
	for (;;) {
		if (b->len == cap) {
			cap *= 2;
			b->data = xrealloc_heap(b->data, cap);
		}
		ssize_t n = read(fd, b->data + b->len, cap - b->len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			close(fd);
			bytes_free(b);
			errno = e;
			return false;
		}
		if (n == 0)
			break;
		b->len += n;
	}
	close(fd);
	return true;
}

typedef enum Packing { PACK_NONE, PACK_XZ, PACK_ZSTD, PACK_GZIP, PACK_ELF } Packing;

static Packing packing_of(const unsigned char *p, size_t len)
{
	if (len >= 6 && !memcmp(p, "\xfd" "7zXZ\0", 6))
		return PACK_XZ;
	if (len >= 4 && !memcmp(p, "\x28\xb5\x2f\xfd", 4))
		return PACK_ZSTD;
	if (len >= 3 && !memcmp(p, "\x1f\x8b\x08", 3))
		return PACK_GZIP;
	if (len >= 4 && !memcmp(p, ELFMAG, SELFMAG))
		return PACK_ELF;
	return PACK_NONE;
}

/* Room for at least `more` bytes past out->len. */
static bool out_reserve(Bytes *out, size_t *cap, size_t more)
{
	if (out->len + more <= *cap)
		return true;
	size_t want = *cap ? *cap : 1 << 20;
	while (want < out->len + more)
		want *= 2;
	if (want > UNPACK_LIMIT)
		return false;
	out->data = xrealloc_heap(out->data, want);
	*cap = want;
	return true;
}

static const char *unpack_xz(const unsigned char *in, size_t len, Bytes *out,
			     size_t cap)
{
	lzma_stream s = LZMA_STREAM_INIT;
	if (lzma_stream_decoder(&s, UINT64_MAX, 0) != LZMA_OK)
		return _("cannot start the xz decoder");
	s.next_in = in;
	s.avail_in = len;
	const char *err = NULL;
	for (;;) {
		if (!out_reserve(out, &cap, 1 << 20)) {
			err = _("unpacks to more than 256 MiB");
			break;
		}
		s.next_out = out->data + out->len;
		s.avail_out = cap - out->len;
		lzma_ret r = lzma_code(&s, LZMA_FINISH);
		out->len = cap - s.avail_out;
		if (r == LZMA_STREAM_END)
			break;
		if (r != LZMA_OK) {
			err = r == LZMA_MEM_ERROR ? _("out of memory unpacking xz")
						  : _("corrupt xz data");
			break;
		}
		if (s.avail_in == 0 && s.avail_out != 0) {
			err = _("truncated xz data");
			break;
		}
	}
	lzma_end(&s);
	return err;
}

static const char *unpack_zstd(const unsigned char *in, size_t len, Bytes *out,
			       size_t cap)
{
	/* When the frame or the kernel's trailer says how big it unpacks,
	 * one call decodes straight into out: streaming would add a window
	 * buffer as big as the kernel's (128 MiB with zstd -22 --ultra) to
	 * the peak memory.  Should the size be wrong, stream. */
	unsigned long long whole = ZSTD_getFrameContentSize(in, len);
	size_t frame = ZSTD_findFrameCompressedSize(in, len);
	if (!ZSTD_isError(frame)) {
		if (whole != ZSTD_CONTENTSIZE_UNKNOWN && whole != ZSTD_CONTENTSIZE_ERROR) {
			if (whole > UNPACK_LIMIT)
				return _("unpacks to more than 256 MiB");
			if (cap < whole) {
				out->data = xrealloc_heap(out->data, whole ? whole : 1);
				cap = whole;
			}
		}
		if (cap) {
			size_t r = ZSTD_decompress(out->data, cap, in, frame);
			if (!ZSTD_isError(r)) {
				out->len = r;
				return NULL;
			}
		}
	}
	ZSTD_DStream *z = ZSTD_createDStream();
	if (!z)
		return _("cannot start the zstd decoder");
	/* The kernel packs with large windows (zstd -22 --ultra). */
	ZSTD_DCtx_setParameter(z, ZSTD_d_windowLogMax, 31);
	ZSTD_inBuffer ib = { in, len, 0 };
	const char *err = NULL;
	for (;;) {
		if (!out_reserve(out, &cap, 1 << 20)) {
			err = _("unpacks to more than 256 MiB");
			break;
		}
		ZSTD_outBuffer ob = { out->data, cap, out->len };
		size_t r = ZSTD_decompressStream(z, &ob, &ib);
		out->len = ob.pos;
		if (ZSTD_isError(r)) {
			err = _("corrupt zstd data");
			break;
		}
		if (r == 0)
			break;  /* the frame is whole; what follows is not ours */
		if (ib.pos == ib.size && ob.pos < ob.size) {
			err = _("truncated zstd data");
			break;
		}
	}
	ZSTD_freeDStream(z);
	return err;
}

static const char *unpack_gzip(const unsigned char *in, size_t len, Bytes *out,
			       size_t cap)
{
	z_stream s;
	memset(&s, 0, sizeof s);
	if (inflateInit2(&s, 16 + MAX_WBITS) != Z_OK)
		return _("cannot start the gzip decoder");
	s.next_in = (unsigned char *)in;
	const char *err = NULL;
	size_t left = len;
	for (;;) {
		if (!out_reserve(out, &cap, 1 << 20)) {
			err = _("unpacks to more than 256 MiB");
			break;
		}
		/* zlib counts in uInt */
		uInt in_chunk = left > (1u << 30) ? 1u << 30 : (uInt)left;
		size_t room = cap - out->len;
		s.avail_in = in_chunk;
		s.next_out = out->data + out->len;
		s.avail_out = room > (1u << 30) ? 1u << 30 : (uInt)room;
		uInt out_before = s.avail_out;
		int r = inflate(&s, Z_NO_FLUSH);
		left -= in_chunk - s.avail_in;
		out->len += out_before - s.avail_out;
		if (r == Z_STREAM_END)
			break;
		if (r != Z_OK && r != Z_BUF_ERROR) {
			err = _("corrupt gzip data");
			break;
		}
		if (left == 0 && s.avail_out != 0) {
			err = _("truncated gzip data");
			break;
		}
	}
	inflateEnd(&s);
	return err;
}

/* Unpack an xz, zstd or gzip stream (an ELF is copied as it is) into out;
 * NULL, or what went wrong.  size_hint is the unpacked size when known. */
static const char *unpack(const unsigned char *in, size_t len, size_t size_hint,
			  Bytes *out)
{
	out->data = NULL;
	out->len = 0;
	out->map = NULL;
	out->map_len = 0;
	size_t cap = 0;
	if (size_hint && size_hint <= UNPACK_LIMIT) {
		/* a little more than the hint, so a right hint ends the
		 * decoder without another growth */
		cap = size_hint + 4096;
		out->data = xrealloc_heap(NULL, cap);
	}
	const char *err;
	switch (packing_of(in, len)) {
	case PACK_XZ:
		err = unpack_xz(in, len, out, cap);
		break;
	case PACK_ZSTD:
		err = unpack_zstd(in, len, out, cap);
		break;
	case PACK_GZIP:
		err = unpack_gzip(in, len, out, cap);
		break;
	case PACK_ELF:
		out->data = xrealloc_heap(out->data, len ? len : 1);
		memcpy(out->data, in, len);
		out->len = len;
		return NULL;
	default:
		err = _("not packed with xz, zstd or gzip");
		break;
	}
	if (err)
		bytes_free(out);
	return err;
}

/* ================= ELF: the .BTF section and the build-id ================= */

static const char *hex_of(const unsigned char *p, size_t n)
{
	char *s = xalloc(2 * n + 1);
	for (size_t i = 0; i < n; i++)
		sprintf(s + 2 * i, "%02x", p[i]);
	return s;
}

/* The NT_GNU_BUILD_ID in a run of ELF notes (as /sys/kernel/notes has
 * them), in hex; NULL when none. */
static const char *build_id_in_notes(const unsigned char *p, size_t len)
{
	size_t off = 0;
	while (off + 12 <= len) {
		uint32_t namesz, descsz, type;
		memcpy(&namesz, p + off, 4);
		memcpy(&descsz, p + off + 4, 4);
		memcpy(&type, p + off + 8, 4);
		size_t name_off = off + 12;
		size_t desc_off = name_off + (((size_t)namesz + 3) & ~(size_t)3);
		size_t next = desc_off + (((size_t)descsz + 3) & ~(size_t)3);
		if (desc_off > len || next > len || next <= off)
			return NULL;
		if (type == NT_GNU_BUILD_ID && namesz == 4 &&
		    !memcmp(p + name_off, "GNU", 4) && descsz > 0)
			return hex_of(p + desc_off, descsz);
		off = next;
	}
	return NULL;
}

static const char *build_id_of_notes_file(const char *path)
{
	Bytes b;
	if (!read_bytes(path, &b))
		return NULL;
	const char *id = build_id_in_notes(b.data, b.len);
	bytes_free(&b);
	return id;
}

/* What an ELF image holds for us: its .BTF (a heap copy, or NULL when it
 * has none) and its build-id. */
typedef struct ElfBtf {
	Bytes btf;
	const char *build_id;
} ElfBtf;

/* false (with *why) when e is not an ELF file libelf can read. */
static bool elf_btf(Elf *e, ElfBtf *out, const char **why)
{
	memset(out, 0, sizeof *out);
	size_t shstrndx;
	if (!e || elf_kind(e) != ELF_K_ELF || elf_getshdrstrndx(e, &shstrndx) != 0) {
		*why = xsprintf(_("not an ELF file (%s)"), elf_errmsg(-1));
		return false;
	}
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn)) != NULL;) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			continue;
		const char *name = elf_strptr(e, shstrndx, sh.sh_name);
		if (sh.sh_type == SHT_NOTE && !out->build_id) {
			Elf_Data *d = elf_getdata(scn, NULL);
			GElf_Nhdr nh;
			size_t off = 0, name_off, desc_off;
			while (d && (off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
				if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
				    !memcmp((char *)d->d_buf + name_off, "GNU", 4) &&
				    nh.n_descsz > 0) {
					out->build_id = hex_of((unsigned char *)d->d_buf + desc_off,
							       nh.n_descsz);
					break;
				}
			}
		} else if (name && !strcmp(name, ".BTF") && sh.sh_type != SHT_NOBITS &&
			   !out->btf.data) {
			Elf_Data *d = elf_rawdata(scn, NULL);
			if (d && d->d_size) {
				out->btf.data = xrealloc_heap(NULL, d->d_size);
				memcpy(out->btf.data, d->d_buf, d->d_size);
				out->btf.len = d->d_size;
			}
		}
	}
	return true;
}

static bool elf_btf_of_memory(Bytes *image, ElfBtf *out, const char **why)
{
	elf_version(EV_CURRENT);
	Elf *e = elf_memory((char *)image->data, image->len);
	bool ok = elf_btf(e, out, why);
	if (e)
		elf_end(e);
	return ok;
}

/* A file that is an ELF image, packed or not (a .ko, .ko.xz, vmlinux). */
static bool elf_btf_of_file(const char *path, ElfBtf *out, const char **why)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		*why = xsprintf("%s: %s", path, strerror(errno));
		return false;
	}
	unsigned char magic[8] = { 0 };
	ssize_t n = pread(fd, magic, sizeof magic, 0);
	if (n >= SELFMAG && !memcmp(magic, ELFMAG, SELFMAG)) {
		/* as it is, and maybe big (a vmlinux with DWARF): mapped */
		elf_version(EV_CURRENT);
		Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
		bool ok = elf_btf(e, out, why);
		if (e)
			elf_end(e);
		close(fd);
		if (!ok)
			*why = xsprintf("%s: %s", path, *why);
		return ok;
	}
	close(fd);
	Bytes packed, image;
	if (!read_bytes(path, &packed)) {
		*why = xsprintf("%s: %s", path, strerror(errno));
		return false;
	}
	const char *err = unpack(packed.data, packed.len, 0, &image);
	bytes_free(&packed);
	if (err) {
		*why = xsprintf("%s: %s", path, err);
		return false;
	}
	bool ok = elf_btf_of_memory(&image, out, why);
	bytes_free(&image);
	if (!ok)
		*why = xsprintf("%s: %s", path, *why);
	return ok;
}

/* ================= the vmlinux inside a vmlinuz ================= */

static uint32_t le32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Where a bzImage's packed kernel is: the x86 boot header ("HdrS",
 * protocol 2.08 or later) says, at payload_offset and payload_length,
 * counted from the end of the setup sectors.  Other images: the first
 * xz, zstd or gzip magic.  false when there is neither. */
static bool find_payload(const unsigned char *p, size_t len, size_t *off, size_t *plen)
{
	if (len > 0x250 && !memcmp(p + 0x202, "HdrS", 4) &&
	    (p[0x206] | p[0x207] << 8) >= 0x208) {
		size_t setup = p[0x1f1] ? p[0x1f1] : 4;
		size_t base = (setup + 1) * 512;
		size_t o = base + le32(p + 0x248), l = le32(p + 0x24c);
		if (o < len && l <= len - o && packing_of(p + o, l) != PACK_NONE) {
			*off = o;
			*plen = l;
			return true;
		}
	}
	for (size_t i = 0; i + 6 <= len; i++) {
		Packing k = packing_of(p + i, len - i);
		if (k == PACK_XZ || k == PACK_ZSTD || k == PACK_GZIP) {
			*off = i;
			*plen = len - i;
			return true;
		}
	}
	return false;
}

/* ---- the vmlinux's .BTF and notes as the payload unpacks ----
 * An xz kernel unpacks through a 32 MiB dictionary into 65 MB: holding
 * the whole vmlinux doubled the peak memory (107 MB for 6.1).  Streamed,
 * only what is wanted is kept: the program headers (from the start) say
 * where the notes are; the .BTF is found by its header (magic 0xeB9F,
 * version 1, its lengths) as it goes by; the section headers, at the end,
 * confirm that a section is exactly there.  Anything unexpected gives up,
 * and the caller unpacks the whole image instead. */

#define HEAD_MAX 4096           /* the ELF header and program headers */
#define CANDS 4                 /* .BTF headers kept: the kernel embeds
				 * small BPF objects with their own */
#define GRABS_MAX (1 + CANDS + 6) /* section headers, .BTF, notes */
#define BTF_HDR 24              /* struct btf_header */

typedef struct Grab {
	uint64_t off, len;
	unsigned char *buf;
} Grab;

typedef struct Stream {
	uint64_t pos;           /* offset of the next byte fed */
	unsigned char head[HEAD_MAX];
	size_t head_len;
	bool parsed, bad;
	Grab grabs[GRABS_MAX];  /* [0]: section headers, [1..CANDS]: what
				 * may be the .BTF, then the notes */
	int ngrabs, ncands;
	unsigned char carry[BTF_HDR - 1]; /* the last bytes fed, for a .BTF
					   * header split across two feeds */
	size_t carry_len;
} Stream;

static uint16_t le16(const unsigned char *p)
{
	return p[0] | p[1] << 8;
}

static uint64_t le64(const unsigned char *p)
{
	return le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* Keep [off, off + len) in grabs[i]; off may be before the next byte
 * only by what the caller copies itself. */
static void grab_add(Stream *st, int i, uint64_t off, uint64_t len)
{
	if (len == 0 || len > (32u << 20) || off + BTF_HDR < st->pos) {
		st->bad = true;
		return;
	}
	st->grabs[i].off = off;
	st->grabs[i].len = len;
	st->grabs[i].buf = xrealloc_heap(NULL, len);
}

/* A .BTF header at absolute offset off: keep what follows, while there
 * is room for candidates (more of them: give up); callers check first
 * that the header's lengths are those of a real one. */
static void cand_add(Stream *st, uint64_t off, uint64_t len)
{
	if (len > (32u << 20))
		return;         /* no kernel's; bytes that look like a header */
	if (st->ncands == CANDS) {
		st->bad = true;
		return;
	}
	grab_add(st, 1 + st->ncands++, off, len);
}

/* The ELF header and program headers, once the head has them. */
static void stream_parse(Stream *st)
{
	const unsigned char *h = st->head;
	if (st->head_len < 64)
		return;
	if (memcmp(h, ELFMAG, SELFMAG) || h[EI_CLASS] != ELFCLASS64 ||
	    h[EI_DATA] != ELFDATA2LSB) {
		st->bad = true;
		return;
	}
	uint64_t phoff = le64(h + 32), shoff = le64(h + 40);
	unsigned phentsize = le16(h + 54), phnum = le16(h + 56);
	unsigned shentsize = le16(h + 58), shnum = le16(h + 60);
	if (phentsize < 56 || shentsize < 64 || phoff > HEAD_MAX ||
	    phnum > (HEAD_MAX - phoff) / phentsize) {
		st->bad = true;
		return;
	}
	if (st->head_len < phoff + (uint64_t)phnum * phentsize)
		return;         /* not all there yet */
	st->parsed = true;
	st->ngrabs = 1 + CANDS;
	grab_add(st, 0, shoff, (uint64_t)shnum * shentsize);
	for (unsigned i = 0; i < phnum && !st->bad; i++) {
		const unsigned char *ph = h + phoff + (uint64_t)i * phentsize;
		if (le32(ph) != PT_NOTE)
			continue;
		if (st->ngrabs == GRABS_MAX) {
			st->bad = true;
			break;
		}
		grab_add(st, st->ngrabs++, le64(ph + 8), le64(ph + 32));
	}
}

/* A .BTF header at p (24 bytes at absolute offset at): the .BTF's whole
 * length, or 0 when it is not one. */
static uint64_t btf_header_len(const unsigned char *p)
{
	if (le16(p) != 0xeB9F || p[2] != 1 || le32(p + 4) != BTF_HDR)
		return 0;
	uint64_t type_end = (uint64_t)le32(p + 8) + le32(p + 12);
	uint64_t str_end = (uint64_t)le32(p + 16) + le32(p + 20);
	return BTF_HDR + (type_end > str_end ? type_end : str_end);
}

static void stream_copy(Stream *st, const unsigned char *p, size_t n, uint64_t at)
{
	for (int i = 0; i < st->ngrabs; i++) {
		Grab *g = &st->grabs[i];
		if (!g->buf || at + n <= g->off || at >= g->off + g->len)
			continue;
		uint64_t from = at > g->off ? at : g->off;
		uint64_t to = at + n < g->off + g->len ? at + n : g->off + g->len;
		memcpy(g->buf + (from - g->off), p + (from - at), to - from);
	}
}

/* Look for .BTF headers in what starts at absolute offset at. */
static void stream_find_btf(Stream *st, const unsigned char *p, size_t n, uint64_t at)
{
	for (size_t i = 0; i + BTF_HDR <= n && !st->bad; i++) {
		if (p[i] != 0x9f || p[i + 1] != 0xeb)
			continue;
		uint64_t len = btf_header_len(p + i);
		if (len)
			cand_add(st, at + i, len);
	}
}

static void stream_feed(Stream *st, const unsigned char *p, size_t n)
{
	if (st->bad || n == 0)
		return;
	if (st->head_len < HEAD_MAX) {
		size_t k = n < HEAD_MAX - st->head_len ? n : HEAD_MAX - st->head_len;
		memcpy(st->head + st->head_len, p, k);
		st->head_len += k;
	}
	if (!st->parsed)
		stream_parse(st);
	if (st->parsed) {
		/* a header that began in the previous feed */
		unsigned char joint[2 * (BTF_HDR - 1)];
		size_t k = n < BTF_HDR - 1 ? n : BTF_HDR - 1;
		memcpy(joint, st->carry, st->carry_len);
		memcpy(joint + st->carry_len, p, k);
		uint64_t at = st->pos - st->carry_len;
		for (size_t i = 0; i < st->carry_len && !st->bad; i++) {
			uint64_t len = i + BTF_HDR <= st->carry_len + k && joint[i] == 0x9f
				? btf_header_len(joint + i) : 0;
			if (!len)
				continue;
			int before = st->ncands;
			cand_add(st, at + i, len);
			if (st->bad || st->ncands == before)
				continue;
			/* its first bytes, fed before */
			Grab *g = &st->grabs[st->ncands];
			memcpy(g->buf, joint + i, st->carry_len - i < len ? st->carry_len - i : len);
		}
		stream_find_btf(st, p, n, st->pos);
	}
	if (st->bad)
		return;
	stream_copy(st, p, n, st->pos);
	/* keep the last bytes for the next feed */
	if (n >= BTF_HDR - 1) {
		memcpy(st->carry, p + n - (BTF_HDR - 1), BTF_HDR - 1);
		st->carry_len = BTF_HDR - 1;
	} else {
		size_t keep = st->carry_len + n > BTF_HDR - 1 ? BTF_HDR - 1 - n : st->carry_len;
		memmove(st->carry, st->carry + st->carry_len - keep, keep);
		memcpy(st->carry + keep, p, n);
		st->carry_len = keep + n;
	}
	st->pos += n;
}

static void stream_free(Stream *st)
{
	for (int i = 0; i < GRABS_MAX; i++)
		free(st->grabs[i].buf);
}

/* What the stream found, when it all fits: a section of type PROGBITS
 * exactly where the .BTF is, and the notes' build-id. */
static bool stream_result(Stream *st, ElfBtf *out)
{
	if (st->bad || !st->parsed)
		return false;
	for (int i = 0; i < st->ngrabs; i++)    /* the image ended first */
		if (st->grabs[i].buf && st->grabs[i].off + st->grabs[i].len > st->pos &&
		    (i == 0 || i > CANDS))
			return false;
	Grab *sh = &st->grabs[0], *b = NULL;
	unsigned shentsize = le16(st->head + 58);
	for (uint64_t o = 0; o + shentsize <= sh->len && !b; o += shentsize) {
		const unsigned char *e = sh->buf + o;
		for (int c = 1; c <= st->ncands && !b; c++)
			if (le32(e + 4) == SHT_PROGBITS && le64(e + 24) == st->grabs[c].off &&
			    le64(e + 32) == st->grabs[c].len &&
			    st->grabs[c].off + st->grabs[c].len <= st->pos)
				b = &st->grabs[c];
	}
	if (!b)
		return false;   /* none, or a vmlinux without BTF: the slow way says */
	memset(out, 0, sizeof *out);
	for (int i = 1 + CANDS; i < st->ngrabs && !out->build_id; i++)
		out->build_id = build_id_in_notes(st->grabs[i].buf, st->grabs[i].len);
	if (!out->build_id)
		return false;   /* the section headers may know of notes */
	out->btf.data = b->buf;
	out->btf.len = b->len;
	b->buf = NULL;
	return true;
}

/* Unpack an xz or gzip payload through stream_feed, 1 MiB at a time.
 * false (the caller unpacks it whole) when the stream finds too little. */
static bool unpack_streamed(const unsigned char *in, size_t len, ElfBtf *out)
{
	Packing k = packing_of(in, len);
	if (k != PACK_XZ && k != PACK_GZIP)
		return false;
	size_t chunk = 1 << 20;
	unsigned char *buf = xrealloc_heap(NULL, chunk);
	Stream *st = xrealloc_heap(NULL, sizeof *st);
	memset(st, 0, sizeof *st);
	bool ended = false, failed = false;
	if (k == PACK_XZ) {
		lzma_stream z = LZMA_STREAM_INIT;
		failed = lzma_stream_decoder(&z, UINT64_MAX, 0) != LZMA_OK;
		z.next_in = in;
		z.avail_in = len;
		while (!failed && !ended && !st->bad && st->pos < UNPACK_LIMIT) {
			z.next_out = buf;
			z.avail_out = chunk;
			lzma_ret r = lzma_code(&z, LZMA_FINISH);
			stream_feed(st, buf, chunk - z.avail_out);
			ended = r == LZMA_STREAM_END;
			failed = r != LZMA_OK && r != LZMA_STREAM_END;
		}
		lzma_end(&z);
	} else {
		z_stream z;
		memset(&z, 0, sizeof z);
		failed = inflateInit2(&z, 16 + MAX_WBITS) != Z_OK ||
			 len > (1u << 30);  /* one call's input, in uInt */
		z.next_in = (unsigned char *)in;
		z.avail_in = len;
		while (!failed && !ended && !st->bad && st->pos < UNPACK_LIMIT) {
			z.next_out = buf;
			z.avail_out = chunk;
			int r = inflate(&z, Z_NO_FLUSH);
			stream_feed(st, buf, chunk - z.avail_out);
			ended = r == Z_STREAM_END;
			failed = (r != Z_OK && r != Z_STREAM_END) ||
				 (z.avail_in == 0 && z.avail_out == chunk && !ended);
		}
		inflateEnd(&z);
	}
	bool ok = ended && !failed && stream_result(st, out);
	stream_free(st);
	free(st);
	free(buf);
	return ok;
}

/* The vmlinux inside the image at path: its .BTF and build-id. */
static bool vmlinuz_btf(const char *path, ElfBtf *out, const char **why)
{
	Bytes z;
	if (!read_bytes(path, &z)) {
		*why = xsprintf("%s: %s", path, strerror(errno));
		return false;
	}
	if (packing_of(z.data, z.len) == PACK_ELF) {    /* a plain vmlinux */
		bool ok = elf_btf_of_memory(&z, out, why);
		bytes_free(&z);
		if (!ok)
			*why = xsprintf("%s: %s", path, *why);
		return ok;
	}
	size_t off, len;
	if (!find_payload(z.data, z.len, &off, &len)) {
		bytes_free(&z);
		*why = xsprintf(_("%s: no xz, zstd or gzip payload found in the image"), path);
		return false;
	}
	if (unpack_streamed(z.data + off, len, out)) {
		bytes_free(&z);
		return true;
	}
	/* The kernel's build appends the unpacked size to the payload. */
	size_t hint = len >= 4 ? le32(z.data + off + len - 4) : 0;
	Bytes image;
	const char *err = unpack(z.data + off, len, hint, &image);
	bytes_free(&z);
	if (err) {
		*why = xsprintf(_("%s: the packed kernel: %s"), path, err);
		return false;
	}
	bool ok = elf_btf_of_memory(&image, out, why);
	bytes_free(&image);
	if (!ok)
		*why = xsprintf(_("%s: the packed kernel: %s"), path, *why);
	return ok;
}

/* ---- the cache of what a vmlinuz holds ----
 * btf/IMAGE-KEY.btf: "TAPCBTF1", then little-endian u32s: the CRC-32 of
 * everything after it, the build-id's length, the .BTF's length; then the
 * build-id (hex text) and the .BTF bytes. */

#define CACHE_MAGIC "TAPCBTF1"
#define CACHE_HEAD 20

static const char *image_cache_path(const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return NULL;
	const char *dir = cache_subdir("btf");
	if (!dir)
		return NULL;
	Sha256 s;
	sha256_init(&s);
	hash_str(&s, "tapc btf cache 1");
	hash_str(&s, path);
	hash_str(&s, xsprintf("%lld %lld.%09ld %llu", (long long)st.st_size,
			      (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
			      (unsigned long long)st.st_ino));
	const char *base = strrchr(path, '/');
	return xsprintf("%s/%s-%s.btf", dir, base ? base + 1 : path, sha256_hex(&s, 16));
}

static void put_le32(unsigned char *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

/* The cache file, mapped: out->btf points into the mapping (libbpf
 * copies it once; read() and a copy of ours cost as much again). */
static bool cache_read(const char *cpath, ElfBtf *out)
{
	int fd = open(cpath, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	struct stat st;
	void *map = MAP_FAILED;
	if (fstat(fd, &st) == 0 && st.st_size >= CACHE_HEAD)
		map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return false;
	const unsigned char *p = map;
	size_t len = st.st_size;
	bool ok = false;
	if (!memcmp(p, CACHE_MAGIC, 8)) {
		uint32_t crc = le32(p + 8);
		size_t id_len = le32(p + 12), btf_len = le32(p + 16);
		ok = id_len <= 128 && btf_len <= len &&
		     CACHE_HEAD + id_len + btf_len == len &&
		     crc32(0, p + 12, len - 12) == crc;
		if (ok) {
			out->build_id = id_len ? xstrndup((char *)p + CACHE_HEAD, id_len) : NULL;
			memset(&out->btf, 0, sizeof out->btf);
			if (btf_len) {
				out->btf.data = (unsigned char *)p + CACHE_HEAD + id_len;
				out->btf.len = btf_len;
				out->btf.map = map;
				out->btf.map_len = len;
				return true;
			}
		}
	}
	munmap(map, len);
	return ok;
}

static void cache_write(const char *cpath, const ElfBtf *in)
{
	size_t id_len = in->build_id ? strlen(in->build_id) : 0;
	size_t len = CACHE_HEAD + id_len + in->btf.len;
	unsigned char *buf = xrealloc_heap(NULL, len);
	memcpy(buf, CACHE_MAGIC, 8);
	put_le32(buf + 12, id_len);
	put_le32(buf + 16, in->btf.len);
	if (id_len)
		memcpy(buf + CACHE_HEAD, in->build_id, id_len);
	if (in->btf.len)
		memcpy(buf + CACHE_HEAD + id_len, in->btf.data, in->btf.len);
	put_le32(buf + 8, crc32(0, buf + 12, len - 12));
	if (!write_file_atomic(cpath, (char *)buf, len))
		verbose(1, _("cannot cache the kernel's BTF as %s: %s\n"), cpath,
			strerror(errno));
	free(buf);
	/* what an older file of the same name had is stale now */
	const char *slash = strrchr(cpath, '/'), *dash = strrchr(cpath, '-');
	char *dir = xstrndup(cpath, slash - cpath);
	size_t stem = dash - (slash + 1) + 1;      /* "vmlinuz-RELEASE-" */
	DIR *d = opendir(dir);
	struct dirent *de;
	while (d && (de = readdir(d)))
		if (!strncmp(de->d_name, slash + 1, stem) && strcmp(de->d_name, slash + 1) &&
		    strlen(de->d_name) == strlen(slash + 1))
			unlink(xsprintf("%s/%s", dir, de->d_name));
	if (d)
		closedir(d);
}

/* What read() finds in the file at path, from the cache when it has
 * it, else read and cached. */
static bool btf_cached(const char *path, ElfBtf *out, const char **why,
		       bool (*read)(const char *, ElfBtf *, const char **))
{
	const char *cpath = image_cache_path(path);
	if (cpath && cache_read(cpath, out)) {
		verbose(2, "BTF of %s from %s\n", path, cpath);
		return true;
	}
	if (!read(path, out, why))
		return false;
	if (cpath)
		cache_write(cpath, out);
	return true;
}

static bool vmlinuz_btf_cached(const char *path, ElfBtf *out, const char **why)
{
	return btf_cached(path, out, why, vmlinuz_btf);
}

/* A module's file: a packed one (.ko.xz: ~50 ms to unpack) through the
 * cache, a plain .ko mapped as it is (~1 ms). */
static bool module_btf_of_file(const char *path, ElfBtf *out, const char **why)
{
	unsigned char magic[SELFMAG] = { 0 };
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool plain = fd >= 0 && read(fd, magic, SELFMAG) == SELFMAG &&
		     !memcmp(magic, ELFMAG, SELFMAG);
	if (fd >= 0)
		close(fd);
	return plain ? elf_btf_of_file(path, out, why)
		     : btf_cached(path, out, why, elf_btf_of_file);
}

/* ================= the target kernel's image ================= */

/* One more place looked in, "PATH: why", for a message. */
static void looked_add(StrBuf *sb, const char *what)
{
	sb_printf(sb, "%s%s", sb->len ? "; " : "", what);
}

static const char *sys_btf(const char *name)
{
	return xsprintf("/sys/kernel/btf/%s", name);
}

/* The vmlinux or vmlinuz of the target that is not the running kernel,
 * read once: its .BTF (NULL when it has none) and build-id. */
typedef struct Image {
	bool done;
	const char *path;       /* the file read, or NULL */
	const char *build_id;
	Bytes btf;
	const char *why;        /* why btf is NULL: "PATH: why; ..." */
} Image;

static Image image;

static const Image *target_image(void)
{
	if (image.done)
		return &image;
	image.done = true;
	StrBuf looked = { 0 };
	Vec tries = { 0 };
	if (sess.kernel_build_dir)
		vec_push(&tries, xsprintf("%s/vmlinux", sess.kernel_build_dir));
	vec_push(&tries, xsprintf("/boot/vmlinuz-%s", target_release()));
	for (int i = 0; i < tries.len; i++) {
		const char *p = tries.data[i], *err = NULL;
		ElfBtf eb;
		if (access(p, F_OK) != 0) {
			looked_add(&looked, xsprintf("%s: %s", p, strerror(errno)));
			continue;
		}
		bool ok = i == 0 && sess.kernel_build_dir ? elf_btf_of_file(p, &eb, &err)
							  : vmlinuz_btf_cached(p, &eb, &err);
		if (!ok) {
			looked_add(&looked, err);
			continue;
		}
		/* the build-id is the first image's (-r DIR: DIR/vmlinux);
		 * the BTF may come from the next one when it has none */
		if (!image.path) {
			image.path = p;
			image.build_id = eb.build_id;
		}
		if (!eb.btf.data) {
			looked_add(&looked, xsprintf(_("%s: no .BTF section"), p));
			continue;
		}
		image.path = p;
		image.btf = eb.btf;
		break;
	}
	if (!image.btf.data)
		image.why = xstrdup(sb_cstr(&looked));
	sb_free(&looked);
	return &image;
}

const char *kernel_image_build_id(void)
{
	static const char *running;
	static bool running_read;
	if (!target_is_running_kernel())
		return target_image()->build_id;
	if (!running_read) {
		running_read = true;
		running = build_id_of_notes_file("/sys/kernel/notes");
		if (!running)   /* no sysfs (a chroot): the image in /boot */
			running = target_image()->build_id;
	}
	return running;
}

/* ================= module files ================= */

static const char *norm_module(const char *name)
{
	char *s = xstrdup(name);
	for (char *p = s; *p; p++)
		if (*p == '-')
			*p = '_';
	return intern(s);
}

/* The module name of a path: ".../ext4.ko.xz" -> "ext4". */
static const char *module_name_of_path(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	const char *ko = strstr(base, ".ko");
	if (!ko || (ko[3] && ko[3] != '.'))
		return NULL;
	return norm_module(xstrndup(base, ko - base));
}

static Vec mod_names, mod_paths;  /* interned names, paths */
static bool mods_read;

static void module_found(const char *name, const char *path)
{
	vec_push(&mod_names, (void *)name);
	vec_push(&mod_paths, (void *)path);
}

/* Every module file under dir, for a tree without modules.dep. */
static void walk_modules(const char *dir, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	while (d && depth < 16 && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		const char *p = xsprintf("%s/%s", dir, de->d_name);
		const char *name = module_name_of_path(p);
		if (name && de->d_type != DT_DIR)
			module_found(name, p);
		else if (de->d_type == DT_DIR || (de->d_type == DT_UNKNOWN && is_dir(p)))
			walk_modules(p, depth + 1);
	}
	if (d)
		closedir(d);
}

/* Lines "path: deps" (modules.dep) or "path" (a build tree's
 * modules.order, where a path may end in .o).  false when there is no
 * such file. */
static bool read_module_list(const char *dir, const char *file)
{
	Bytes b;
	if (!read_bytes(xsprintf("%s/%s", dir, file), &b))
		return false;
	char *text = xstrndup((char *)b.data, b.len);
	bytes_free(&b);
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		line[strcspn(line, ":")] = 0;
		size_t n = strlen(line);
		if (n > 2 && !strcmp(line + n - 2, ".o"))
			line = xsprintf("%.*s.ko", (int)(n - 2), line);
		const char *name = module_name_of_path(line);
		if (name)
			module_found(name, line[0] == '/' ? line : xsprintf("%s/%s", dir, line));
	}
	return true;
}

const char *kernel_module_file(const char *module)
{
	if (!mods_read) {
		mods_read = true;
		if (sess.kernel_build_dir)
			read_module_list(sess.kernel_build_dir, "modules.order");
		const char *lib = xsprintf("/lib/modules/%s", target_release());
		if (!read_module_list(lib, "modules.dep")) {
			walk_modules(xsprintf("%s/kernel", lib), 0);
			walk_modules(xsprintf("%s/updates", lib), 0);
		}
	}
	const char *want = norm_module(module);
	for (int i = 0; i < mod_names.len; i++)
		if (mod_names.data[i] == want && access(mod_paths.data[i], R_OK) == 0)
			return mod_paths.data[i];
	return NULL;
}

/* Module build-ids read so far (a .ko.xz is unpacked once): pairs of
 * an interned name and its build-id (NULL: none could be read). */
static Vec module_ids;

static void module_id_note(const char *name, const char *id)
{
	vec_push(&module_ids, (void *)name);
	vec_push(&module_ids, (void *)id);
}

const char *kernel_module_build_id(const char *module)
{
	const char *name = norm_module(module);
	for (int i = 0; i < module_ids.len; i += 2)
		if (module_ids.data[i] == name)
			return module_ids.data[i + 1];
	const char *id = NULL;
	if (target_is_running_kernel())
		id = build_id_of_notes_file(
			xsprintf("/sys/module/%s/notes/.note.gnu.build-id", name));
	const char *path = id ? NULL : kernel_module_file(name), *why;
	ElfBtf eb;
	if (path && module_btf_of_file(path, &eb, &why)) {
		bytes_free(&eb.btf);
		id = eb.build_id;
	}
	module_id_note(name, id);
	return id;
}

/* ================= BTF sets: the kernel's and each module's ================= */

typedef struct BtfSet {
	const char *module;     /* interned, '_' form; NULL: the kernel */
	struct btf *btf;        /* NULL when there is none */
	const char *path;       /* where it was read from */
	const char *why;        /* when btf is NULL */
	uint32_t first_id;      /* the first id of its own (split: past the base) */
	uint32_t end_id;        /* one past the last */
	DiType **types;         /* converted, indexed by id - first_id */
	DiFunction **funcs;     /* likewise, for BTF_KIND_FUNC ids */
	bool *busy;             /* being converted (an alias loop guard) */
	uint32_t *index;        /* its named types' ids, by name (find_named) */
	uint32_t index_mask;
	int lookups;            /* by name, before the index was built */
	uint32_t *func_ids;     /* its BTF_KIND_FUNC ids (btf_functions) */
	const char **func_names; /* and their names (libbpf's strings) */
	uint32_t nfuncs;
} BtfSet;

static BtfSet kernel_set;
static bool kernel_tried;
static Vec module_sets;         /* BtfSet * */

static int libbpf_say(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	char buf[512];
	vsnprintf(buf, sizeof buf, fmt, ap);
	verbose(2, "libbpf: %s", buf);
	return 0;
}

static void set_ready(BtfSet *s, struct btf *b)
{
	s->btf = b;
	const struct btf *base = btf__base_btf(b);
	s->first_id = base ? btf__type_cnt(base) : 1;
	s->end_id = btf__type_cnt(b);
	size_t n = s->end_id > s->first_id ? s->end_id - s->first_id : 1;
	s->types = xrealloc_heap(NULL, n * sizeof *s->types);
	s->funcs = xrealloc_heap(NULL, n * sizeof *s->funcs);
	s->busy = xrealloc_heap(NULL, n * sizeof *s->busy);
	memset(s->types, 0, n * sizeof *s->types);
	memset(s->funcs, 0, n * sizeof *s->funcs);
	memset(s->busy, 0, n * sizeof *s->busy);
}

/* Split BTF from bytes.  Debian's libbpf 1.1 does not export
 * btf__new_split, so the bytes go through a memory file (else a
 * temporary one) to btf__parse_raw_split. */
static struct btf *split_of_bytes(const Bytes *b, struct btf *base)
{
	int fd = memfd_create("tapc-btf", MFD_CLOEXEC);
	const char *tmp = NULL;
	if (fd < 0) {
		const char *dir = getenv("TMPDIR");
		char *t = xsprintf("%s/tapc-btf.XXXXXX", dir && *dir ? dir : "/tmp");
		fd = mkstemp(t);
		tmp = t;
	}
	if (fd < 0)
		return NULL;
	struct btf *r = NULL;
	size_t done = 0;
	while (done < b->len) {
		ssize_t n = write(fd, b->data + done, b->len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		done += n;
	}
	if (done == b->len)
		r = btf__parse_raw_split(tmp ? tmp : xsprintf("/proc/self/fd/%d", fd), base);
	int e = errno;
	close(fd);
	if (tmp)
		unlink(tmp);
	errno = e;
	return r;
}

static struct btf *btf_of_bytes(const Bytes *b, struct btf *base, const char **why,
				const char *path)
{
	struct btf *r = base ? split_of_bytes(b, base) : btf__new(b->data, b->len);
	if (!r)
		*why = xsprintf(_("%s: its .BTF does not parse (%s)"), path,
				strerror(errno));
	return r;
}

static BtfSet *kernel_btf(void)
{
	if (kernel_tried)
		return &kernel_set;
	kernel_tried = true;
	libbpf_set_print(libbpf_say);
	const char *why = NULL;
	StrBuf looked = { 0 };
	if (target_is_running_kernel()) {
		const char *p = sys_btf("vmlinux");
		struct btf *b = btf__parse_raw(p);
		if (b) {
			kernel_set.path = p;
			set_ready(&kernel_set, b);
			return &kernel_set;
		}
		looked_add(&looked, xsprintf("%s: %s", p, strerror(errno)));
	}
	const Image *im = target_image();
	if (im->btf.data) {
		struct btf *b = btf_of_bytes(&im->btf, NULL, &why, im->path);
		bytes_free(&image.btf);         /* libbpf has its copy */
		if (b) {
			kernel_set.path = im->path;
			set_ready(&kernel_set, b);
			return &kernel_set;
		}
		looked_add(&looked, why);
	} else {
		looked_add(&looked, im->why);
	}
	kernel_set.why = xsprintf(_("no BTF for kernel %s (%s)"),
				  target_release(), sb_cstr(&looked));
	sb_free(&looked);
	return &kernel_set;
}

static BtfSet *module_btf(const char *module)
{
	const char *name = norm_module(module);
	for (int i = 0; i < module_sets.len; i++) {
		BtfSet *s = module_sets.data[i];
		if (s->module == name)
			return s;
	}
	BtfSet *s = NEW(BtfSet);
	s->module = name;
	vec_push(&module_sets, s);
	BtfSet *k = kernel_btf();
	if (!k->btf) {
		s->why = xsprintf(_("no BTF for module %s: %s"), module, k->why);
		return s;
	}
	StrBuf looked = { 0 };
	if (target_is_running_kernel()) {
		const char *p = sys_btf(name);
		struct btf *b = btf__parse_raw_split(p, k->btf);
		if (b) {
			s->path = p;
			set_ready(s, b);
			return s;
		}
		looked_add(&looked, xsprintf("%s: %s", p, strerror(errno)));
	}
	const char *file = kernel_module_file(name), *why = NULL;
	ElfBtf eb;
	if (!file) {
		looked_add(&looked, xsprintf(_("/lib/modules/%s: no file of it"),
					     target_release()));
	} else if (!module_btf_of_file(file, &eb, &why)) {
		looked_add(&looked, why);
	} else if (module_id_note(name, eb.build_id), !eb.btf.data) {
		looked_add(&looked, xsprintf(_("%s: no .BTF section"), file));
	} else {
		struct btf *b = btf_of_bytes(&eb.btf, k->btf, &why, file);
		bytes_free(&eb.btf);
		if (b) {
			s->path = file;
			set_ready(s, b);
			sb_free(&looked);
			return s;
		}
		looked_add(&looked, why);
	}
	s->why = xsprintf(_("no BTF for module %s (%s)"), module, sb_cstr(&looked));
	sb_free(&looked);
	return s;
}

static BtfSet *set_of(const DiModule *m)
{
	if (!m || m->kind == DI_KERNEL)
		return kernel_btf();
	return module_btf(m->name);
}

bool btf_open(const char *module, DiModule *m, const char **why)
{
	BtfSet *s = module ? module_btf(module) : kernel_btf();
	if (!s->btf) {
		*why = s->why;
		return false;
	}
	memset(m, 0, sizeof *m);
	m->kind = module ? DI_KMODULE : DI_KERNEL;
	m->name = module ? s->module : intern("kernel");
	m->debug_path = s->path;
	if (module) {
		m->path = kernel_module_file(module);
		m->build_id = kernel_module_build_id(module);
	} else {
		m->path = target_is_running_kernel() ? NULL : target_image()->path;
		m->build_id = kernel_image_build_id();
	}
	return true;
}

/* ================= types ================= */

static const char *btf_name(const BtfSet *s, uint32_t off)
{
	const char *n = btf__name_by_offset(s->btf, off);
	return n && *n ? intern(n) : NULL;
}

static const DiType *convert(BtfSet *s, uint32_t id);

static DiTypeKind kind_of(const struct btf_type *t)
{
	switch (btf_kind(t)) {
	case BTF_KIND_INT: return DI_TYPE_INT;
	case BTF_KIND_FLOAT: return DI_TYPE_FLOAT;
	case BTF_KIND_ENUM: case BTF_KIND_ENUM64: return DI_TYPE_ENUM;
	case BTF_KIND_PTR: return DI_TYPE_POINTER;
	case BTF_KIND_ARRAY: return DI_TYPE_ARRAY;
	case BTF_KIND_STRUCT: return DI_TYPE_STRUCT;
	case BTF_KIND_UNION: return DI_TYPE_UNION;
	case BTF_KIND_TYPEDEF: return DI_TYPE_TYPEDEF;
	case BTF_KIND_CONST: return DI_TYPE_CONST;
	case BTF_KIND_VOLATILE: return DI_TYPE_VOLATILE;
	case BTF_KIND_RESTRICT: return DI_TYPE_RESTRICT;
	case BTF_KIND_FUNC_PROTO: return DI_TYPE_FUNC;
	case BTF_KIND_FWD: return DI_TYPE_FWD;
	default: return DI_TYPE_VOID;
	}
}

/* void, where a pointer, typedef or qualifier has it as its target (as
 * dwarf.c has it: a target is never NULL but for a function's return). */
static const DiType *void_type(void)
{
	static DiType v;
	if (!v.name) {
		v.kind = DI_TYPE_VOID;
		v.name = intern("void");
		v.count = -1;
	}
	return &v;
}

/* The target of a pointer, typedef or qualifier. */
static const DiType *target_of(BtfSet *s, uint32_t id)
{
	const DiType *t = convert(s, id);
	return t ? t : void_type();
}

/* Room for n items at once, so a 200-member struct does not grow its
 * Vec six times through the arena. */
static void vec_reserve(Vec *v, int n)
{
	if (n > v->cap) {
		void **nd = xalloc(sizeof(void *) * n);
		if (v->len)
			memcpy(nd, v->data, sizeof(void *) * v->len);
		v->data = nd;
		v->cap = n;
	}
}

/* The parts of t: members, enumerators, parameters, targets. */
static void fill_type(BtfSet *s, DiType *d, const struct btf_type *t)
{
	int vlen = btf_vlen(t);
	if (btf_is_composite(t) || btf_is_func_proto(t))
		vec_reserve(&d->members, vlen);
	else if (btf_is_any_enum(t))
		vec_reserve(&d->enumerators, vlen);
	switch (btf_kind(t)) {
	case BTF_KIND_INT:
		d->is_signed = btf_int_encoding(t) & BTF_INT_SIGNED;
		break;
	case BTF_KIND_ENUM: {
		const struct btf_enum *e = btf_enum(t);
		/* kflag: signed values (BTF of 6.0 and later); before it,
		 * an enum with a negative value was signed */
		bool sign = btf_kflag(t);
		for (int i = 0; i < vlen; i++)
			sign |= e[i].val < 0;
		d->is_signed = sign;
		for (int i = 0; i < vlen; i++) {
			DiEnumerator *en = NEW(DiEnumerator);
			en->name = btf_name(s, e[i].name_off);
			en->value = sign ? (int64_t)e[i].val : (int64_t)(uint32_t)e[i].val;
			vec_push(&d->enumerators, en);
		}
		break;
	}
	case BTF_KIND_ENUM64: {
		const struct btf_enum64 *e = btf_enum64(t);
		d->is_signed = btf_kflag(t);
		for (int i = 0; i < vlen; i++) {
			DiEnumerator *en = NEW(DiEnumerator);
			en->name = btf_name(s, e[i].name_off);
			en->value = (int64_t)btf_enum64_value(&e[i]);
			vec_push(&d->enumerators, en);
		}
		break;
	}
	case BTF_KIND_PTR:
		d->size = btf__pointer_size(s->btf) ? btf__pointer_size(s->btf) : 8;
		d->target = target_of(s, t->type);
		break;
	case BTF_KIND_ARRAY: {
		const struct btf_array *a = btf_array(t);
		d->target = convert(s, a->type);
		/* BTF writes both [] and [0] as 0 elements: flexible
		 * (a struct's other members make it [0], below) */
		d->count = a->nelems ? (int64_t)a->nelems : -1;
		break;
	}
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION: {
		const struct btf_member *mb = btf_members(t);
		for (int i = 0; i < vlen; i++) {
			DiMember *m = NEW(DiMember);
			m->name = btf_name(s, mb[i].name_off);
			m->type = convert(s, mb[i].type);
			/* BTF writes [0] and [] alike; only the last member
			 * can be a flexible array, so another one is [0] */
			if (m->type && m->type->kind == DI_TYPE_ARRAY && m->type->count < 0 &&
			    i < vlen - 1 && btf_is_struct(t)) {
				DiType *zero = NEW(DiType);
				*zero = *m->type;
				zero->count = 0;
				m->type = zero;
			}
			m->bit_offset = btf_member_bit_offset(t, i);
			m->bit_size = btf_member_bitfield_size(t, i);
			/* Without kflag a bitfield is an int whose encoding
			 * has fewer bits than its size. */
			const struct btf_type *mt = btf__type_by_id(s->btf, mb[i].type);
			if (!btf_kflag(t) && mt && btf_is_int(mt) &&
			    btf_int_bits(mt) != mt->size * 8) {
				m->bit_size = btf_int_bits(mt);
				m->bit_offset += btf_int_offset(mt);
			}
			vec_push(&d->members, m);
		}
		break;
	}
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_CONST:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT:
		d->target = target_of(s, t->type);
		break;
	case BTF_KIND_FUNC_PROTO: {
		d->target = convert(s, t->type);
		const struct btf_param *p = btf_params(t);
		for (int i = 0; i < vlen; i++)
			if (p[i].type)          /* 0: the "..." of a varargs function */
				vec_push(&d->members, (void *)convert(s, p[i].type));
		break;
	}
	default:
		break;
	}
}

/* The DiType of id; NULL for void and for what is not a type (a
 * function, a variable, a section). */
static const DiType *convert(BtfSet *s, uint32_t id)
{
	if (id == 0)
		return NULL;
	if (id < s->first_id && s->module)
		return convert(kernel_btf(), id);
	if (id < s->first_id || id >= s->end_id)
		return NULL;
	uint32_t i = id - s->first_id;
	if (s->types[i] || s->busy[i])
		return s->types[i];
	const struct btf_type *t = btf__type_by_id(s->btf, id);
	if (!t)
		return NULL;
	switch (btf_kind(t)) {
	case BTF_KIND_TYPE_TAG:
		/* an attribute (__user, __rcu): the type it tags.  busy
		 * stops a loop of tags, which only bad BTF has */
		s->busy[i] = true;
		s->types[i] = (DiType *)convert(s, t->type);
		s->busy[i] = false;
		return s->types[i];
	case BTF_KIND_FUNC:
		return convert(s, t->type);
	case BTF_KIND_VAR: case BTF_KIND_DATASEC: case BTF_KIND_DECL_TAG:
		return NULL;
	default:
		break;
	}
	DiType *d = NEW(DiType);
	d->kind = kind_of(t);
	d->name = btf_name(s, t->name_off);
	d->count = -1;
	s->types[i] = d;        /* before its parts: a pointer may lead back */
	fill_type(s, d, t);
	if (d->kind != DI_TYPE_POINTER && d->kind != DI_TYPE_FUNC &&
	    d->kind != DI_TYPE_FWD) {
		int64_t sz = btf__resolve_size(s->btf, id);
		d->size = sz > 0 ? (uint64_t)sz : 0;
	}
	return d;
}

/* The names of a set's own types, hashed (FNV-1a, open addressing), so
 * a lookup by name does not walk the ~130000 types of a kernel: built on
 * the first lookup (a few ms), 0 marks a free slot. */
static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static void build_name_index(BtfSet *s)
{
	uint32_t n = 0;
	for (uint32_t id = s->first_id; id < s->end_id; id++)
		n += btf__type_by_id(s->btf, id)->name_off != 0;
	uint32_t size = 1024;
	while (size < 2 * n)
		size *= 2;
	s->index = xrealloc_heap(NULL, size * sizeof *s->index);
	memset(s->index, 0, size * sizeof *s->index);
	s->index_mask = size - 1;
	for (uint32_t id = s->first_id; id < s->end_id; id++) {
		const struct btf_type *t = btf__type_by_id(s->btf, id);
		if (!t->name_off)
			continue;
		uint32_t h = name_hash(btf__name_by_offset(s->btf, t->name_off));
		while (s->index[h & s->index_mask])
			h++;
		s->index[h & s->index_mask] = id;
	}
}

/* What a lookup by name is after, and the best it found so far. */
typedef struct NameQuery {
	const char *name;
	const int *kinds;       /* in order of preference */
	int nkinds;
	int fwd_kflag;          /* a FWD of this kflag will do, or -1 */
	uint32_t best, fwd;     /* the lowest id of the best kind; a FWD */
	int rank;
} NameQuery;

static void consider(const BtfSet *s, uint32_t id, NameQuery *q)
{
	const struct btf_type *t = btf__type_by_id(s->btf, id);
	int k = btf_kind(t), rank = q->nkinds;
	bool fwd = q->fwd_kflag >= 0 && k == BTF_KIND_FWD && btf_kflag(t) == q->fwd_kflag;
	for (int j = 0; j < q->nkinds && !fwd; j++)
		if (q->kinds[j] == k)
			rank = j;
	if (!fwd && (rank > q->rank || (rank == q->rank && (rank == q->nkinds || id > q->best))))
		return;
	if (!t->name_off || strcmp(btf__name_by_offset(s->btf, t->name_off), q->name))
		return;
	if (fwd) {
		if (!q->fwd || id < q->fwd)
			q->fwd = id;
	} else {
		q->best = id;
		q->rank = rank;
	}
}

/* The id among s's own types of the type named name whose kind comes
 * first in kinds (the lowest id of those); 0 when none.  With fwd_kflag
 * 0 (struct) or 1 (union), a declaration (FWD) of that kind does when no
 * definition is there.  The first few lookups walk the types (~1 ms);
 * after them the names are hashed (~6 ms once, then ~µs a lookup). */
static uint32_t find_named(BtfSet *s, const char *name, const int *kinds, int nkinds,
			   int fwd_kflag)
{
	NameQuery q = { name, kinds, nkinds, fwd_kflag, 0, 0, nkinds };
	if (!s->index && ++s->lookups > 4)
		build_name_index(s);
	if (!s->index) {
		for (uint32_t id = s->first_id; id < s->end_id; id++)
			consider(s, id, &q);
	} else {
		for (uint32_t h = name_hash(name);; h++) {
			uint32_t id = s->index[h & s->index_mask];
			if (!id)
				break;
			consider(s, id, &q);
		}
	}
	return q.best ? q.best : q.fwd;
}

const DiType *btf_find_type(const DiModule *m, const char *name)
{
	BtfSet *s = set_of(m);
	if (!s->btf || !name)
		return NULL;
	while (*name == ' ' || *name == '\t')
		name++;
	static const int struct_k[] = { BTF_KIND_STRUCT };
	static const int union_k[] = { BTF_KIND_UNION };
	static const int enum_k[] = { BTF_KIND_ENUM, BTF_KIND_ENUM64 };
	static const int bare_k[] = { BTF_KIND_TYPEDEF, BTF_KIND_INT, BTF_KIND_FLOAT,
				      BTF_KIND_STRUCT, BTF_KIND_UNION, BTF_KIND_ENUM,
				      BTF_KIND_ENUM64 };
	const int *kinds = bare_k;
	int nkinds = sizeof bare_k / sizeof bare_k[0], fwd = -1;
	if (!strncmp(name, "struct ", 7)) {
		kinds = struct_k, nkinds = 1, fwd = 0, name += 7;
	} else if (!strncmp(name, "union ", 6)) {
		kinds = union_k, nkinds = 1, fwd = 1, name += 6;
	} else if (!strncmp(name, "enum ", 5)) {
		kinds = enum_k, nkinds = 2, name += 5;
	}
	while (*name == ' ')
		name++;
	char *want = xstrdup(name);
	for (size_t n = strlen(want); n && want[n - 1] == ' '; n--)
		want[n - 1] = 0;
	if (!strcmp(want, "void"))
		return void_type();
	/* a module's own types first, then the kernel's it is split on */
	uint32_t id = find_named(s, want, kinds, nkinds, fwd);
	if (!id && s->module) {
		BtfSet *k = kernel_btf();
		id = find_named(k, want, kinds, nkinds, fwd);
		return id ? convert(k, id) : NULL;
	}
	return id ? convert(s, id) : NULL;
}

/* ================= functions ================= */

/* The type behind typedefs and qualifiers (a bounded walk). */
static const DiType *strip(const DiType *t)
{
	for (int n = 0; t && n < 64; n++) {
		if (t->kind != DI_TYPE_TYPEDEF && t->kind != DI_TYPE_CONST &&
		    t->kind != DI_TYPE_VOLATILE && t->kind != DI_TYPE_RESTRICT)
			return t;
		t = t->target;
	}
	return t;
}

/* How many general registers an argument of type t takes (0: it goes on
 * the stack or in SSE registers), and whether it is a scalar one
 * register holds whole, so that DI_LOC_REG says where it is.  Kernel
 * structs are all of the integer class: one of up to 16 bytes goes in
 * one or two registers, a bigger one on the stack. */
static int arg_regs_needed(const DiType *t, bool *in_one_reg)
{
	t = strip(t);
	*in_one_reg = false;
	if (!t)
		return 1;
	switch (t->kind) {
	case DI_TYPE_INT:
	case DI_TYPE_ENUM:
	case DI_TYPE_POINTER:
		*in_one_reg = t->size <= 8;
		return t->size > 8 ? 2 : 1;
	case DI_TYPE_STRUCT:
	case DI_TYPE_UNION:
		return t->size == 0 || t->size > 16 ? 0 : (int)((t->size + 7) / 8);
	default:
		return 0;               /* float: SSE */
	}
}

static DiFunction *make_function(BtfSet *s, const DiModule *m, uint32_t id,
				 const struct btf_type *t)
{
	DiFunction *f = NEW(DiFunction);
	f->name = btf_name(s, t->name_off);
	f->module = m;
	/* FUNC: vlen is the linkage, which pahole writes static for
	 * nearly every kernel function */
	f->external = btf_vlen(t) == BTF_FUNC_GLOBAL;
	const struct btf_type *proto = btf__type_by_id(s->btf, t->type);
	if (!proto || !btf_is_func_proto(proto))
		return f;
	f->ret = convert(s, proto->type);
	const struct btf_param *p = btf_params(proto);
	vec_reserve(&f->params, btf_vlen(proto));
	/* the integer arguments' registers of the target (arch/) */
	const Arch *arch = arch_target();
	int used = 0, nregs = arch->narg_regs;
	for (int i = 0; i < btf_vlen(proto); i++) {
		if (!p[i].type)
			break;          /* "..." */
		DiVariable *v = NEW(DiVariable);
		v->name = btf_name(s, p[i].name_off);
		v->type = convert(s, p[i].type);
		v->is_param = true;
		v->loc.kind = DI_LOC_NONE;
		bool one;
		int need = arg_regs_needed(v->type, &one);
		/* an argument that does not fit in what is left goes on the
		 * stack whole, and the registers stay for the next ones */
		if (need && used + need <= nregs) {
			if (one) {
				v->loc.kind = DI_LOC_REG;
				v->loc.reg = arch->arg_regs[used];
			}
			used += need;
		}
		/* An unnamed parameter cannot be named by a script; it still
		 * takes its register above. */
		if (v->name)
			vec_push(&f->params, v);
	}
	return f;
}

static bool has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

static int cmp_function_name(const void *a, const void *b)
{
	const DiFunction *x = *(const DiFunction *const *)a, *y = *(const DiFunction *const *)b;
	return strcmp(x->name, y->name);
}

Vec btf_functions(const DiModule *m, const char *func_glob)
{
	Vec out = { 0 };
	BtfSet *s = set_of(m);
	if (!s->btf || !func_glob)
		return out;
	/* A name: the name hash (a probe point each, scripts with many of
	 * them).  A glob: every function, by the list of their ids. */
	if (!has_glob(func_glob)) {
		static const int func_k[] = { BTF_KIND_FUNC };
		uint32_t id = find_named(s, func_glob, func_k, 1, -1);
		if (id) {
			uint32_t i = id - s->first_id;
			if (!s->funcs[i])
				s->funcs[i] = make_function(s, m, id, btf__type_by_id(s->btf, id));
			vec_push(&out, s->funcs[i]);
		}
		return out;
	}
	if (!s->func_ids) {
		size_t most = s->end_id - s->first_id + 1;
		s->func_ids = xrealloc_heap(NULL, sizeof *s->func_ids * most);
		s->func_names = xrealloc_heap(NULL, sizeof *s->func_names * most);
		for (uint32_t id = s->first_id; id < s->end_id; id++) {
			const struct btf_type *t = btf__type_by_id(s->btf, id);
			const char *n = btf_is_func(t) && t->name_off
				? btf__name_by_offset(s->btf, t->name_off) : NULL;
			if (n) {
				s->func_ids[s->nfuncs] = id;
				s->func_names[s->nfuncs++] = n;
			}
		}
	}
	/* the literal part before the first wildcard rules out most names
	 * without fnmatch */
	size_t lit = strcspn(func_glob, "*?[\\");
	for (uint32_t k = 0; k < s->nfuncs; k++) {
		const char *n = s->func_names[k];
		/* fnmatch with no flags: arg_glob_match's syntax */
		if (strncmp(n, func_glob, lit) || fnmatch(func_glob, n, 0) != 0)
			continue;
		uint32_t id = s->func_ids[k], i = id - s->first_id;
		if (!s->funcs[i])
			s->funcs[i] = make_function(s, m, id, btf__type_by_id(s->btf, id));
		vec_push(&out, s->funcs[i]);
	}
	vec_sort(&out, cmp_function_name);
	/* a name BTF has twice (two static functions) is one probe point:
	 * without addresses they cannot be told apart */
	int n = 0;
	for (int i = 0; i < out.len; i++) {
		const DiFunction *f = out.data[i];
		if (n == 0 || ((DiFunction *)out.data[n - 1])->name != f->name)
			out.data[n++] = out.data[i];
	}
	out.len = n;
	return out;
}

/* ================= for the unit tests ================= */

bool btf_load_raw(const char *module, const void *data, size_t len, const char **why)
{
	libbpf_set_print(libbpf_say);
	BtfSet *s;
	struct btf *base = NULL;
	if (module) {
		BtfSet *k = kernel_btf();
		if (!k->btf) {
			*why = k->why;
			return false;
		}
		base = k->btf;
		s = NEW(BtfSet);
		s->module = norm_module(module);
		vec_push(&module_sets, s);
	} else {
		kernel_tried = true;
		s = &kernel_set;
	}
	Bytes b = { .data = (unsigned char *)data, .len = len };
	struct btf *r = btf_of_bytes(&b, base, why, "(raw)");
	if (!r)
		return false;
	s->path = "(raw)";
	set_ready(s, r);
	return true;
}

bool btf_image_read(const char *path, void **btf, size_t *len,
		    const char **build_id, const char **why)
{
	ElfBtf eb;
	if (!vmlinuz_btf_cached(path, &eb, why))
		return false;
	*btf = NULL;
	*len = eb.btf.len;
	if (eb.btf.data) {
		*btf = xrealloc_heap(NULL, eb.btf.len);
		memcpy(*btf, eb.btf.data, eb.btf.len);
	}
	bytes_free(&eb.btf);
	*build_id = eb.build_id;
	return true;
}
