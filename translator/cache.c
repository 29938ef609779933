/* cache.c - the module cache: SHA-256, the keys of modules (from the
 * elaborated program before pass 3, or from the C text), and the cached
 * modules under $XDG_CACHE_HOME/tapc. */
#include "build.h"
#include "passes.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ================= SHA-256 (FIPS 180-4) ================= */

static const uint32_t sha256_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

#define ROR32(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

void sha256_init(Sha256 *s)
{
	static const uint32_t iv[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};
	memcpy(s->h, iv, sizeof iv);
	s->bytes = 0;
	s->fill = 0;
}

static void sha256_block(Sha256 *s, const unsigned char *p)
{
	uint32_t w[64], v[8];
	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = ROR32(w[i - 15], 7) ^ ROR32(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ROR32(w[i - 2], 17) ^ ROR32(w[i - 2], 19) ^ (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	memcpy(v, s->h, sizeof v);
	for (int i = 0; i < 64; i++) {
		uint32_t e = v[4], a = v[0];
		uint32_t t1 = v[7] + (ROR32(e, 6) ^ ROR32(e, 11) ^ ROR32(e, 25)) +
			      ((e & v[5]) ^ (~e & v[6])) + sha256_k[i] + w[i];
		uint32_t t2 = (ROR32(a, 2) ^ ROR32(a, 13) ^ ROR32(a, 22)) +
			      ((a & v[1]) ^ (a & v[2]) ^ (v[1] & v[2]));
		memmove(v + 1, v, 7 * sizeof v[0]);
		v[4] += t1;
		v[0] = t1 + t2;
	}
	for (int i = 0; i < 8; i++)
		s->h[i] += v[i];
}

void sha256_update(Sha256 *s, const void *data, size_t len)
{
	const unsigned char *p = data;
	s->bytes += len;
	while (len) {
		size_t n = 64 - s->fill;
		if (n > len)
			n = len;
		memcpy(s->block + s->fill, p, n);
		s->fill += n;
		p += n;
		len -= n;
		if (s->fill == 64) {
			sha256_block(s, s->block);
			s->fill = 0;
		}
	}
}

void sha256_final(Sha256 *s, unsigned char digest[32])
{
	uint64_t bits = s->bytes * 8;
	unsigned char pad = 0x80, len_be[8];
	sha256_update(s, &pad, 1);
	pad = 0;
	while (s->fill != 56)
		sha256_update(s, &pad, 1);
	for (int i = 0; i < 8; i++)
		len_be[i] = bits >> (56 - 8 * i);
	sha256_update(s, len_be, 8);
	for (int i = 0; i < 8; i++) {
		digest[4 * i] = s->h[i] >> 24;
		digest[4 * i + 1] = s->h[i] >> 16;
		digest[4 * i + 2] = s->h[i] >> 8;
		digest[4 * i + 3] = s->h[i];
	}
}

const char *sha256_hex(Sha256 *s, int hex_len)
{
	unsigned char d[32];
	sha256_final(s, d);
	if (hex_len > 64)
		hex_len = 64;
	char *r = xalloc(hex_len + 1);
	for (int i = 0; i < hex_len; i++)
		r[i] = "0123456789abcdef"[i % 2 ? d[i / 2] & 15 : d[i / 2] >> 4];
	return r;
}

/* A string and its terminator, so "ab"+"c" and "a"+"bc" hash apart. */
void hash_str(Sha256 *s, const char *str)
{
	str = str ? str : "";
	sha256_update(s, str, strlen(str) + 1);
}

/* ================= the cache ================= */

static bool cache_off;
/* The cache grows to this many MiB of modules before the least recently
 * used ones go, unless the file cache_mb_limit in the cache folder gives
 * another number (as stap's). */
#define CACHE_LIMIT_MB 256

/* The limit in bytes: cache_mb_limit's number when it holds one (a
 * decimal count of MiB, spaces around it allowed), else the default; a
 * file that holds something else is named under -v and ignored. */
static long long cache_limit_bytes(const char *base)
{
	const char *p = xsprintf("%s/cache_mb_limit", base);
	FILE *f = fopen(p, "r");
	if (!f)
		return (long long)CACHE_LIMIT_MB << 20;
	char buf[64] = "";
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	char *end;
	errno = 0;
	long long mb = strtoll(buf, &end, 10);
	while (*end == ' ' || *end == '\t' || *end == '\n')
		end++;
	if (end == buf || *end || errno || mb < 0 || mb > (1LL << 40)) {
		verbose(1, _("Pass 4: %s does not hold a number of MiB; the cache keeps %d MiB of modules\n"),
			p, CACHE_LIMIT_MB);
		return (long long)CACHE_LIMIT_MB << 20;
	}
	return mb << 20;
}

void build_cache_disable(void)
{
	cache_off = true;
}

const char *build_cache_dir(void)
{
	return cache_off ? NULL : user_cache_dir();
}

/* DIR/SUB, made if missing; NULL (and a -v note) when it cannot be. */
const char *cache_subdir(const char *sub)
{
	const char *base = build_cache_dir();
	if (!base)
		return NULL;
	const char *d = xsprintf("%s/%s", base, sub);
	if (!make_dirs(d)) {
		verbose(1, _("Pass 4: cache folder %s is not usable (%s); not caching\n"),
			d, strerror(errno));
		return NULL;
	}
	return d;
}

int build_cache_clean(void)
{
	const char *base = build_cache_dir();
	int n = 0;
	if (!base)
		return 0;
	const char *subs[] = { "modules", "features", "debuginfo", "btf", "symbols",
			       "headers" };
	for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++) {
		const char *d = xsprintf("%s/%s", base, subs[i]);
		Vec names = list_dir(d, "", "");
		for (int j = 0; j < names.len; j++)
			if (unlink(xsprintf("%s/%s", d, (char *)vec_get(&names, j))) == 0)
				n++;
	}
	return n;
}

static const char *hash_runtime_sources(void)
{
	static const char *digest;
	if (digest)
		return digest;
	/* Every file of the runtime, in name order, with its relative path,
	 * and of the include/ folder beside it (the runtime includes
	 * ../include/tap_wire.h): an edit anywhere in them makes every
	 * cached module stale. */
	Sha256 s;
	sha256_init(&s);
	Vec todo = { 0 };
	vec_push(&todo, (void *)"../include");
	vec_push(&todo, (void *)"");
	const char *root = runtime_source_dir();
	while (todo.len) {
		const char *rel = vec_pop(&todo);
		const char *dir = *rel ? xsprintf("%s/%s", root, rel) : root;
		Vec names = list_dir(dir, "", "");
		for (int i = 0; i < names.len; i++) {
			const char *name = vec_get(&names, i);
			const char *r = *rel ? xsprintf("%s/%s", rel, name) : name;
			const char *full = xsprintf("%s/%s", root, r);
			if (is_dir(full)) {
				vec_push(&todo, (void *)r);
			} else if (is_file(full)) {
				hash_str(&s, r);
				hash_file(&s, full);
			}
		}
	}
	return digest = sha256_hex(&s, 64);
}

const char *build_cache_key(const char *text, size_t len, const char *module_name)
{
	Sha256 s;
	sha256_init(&s);
	hash_str(&s, "tapc module v1");
	hash_str(&s, PACKAGE_VERSION);
	hash_str(&s, module_name);
	hash_str(&s, hash_runtime_sources());
	hash_tree_identity(&s);
	for (int i = 0; i < sess.defines.len; i++) {
		Define *d = vec_get(&sess.defines, i);
		hash_str(&s, d->name);
		hash_str(&s, d->value ? d->value : "\1");
	}
	char n[32];
	snprintf(n, sizeof n, "%zu", len);
	hash_str(&s, n);
	sha256_update(&s, text, len);
	return sha256_hex(&s, 32);
}

/* The cache entry this run found or stored last. */
static const char *last_entry;

const char *build_cache_lookup(const char *key)
{
	const char *base = build_cache_dir();
	if (!base)
		return NULL;
	const char *p = xsprintf("%s/modules/%s.ko", base, key);
	if (!is_file(p))
		return NULL;
	utimensat(AT_FDCWD, p, NULL, 0);   /* recently used: pruned last */
	last_entry = p;
	return p;
}

struct cached { const char *path; time_t mtime; long long size; ino_t ino; };

static int cmp_mtime(const void *a, const void *b)
{
	const struct cached *x = *(struct cached *const *)a, *y = *(struct cached *const *)b;
	return x->mtime < y->mtime ? -1 : x->mtime > y->mtime;
}

/* Drop the least recently used modules while the cache is over its
 * limit; the one just stored (KEEP, under any of its names) stays.  A
 * module under two keys is one file with two links: each name counts
 * its share of the size. */
static void prune_cache(const char *dir, const char *keep)
{
	long long limit = cache_limit_bytes(build_cache_dir());
	Vec names = list_dir(dir, "", ".ko"), all = { 0 };
	long long total = 0;
	struct stat kst;
	ino_t keep_ino = stat(keep, &kst) == 0 ? kst.st_ino : 0;
	for (int i = 0; i < names.len; i++) {
		struct cached *c = NEW(struct cached);
		struct stat st;
		c->path = xsprintf("%s/%s", dir, (char *)vec_get(&names, i));
		if (stat(c->path, &st) != 0)
			continue;
		c->mtime = st.st_mtime;
		c->size = st.st_size / (st.st_nlink > 0 ? st.st_nlink : 1);
		c->ino = st.st_ino;
		total += c->size;
		vec_push(&all, c);
	}
	if (total <= limit)
		return;
	vec_sort(&all, cmp_mtime);
	for (int i = 0; i < all.len && total > limit * 3 / 4; i++) {
		struct cached *c = vec_get(&all, i);
		if (c->ino != keep_ino && strcmp(c->path, keep) && unlink(c->path) == 0)
			total -= c->size;
	}
}

const char *build_cache_store(const char *key, const char *ko_path)
{
	const char *dir = cache_subdir("modules");
	if (!dir)
		return NULL;
	const char *p = xsprintf("%s/%s.ko", dir, key);
	if (!copy_file(ko_path, p)) {
		verbose(1, _("Pass 4: cannot cache the module as %s: %s\n"), p,
			strerror(errno));
		return NULL;
	}
	prune_cache(dir, p);
	last_entry = p;
	return p;
}

const char *build_cache_alias(const char *key, const char *ko_path)
{
	const char *dir = cache_subdir("modules");
	if (!dir)
		return NULL;
	const char *p = xsprintf("%s/%s.ko", dir, key);
	if (last_entry && strcmp(last_entry, p)) {
		unlink(p);
		if (link(last_entry, p) == 0) {
			prune_cache(dir, p);
			return p;
		}
	}
	return build_cache_store(key, ko_path);
}

/* ================= the key of a program ================= */
/* The cache key of the module before pass 3: everything its C text is
 * made of (every source file, the elaborated program, the options pass 3
 * reads); build_cache_key() adds the runtime, the kernel tree and -D. */
const char *program_cache_key(Program *prog)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	fprintf(f, "tapc program key 1\n");
	/* a rebuilt translator may translate the same program differently */
	struct stat self;
	if (stat("/proc/self/exe", &self) == 0)
		fprintf(f, "tapc %lld %lld %lld\n", (long long)self.st_size,
			(long long)self.st_mtime, (long long)self.st_ino);
	for (int i = 0; i < prog->files.len; i++) {
		Stapfile *sf = vec_get(&prog->files, i);
		fprintf(f, "file %s %zu\n", sf->src->name, sf->src->len);
		fwrite(sf->src->text, 1, sf->src->len, f);
	}
	print_program(f, prog);
	fprintf(f, "\noptions %d %d %d %s\n", sess.guru, sess.unoptimized,
		sess.suppress_handler_errors, sess.script_file ? sess.script_file : "");
	for (int i = 0; i < sess.args.len; i++)
		fprintf(f, "arg %zu %s\n", strlen(vec_get(&sess.args, i)),
			(char *)vec_get(&sess.args, i));
	for (int i = 0; i < sess.globals_init.len; i++)
		fprintf(f, "G %s\n", ((Define *)vec_get(&sess.globals_init, i))->name);
	for (int i = 0; i < sess.modinfo.len; i++)
		fprintf(f, "modinfo %s\n", (char *)vec_get(&sess.modinfo, i));
	for (int i = 0; i < sess.make_vars.len; i++)
		fprintf(f, "B %s\n", (char *)vec_get(&sess.make_vars, i));
	usyms_cache_key(f, prog);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	const char *key = build_cache_key(buf, len, sess.module_name ? sess.module_name : "");
	free(buf);
	return key;
}
