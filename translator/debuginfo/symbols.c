/* symbols.c - which functions and modules the target kernel has, from the
 * cheapest real source: /proc/kallsyms when the target is the running
 * kernel, else a System.map of the target release (Debian's /boot copy is
 * a stub pointing at the -dbg package: that one is skipped).  Everything
 * is read lazily, once per run: a script with only begin probes reads
 * nothing here.
 *
 * No source at all means "unknown": callers then accept names as written
 * and mark the point needs_debuginfo, rather than pretend a name exists
 * or does not.
 *
 * Functions in the kernel's init text (__init, between _sinittext and
 * _einittext) are left out: that memory is freed once the kernel has
 * booted, so no probe can be put there.
 */
#include "debuginfo.h"
#include "cache.h"
#include "arch/arch.h"

#include <errno.h>

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

bool target_is_running_kernel(void)
{
	static int known = -1;
	if (known < 0) {
		struct utsname u;
		known = !target_is_cross() && uname(&u) == 0 && target_release() &&
			!strcmp(u.release, target_release());
	}
	return known;
}

/* Sort and drop duplicates. */
void namelist_finish(NameList *l, Vec *names)
{
	bool sorted = true;
	for (int i = 1; i < names->len && sorted; i++)
		sorted = strcmp(names->data[i - 1], names->data[i]) <= 0;
	if (!sorted)
		vec_sort(names, cmp_cstr_ptr);
	int n = 0;
	for (int i = 0; i < names->len; i++)
		if (n == 0 || strcmp(names->data[i], names->data[n - 1]))
			names->data[n++] = names->data[i];
	l->names = (const char **)names->data;
	l->len = n;
}

bool namelist_has(const NameList *l, const char *name)
{
	return l && l->len && bsearch(&name, l->names, l->len, sizeof(char *), cmp_cstr_ptr);
}

static bool is_text_type(char t)
{
	return t == 'T' || t == 't' || t == 'W' || t == 'w';
}

/* The address of the kernel symbol `name` in "ADDR TYPE NAME" lines, or
 * 0 when it is not there (or the addresses are hidden). */
static unsigned long long symbol_address(const char *text, const char *name)
{
	const char *key = xsprintf(" %s\n", name);
	for (const char *p = strstr(text, key); p; p = strstr(p + 1, key)) {
		const char *ls = p;
		while (ls > text && ls[-1] != '\n')
			ls--;
		char *end;
		unsigned long long a = strtoull(ls, &end, 16);
		if (end > ls && end + 2 == p && end[0] == ' ')
			return a;
	}
	return 0;
}

/* The kernel's init text [lo, hi), or lo == hi == 0 when unknown. */
static void init_text_range(const char *text, unsigned long long *lo,
			    unsigned long long *hi)
{
	*lo = symbol_address(text, "_sinittext");
	*hi = symbol_address(text, "_einittext");
	if (!*lo || *hi <= *lo)
		*lo = *hi = 0;
}

/* Parse "ADDR TYPE NAME [MODULE]" lines (kallsyms and System.map).
 * With want_module NULL keep the kernel's own symbols, else those of
 * that module.  Symbols in the init text are left out. */
static void parse_symbol_lines(char *text, const char *want_module, Vec *out)
{
	unsigned long long lo, hi;
	init_text_range(text, &lo, &hi);
	char *line = text;
	while (line && *line) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = 0;
		char *sp1 = strchr(line, ' ');
		char *sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL;
		unsigned long long addr = hi ? strtoull(line, NULL, 16) : 0;
		if (sp1 && sp2 && is_text_type(sp1[1]) && !(addr >= lo && addr < hi)) {
			char *name = sp2 + 1;
			char *mod = strchr(name, '\t');
			if (!mod)
				mod = strchr(name, ' ');
			if (mod)
				*mod++ = 0;
			const char *m = NULL;
			if (mod) {
				char *open = strchr(mod, '['), *close = strchr(mod, ']');
				if (open && close) {
					*close = 0;
					m = open + 1;
				}
			}
			if (want_module ? (m && !strcmp(m, want_module)) : !m)
				vec_push(out, name);
		}
		line = nl ? nl + 1 : NULL;
	}
}

/* A System.map is real when it lists text symbols (Debian's /boot copy
 * is one data line saying where the real one is). */
static char *real_system_map(const char *path)
{
	char *text = read_whole_file(path, NULL);
	if (text && !strstr(text, " T ") && !strstr(text, " t "))
		return NULL;
	return text;
}

/* Compare "TYPE NAME..." lines by NAME. */
static int cmp_symbol_line(const void *a, const void *b)
{
	const char *x = *(const char *const *)a + 2, *y = *(const char *const *)b + 2;
	size_t nx = strcspn(x, "\t "), ny = strcspn(y, "\t ");
	int c = strncmp(x, y, nx < ny ? nx : ny);
	return c ? c : (nx > ny) - (nx < ny);
}

/* parse_symbol_lines() cuts its text up, so each reader gets a copy. */
static char *xstrdup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

/* The running kernel's text symbols.  Producing /proc/kallsyms costs the
 * kernel ~80 ms each time, so its text-symbol lines (in the same format,
 * address zeroed) are kept per boot in the cache folder. */
static char *running_kernel_text_symbols(void)
{
	static char *text;
	static bool tried;
	if (tried)
		return text;
	tried = true;
	char *boot_id = read_whole_file("/proc/sys/kernel/random/boot_id", NULL);
	const char *dir = user_cache_dir();
	const char *cached = NULL;
	if (boot_id && dir) {
		boot_id[strcspn(boot_id, "\n")] = 0;
		cached = xsprintf("%s/kallsyms-noinit-%s", dir, boot_id);
		if ((text = read_whole_file(cached, NULL)))
			return text;
	}
	char *all = read_whole_file("/proc/kallsyms", NULL);
	if (!all)
		return NULL;
	/* Keep "0 TYPE NAME[\t[MOD]]" lines sorted by name, so the lists
	 * built from them need no sorting on later runs; the addresses go,
	 * so init-text symbols are dropped here.  When kallsyms hides the
	 * addresses (not root, kptr_restrict), its order tells: the
	 * kernel's own symbols come in address order. */
	unsigned long long lo, hi;
	init_text_range(all, &lo, &hi);
	bool in_init = false;
	Vec lines = { 0 };
	for (char *line = all; *line;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = 0;
		char *sp = strchr(line, ' ');
		unsigned long long addr = hi ? strtoull(line, NULL, 16) : 0;
		const char *name = sp && sp[1] && sp[2] == ' ' ? sp + 3 : NULL;
		if (!hi && name && !strcmp(name, "_sinittext"))
			in_init = true;
		else if (!hi && name && !strcmp(name, "_einittext"))
			in_init = false;
		bool init = hi ? addr >= lo && addr < hi : in_init;
		if (name && is_text_type(sp[1]) && !init)
			vec_push(&lines, sp + 1);
		line = nl ? nl + 1 : line + strlen(line);
	}
	if (lines.len > 1)
		vec_sort(&lines, cmp_symbol_line);
	StrBuf sb = { 0 };
	for (int i = 0; i < lines.len; i++) {
		sb_puts(&sb, "0 ");
		sb_puts(&sb, vec_get(&lines, i));
		sb_putc(&sb, '\n');
	}
	text = xstrndup(sb_cstr(&sb), sb.len);
	if (cached && make_dirs(dir))
		write_file_atomic(cached, text, sb.len);
	sb_free(&sb);
	return text;
}

/* ---- the kernel's function list, cached ----
 *
 * Parsing and sorting a 4 MB System.map costs tens of milliseconds, more
 * than the rest of a -p2 run of a small script.  The finished list (sorted,
 * without duplicates) is kept in the cache folder as symbols/KEY.list:
 * a header line, the count on a line, then the names, each ended by a
 * NUL.  KEY hashes the file it was made from, with its size, time,
 * device and inode (for /proc/kallsyms: the boot id), so a changed
 * source is read again. */

#define SYMLIST_MAGIC "tapc symbol list v1\n"

/* The cache file of the list made from PATH, or NULL when it is not
 * cached (no cache folder, or PATH cannot be identified). */
static const char *symlist_cache_path(const char *path)
{
	Sha256 s;
	sha256_init(&s);
	hash_str(&s, SYMLIST_MAGIC);
	hash_str(&s, path);
	if (!strcmp(path, "/proc/kallsyms")) {
		char *boot_id = read_whole_file("/proc/sys/kernel/random/boot_id", NULL);
		if (!boot_id)
			return NULL;
		hash_str(&s, boot_id);
	} else {
		struct stat st;
		if (stat(path, &st) != 0)
			return NULL;
		char id[128];
		snprintf(id, sizeof id, "%llu %lld.%09ld %llu %llu",
			 (unsigned long long)st.st_size, (long long)st.st_mtim.tv_sec,
			 (long)st.st_mtim.tv_nsec, (unsigned long long)st.st_dev,
			 (unsigned long long)st.st_ino);
		hash_str(&s, id);
	}
	const char *dir = cache_subdir("symbols");
	return dir ? xsprintf("%s/%s.list", dir, sha256_hex(&s, 32)) : NULL;
}

static bool symlist_load(const char *cache, NameList *l)
{
	size_t len;
	char *img = read_whole_file(cache, &len);
	size_t hl = strlen(SYMLIST_MAGIC);
	if (!img || len < hl || memcmp(img, SYMLIST_MAGIC, hl))
		return false;
	char *p = img + hl, *end;
	long n = strtol(p, &end, 10);
	if (end == p || *end != '\n' || n <= 0 || img[len - 1] != 0)
		return false;
	Vec names = { 0 };
	for (p = end + 1; p < img + len; p += strlen(p) + 1)
		vec_push(&names, p);
	if (names.len != n)         /* cut short */
		return false;
	l->names = (const char **)names.data;
	l->len = names.len;
	return true;
}

static void symlist_store(const char *cache, const NameList *l)
{
	StrBuf sb = { 0 };
	sb_printf(&sb, "%s%d\n", SYMLIST_MAGIC, l->len);
	for (int i = 0; i < l->len; i++) {
		sb_puts(&sb, l->names[i]);
		sb_putc(&sb, 0);
	}
	if (!write_file_atomic(cache, sb_cstr(&sb), sb.len))
		verbose(1, _("cannot write the symbol list %s: %s\n"), cache, strerror(errno));
	sb_free(&sb);
}

const NameList *kernel_function_symbols(void)
{
	static NameList list;
	static bool tried;
	if (tried)
		return list.names ? &list : NULL;
	tried = true;
	char *text = NULL;
	const char *rel = target_release();
	const char *cache = NULL;
	if (target_is_running_kernel() &&
	    access("/proc/kallsyms", R_OK) == 0) {
		list.source = "/proc/kallsyms";
		cache = symlist_cache_path(list.source);
		if (cache && symlist_load(cache, &list))
			goto done;
		text = xstrdup_or_null(running_kernel_text_symbols());
	}
	const char *maps[] = {
		sess.kernel_build_dir ? xsprintf("%s/System.map", sess.kernel_build_dir) : NULL,
		target_path(xsprintf("/boot/System.map-%s", rel)),
		target_path(xsprintf("/lib/modules/%s/build/System.map", rel)),
		target_path(xsprintf("/usr/lib/debug/boot/System.map-%s", rel)),
	};
	for (size_t i = 0; !text && i < sizeof maps / sizeof maps[0]; i++) {
		if (!maps[i])
			continue;
		/* a cached list is of a real map: a stub is never cached */
		const char *c = symlist_cache_path(maps[i]);
		if (c && symlist_load(c, &list)) {
			list.source = maps[i];
			goto done;
		}
		if ((text = real_system_map(maps[i]))) {
			list.source = maps[i];
			cache = c;
		}
	}
	if (!text)
		return NULL;
	Vec names = { 0 };
	parse_symbol_lines(text, NULL, &names);
	if (names.len == 0)
		return NULL;
	namelist_finish(&list, &names);
	if (cache)
		symlist_store(cache, &list);
done:
	verbose(2, "probes: %d kernel function symbols from %s\n", list.len, list.source);
	return &list;
}

/* Data symbol types of kallsyms and System.map: initialised, read-only,
 * uninitialised data (global or local), small data. */
static bool is_data_type(char t)
{
	return t && strchr("DdBbRrGgSsVv", t);
}

/* Does "ADDR TYPE NAME" text hold a data symbol `name` of the kernel
 * proper (no "[module]" after it)? */
static bool has_data_symbol(const char *text, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = strstr(text, name); p; p = strstr(p + 1, name)) {
		if (p < text + 3 || p[-1] != ' ' || p[-3] != ' ' ||
		    (p[n] != '\n' && p[n] != 0))
			continue;
		if (is_data_type(p[-2]))
			return true;
	}
	return false;
}

int kernel_data_symbol_known(const char *name, const char **source)
{
	static char *text;
	static const char *from;
	static bool tried;
	if (!tried) {
		tried = true;
		const char *rel = target_release();
		/* A kernel built without CONFIG_KALLSYMS_ALL lists almost no
		 * variables: a table without jiffies_64 does not say. */
		if (target_is_running_kernel() && access("/proc/kallsyms", R_OK) == 0 &&
		    (text = read_whole_file("/proc/kallsyms", NULL))) {
			from = "/proc/kallsyms";
			if (!has_data_symbol(text, "jiffies_64")) {
				free(text);
				text = NULL;
			}
		}
		const char *maps[] = {
			sess.kernel_build_dir ? xsprintf("%s/System.map", sess.kernel_build_dir) : NULL,
			target_path(xsprintf("/boot/System.map-%s", rel)),
			target_path(xsprintf("/lib/modules/%s/build/System.map", rel)),
			target_path(xsprintf("/usr/lib/debug/boot/System.map-%s", rel)),
		};
		for (size_t i = 0; !text && i < sizeof maps / sizeof maps[0]; i++)
			if (maps[i] && (text = real_system_map(maps[i])))
				from = maps[i];
		if (!text)
			from = NULL;
	}
	if (source)
		*source = from;
	if (!text)
		return -1;
	return has_data_symbol(text, name);
}

const char *kernel_symbols_missing(const char *module)
{
	const char *rel = target_release();
	if (module)      /* one message for all modules of a wildcard */
		return xsprintf(_("no symbol tables for the modules of kernel %s "
				  "(module symbols come from /proc/kallsyms of the "
				  "running kernel, with the module loaded)"), rel);
	if (target_is_running_kernel())
		return xsprintf(_("no symbol table for the running kernel %s "
				  "(/proc/kallsyms cannot be read)"), rel);
	StrBuf where = { 0 };
	if (sess.kernel_build_dir)
		sb_printf(&where, "%s/System.map, ", sess.kernel_build_dir);
	sb_printf(&where, "%s, %s, %s",
		  target_path(xsprintf("/boot/System.map-%s", rel)),
		  target_path(xsprintf("/lib/modules/%s/build/System.map", rel)),
		  target_path(xsprintf("/usr/lib/debug/boot/System.map-%s", rel)));
	const char *r = sess.kernel_build_dir
		? xsprintf(_("no symbol table for kernel %s (no System.map at %s)"),
			   rel, sb_cstr(&where))
		: xsprintf(_("no symbol table for kernel %s (no System.map at %s; "
			     "Debian's is in the package linux-image-%s-dbg)"),
			   rel, sb_cstr(&where), rel);
	sb_free(&where);
	return r;
}

const NameList *module_function_symbols(const char *module)
{
	static Vec cache_names, cache_lists;
	const char *m = intern(module);
	for (int i = 0; i < cache_names.len; i++)
		if (cache_names.data[i] == m)
			return cache_lists.data[i];
	NameList *l = NULL;
	if (target_is_running_kernel()) {
		char *text = xstrdup_or_null(running_kernel_text_symbols());
		Vec names = { 0 };
		if (text)
			parse_symbol_lines(text, m, &names);
		if (names.len) {
			l = NEW(NameList);
			l->source = "/proc/kallsyms";
			namelist_finish(l, &names);
		}
	}
	vec_push(&cache_names, (void *)m);
	vec_push(&cache_lists, l);
	return l;
}

/* "kernel/fs/xfs/xfs.ko.xz" (or a build tree's "fs/xfs/xfs.o") -> "xfs";
 * '-' becomes '_' as the kernel does. */
static const char *module_name_of(const char *path, size_t len)
{
	const char *b = path;
	for (size_t i = 0; i < len; i++)
		if (path[i] == '/')
			b = path + i + 1;
	size_t n = path + len - b;
	const char *ko = NULL;
	for (const char *p = b; p + 3 <= b + n; p++)
		if (!strncmp(p, ".ko", 3))
			ko = p;
	if (ko)
		n = ko - b;
	else if (n > 2 && !strncmp(b + n - 2, ".o", 2))
		n -= 2;
	char *name = xstrndup(b, n);
	for (char *p = name; *p; p++)
		if (*p == '-')
			*p = '_';
	return name;
}

bool kernel_module_file_readable(const char *path)
{
	return access(path, R_OK) == 0;
}

/* Module.symvers of the target's headers or build tree, or NULL. */
static const char *module_symvers_path(void)
{
	const Vec *dirs = kernel_header_dirs();
	for (int i = 0; i < dirs->len; i++) {
		const char *p = xsprintf("%s/Module.symvers", (const char *)dirs->data[i]);
		if (access(p, R_OK) == 0)
			return p;
	}
	return NULL;
}

const NameList *kernel_exported_symbols(const char *module)
{
	static Vec cache_names, cache_lists;
	static char *text;
	static const char *path;
	static bool read;
	const char *m = intern(module ? module_name_of(module, strlen(module)) : "vmlinux");
	for (int i = 0; i < cache_names.len; i++)
		if (cache_names.data[i] == m)
			return cache_lists.data[i];
	if (!read) {
		read = true;
		path = module_symvers_path();
		text = path ? read_whole_file(path, NULL) : NULL;
	}
	NameList *l = NULL;
	if (text) {
		/* CRC <tab> symbol <tab> vmlinux or the module's path <tab> ... */
		Vec names = { 0 };
		for (const char *line = text; *line;) {
			const char *nl = strchr(line, '\n');
			size_t len = nl ? (size_t)(nl - line) : strlen(line);
			const char *t1 = memchr(line, '\t', len);
			const char *t2 = t1 ? memchr(t1 + 1, '\t', line + len - t1 - 1) : NULL;
			if (t2) {
				const char *t3 = memchr(t2 + 1, '\t', line + len - t2 - 1);
				size_t ml = (t3 ? t3 : line + len) - (t2 + 1);
				const char *owner = module_name_of(t2 + 1, ml);
				if (!strcmp(owner, m))
					vec_push(&names, (void *)intern(xstrndup(t1 + 1, t2 - t1 - 1)));
			}
			line = nl ? nl + 1 : line + len;
		}
		l = NEW(NameList);
		l->source = path;
		namelist_finish(l, &names);
	}
	vec_push(&cache_names, (void *)m);
	vec_push(&cache_lists, l);
	return l;
}

const char *kernel_exported_missing(void)
{
	const Vec *dirs = kernel_header_dirs();
	if (!dirs->len)
		return xsprintf(_("no Module.symvers for kernel %s (no headers or "
				  "build tree: /lib/modules/%s/build, "
				  "/usr/src/linux-headers-%s)"),
				target_release(), target_release(), target_release());
	StrBuf sb = { 0 };
	for (int i = 0; i < dirs->len; i++)
		sb_printf(&sb, "%s%s/Module.symvers", i ? ", " : "",
			  (const char *)dirs->data[i]);
	const char *r = xsprintf(_("no Module.symvers for kernel %s (looked for %s)"),
				 target_release(), sb_cstr(&sb));
	sb_free(&sb);
	return r;
}

const NameList *kernel_module_names(void)
{
	static NameList list;
	static bool tried, known;
	if (tried)
		return known ? &list : NULL;
	tried = true;
	Vec names = { 0 };
	const char *rel = target_release();
	/* a build tree lists the modules it builds in modules.order */
	char *order = sess.kernel_build_dir ? read_whole_file(
		xsprintf("%s/modules.order", sess.kernel_build_dir), NULL) : NULL;
	if (order) {
		known = true;
		list.source = "modules.order";
		for (char *line = order; line && *line;) {
			char *nl = strchr(line, '\n');
			size_t n = nl ? (size_t)(nl - line) : strlen(line);
			if (n)
				vec_push(&names, (void *)module_name_of(line, n));
			line = nl ? nl + 1 : NULL;
		}
	}
	char *dep = read_whole_file(target_path(xsprintf("/lib/modules/%s/modules.dep", rel)), NULL);
	if (dep) {
		known = true;
		list.source = "modules.dep";
		for (char *line = dep; line && *line;) {
			char *colon = strchr(line, ':');
			char *nl = strchr(line, '\n');
			if (colon && (!nl || colon < nl))
				vec_push(&names, (void *)module_name_of(line, colon - line));
			line = nl ? nl + 1 : NULL;
		}
	}
	if (target_is_running_kernel()) {
		char *mods = read_whole_file("/proc/modules", NULL);
		if (mods) {
			list.source = "/proc/modules";
			for (char *line = mods; line && *line;) {
				char *sp = strchr(line, ' ');
				char *nl = strchr(line, '\n');
				if (sp)
					vec_push(&names, (void *)module_name_of(line, sp - line));
				line = nl ? nl + 1 : NULL;
			}
		} else if (access("/proc/self", F_OK) == 0) {
			/* A running kernel without /proc/modules cannot load
			 * modules: there are none to probe. */
			list.source = "the running kernel (no module support)";
		}
		known = true;
	}
	namelist_finish(&list, &names);
	return known ? &list : NULL;
}

const char *kernel_arch_dir(void)
{
	return arch_target()->kbuild_arch;
}

const Vec *kernel_header_dirs(void)
{
	static Vec dirs;
	static bool done;
	if (done)
		return &dirs;
	done = true;
	const char *rel = target_release();
	const char *cand[] = {
		sess.kernel_build_dir,
		target_path(xsprintf("/lib/modules/%s/build", rel)),
		target_path(xsprintf("/lib/modules/%s/source", rel)),
		xsprintf("/usr/src/linux-headers-%s", rel),
	};
	for (size_t i = 0; i < sizeof cand / sizeof cand[0]; i++) {
		if (!cand[i] || !is_dir(cand[i]))
			continue;
		char *real = realpath(cand[i], NULL);
		const char *r = real ? intern(real) : intern(cand[i]);
		free(real);
		bool dup = false;
		for (int j = 0; j < dirs.len && !dup; j++)
			dup = dirs.data[j] == r;
		if (!dup)
			vec_push(&dirs, (void *)r);
	}
	return &dirs;
}
