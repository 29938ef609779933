/* kdebug.c - which debug information the target kernel and each of its
 * modules has, found once per run: DWARF (checked against the target's
 * image by build-id), else BTF, else none; and the di_* calls of
 * debuginfo.h, each answered by dwarf.c or btf.c.
 *
 * Where DWARF is looked for: every folder of $SYSTEMTAP_DEBUGINFO_PATH
 * (colon-separated) when it is set, and nothing else; otherwise Debian's
 * places (/usr/lib/debug/boot/vmlinux-RELEASE, the module files under
 * /usr/lib/debug/lib/modules/RELEASE/) and the build tree's vmlinux. */
#include "tapc.h"
#include "cache.h"
#include "debuginfo/kreaders.h"

#include <dirent.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct KMod {
	const char *key;        /* "kernel" or the module name with '_' */
	DiSource src;
	const DiModule *m;
	const char *why_no_dwarf;
	const char *why_none;
} KMod;

static Vec kmods;               /* KMod * */

static bool is_user(const char *module)
{
	return module && module[0] == '/';
}

static const char *module_key(const char *module)
{
	if (!module)
		return intern("kernel");
	if (is_user(module))
		return intern(module);
	char *s = xstrdup(module);
	for (char *p = s; *p; p++)
		if (*p == '-')
			*p = '_';
	return intern(s);
}

/* ---- where to look ---- */

/* The folders of $SYSTEMTAP_DEBUGINFO_PATH, or NULL when it is not set. */
static const Vec *env_path(void)
{
	static Vec dirs;
	static bool done, set;
	if (!done) {
		done = true;
		const char *env = getenv("SYSTEMTAP_DEBUGINFO_PATH");
		set = env != NULL;
		for (const char *s = env; s && *s;) {
			size_t n = strcspn(s, ":");
			/* "+" and "-" are libdwfl's CRC-checking flags in
			 * stap's default "+:.debug:/usr/lib/debug:build" */
			if (n && !(n == 1 && (*s == '+' || *s == '-')))
				vec_push(&dirs, (void *)intern_n(s, n));
			s += n + (s[n] == ':');
		}
	}
	return set ? &dirs : NULL;
}

static const char *build_tree(void)
{
	if (sess.kernel_build_dir)
		return sess.kernel_build_dir;
	return target_path(xsprintf("/lib/modules/%s/build", target_release()));
}

static void add_candidate(Vec *v, StrBuf *where, const char *path)
{
	if (where->len)
		sb_puts(where, ", ");
	sb_puts(where, path);
	if (is_file(path))
		vec_push(v, (void *)path);
}

/* The vmlinux files that may hold the kernel's DWARF, in search order. */
static Vec kernel_candidates(StrBuf *where)
{
	Vec v = { 0 };
	const char *rel = target_release();
	const Vec *env = env_path();
	if (env) {
		for (int i = 0; i < env->len; i++) {
			const char *d = vec_get(env, i);
			if (!strcmp(d, "build")) {
				add_candidate(&v, where, xsprintf("%s/vmlinux", build_tree()));
				continue;
			}
			add_candidate(&v, where, xsprintf("%s/boot/vmlinux-%s", d, rel));
			add_candidate(&v, where, xsprintf("%s/vmlinux-%s", d, rel));
			add_candidate(&v, where, xsprintf("%s/lib/modules/%s/vmlinux", d, rel));
			add_candidate(&v, where, xsprintf("%s/vmlinux", d));
		}
		return v;
	}
	if (sess.kernel_build_dir) {
		/* a build tree given with -r is the kernel: its own vmlinux first */
		add_candidate(&v, where, xsprintf("%s/vmlinux", build_tree()));
	}
	add_candidate(&v, where, target_path(xsprintf("/usr/lib/debug/boot/vmlinux-%s", rel)));
	add_candidate(&v, where, target_path(xsprintf("/usr/lib/debug/lib/modules/%s/vmlinux", rel)));
	if (!sess.kernel_build_dir)
		add_candidate(&v, where, xsprintf("%s/vmlinux", build_tree()));
	return v;
}

/* NAME.ko under dir (any depth), '-' and '_' alike. */
static const char *find_ko(const char *dir, const char *key, int depth)
{
	DIR *d = opendir(dir);
	if (!d)
		return NULL;
	const char *found = NULL;
	Vec subdirs = { 0 };
	struct dirent *e;
	while (!found && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		size_t n = strlen(e->d_name);
		if (n > 3 && !strcmp(e->d_name + n - 3, ".ko")) {
			if (module_key(xstrndup(e->d_name, n - 3)) == key)
				found = xsprintf("%s/%s", dir, e->d_name);
			continue;
		}
		if (e->d_type == DT_DIR || e->d_type == DT_UNKNOWN)
			vec_push(&subdirs, xsprintf("%s/%s", dir, e->d_name));
	}
	closedir(d);
	for (int i = 0; !found && depth < 8 && i < subdirs.len; i++)
		found = find_ko(vec_get(&subdirs, i), key, depth + 1);
	return found;
}

/* NAME.ko in a kernel build tree, from its modules.order ("fs/ext4/ext4.o"
 * or ".ko" lines), or NULL. */
static const char *find_ko_in_tree(const char *dir, const char *key)
{
	char *text = read_whole_file(xsprintf("%s/modules.order", dir), NULL);
	for (char *line = text; line && *line;) {
		char *end = strchr(line, '\n');
		size_t n = end ? (size_t)(end - line) : strlen(line);
		const char *path = xstrndup(line, n);
		line += n + (end != NULL);
		const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
		size_t bn = strlen(base);
		size_t stem = bn > 3 && !strcmp(base + bn - 3, ".ko") ? bn - 3
			: bn > 2 && !strcmp(base + bn - 2, ".o") ? bn - 2 : 0;
		if (!stem || module_key(xstrndup(base, stem)) != key)
			continue;
		const char *ko = xsprintf("%s/%.*s.ko", dir, (int)(strlen(path) - bn + stem), path);
		if (is_file(ko))
			return ko;
	}
	return NULL;
}

/* The module files that may hold a module's DWARF, in search order. */
static Vec module_candidates(const char *key, StrBuf *where)
{
	Vec v = { 0 };
	const char *rel = target_release();
	const Vec *env = env_path();
	Vec dirs = { 0 };
	if (env) {
		for (int i = 0; i < env->len; i++) {
			const char *d = vec_get(env, i);
			if (!strcmp(d, "build")) {
				vec_push(&dirs, (void *)build_tree());
				continue;
			}
			vec_push(&dirs, xsprintf("%s/lib/modules/%s", d, rel));
			vec_push(&dirs, (void *)d);
		}
	} else {
		if (sess.kernel_build_dir)
			vec_push(&dirs, (void *)sess.kernel_build_dir);
		vec_push(&dirs, (void *)target_path(xsprintf("/usr/lib/debug/lib/modules/%s", rel)));
	}
	/* where the image is under /lib/modules/RELEASE/ is where its debug
	 * file usually is under a debug folder: try that before a walk */
	const char *image = kernel_module_file(key);
	const char *top = target_path(xsprintf("/lib/modules/%s/", rel));
	const char *sub = NULL;
	if (image && !strncmp(image, top, strlen(top))) {
		sub = image + strlen(top);
		const char *dot = strstr(sub, ".ko");
		sub = dot ? xsprintf("%.*s.ko", (int)(dot - sub), sub) : NULL;
	}
	for (int i = 0; i < dirs.len; i++) {
		const char *d = vec_get(&dirs, i);
		if (where->len)
			sb_puts(where, ", ");
		sb_printf(where, "%s/**/%s.ko", d, key);
		const char *f = sub ? xsprintf("%s/%s", d, sub) : NULL;
		if (!f || !is_file(f))
			f = find_ko_in_tree(d, key);
		if (!f)
			f = find_ko(d, key, 0);
		for (int j = 0; f && j < v.len; j++)
			if (!strcmp(vec_get(&v, j), f))
				f = NULL;       /* found again from a folder above */
		if (f)
			vec_push(&v, (void *)f);
	}
	return v;
}

/* ---- finding a module's debug information ---- */

static const char *image_name(const char *module)
{
	if (module) {
		const char *f = kernel_module_file(module);
		return f ? f : target_path(xsprintf("/lib/modules/%s/.../%s.ko", target_release(), module));
	}
	return target_is_running_kernel() ? "/sys/kernel/notes"
		: target_path(xsprintf("/boot/vmlinuz-%s", target_release()));
}

/* The build-id of module's image (NULL: the kernel's), remembered in the
 * cache folder by the image's path, size and time: reading it may mean
 * unpacking a compressed kernel or module, and every run needs it. */
static const char *image_build_id(const char *module)
{
	const char *path = module ? kernel_module_file(module)
		: target_is_running_kernel() ? NULL
		: target_path(xsprintf("/boot/vmlinuz-%s", target_release()));
	struct stat st;
	const char *dir;
	if (!path || stat(path, &st) != 0 || !(dir = cache_subdir("debuginfo")))
		return module ? kernel_module_build_id(module) : kernel_image_build_id();
	Sha256 h;
	sha256_init(&h);
	hash_str(&h, path);
	const char *file = xsprintf("%s/image-%s", dir, sha256_hex(&h, 32));
	const char *stamp = xsprintf("%s\n%lld\n%lld.%09ld\n", path, (long long)st.st_size,
				     (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	size_t len;
	char *text = read_whole_file(file, &len);
	size_t n = strlen(stamp);
	if (text && len > n && !strncmp(text, stamp, n)) {
		const char *id = text + n;
		size_t idlen = strspn(id, "0123456789abcdef");
		if (idlen >= 16 && id[idlen] == '\n' && n + idlen + 1 == len)
			return intern_n(id, idlen);
	}
	const char *id = module ? kernel_module_build_id(module) : kernel_image_build_id();
	if (id) {
		const char *rec = xsprintf("%s%s\n", stamp, id);
		write_file_atomic(file, rec, strlen(rec));
	}
	return id;
}

/* The first candidate with DWARF whose build-id agrees with the image's
 * (when the image's can be read).  NULL with k->why_no_dwarf set. */
static const DiModule *open_dwarf(KMod *k, const char *module)
{
	StrBuf where = { 0 };
	Vec cands = module ? module_candidates(k->key, &where) : kernel_candidates(&where);
	const char *image_id = NULL;
	bool image_read = false;
	StrBuf refused = { 0 };
	for (int i = 0; i < cands.len; i++) {
		const char *path = vec_get(&cands, i);
		const char *why = NULL;
		const DiModule *m = dwarf_open(module ? k->key : NULL, path, &why);
		if (!m) {
			sb_printf(&refused, "; %s", why);
			continue;
		}
		/* a vmlinux in the -r build tree is the image itself */
		bool own_tree = sess.kernel_build_dir && !module &&
				!strcmp(path, xsprintf("%s/vmlinux", sess.kernel_build_dir));
		if (!image_read && !own_tree) {
			image_read = true;
			image_id = image_build_id(module);
		}
		if (!own_tree && image_id && m->build_id && strcmp(image_id, m->build_id)) {
			sb_printf(&refused, "; %s", xsprintf(
				_("%s (build-id %s) does not match %s (build-id %s)"),
				path, m->build_id, image_name(module), image_id));
			dwarf_close(m);
			continue;
		}
		if (!own_tree && !image_id)
			verbose(1, _("%s: the build-id of %s cannot be read; not checked\n"),
				path, image_name(module));
		sb_free(&where);
		sb_free(&refused);
		return m;
	}
	/* a refused file is the news; else where tapc looked */
	k->why_no_dwarf = refused.len ? xstrdup(sb_cstr(&refused) + 2)
		: xsprintf(_("no DWARF debug information for %s (looked for %s)"),
			   module ? module : _("the kernel"), sb_cstr(&where));
	sb_free(&where);
	sb_free(&refused);
	return NULL;
}

/* ---- user-space objects ---- */

/* Has path's ELF file DWARF of its own (a .debug_info section)? */
static bool has_debug_info(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	bool found = false;
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	size_t shstrndx;
	if (elf && elf_kind(elf) == ELF_K_ELF && elf_getshdrstrndx(elf, &shstrndx) == 0) {
		for (Elf_Scn *scn = NULL; !found && (scn = elf_nextscn(elf, scn));) {
			GElf_Shdr sh;
			const char *n;
			if (gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS &&
			    (n = elf_strptr(elf, shstrndx, sh.sh_name)) &&
			    (!strcmp(n, ".debug_info") || !strcmp(n, ".zdebug_info")))
				found = true;
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return found;
}

/* The files that may hold a user object's DWARF, in search order: the
 * object itself, its build-id file under /usr/lib/debug/.build-id/, its
 * .gnu_debuglink beside it, in .debug/ beside it and under
 * /usr/lib/debug (as gdb looks; never debuginfod). */
static Vec user_candidates(const ObjectFacts *of, StrBuf *where)
{
	Vec v = { 0 };
	sb_puts(where, of->path);
	if (has_debug_info(of->path))
		vec_push(&v, (void *)of->path);
	if (of->build_id && strlen(of->build_id) > 2)
		add_candidate(&v, where, xsprintf("/usr/lib/debug/.build-id/%.2s/%s.debug",
						  of->build_id, of->build_id + 2));
	if (of->debuglink) {
		const char *slash = strrchr(of->path, '/');
		const char *dir = xstrndup(of->path, slash - of->path);
		const char *cand[] = {
			xsprintf("%s/%s", dir, of->debuglink),
			xsprintf("%s/.debug/%s", dir, of->debuglink),
			xsprintf("/usr/lib/debug%s/%s", dir, of->debuglink),
		};
		for (size_t i = 0; i < sizeof cand / sizeof cand[0]; i++)
			if (strcmp(cand[i], of->path))
				add_candidate(&v, where, cand[i]);
	}
	return v;
}

/* A user object's DWARF: the first candidate with DWARF whose build-id
 * is the object's.  Else k->why_no_dwarf and DI_SRC_NONE (a user object
 * has no BTF: its functions come from its symbols). */
static void open_user(KMod *k, const char *path)
{
	const ObjectFacts *of = object_facts(path);
	k->src = DI_SRC_NONE;
	if (!of->readable) {
		k->why_no_dwarf = k->why_none =
			xsprintf(_("%s is not an ELF file tapc can read"), path);
		return;
	}
	StrBuf where = { 0 }, refused = { 0 };
	Vec cands = user_candidates(of, &where);
	for (int i = 0; i < cands.len; i++) {
		const char *dbg = vec_get(&cands, i);
		const char *why = NULL;
		const DiModule *m = dwarf_open_user(path, dbg, &why);
		if (!m) {
			if (strcmp(dbg, path))
				sb_printf(&refused, "; %s", why);
			continue;
		}
		if (of->build_id && m->build_id && strcmp(of->build_id, m->build_id)) {
			sb_printf(&refused, "; %s", xsprintf(
				_("%s (build-id %s) does not match %s (build-id %s)"),
				dbg, m->build_id, path, of->build_id));
			dwarf_close(m);
			continue;
		}
		k->m = m;
		k->src = DI_SRC_DWARF;
		verbose(2, _("debuginfo: %s: DWARF from %s\n"), path, dbg);
		return;
	}
	k->why_no_dwarf = refused.len ? xstrdup(sb_cstr(&refused) + 2)
		: xsprintf(_("no DWARF debug information for %s (looked in %s)"),
			   path, sb_cstr(&where));
	k->why_none = k->why_no_dwarf;
	verbose(2, _("debuginfo: %s: none (%s)\n"), path, k->why_none);
	sb_free(&where);
	sb_free(&refused);
}

static KMod *kmod(const char *module)
{
	const char *key = module_key(module);
	for (int i = 0; i < kmods.len; i++) {
		KMod *k = vec_get(&kmods, i);
		if (k->key == key)
			return k;
	}
	KMod *k = NEW(KMod);
	k->key = key;
	vec_push(&kmods, k);
	if (is_user(module)) {
		open_user(k, module);
		return k;
	}
	const char *who = module ? module : "kernel";
	k->m = open_dwarf(k, module);
	if (k->m) {
		k->src = DI_SRC_DWARF;
		verbose(2, _("debuginfo: %s: DWARF from %s\n"), who,
			k->m->debug_path ? k->m->debug_path : k->m->path);
		return k;
	}
	DiModule *bm = NEW(DiModule);
	const char *why = NULL;
	if (btf_open(module ? key : NULL, bm, &why)) {
		k->src = DI_SRC_BTF;
		k->m = bm;
		verbose(2, _("debuginfo: %s: BTF from %s (%s)\n"), who,
			bm->path ? bm->path : "?", k->why_no_dwarf);
		return k;
	}
	k->src = DI_SRC_NONE;
	k->why_none = xsprintf(_("%s; and no BTF: %s"), k->why_no_dwarf,
			       why ? why : _("not found"));
	verbose(2, _("debuginfo: %s: none (%s)\n"), who, k->why_none);
	return k;
}

DiSource di_source(const char *module)
{
	return kmod(module)->src;
}

const DiModule *di_module(const char *module)
{
	return kmod(module)->m;
}

const char *di_why_no_dwarf(const char *module)
{
	KMod *k = kmod(module);
	return k->src == DI_SRC_DWARF ? NULL : k->why_no_dwarf;
}

const char *di_why_none(const char *module)
{
	KMod *k = kmod(module);
	return k->src == DI_SRC_NONE ? k->why_none : NULL;
}

/* ---- the calls ---- */

static bool is_dwarf(const DiFunction *f)
{
	return f && f->module && dwarf_owns(f);
}

Vec di_functions(const char *module, const char *func_glob,
		 const char *file_glob, bool want_inline)
{
	KMod *k = kmod(module);
	Vec none = { 0 };
	if (k->src == DI_SRC_DWARF)
		return dwarf_functions(k->m, func_glob, file_glob, want_inline);
	if (k->src == DI_SRC_BTF && !file_glob)
		return btf_functions(k->m, func_glob);
	return none;
}

const DiFunction *di_function_at(const char *module, uint64_t pc)
{
	KMod *k = kmod(module);
	return k->src == DI_SRC_DWARF ? dwarf_function_at(k->m, pc) : NULL;
}

uint64_t di_probe_pc(const DiFunction *f)
{
	return is_dwarf(f) ? dwarf_probe_pc(f) : f->entry_pc;
}

Vec di_function_lines(const DiFunction *f, int lo, int hi)
{
	Vec none = { 0 };
	return is_dwarf(f) ? dwarf_function_lines(f, lo, hi) : none;
}

Vec di_line_rows(const char *module, uint64_t lo, uint64_t hi)
{
	KMod *k = kmod(module);
	Vec none = { 0 };
	return k->src == DI_SRC_DWARF ? dwarf_line_rows(k->m, lo, hi) : none;
}

Vec di_source_lines(const char *module, const char *file_glob, int lo,
		    int hi, bool nearest)
{
	KMod *k = kmod(module);
	Vec none = { 0 };
	return k->src == DI_SRC_DWARF
		? dwarf_source_lines(k->m, file_glob, lo, hi, nearest) : none;
}

Vec di_function_labels(const DiFunction *f, const char *glob)
{
	Vec none = { 0 };
	return is_dwarf(f) ? dwarf_function_labels(f, glob) : none;
}

Vec di_function_callees(const DiFunction *f, const char *glob, int depth)
{
	Vec none = { 0 };
	return is_dwarf(f) ? dwarf_function_callees(f, glob, depth) : none;
}

Vec di_variables_at(const DiFunction *f, uint64_t pc)
{
	if (is_dwarf(f))
		return dwarf_variables_at(f, pc);
	Vec v = { 0 };
	for (int i = 0; i < f->params.len; i++)
		vec_push(&v, vec_get(&f->params, i));
	return v;
}

bool di_cfa_at(const DiModule *m, uint64_t pc, DiLocation *out)
{
	return m && dwarf_cfa_at(m, pc, out);
}

static const DiType *find_type_in(KMod *k, const char *name)
{
	if (k->src == DI_SRC_DWARF)
		return dwarf_find_type(k->m, name);
	if (k->src == DI_SRC_BTF)
		return btf_find_type(k->m, name);
	return NULL;
}

const DiType *di_find_type(const char *module, const char *name)
{
	if (module)
		return find_type_in(kmod(module), name);
	const DiType *t = find_type_in(kmod(NULL), name);
	for (int i = 0; !t && i < kmods.len; i++) {
		KMod *k = vec_get(&kmods, i);
		if (k->key != intern("kernel") && !is_user(k->key))
			t = find_type_in(k, name);
	}
	return t;
}

const DiVariable *di_find_global(const char *module, const char *name,
				 const char *file_glob)
{
	KMod *k = kmod(module);
	return k->src == DI_SRC_DWARF ? dwarf_find_global(k->m, name, file_glob) : NULL;
}

uint64_t di_symbol_addr(const char *module, const char *name)
{
	KMod *k = kmod(module);
	return k->src == DI_SRC_DWARF ? dwarf_symbol_addr(k->m, name) : 0;
}

uint64_t di_any_symbol_addr(const char *module, const char *name)
{
	KMod *k = kmod(module);
	return k->src == DI_SRC_DWARF ? dwarf_any_symbol_addr(k->m, name) : 0;
}

uint64_t di_symbol_start(const char *module, uint64_t pc)
{
	KMod *k = kmod(module);
	return k->src == DI_SRC_DWARF ? dwarf_symbol_start(k->m, pc) : 0;
}

bool di_read_code(const char *module, uint64_t addr, void *buf, size_t len)
{
	KMod *k = kmod(module);
	return k->src == DI_SRC_DWARF && dwarf_read_code(k->m, addr, buf, len);
}

uint64_t di_function_start(const char *module, const DiFunction *f)
{
	KMod *k = kmod(module);
	uint64_t s = k->src == DI_SRC_DWARF && !f->inlined
		? dwarf_symbol_start(k->m, f->low_pc) : 0;
	return s && s <= f->low_pc && f->low_pc - s <= 16 ? s : f->low_pc;
}
