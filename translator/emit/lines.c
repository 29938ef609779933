/* lines.c - pass 3: the line tables behind symfile, symline,
 * symfileline (kernel addresses) and usymfile, usymline, usymfileline
 * (user addresses) (runtime/lines.h).
 *
 * Written only when the script calls one of them, from DWARF line
 * tables (libdw, through di_line_rows()):
 *  - each user object the module carries symbols of (emit/usyms.c) that
 *    has DWARF: all of its rows, by file address;
 *  - for the kernel: the out-of-line function each kernel.function /
 *    module().function / kernel.statement probe is in, and every
 *    function of each -d MODULE (-d kernel: all of vmlinux), each as
 *    rows by offset from the function's symbol, which the runtime finds
 *    through kallsyms whatever the kernel's load offset (KASLR).
 * An address no table covers prints as a number, as stap does when it
 * knows no line.
 */
#include "emit_priv.h"
#include "debuginfo/debuginfo.h"
#include "families/probes.h"
#include "families/family.h"

#include <string.h>

/* Whether the script calls one of names[] (usyms.c asks too). */
bool lines_calls_any(Program *prog, const char *const *names, size_t n)
{
	for (int i = 0; i < prog->funcs.len; i++) {
		Func *f = prog->funcs.data[i];
		for (size_t j = 0; j < n; j++)
			if (!strcmp(f->name, names[j]))
				return true;
	}
	return false;
}

bool lines_wanted(Program *prog, bool user)
{
	static const char *const k[] = { "symfile", "symline", "symfileline" };
	static const char *const u[] = { "usymfile", "usymline", "usymfileline" };
	return user ? lines_calls_any(prog, u, 3) : lines_calls_any(prog, k, 3);
}

static void put_c_string(StrBuf *sb, const char *s)
{
	sb_putc(sb, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p < 0x20 || *p >= 0x7f || *p == '"' || *p == '\\' || *p == '?')
			sb_printf(sb, "\\%03o", *p);
		else
			sb_putn(sb, (const char *)p, 1);
	}
	sb_putc(sb, '"');
}

/* rows (DiLineRow *) as tap_lfile_TAG[] and tap_line_TAG[], addresses
 * less base; how many rows. */
int lines_rows(StrBuf *out, const char *tag, Vec rows, uint64_t base)
{
	if (!rows.len)
		return 0;
	Vec files = { 0 };
	sb_printf(out, "static const struct tap_line tap_line_%s[] = {\n", tag);
	for (int i = 0; i < rows.len; i++) {
		DiLineRow *r = rows.data[i];
		int fi = 0;
		if (r->file) {
			while (fi < files.len && files.data[fi] != r->file)
				fi++;
			if (fi == files.len)
				vec_push(&files, (void *)r->file);
		}
		sb_printf(out, "\t{ 0x%llx, %d, %d },\n",
			  (unsigned long long)(r->addr - base), fi, r->file ? r->line : 0);
	}
	sb_puts(out, "};\n");
	sb_printf(out, "static const char *const tap_lfile_%s[] = {", tag);
	for (int i = 0; i < files.len; i++) {
		sb_puts(out, "\n\t");
		put_c_string(out, files.data[i]);
		sb_putc(out, ',');
	}
	sb_puts(out, files.len ? "\n};\n" : " \"\" };\n");
	return rows.len;
}

typedef struct KFunc {
	const char *module;
	const DiFunction *f;
} KFunc;

static void add_kfunc(Vec *fs, const char *module, const DiFunction *f)
{
	if (!f || f->inlined || f->high_pc <= f->low_pc)
		return;
	for (int i = 0; i < fs->len; i++) {
		KFunc *k = fs->data[i];
		if (k->f == f)
			return;
	}
	KFunc *k = NEW(KFunc);
	k->module = module;
	k->f = f;
	vec_push(fs, k);
}

/* The kernel functions whose rows the module carries. */
static Vec kernel_functions(Program *prog)
{
	Vec fs = { 0 };
	for (int i = 0; i < prog->probes.len; i++) {
		Probe *p = prog->probes.data[i];
		ResolvedPoint *rp = p->rp;
		const char *module;
		const DiFunction *f;
		if (rp && rp->family && rp->family->kernel_function_of &&
		    rp->family->kernel_function_of(rp, &module, &f))
			add_kfunc(&fs, module, f);
	}
	for (int i = 0; i < sess.debug_modules.len; i++) {
		const char *m = sess.debug_modules.data[i];
		if (strchr(m, '/'))
			continue;       /* a user object: emit/usyms.c */
		const char *module = strcmp(m, "kernel") ? m : NULL;
		if (di_source(module) != DI_SRC_DWARF)
			continue;
		Vec all = di_functions(module, "*", NULL, false);
		for (int j = 0; j < all.len; j++)
			add_kfunc(&fs, module, all.data[j]);
	}
	return fs;
}

void lines_emit_kernel(Emitter *e, Program *prog)
{
	if (!lines_wanted(prog, false))
		return;
	Vec fs = kernel_functions(prog);
	StrBuf *out = e->out;
	sb_puts(out, "/* ---- kernel line tables (runtime/lines.h) ---- */\n");
	sb_puts(out, "#include \"runtime/lines.h\"\n");
	Vec kept = { 0 };
	for (int i = 0; i < fs.len; i++) {
		KFunc *k = fs.data[i];
		Vec rows = di_line_rows(k->module, k->f->low_pc, k->f->high_pc);
		if (lines_rows(out, xsprintf("k%d", kept.len), rows, k->f->low_pc))
			vec_push(&kept, k);
	}
	if (!kept.len) {
		sb_puts(out, "\n");
		return;
	}
	sb_printf(out, "#define TAP_KLINES 1\n#define TAP_NKLINES %d\n", kept.len);
	sb_puts(out, "static const struct tap_kfunc_lines tap_kfuncs[TAP_NKLINES] = {\n");
	for (int i = 0; i < kept.len; i++) {
		KFunc *k = kept.data[i];
		sb_puts(out, "\t{ ");
		if (k->module)
			put_c_string(out, k->module);
		else
			sb_puts(out, "NULL");
		sb_puts(out, ", ");
		put_c_string(out, k->f->name);
		sb_printf(out, ", 0x%llx, tap_line_k%d, ARRAY_SIZE(tap_line_k%d), tap_lfile_k%d },\n",
			  (unsigned long long)(k->f->high_pc - k->f->low_pc), i, i, i);
	}
	sb_puts(out, "};\n\n");
}
