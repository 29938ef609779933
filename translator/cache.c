/* cache.c - the module cache: the keys of modules (from a text that
 * determines the module: the C file, or what main.c gathers of the
 * elaborated program before pass 3), and the cached modules under
 * $XDG_CACHE_HOME/tapc.  It calls no pass: what it hashes is handed to
 * it. */
#include "cache.h"
#include "sign.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* The tree changes (a new headers package, a rebuilt tree) show in the
 * size and time of its configuration header and symbol versions. */
void hash_tree_identity(Sha256 *s)
{
	const char *tree = kernel_build_tree();
	hash_str(s, target_release());
	hash_str(s, tree);
	hash_str(s, target_arch());
	const char *stamps[] = { "include/generated/autoconf.h", "Module.symvers",
				 "include/config/kernel.release" };
	for (size_t i = 0; i < sizeof stamps / sizeof stamps[0]; i++) {
		struct stat st;
		char buf[96] = "-";
		if (stat(xsprintf("%s/%s", tree, stamps[i]), &st) == 0)
			snprintf(buf, sizeof buf, "%lld.%09ld:%lld",
				 (long long)st.st_mtim.tv_sec, (long)st.st_mtim.tv_nsec,
				 (long long)st.st_size);
		hash_str(s, buf);
	}
	for (int i = 0; i < sess.make_vars.len; i++)
		hash_str(s, vec_get(&sess.make_vars, i));
	/* a cross build's ARCH= and compiler (none for the machine's own) */
	const Vec *cross = target_kbuild_vars();
	for (int i = 0; i < cross->len; i++)
		hash_str(s, vec_get(cross, i));
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
	hash_str(&s, "tapc module v2");   /* v2: stripped of debug sections */
	hash_str(&s, PACKAGE_VERSION);
	hash_str(&s, module_name);
	hash_str(&s, hash_runtime_sources());
	hash_tree_identity(&s);
	for (int i = 0; i < sess.defines.len; i++) {
		Define *d = vec_get(&sess.defines, i);
		hash_str(&s, d->name);
		hash_str(&s, d->value ? d->value : "\1");
	}
	/* a signed module is another file than the unsigned one, and each
	 * key signs its own */
	const char *signer = sign_identity();
	hash_str(&s, signer ? signer : "unsigned");
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
