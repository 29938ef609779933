/* usyms.c - pass 3: the tables of the user-space objects the module
 * carries (runtime/usyms.h), for usymname/usymdata/umodname and the user
 * unwinder of ubacktrace.
 *
 * The objects are those stap carries: every object a process probe is in
 * (the program, or the library of a .library probe), every -d FILE, and
 * with --ldd the libraries those need.  Each object gets its function and
 * data symbols (one name per address), its PT_LOAD segments (to take a mapped
 * file offset back to a file address) and, when the script walks user
 * stacks, its .eh_frame reduced to unwind rows.  A module whose script
 * asks nothing of user symbols carries nothing: the answers would be the
 * same, only the module bigger.
 */
#include "emit_priv.h"
#include "debuginfo/debuginfo.h"
#include "families/probes.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The script functions whose answers come from the symbol tables, and
 * those that walk the user stack. */
static const char *const sym_users[] = {
	"usymname", "usymdata", "umodname", "umodaddr", "umodbuildid",
	"__tap_ustack_text",
	"__tap_ustack_print",
	"usymfile", "usymline", "usymfileline",
};
static const char *const unwind_users[] = {
	"__tap_ustack_text", "__tap_ustack_print", "__tap_ustack_raw",
};

static void add_object(Vec *objs, const char *path)
{
	path = intern(path);
	for (int i = 0; i < objs->len; i++)
		if (objs->data[i] == path)
			return;
	vec_push(objs, (void *)path);
}

/* -d's argument as stap names it: an absolute path (the working folder
 * put in front of a relative one, "./" dropped). */
static const char *absolute(const char *p)
{
	if (p[0] == '/')
		return p;
	char *cwd = getcwd(NULL, 0);
	if (!cwd)
		return p;
	while (p[0] == '.' && p[1] == '/')
		p += 2;
	const char *r = xsprintf("%s/%s", cwd, p);
	free(cwd);
	return r;
}

/* -d FILE names (with a '/': a user object; a bare name is a kernel
 * module, whose symbols come from the kernel's kallsyms).  A file that is
 * not an ELF object tapc can read is warned about once, as stap does. */
static void add_dash_d(Vec *objs, bool warn)
{
	Vec warned = { 0 };
	for (int i = 0; i < sess.debug_modules.len; i++) {
		const char *arg = sess.debug_modules.data[i];
		if (!strchr(arg, '/'))
			continue;
		char *real = realpath(arg, NULL);
		const ObjectFacts *f = real ? object_facts(real) : NULL;
		if (f && f->readable && f->segments.len) {
			add_object(objs, real);
			free(real);
			continue;
		}
		free(real);
		if (!warn)
			continue;
		const char *abs = intern(absolute(arg));
		bool seen = false;
		for (int j = 0; j < warned.len && !seen; j++)
			seen = warned.data[j] == abs;
		if (!seen) {
			warning_plain(_("missing unwind/symbol data for module '%s'"), abs);
			vec_push(&warned, (void *)abs);
		}
	}
}

/* One name per address: a function before a data object, a global
 * symbol before a local one, then the name with fewer leading
 * underscores (malloc before __libc_malloc), then the first in name
 * order. */
static bool better_name(const ObjSym *a, const ObjSym *b)
{
	if (a->func != b->func)
		return a->func;
	if (a->global != b->global)
		return a->global;
	size_t ua = strspn(a->name, "_"), ub = strspn(b->name, "_");
	if (ua != ub)
		return ua < ub;
	return strcmp(a->name, b->name) < 0;
}

/* The functions and data objects of f, one per address, in address
 * order: stap's table, where a symbol's size is the distance to the next
 * one. */
Vec usyms_symbols(const ObjectFacts *f)
{
	Vec out = { 0 };
	for (int i = 0; i < f->syms.len; i++) {
		ObjSym *s = f->syms.data[i];
		if (!s->addr)
			continue;
		if (out.len) {
			ObjSym *last = out.data[out.len - 1];
			if (last->addr == s->addr) {
				if (better_name(s, last))
					out.data[out.len - 1] = s;
				continue;
			}
		}
		vec_push(&out, s);
	}
	return out;
}

/* A C string literal's body for name, every byte that is not plain
 * printable ASCII (or is a quote, backslash or '?') as an octal escape. */
static void put_c_bytes(StrBuf *sb, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p < 0x20 || *p >= 0x7f || *p == '"' || *p == '\\' || *p == '?')
			sb_printf(sb, "\\%03o", *p);
		else
			sb_putn(sb, (const char *)p, 1);
	}
}

static void emit_object(StrBuf *out, int idx, const char *path, bool unwind,
			bool lines)
{
	const ObjectFacts *f = object_facts(path);
	Vec syms = usyms_symbols(f);

	sb_printf(out, "static const struct tap_useg tap_useg_%d[] = {\n", idx);
	for (int i = 0; i < f->segments.len; i++) {
		ObjSegment *g = f->segments.data[i];
		sb_printf(out, "\t{ 0x%llx, 0x%llx, 0x%llx },\n",
			  (unsigned long long)g->vaddr, (unsigned long long)g->offset,
			  (unsigned long long)g->filesz);
	}
	sb_puts(out, "};\n");

	sb_printf(out, "static const char tap_ustr_%d[] =", idx);
	size_t off = 0;
	Vec offs = { 0 };
	for (int i = 0; i < syms.len; i++) {
		ObjSym *s = syms.data[i];
		sb_puts(out, i % 4 ? " \"" : "\n\t\"");
		put_c_bytes(out, s->name);
		sb_puts(out, "\\000\"");
		size_t *o = NEW(size_t);
		*o = off;
		vec_push(&offs, o);
		off += strlen(s->name) + 1;
	}
	sb_puts(out, syms.len ? ";\n" : " \"\";\n");

	if (syms.len) {
		sb_printf(out, "static const struct tap_usym tap_usym_%d[] = {\n", idx);
		for (int i = 0; i < syms.len; i++) {
			ObjSym *s = syms.data[i];
			sb_printf(out, "\t{ 0x%llx, %zu },\n", (unsigned long long)s->addr,
				  *(size_t *)offs.data[i]);
		}
		sb_puts(out, "};\n");
	}

	Vec rows = unwind ? object_unwind_rows(path) : (Vec){ 0 };
	if (rows.len) {
		sb_printf(out, "static const struct tap_urow tap_urow_%d[] = {\n", idx);
		for (int i = 0; i < rows.len; i++) {
			UnwindRow *r = rows.data[i];
			sb_printf(out, "\t{ 0x%llx, %d, %d, %d, %d },\n",
				  (unsigned long long)r->pc, r->cfa_off, r->fp_off,
				  r->ra_off, r->kind);
		}
		sb_puts(out, "};\n");
	}
	int nlines = lines ? lines_rows(out, xsprintf("u%d", idx),
					di_line_rows(path, 0, 0), 0) : 0;
	f = object_facts(path);
	sb_printf(out, "#define TAP_UOBJ_%d { \"", idx);
	put_c_bytes(out, path);
	sb_printf(out, "\", tap_useg_%d, %d, %s%s, %d, tap_ustr_%d, %s%s, %d, ",
		  idx, f->segments.len, syms.len ? "tap_usym_" : "NULL",
		  syms.len ? xsprintf("%d", idx) : "", syms.len, idx,
		  rows.len ? "tap_urow_" : "NULL", rows.len ? xsprintf("%d", idx) : "",
		  rows.len);
	if (f->build_id) {
		sb_puts(out, "\"");
		put_c_bytes(out, f->build_id);
		sb_puts(out, "\"");
	} else {
		sb_puts(out, "NULL");
	}
	if (nlines)
		sb_printf(out, ", tap_line_u%d, %d, tap_lfile_u%d }\n", idx, nlines, idx);
	else
		sb_puts(out, ", NULL, 0, NULL }\n");
}

static Vec usyms_objects(Program *prog, bool warn)
{
	Vec objs = { 0 };
	for (int i = 0; i < prog->probes.len; i++) {
		Probe *p = prog->probes.data[i];
		ResolvedPoint *rp = p->rp;
		if (rp && rp->user_object)
			add_object(&objs, rp->user_object);
	}
	add_dash_d(&objs, warn);
	if (sess.ldd) {
		int n = objs.len;
		for (int i = 0; i < n; i++) {
			Vec libs = object_needed(objs.data[i]);
			for (int j = 0; j < libs.len; j++)
				add_object(&objs, libs.data[j]);
		}
	}
	/* only readable ELF objects with segments can be found at run time */
	Vec ok = { 0 };
	for (int i = 0; i < objs.len; i++) {
		const ObjectFacts *f = object_facts(objs.data[i]);
		if (f && f->readable && f->segments.len)
			vec_push(&ok, objs.data[i]);
	}
	return ok;
}

void usyms_emit(Emitter *e, Program *prog)
{
	bool syms = lines_calls_any(prog, sym_users, sizeof sym_users / sizeof sym_users[0]);
	bool unwind = lines_calls_any(prog, unwind_users,
				       sizeof unwind_users / sizeof unwind_users[0]);
	bool lines = lines_wanted(prog, true);
	Vec objs = usyms_objects(prog, true);
	if ((!syms && !unwind) || !objs.len)
		return;
	StrBuf *out = e->out;
	sb_puts(out, "/* ---- user objects: symbols and unwind rows (runtime/usyms.h) ---- */\n");
	sb_puts(out, "#include \"runtime/usyms.h\"\n");
	for (int i = 0; i < objs.len; i++)
		emit_object(out, i, objs.data[i], unwind, lines);
	sb_printf(out, "#define TAP_USYMS 1\n#define TAP_NUOBJS %d\n", objs.len);
	sb_puts(out, "static const struct tap_uobj tap_uobjs[TAP_NUOBJS] = {\n");
	for (int i = 0; i < objs.len; i++)
		sb_printf(out, "\tTAP_UOBJ_%d,\n", i);
	sb_puts(out, "};\n\n");
}

/* What the module cache's key needs of the user objects: --ldd, -d, and
 * each object's identity (path, size, change time, inode), so a rebuilt
 * program or library is translated again. */
void usyms_cache_key(FILE *f, Program *prog)
{
	fprintf(f, "ldd %d\n", sess.ldd);
	for (int i = 0; i < sess.debug_modules.len; i++)
		fprintf(f, "d %s\n", (const char *)sess.debug_modules.data[i]);
	Vec objs = usyms_objects(prog, false);
	for (int i = 0; i < objs.len; i++) {
		struct stat st;
		const char *p = objs.data[i];
		if (stat(p, &st) != 0)
			continue;
		fprintf(f, "uobj %s %lld %lld.%09ld %llu\n", p, (long long)st.st_size,
			(long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec,
			(unsigned long long)st.st_ino);
	}
}
