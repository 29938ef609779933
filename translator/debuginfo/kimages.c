/* kimages.c - the target kernel's image and module files: where they
 * are, their build-ids, and the .BTF sections inside them.
 *
 *   the kernel     the vmlinux packed in /boot/vmlinuz-RELEASE (a bzImage:
 *                  the payload is an xz, zstd or gzip stream of an ELF
 *                  file), or BUILDDIR/vmlinux with -r BUILDDIR; the
 *                  running kernel's build-id from /sys/kernel/notes
 *   its modules    each module's .ko (.ko.xz, .ko.zst, .ko.gz) under
 *                  /lib/modules/RELEASE/ (modules.dep), or a build tree's
 *                  modules.order; a loaded module's build-id from
 *                  /sys/module/NAME/notes
 *
 * Unpacking a vmlinuz takes about a second, so the .BTF bytes and the
 * vmlinux's build-id are kept in tapc's cache folder (btf/), keyed by the
 * image's path, size, time and inode.  A cache file carries a CRC; one
 * that does not check out is ignored and written again (atomically).
 */
#include "kimages.h"
#include "cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/* ---- the vmlinux inside a vmlinuz ---- */

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

/* An arm64 Image ("ARM\x64" at 0x38) is the kernel's memory from _text
 * on, not an ELF file: its .BTF and .notes are there but no section
 * header says where.  The .BTF is found by its header (the largest one:
 * the kernel embeds small BPF objects with their own); the linker script
 * puts .notes right before .BTF, so the kernel's build-id is the last
 * GNU build-id note before it (the vDSOs embedded earlier have theirs).
 * false when p is not an arm64 Image. */
static bool arm64_image_btf(const unsigned char *p, size_t len, ElfBtf *out)
{
	static const unsigned char note[16] = { 4, 0, 0, 0, 20, 0, 0, 0,
						NT_GNU_BUILD_ID, 0, 0, 0, 'G', 'N', 'U', 0 };
	if (len < 64 || le32(p + 0x38) != 0x644d5241)
		return false;
	uint64_t at = 0, blen = 0;
	for (size_t i = 0; i + BTF_HDR <= len; i++) {
		if (p[i] != 0x9f || p[i + 1] != 0xeb)
			continue;
		uint64_t l = btf_header_len(p + i);
		if (l > blen && l <= len - i) {
			at = i;
			blen = l;
		}
	}
	memset(out, 0, sizeof *out);
	for (size_t i = 0; i + 36 <= (blen ? at : len); i += 4)
		if (!memcmp(p + i, note, sizeof note))
			out->build_id = build_id_in_notes(p + i, 36);
	if (!blen)
		return true;    /* the caller says there is no .BTF */
	out->btf.data = xrealloc_heap(NULL, blen);
	memcpy(out->btf.data, p + at, blen);
	out->btf.len = blen;
	return true;
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
	if (arm64_image_btf(z.data, z.len, out)) {
		bytes_free(&z);
		return true;
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
	bool ok = elf_btf_of_packed(z.data + off, len, hint, out, why);
	bytes_free(&z);
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

bool module_btf_of_file(const char *path, ElfBtf *out, const char **why)
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

/* ---- the target kernel's image ---- */

void looked_add(StrBuf *sb, const char *what)
{
	sb_printf(sb, "%s%s", sb->len ? "; " : "", what);
}

static Image image;

Image *target_image(void)
{
	if (image.done)
		return &image;
	image.done = true;
	StrBuf looked = { 0 };
	Vec tries = { 0 };
	if (sess.kernel_build_dir)
		vec_push(&tries, xsprintf("%s/vmlinux", sess.kernel_build_dir));
	vec_push(&tries, (void *)target_path(xsprintf("/boot/vmlinuz-%s", target_release())));
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

/* ---- module files ---- */

const char *norm_module(const char *name)
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
		const char *lib = target_path(xsprintf("/lib/modules/%s", target_release()));
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

void module_id_note(const char *name, const char *id)
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

/* ---- for the unit tests ---- */

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
