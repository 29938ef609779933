/* unpack.c - big files read whole into heap buffers, and xz, zstd and
 * gzip streams unpacked: kernel images (a vmlinuz's payload) and packed
 * modules (.ko.xz, .ko.zst, .ko.gz). */
#include "unpack.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

void bytes_free(Bytes *b)
{
	if (b->map)
		munmap(b->map, b->map_len);
	else
		free(b->data);
	memset(b, 0, sizeof *b);
}

bool read_bytes(const char *path, Bytes *b)
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

Packing packing_of(const unsigned char *p, size_t len)
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

const char *unpack(const unsigned char *in, size_t len, size_t size_hint,
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
