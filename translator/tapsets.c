/* tapsets.c - finding and loading the tapset files a script needs.
 *
 * Parsing the whole tapset library for every run would cost more than
 * the rest of pass 2, so a cheap lexical scan records which file defines
 * which functions, globals and probe aliases.  The scan is cached on disk
 * (one file per search path, checked against each file's mtime and size),
 * and pass 2 parses only the files the script reaches.
 */
#include "tapsets.h"
#include "lex.h"
#include "wildcard.h"
#include "arch/arch.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define INDEX_MAGIC "tapc-tapset-index 2"  /* 2: keywords after a dot are name parts */

/* What the scan found in one file. */
typedef struct FileIndex {
	const char *path;       /* interned */
	long long mtime_ns, size;
	Vec funcs, globals, aliases;  /* interned names */
	bool seen;              /* still on the search path */
	Stapfile *parsed;
	bool tried;
} FileIndex;

/* A pointer-keyed hash map: interned name -> Vec of paths. */
typedef struct NameMap {
	const char **keys;
	Vec **vals;
	size_t cap, count;
	Vec order;              /* keys in insertion order */
} NameMap;

static Vec files;               /* FileIndex *, precedence order */
static NameMap func_map, global_map, alias_map, path_map;
static bool index_ready;

static size_t ptr_hash(const void *p)
{
	uintptr_t x = (uintptr_t)p;
	x ^= x >> 17;
	x *= 0x9e3779b97f4a7c15ull;
	return (size_t)(x ^ (x >> 29));
}

static Vec **map_slot(NameMap *m, const char *key, bool create)
{
	if (create && (m->count + 1) * 2 > m->cap) {
		size_t ncap = m->cap ? m->cap * 2 : 256;
		const char **nk = xrealloc_heap(NULL, ncap * sizeof *nk);
		Vec **nv = xrealloc_heap(NULL, ncap * sizeof *nv);
		memset(nk, 0, ncap * sizeof *nk);
		memset(nv, 0, ncap * sizeof *nv);
		for (size_t i = 0; i < m->cap; i++) {
			if (!m->keys[i])
				continue;
			size_t j = ptr_hash(m->keys[i]) & (ncap - 1);
			while (nk[j])
				j = (j + 1) & (ncap - 1);
			nk[j] = m->keys[i];
			nv[j] = m->vals[i];
		}
		free(m->keys);
		free(m->vals);
		m->keys = nk;
		m->vals = nv;
		m->cap = ncap;
	}
	if (!m->cap)
		return NULL;
	size_t j = ptr_hash(key) & (m->cap - 1);
	while (m->keys[j]) {
		if (m->keys[j] == key)
			return &m->vals[j];
		j = (j + 1) & (m->cap - 1);
	}
	if (!create)
		return NULL;
	m->keys[j] = key;
	m->vals[j] = NEW(Vec);
	m->count++;
	vec_push(&m->order, (void *)key);
	return &m->vals[j];
}

static void map_add(NameMap *m, const char *key, void *val)
{
	Vec *v = *map_slot(m, key, true);
	for (int i = 0; i < v->len; i++)
		if (vec_get(v, i) == val)
			return;
	vec_push(v, val);
}

static const Vec *map_get(NameMap *m, const char *key)
{
	Vec **s = map_slot(m, key, false);
	return s ? *s : NULL;
}

/* ---- the lexical scan ---- */

typedef struct Scan {
	const char *p, *end;
	const char *tok;        /* current token text */
	size_t len;
} Scan;

static bool is_ident_start(int c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_ident_char(int c)
{
	return is_ident_start(c) || (c >= '0' && c <= '9');
}

/* Next token: identifiers, numbers, strings and punctuation; comments
 * and embedded C are skipped.  Returns false at the end. */
static bool scan_next(Scan *s)
{
	const char *p = s->p, *e = s->end;
	for (;;) {
		while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
			p++;
		if (p >= e) {
			s->p = p;
			return false;
		}
		if (*p == '#' || (*p == '/' && p + 1 < e && p[1] == '/')) {
			while (p < e && *p != '\n')
				p++;
			continue;
		}
		if (*p == '/' && p + 1 < e && p[1] == '*') {
			const char *q = p + 2;
			while (q + 1 < e && !(q[0] == '*' && q[1] == '/'))
				q++;
			p = q + 1 < e ? q + 2 : e;
			continue;
		}
		if (*p == '%' && p + 1 < e && p[1] == '{') {
			const char *q = p + 2;
			while (q + 1 < e && !(q[0] == '%' && q[1] == '}'))
				q++;
			p = q + 1 < e ? q + 2 : e;
			continue;
		}
		break;
	}
	const char *start = p;
	if (is_ident_start(*p) || *p == '@' || *p == '$') {
		p++;
		while (p < e && is_ident_char(*p))
			p++;
	} else if (*p >= '0' && *p <= '9') {
		while (p < e && is_ident_char(*p))
			p++;
	} else if (*p == '"') {
		p++;
		while (p < e && *p != '"' && *p != '\n') {
			if (*p == '\\' && p + 1 < e)
				p++;
			p++;
		}
		if (p < e && *p == '"')
			p++;
	} else if ((*p == '+' || *p == '%') && p + 1 < e &&
		   (p[1] == '=' || p[1] == '(' || p[1] == ')' || p[1] == '?' ||
		    p[1] == ':')) {
		p += 2;
	} else {
		p++;
	}
	s->tok = start;
	s->len = p - start;
	s->p = p;
	return true;
}

static bool tok_is(Scan *s, const char *w)
{
	size_t n = strlen(w);
	return s->len == n && !memcmp(s->tok, w, n);
}

static bool tok_ident(Scan *s)
{
	return s->len && is_ident_start(s->tok[0]);
}

/* global a, b[10], c = 5, d% ... */
static void scan_globals(Scan *s, FileIndex *fi)
{
	while (scan_next(s) && tok_ident(s)) {
		vec_push(&fi->globals, (void *)intern_n(s->tok, s->len));
		const char *save = s->p;
		if (!scan_next(s))
			return;
		if (tok_is(s, "%")) {
			save = s->p;
			if (!scan_next(s))
				return;
		}
		if (tok_is(s, "[")) {
			while (scan_next(s) && !tok_is(s, "]"))
				;
			save = s->p;
			if (!scan_next(s))
				return;
		}
		if (tok_is(s, "%")) {
			save = s->p;
			if (!scan_next(s))
				return;
		}
		if (tok_is(s, "=")) {
			if (!scan_next(s))
				return;
			if (tok_is(s, "-") && !scan_next(s))
				return;
			save = s->p;
			if (!scan_next(s))
				return;
		}
		if (!tok_is(s, ",")) {
			s->p = save;
			return;
		}
	}
}

/* probe a.b, c.d = ...   (names before '=' or '+=' are aliases) */
static void scan_probe(Scan *s, FileIndex *fi)
{
	Vec names = { 0 };
	StrBuf cur = { 0 };
	int paren = 0;
	while (scan_next(s)) {
		if (paren) {
			if (tok_is(s, "("))
				paren++;
			else if (tok_is(s, ")"))
				paren--;
			continue;
		}
		if (tok_is(s, "(")) {
			paren = 1;
		} else if (tok_is(s, ",")) {
			vec_push(&names, (void *)intern(sb_cstr(&cur)));
			sb_reset(&cur);
		} else if (tok_is(s, "=") || tok_is(s, "+=")) {
			vec_push(&names, (void *)intern(sb_cstr(&cur)));
			for (int i = 0; i < names.len; i++)
				vec_push(&fi->aliases, vec_get(&names, i));
			break;
		} else if (tok_is(s, "{") || tok_is(s, "}") ||
			   ((tok_is(s, "probe") || tok_is(s, "function") ||
			     tok_is(s, "global")) &&
			    !(cur.len && sb_cstr(&cur)[cur.len - 1] == '.'))) {
			/* not an alias: let the caller see it (a keyword after
			 * a dot is a component: python.function.entry) */
			s->p = s->tok;
			break;
		} else if (tok_ident(s) || tok_is(s, ".") || tok_is(s, "*")) {
			sb_putn(&cur, s->tok, s->len);
		}
	}
	sb_free(&cur);
}

static void scan_file(FileIndex *fi, const char *text, size_t len)
{
	Scan s = { text, text + len, NULL, 0 };
	int depth = 0;
	while (scan_next(&s)) {
		if (tok_is(&s, "{")) {
			depth++;
		} else if (tok_is(&s, "}")) {
			if (depth > 0)
				depth--;
		} else if (depth) {
			continue;
		} else if (tok_is(&s, "function")) {
			if (scan_next(&s) && tok_ident(&s))
				vec_push(&fi->funcs, (void *)intern_n(s.tok, s.len));
		} else if (tok_is(&s, "global")) {
			scan_globals(&s, fi);
		} else if (tok_is(&s, "probe")) {
			scan_probe(&s, fi);
		}
	}
}

/* ---- the on-disk cache ---- */

static const char *cache_path(void)
{
	const Vec *dirs = tapset_dirs();
	uint64_t h = 1469598103934665603ull;
	for (int i = 0; i < dirs->len; i++) {
		/* -I lib in two folders is two different indexes */
		char *real = realpath(vec_get(dirs, i), NULL);
		const char *d = real ? xstrdup(real) : vec_get(dirs, i);
		free(real);
		for (const char *p = d; *p; p++)
			h = (h ^ (unsigned char)*p) * 1099511628211ull;
		h = (h ^ '\n') * 1099511628211ull;
	}
	const char *dir = user_cache_dir();
	if (!dir)
		return NULL;
	return xsprintf("%s/tapset-index-%016llx", dir, (unsigned long long)h);
}

static Vec cached;  /* FileIndex * read from the cache */

static FileIndex *cached_find(const char *path)
{
	for (int i = 0; i < cached.len; i++) {
		FileIndex *fi = vec_get(&cached, i);
		if (fi->path == path)
			return fi;
	}
	return NULL;
}

static void read_cache(const char *path)
{
	FILE *f = path ? fopen(path, "r") : NULL;
	if (!f)
		return;
	char line[4096];
	FileIndex *cur = NULL;
	if (!fgets(line, sizeof line, f) || strncmp(line, INDEX_MAGIC, strlen(INDEX_MAGIC))) {
		fclose(f);
		return;
	}
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = 0;
		if (line[0] == 'F' && line[1] == ' ') {
			char *t1 = strchr(line + 2, '\t');
			char *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
			if (!t2)
				break;
			*t1 = *t2 = 0;
			cur = NEW(FileIndex);
			cur->path = intern(line + 2);
			cur->mtime_ns = strtoll(t1 + 1, NULL, 10);
			cur->size = strtoll(t2 + 1, NULL, 10);
			vec_push(&cached, cur);
		} else if (cur && line[0] && line[1] == ' ') {
			const char *name = intern(line + 2);
			if (line[0] == 'f')
				vec_push(&cur->funcs, (void *)name);
			else if (line[0] == 'g')
				vec_push(&cur->globals, (void *)name);
			else if (line[0] == 'a')
				vec_push(&cur->aliases, (void *)name);
		}
	}
	fclose(f);
}

/* Best effort: a cache we cannot write only costs time. */
static void write_cache(const char *path)
{
	if (!path)
		return;
	make_dirs(xstrndup(path, strrchr(path, '/') - path));
	const char *tmp = xsprintf("%s.%ld.tmp", path, (long)getpid());
	FILE *f = fopen(tmp, "w");
	if (!f)
		return;
	fprintf(f, "%s\n", INDEX_MAGIC);
	for (int i = 0; i < files.len; i++) {
		FileIndex *fi = vec_get(&files, i);
		fprintf(f, "F %s\t%lld\t%lld\n", fi->path, fi->mtime_ns, fi->size);
		for (int j = 0; j < fi->funcs.len; j++)
			fprintf(f, "f %s\n", (char *)vec_get(&fi->funcs, j));
		for (int j = 0; j < fi->globals.len; j++)
			fprintf(f, "g %s\n", (char *)vec_get(&fi->globals, j));
		for (int j = 0; j < fi->aliases.len; j++)
			fprintf(f, "a %s\n", (char *)vec_get(&fi->aliases, j));
	}
	bool ok = !ferror(f);
	if (fclose(f) != 0 || !ok || rename(tmp, path) != 0)
		unlink(tmp);
}

/* ---- listing the search path ---- */

static bool basename_taken(Vec *seen, const char *base)
{
	for (int i = 0; i < seen->len; i++)
		if (vec_get(seen, i) == base)
			return true;
	return false;
}

/* The .stp files of one folder, sorted; a file name already seen in a
 * more specific folder hides the later one. */
static void list_tapset_dir(const char *dir, Vec *seen, bool *changed)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	Vec names = { 0 };
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);
		if (n > 4 && !strcmp(de->d_name + n - 4, ".stp"))
			vec_push(&names, xstrdup(de->d_name));
	}
	closedir(d);
	if (names.len)
		vec_sort(&names, cmp_cstr_ptr);
	for (int i = 0; i < names.len; i++) {
		const char *base = intern(vec_get(&names, i));
		if (basename_taken(seen, base))
			continue;
		const char *path = intern(xsprintf("%s/%s", dir, base));
		struct stat st;
		if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		vec_push(seen, (void *)base);
		long long mt = (long long)st.st_mtim.tv_sec * 1000000000ll + st.st_mtim.tv_nsec;
		FileIndex *fi = cached_find(path);
		if (!fi || fi->seen || fi->mtime_ns != mt || fi->size != (long long)st.st_size) {
			*changed = true;
			fi = NEW(FileIndex);
			fi->path = path;
			fi->mtime_ns = mt;
			fi->size = st.st_size;
			SrcFile *src = srcfile_read(path, path);
			if (src)
				scan_file(fi, src->text, src->len);
		}
		fi->seen = true;
		vec_push(&files, fi);
	}
}

/* Each tapset path has its own index (a checkout, a test clone, -I
 * folders), so they pile up: when a new one is made, the others not
 * rewritten for 30 days go (one still in use is only rescanned). */
static void prune_old_indexes(const char *keep)
{
	const char *dir = user_cache_dir();
	DIR *d = dir ? opendir(dir) : NULL;
	if (!d)
		return;
	time_t now = time(NULL);
	struct dirent *de;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "tapset-index-", 13))
			continue;
		const char *p = xsprintf("%s/%s", dir, de->d_name);
		struct stat st;
		if (keep && !strcmp(p, keep))
			continue;
		if (lstat(p, &st) == 0 && S_ISREG(st.st_mode) &&
		    now - st.st_mtime > 30 * 24 * 3600)
			unlink(p);
	}
	closedir(d);
}

static void build_index(void)
{
	if (index_ready)
		return;
	index_ready = true;
	const char *cpath = cache_path();
	read_cache(cpath);
	const Vec *dirs = tapset_dirs();
	Vec seen = { 0 };
	bool changed = false;
	for (int i = 0; i < dirs->len; i++) {
		const char *d = vec_get(dirs, i);
		list_tapset_dir(d, &seen, &changed);
		const char *lx = xsprintf("%s/linux", d);
		list_tapset_dir(lx, &seen, &changed);
	}
	if (files.len != cached.len)
		changed = true;
	for (int i = 0; i < files.len; i++) {
		FileIndex *fi = vec_get(&files, i);
		map_add(&path_map, fi->path, fi);
		for (int j = 0; j < fi->funcs.len; j++)
			map_add(&func_map, vec_get(&fi->funcs, j), (void *)fi->path);
		for (int j = 0; j < fi->globals.len; j++)
			map_add(&global_map, vec_get(&fi->globals, j), (void *)fi->path);
		for (int j = 0; j < fi->aliases.len; j++)
			map_add(&alias_map, vec_get(&fi->aliases, j), (void *)fi->path);
	}
	if (changed && !cached.len)
		prune_old_indexes(cpath);
	if (changed)
		write_cache(cpath);
	verbose(2, "tapset index: %d files, %zu functions, %zu aliases%s\n",
		files.len, func_map.count, alias_map.count, changed ? " (rescanned)" : "");
}

const Vec *tapset_files_for_function(const char *name)
{
	build_index();
	return map_get(&func_map, name);
}

const Vec *tapset_files_for_global(const char *name)
{
	build_index();
	return map_get(&global_map, name);
}

const Vec *tapset_function_names(void)
{
	build_index();
	Vec *names = NEW(Vec);
	for (int i = 0; i < files.len; i++) {
		FileIndex *fi = vec_get(&files, i);
		if (fi->tried && !fi->parsed)
			continue;	/* skipped: its functions do not exist */
		for (int j = 0; j < fi->funcs.len; j++)
			vec_push(names, vec_get(&fi->funcs, j));
	}
	return names;
}

int tapset_alias_count(void)
{
	build_index();
	return alias_map.order.len;
}

const char *tapset_alias_name(int i)
{
	return vec_get(&alias_map.order, i);
}

const Vec *tapset_alias_files(int i)
{
	return map_get(&alias_map, vec_get(&alias_map.order, i));
}

/* The files defining alias NAME ("syscall.read"), or NULL. */
const Vec *tapset_alias_files_named(const char *name)
{
	build_index();
	return map_get(&alias_map, intern(name));
}

const Vec *tapset_all_files(void)
{
	static Vec paths;
	build_index();
	if (!paths.len)
		for (int i = 0; i < files.len; i++)
			vec_push(&paths, (void *)((FileIndex *)vec_get(&files, i))->path);
	return &paths;
}

Stapfile *tapset_load(const char *path, bool *fresh)
{
	build_index();
	*fresh = false;
	const Vec *v = map_get(&path_map, intern(path));
	if (!v || !v->len)
		return NULL;
	FileIndex *fi = vec_get(v, 0);
	if (fi->tried)
		return NULL;
	fi->tried = true;
	SrcFile *src = srcfile_read(fi->path, fi->path);
	if (!src) {
		warning_plain(_("cannot read tapset '%s': %s"), fi->path, strerror(errno));
		return NULL;
	}
	src->is_tapset = true;
	int errs = error_count, warns = warning_count;
	bool was_quiet = diag_is_quiet();   /* loaded inside a '?' point too */
	diag_set_quiet(sess.verbose < 2 || was_quiet);
	Stapfile *f = parse_file(src, true);
	diag_set_quiet(was_quiet);
	bool bad = !f || error_count != errs;
	error_count = errs;
	warning_count = warns;
	if (bad) {
		warning_plain(_("tapset '%s' has parse errors and was skipped "
				"(-v -v shows them)"), fi->path);
		return NULL;
	}
	verbose(2, "loaded tapset %s\n", fi->path);
	f->is_tapset = true;
	f->privileged = true;
	fi->parsed = f;
	*fresh = true;
	return f;
}

/* ---- -p1: the files a script reaches ---- */

static void reach_add(Vec *todo, const Vec *paths)
{
	for (int i = 0; paths && i < paths->len; i++) {
		const char *p = vec_get(paths, i);
		bool seen = false;
		for (int j = 0; j < todo->len && !seen; j++)
			seen = vec_get(todo, j) == p;
		if (!seen)
			vec_push(todo, (void *)p);
	}
}

static void reach_node(Node **slot, void *ctx)
{
	Node *n = *slot;
	if (!n)
		return;
	if (n->kind == N_CALL)
		reach_add(ctx, tapset_files_for_function(intern(n->name)));
	else if (n->kind == N_SYMBOL)
		reach_add(ctx, tapset_files_for_global(intern(n->name)));
	for_each_child(n, reach_node, ctx);
}

/* The aliases a point may use: those its names match (wildcards
 * included), and those that are a leading part of it (an alias named
 * a.b used as a.b.c). */
static void reach_point(ProbePoint *pp, Vec *todo)
{
	StrBuf sb = { 0 };
	for (int i = 0; i < pp->comps.len; i++) {
		ProbePointComp *c = vec_get(&pp->comps, i);
		if (i)
			sb_putc(&sb, '.');
		sb_puts(&sb, c->name);
	}
	const char *text = sb_cstr(&sb);
	size_t tlen = strlen(text);
	if (has_wildcard(text)) {
		for (int i = 0; i < tapset_alias_count(); i++) {
			const char *name = tapset_alias_name(i);
			size_t n = strlen(name);
			if (wildcard_match(text, name) ||
			    (n < tlen && !strncmp(text, name, n) && text[n] == '.'))
				reach_add(todo, tapset_alias_files(i));
		}
	} else {
		/* no wildcard: the alias named by the whole text or by a
		 * leading part of it, looked up by name */
		char *part = xstrdup(text);     /* arena: not freed */
		for (size_t n = tlen; n > 0; n--) {
			if (part[n] && part[n] != '.')
				continue;
			part[n] = 0;
			reach_add(todo, map_get(&alias_map, intern(part)));
		}
	}
	sb_free(&sb);
	if (pp->condition)
		reach_node(&pp->condition, todo);
}

static void reach_probes(const Vec *probes, Vec *todo)
{
	for (int i = 0; i < probes->len; i++) {
		Probe *p = vec_get(probes, i);
		for (int j = 0; j < p->points.len; j++)
			reach_point(vec_get(&p->points, j), todo);
		reach_node(&p->body, todo);
	}
}

static void reach_file(Stapfile *f, Vec *todo)
{
	reach_probes(&f->probes, todo);
	reach_probes(&f->aliases, todo);
	for (int i = 0; i < f->funcs.len; i++) {
		Func *fn = vec_get(&f->funcs, i);
		reach_node(&fn->body, todo);
	}
	for (int i = 0; i < f->globals.len; i++) {
		Var *v = vec_get(&f->globals, i);
		reach_node(&v->init, todo);
	}
}

void tapset_check_reached(const Vec *user_files)
{
	Vec todo = { 0 };
	build_index();
	/* The user's own tapsets (-I) are checked whole, as a script is: a
	 * syntax error in one is reported even when this script does not
	 * reach it.  The library is checked as far as the script reaches. */
	for (int i = 0; i < files.len; i++) {
		FileIndex *fi = vec_get(&files, i);
		for (int j = 0; j < sess.tapset_dirs.len; j++) {
			const char *dir = vec_get(&sess.tapset_dirs, j);
			size_t n = strlen(dir);
			while (n > 1 && dir[n - 1] == '/')
				n--;
			if (!strncmp(fi->path, dir, n) && fi->path[n] == '/') {
				vec_push(&todo, (void *)fi->path);
				break;
			}
		}
	}
	for (int i = 0; i < user_files->len; i++)
		reach_file(vec_get(user_files, i), &todo);
	for (int i = 0; i < todo.len; i++) {
		const char *path = vec_get(&todo, i);
		SrcFile *src = srcfile_read(path, path);
		if (!src) {
			warning_plain(_("cannot read tapset '%s': %s"), path,
				      strerror(errno));
			continue;
		}
		pass1_soft_errors = true;
		Stapfile *f = parse_file(src, true);
		pass1_soft_errors = false;
		if (f)
			reach_file(f, &todo);
	}
}

/* A name only another architecture's tapsets define (x86_64's ia32 system
 * calls, arch_prctl, iopl...) is not in the index, which holds the
 * target's folder only; its folders are read here, when a point that
 * nothing defines is reported, to say why. */
const char *tapset_alias_other_arch(const char *name)
{
	const Vec *dirs = tapset_dirs();
	const Arch *const *all = arch_all();
	const char *want = intern(name);
	for (int i = 0; i < dirs->len; i++) {
		for (int k = 0; all[k]; k++) {
			if (!strcmp(all[k]->name, target_arch()))
				continue;
			const char *ad = xsprintf("%s/%s", (const char *)vec_get(dirs, i),
						  all[k]->name);
			DIR *d = opendir(ad);
			if (!d)
				continue;
			struct dirent *de;
			bool found = false;
			while (!found && (de = readdir(d))) {
				size_t n = strlen(de->d_name);
				if (n <= 4 || strcmp(de->d_name + n - 4, ".stp"))
					continue;
				const char *path = xsprintf("%s/%s", ad, de->d_name);
				SrcFile *src = srcfile_read(path, path);
				if (!src)
					continue;
				FileIndex fi = { 0 };
				scan_file(&fi, src->text, src->len);
				for (int j = 0; j < fi.aliases.len && !found; j++)
					found = vec_get(&fi.aliases, j) == want;
			}
			closedir(d);
			if (found)
				return all[k]->name;
		}
	}
	return NULL;
}
