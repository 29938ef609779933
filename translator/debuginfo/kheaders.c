/* kheaders.c - which header of the target kernel defines a struct.
 *
 * A tracepoint argument such as `struct linux_binprm *bprm` reaches the
 * module as a pointer, and `$bprm->filename` compiles only when the
 * module includes the header that defines struct linux_binprm.  Without
 * debug information tapc cannot know the layout itself, so it lets the
 * compiler find it: pass 3 includes the header of each struct a path
 * starts from, and pass 4 adds the headers of the structs the compiler
 * still found incomplete (deeper steps of a path) and builds again.
 *
 * The index (struct name -> header) is made once per kernel tree by
 * reading every header under include/{linux,net,scsi,uapi/linux} and
 * arch/ARCH/include/asm for lines that open a struct definition, and is
 * kept in the cache folder (kheaders/), keyed by the trees' paths and the
 * change times of their include folders.
 */
#include "tapc.h"
#include "passes.h"
#include "families/family.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* "name\theader\n" lines, the first definition of each name */
static StrBuf index_text;
static bool index_loaded;

typedef struct Scan {
	StrBuf *out;
	char *buf;	/* the file being read */
	size_t cap;
} Scan;

/* The struct names defined at the start of a line in text:
 * "struct NAME {" (the brace may follow on the same line only). */
static void scan_text(Scan *s, const char *text, const char *header)
{
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, "struct ", 7))
			continue;
		const char *n = p + 7;
		const char *e = n;
		while (isalnum((unsigned char)*e) || *e == '_')
			e++;
		if (e == n)
			continue;
		const char *b = e;
		while (*b == ' ' || *b == '\t')
			b++;
		if (*b != '{')
			continue;
		sb_printf(s->out, "%.*s\t%s\n", (int)(e - n), n, header);
	}
}

/* Every *.h under dir (recursively, in name order); header names are
 * prefix + the path below dir. */
static void scan_dir(Scan *s, const char *dir, const char *prefix, int depth)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	Vec names = { 0 };
	struct dirent *de;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			vec_push(&names, xstrdup(de->d_name));
	closedir(d);
	vec_sort(&names, cmp_cstr_ptr);
	for (int i = 0; i < names.len; i++) {
		const char *name = vec_get(&names, i);
		const char *path = xsprintf("%s/%s", dir, name);
		const char *hdr = xsprintf("%s/%s", prefix, name);
		struct stat st;
		if (stat(path, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			if (depth < 4)
				scan_dir(s, path, hdr, depth + 1);
			continue;
		}
		size_t len = strlen(name);
		if (len < 3 || strcmp(name + len - 2, ".h") || !S_ISREG(st.st_mode))
			continue;
		/* one reused buffer: the trees hold tens of megabytes */
		FILE *f = fopen(path, "rb");
		if (!f)
			continue;
		if ((size_t)st.st_size + 1 > s->cap) {
			free(s->buf);
			s->cap = (size_t)st.st_size + 1 > 65536 ? (size_t)st.st_size + 1 : 65536;
			s->buf = malloc(s->cap);
			if (!s->buf) {
				s->cap = 0;
				fclose(f);
				continue;
			}
		}
		size_t n = fread(s->buf, 1, (size_t)st.st_size, f);
		fclose(f);
		s->buf[n] = 0;
		scan_text(s, s->buf, hdr);
	}
}

static const char *const roots[][2] = {
	{ "include/linux", "linux" },
	{ "include/net", "net" },
	{ "include/scsi", "scsi" },
	{ "include/uapi/linux", "linux" },
};

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 1099511628211ULL;
	return h;
}

/* The index file's name: the trees and their include folders' times. */
static const char *index_path(const Vec *dirs)
{
	const char *base = user_cache_dir();
	if (!base)
		return NULL;
	uint64_t h = 1469598103934665603ULL;
	h = fnv(h, "kheaders 1", 10);
	for (int i = 0; i < dirs->len; i++) {
		const char *d = dirs->data[i];
		h = fnv(h, d, strlen(d) + 1);
		for (size_t r = 0; r < sizeof roots / sizeof roots[0]; r++) {
			struct stat st;
			if (stat(xsprintf("%s/%s", d, roots[r][0]), &st) == 0) {
				h = fnv(h, &st.st_mtime, sizeof st.st_mtime);
				h = fnv(h, &st.st_ino, sizeof st.st_ino);
			}
		}
	}
	return xsprintf("%s/kheaders/%016llx", base, (unsigned long long)h);
}

static void load_index(void)
{
	if (index_loaded)
		return;
	index_loaded = true;
	const Vec *dirs = kernel_header_dirs();
	const char *cache = index_path(dirs);
	size_t len;
	char *text = cache ? read_whole_file(cache, &len) : NULL;
	if (text) {
		sb_putn(&index_text, "\n", 1);
		sb_putn(&index_text, text, len);
		return;
	}
	Scan s = { &index_text, NULL, 0 };
	sb_putn(&index_text, "\n", 1);
	for (size_t r = 0; r < sizeof roots / sizeof roots[0]; r++)
		for (int i = 0; i < dirs->len; i++)
			scan_dir(&s, xsprintf("%s/%s", (char *)dirs->data[i], roots[r][0]),
				 roots[r][1], 0);
	for (int i = 0; i < dirs->len; i++)
		scan_dir(&s, xsprintf("%s/arch/%s/include/asm", (char *)dirs->data[i],
				      kernel_arch_dir()), "asm", 0);
	free(s.buf);
	if (cache && index_text.len > 1 && make_dirs(xsprintf("%s/kheaders", user_cache_dir())))
		write_file_atomic(cache, sb_cstr(&index_text) + 1, index_text.len - 1);
}

const char *kernel_struct_header(const char *name)
{
	if (!name || !*name)
		return NULL;
	load_index();
	const char *key = xsprintf("\n%s\t", name);
	const char *hit = strstr(sb_cstr(&index_text), key);
	if (!hit)
		return NULL;
	hit += strlen(key);
	const char *end = strchr(hit, '\n');
	return xstrndup(hit, end ? (size_t)(end - hit) : strlen(hit));
}

const char *struct_name_of(const char *ctype)
{
	if (!ctype)
		return NULL;
	const char *p = strstr(ctype, "struct ");
	if (!p || (p != ctype && p[-1] != ' '))
		return NULL;
	p += 7;
	while (*p == ' ')
		p++;
	const char *e = p;
	while (isalnum((unsigned char)*e) || *e == '_')
		e++;
	return e > p ? xstrndup(p, e - p) : NULL;
}
