/* util.c - the translator's memory and string helpers: the arena,
 * interned strings, vectors of pointers, text buffers, edit distance (for
 * "did you mean") and version comparison.
 *
 * It is the bottom of the translator and calls no other file of it:
 * running out of memory is reported here, not through diag.c. */
#include "tapc.h"

#include <stdlib.h>
#include <string.h>

/* As diag.c's fatal() would say it. */
static _Noreturn void out_of_memory(void)
{
	fprintf(stderr, "tapc: %s\n", _("out of memory"));
	exit(1);
}

/* ---- arena ---- */

#define ARENA_CHUNK (1u << 20)

static char *arena_ptr, *arena_end;
static size_t arena_total;

void *xalloc(size_t size)
{
	size = (size + 15) & ~(size_t)15;
	if (size > (size_t)(arena_end - arena_ptr)) {
		size_t chunk = size > ARENA_CHUNK / 4 ? size : ARENA_CHUNK;
		char *p = calloc(1, chunk);
		if (!p)
			out_of_memory();
		if (chunk != size) {
			arena_ptr = p;
			arena_end = p + chunk;
		} else {
			arena_total += size;
			return p;   /* a big block of its own */
		}
	}
	void *r = arena_ptr;
	arena_ptr += size;
	arena_total += size;
	return r;
}

size_t arena_bytes(void)
{
	return arena_total;
}

void *xrealloc_heap(void *p, size_t size)
{
	void *r = realloc(p, size ? size : 1);
	if (!r)
		out_of_memory();
	return r;
}

char *xstrndup(const char *s, size_t n)
{
	char *r = xalloc(n + 1);
	memcpy(r, s, n);
	r[n] = 0;
	return r;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xsprintf(const char *fmt, ...)
{
	va_list ap, ap2;
	va_start(ap, fmt);
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *r = xalloc(n + 1);
	vsnprintf(r, n + 1, fmt, ap2);
	va_end(ap2);
	return r;
}

/* ---- interned strings: open addressing on an FNV-1a hash ---- */

static const char **itab;
static size_t icap, icount;

static uint64_t hash_bytes(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ull;
	}
	return h;
}

static void intern_grow(void)
{
	size_t ncap = icap ? icap * 2 : 4096;
	const char **n = calloc(ncap, sizeof(*n));
	if (!n)
		out_of_memory();
	for (size_t i = 0; i < icap; i++) {
		if (!itab[i])
			continue;
		size_t j = hash_bytes(itab[i], strlen(itab[i])) & (ncap - 1);
		while (n[j])
			j = (j + 1) & (ncap - 1);
		n[j] = itab[i];
	}
	free(itab);
	itab = n;
	icap = ncap;
}

const char *intern_n(const char *s, size_t n)
{
	if (icount * 2 >= icap)
		intern_grow();
	size_t j = hash_bytes(s, n) & (icap - 1);
	while (itab[j]) {
		if (strncmp(itab[j], s, n) == 0 && itab[j][n] == 0)
			return itab[j];
		j = (j + 1) & (icap - 1);
	}
	itab[j] = xstrndup(s, n);
	icount++;
	return itab[j];
}

const char *intern(const char *s)
{
	return intern_n(s, strlen(s));
}

/* ---- vectors ---- */

void vec_push(Vec *v, void *item)
{
	if (v->len == v->cap) {
		int ncap = v->cap ? v->cap * 2 : 4;
		void **nd = xalloc(sizeof(void *) * ncap);
		if (v->len)
			memcpy(nd, v->data, sizeof(void *) * v->len);
		v->data = nd;
		v->cap = ncap;
	}
	v->data[v->len++] = item;
}

int cmp_cstr_ptr(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void vec_sort(Vec *v, int (*cmp)(const void *, const void *))
{
	/* qsort(NULL, 0, ...) is undefined behaviour; an empty Vec has no data. */
	if (v->len > 1)
		qsort(v->data, v->len, sizeof(void *), cmp);
}

void *vec_pop(Vec *v)
{
	return v->len ? v->data[--v->len] : NULL;
}

/* ---- text buffers (heap, so they can grow without bloating the arena) ---- */

static void sb_reserve(StrBuf *sb, size_t extra)
{
	if (sb->len + extra + 1 <= sb->cap)
		return;
	size_t ncap = sb->cap ? sb->cap : 64;
	while (ncap < sb->len + extra + 1)
		ncap *= 2;
	sb->data = xrealloc_heap(sb->data, ncap);
	sb->cap = ncap;
}

void sb_putn(StrBuf *sb, const char *s, size_t n)
{
	sb_reserve(sb, n);
	memcpy(sb->data + sb->len, s, n);
	sb->len += n;
	sb->data[sb->len] = 0;
}

void sb_putc(StrBuf *sb, char c)
{
	sb_putn(sb, &c, 1);
}

void sb_puts(StrBuf *sb, const char *s)
{
	sb_putn(sb, s, strlen(s));
}

void sb_vprintf(StrBuf *sb, const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap);
	sb_reserve(sb, n);
	vsnprintf(sb->data + sb->len, n + 1, fmt, ap2);
	va_end(ap2);
	sb->len += n;
}

void sb_printf(StrBuf *sb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sb_vprintf(sb, fmt, ap);
	va_end(ap);
}

const char *sb_cstr(StrBuf *sb)
{
	return sb->data ? sb->data : "";
}

void sb_reset(StrBuf *sb)
{
	sb->len = 0;
	if (sb->data)
		sb->data[0] = 0;
}

void sb_free(StrBuf *sb)
{
	free(sb->data);
	sb->data = NULL;
	sb->len = sb->cap = 0;
}

/* Levenshtein distance; with swaps, two neighbours swapped count as one
 * slip (talyl for tally). */
static int distance(const char *a, const char *b, bool swaps)
{
	enum { MAXLEN = 64 };
	int la = strlen(a), lb = strlen(b);
	if (la > MAXLEN || lb > MAXLEN)
		return MAXLEN * 2;
	int d[MAXLEN + 1][MAXLEN + 1];
	for (int i = 0; i <= la; i++)
		d[i][0] = i;
	for (int j = 0; j <= lb; j++)
		d[0][j] = j;
	for (int i = 1; i <= la; i++)
		for (int j = 1; j <= lb; j++) {
			int best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (swaps && i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[la][lb];
}

int edit_distance(const char *a, const char *b)
{
	return distance(a, b, false);
}

/* The same with two neighbours swapped counting as one slip: the near
 * misses a "did you mean" offers. */
int edit_distance_swaps(const char *a, const char *b)
{
	return distance(a, b, true);
}

/* ---- versions ---- */

int version_cmp(const char *a, const char *b)
{
	while (*a || *b) {
		long x = 0, y = 0;
		while (*a >= '0' && *a <= '9')
			x = x * 10 + (*a++ - '0');
		while (*b >= '0' && *b <= '9')
			y = y * 10 + (*b++ - '0');
		if (x != y)
			return x < y ? -1 : 1;
		/* skip one separator (".", "-", "_") or any non-digit run */
		while (*a && !(*a >= '0' && *a <= '9'))
			a++;
		while (*b && !(*b >= '0' && *b <= '9'))
			b++;
	}
	return 0;
}

