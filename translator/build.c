/* build.c - pass 4: the generated C file becomes NAME.ko through the
 * target kernel's own kbuild (make -C TREE M=DIR modules), after the
 * feature probes told the runtime which kernel APIs the target has.
 * Built modules and feature headers are cached by content hash. */
#include "build.h"
#include "passes.h"
#include "sign.h"
#include "debuginfo/debuginfo.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/* ================= files and folders ================= */

static bool write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return false;
	bool ok = fputs(text, f) >= 0;
	return fclose(f) == 0 && ok;
}

/* Remove a build folder, or with -k say where it stays. */
static void finish_tmpdir(const char *dir)
{
	temp_dir_forget(dir);
	if (sess.keep_tmpdir)
		fprintf(stderr, _("Keeping temporary folder \"%s\"\n"), dir);
	else
		remove_tree(dir);
}

/* ================= the kernel's build tree ================= */

/* The tree must have a kbuild Makefile; say which package gives it. */
static bool check_build_tree(void)
{
	const char *tree = kernel_build_tree();
	if (is_file(xsprintf("%s/Makefile", tree)))
		return true;
	if (sess.kernel_build_dir)
		error_plain(_("'%s' is not a kernel build tree (it has no Makefile)"), tree);
	else if (target_is_cross())
		error_plain(_("no %s kernel build tree for %s at %s: scripts/fetch-%s.sh "
			      "--release %s fetches Debian's linux-headers-%s there, or "
			      "give -r DIR"),
			    target_arch(), target_release(), tree, target_arch(),
			    target_release(), target_release());
	else
		error_plain(_("no kernel build tree for %s at %s: install the package "
			      "linux-headers-%s, or give -r DIR"),
			    target_release(), tree, target_release());
	return false;
}

/* ================= handing the module over ================= */

const char *build_deliver(const char *ko_path, const char *module_name)
{
	if (!sess.module_name)
		return ko_path;
	const char *out = xsprintf("%s.ko", module_name);
	if (!copy_file(ko_path, out)) {
		error_plain(_("cannot write module '%s': %s"), out, strerror(errno));
		return NULL;
	}
	return out;
}

/* ================= running kbuild ================= */

/* make -C TREE M=DIR [-B values] ARGS..., its output collected in LOG
 * (and shown as it comes with -vvv).  Returns make's exit status, or -1
 * when it could not run. */
static int run_kbuild(const char *dir, const char **args, int nargs, StrBuf *log)
{
	Vec argv = { 0 };
	vec_push(&argv, (void *)"make");
	vec_push(&argv, (void *)"-C");
	vec_push(&argv, (void *)kernel_build_tree());
	vec_push(&argv, xsprintf("M=%s", dir));
	const Vec *cross = target_kbuild_vars();
	for (int i = 0; i < cross->len; i++)
		vec_push(&argv, vec_get(cross, i));
	for (int i = 0; i < sess.make_vars.len; i++)
		vec_push(&argv, vec_get(&sess.make_vars, i));
	if (sess.vp[3] >= 3)
		vec_push(&argv, (void *)"V=1");
	for (int i = 0; i < nargs; i++)
		vec_push(&argv, (void *)args[i]);
	vec_push(&argv, NULL);

	if (sess.vp[3] >= 2) {
		StrBuf cmd = { 0 };
		for (int i = 0; i < argv.len - 1; i++)
			sb_printf(&cmd, "%s%s", i ? " " : "", (char *)vec_get(&argv, i));
		fprintf(stderr, _("Pass 4: running %s\n"), sb_cstr(&cmd));
		sb_free(&cmd);
	}

	return run_program((const char *const *)argv.data, log, sess.vp[3] >= 3);
}

/* kbuild's progress lines ("  CC [M]  x.o"), make's own, BTF notes. */
static bool is_kbuild_chatter(const char *line)
{
	if (!strncmp(line, "make[", 5) || !strncmp(line, "make:", 5))
		return true;
	if (line[0] == ' ' && line[1] == ' ' && isupper((unsigned char)line[2]))
		return true;
	return !strncmp(line, "Skipping BTF", 12);
}

/* Print what the compiler and modpost said, with DIR/ taken out of file
 * names so a #line place reads "script.stp:3:5: error: ..." and a place in
 * the generated code "NAME.c:120:3: ...".  When nothing is left (make
 * itself failed), the log's tail is shown instead. */
static void show_build_errors(const char *log, const char *dir, bool tail_if_empty)
{
	const char *prefix = xsprintf("%s/", dir);
	size_t plen = strlen(prefix);
	StrBuf out = { 0 };
	for (const char *p = log; *p;) {
		const char *eol = strchr(p, '\n');
		size_t n = eol ? (size_t)(eol - p) : strlen(p);
		char *line = xstrndup(p, n);
		p += n + (eol ? 1 : 0);
		if (is_kbuild_chatter(line))
			continue;
		for (char *q = line; *q;) {
			char *hit = strstr(q, prefix);
			if (!hit) {
				sb_puts(&out, q);
				break;
			}
			sb_putn(&out, q, hit - q);
			q = hit + plen;
		}
		sb_putc(&out, '\n');
	}
	if (out.len) {
		fputs(sb_cstr(&out), stderr);
	} else if (tail_if_empty) {
		/* the last lines say why make stopped */
		const char *tail = log + strlen(log);
		for (int lines = 0; tail > log && lines < 16; )
			if (*--tail == '\n' && tail[1])
				lines++;
		fputs(tail, stderr);
		if (*log && log[strlen(log) - 1] != '\n')
			fputc('\n', stderr);
	}
	sb_free(&out);
}

/* A value for a Kbuild line: quoted for the shell that runs the compiler,
 * with make's '$' and '#' escaped. */
static void put_kbuild_word(StrBuf *sb, const char *w)
{
	sb_putc(sb, '\'');
	for (; *w; w++) {
		if (*w == '\'')
			sb_puts(sb, "'\\''");
		else if (*w == '$')
			sb_puts(sb, "$$");
		else if (*w == '#')
			sb_puts(sb, "\\#");
		else
			sb_putc(sb, *w);
	}
	sb_putc(sb, '\'');
}

/* ================= feature probes ================= */

/* Symbols a probe needs exported: the words after "exports:" on one of
 * its lines (up to the end of a comment). */
static Vec probe_exports(const char *text)
{
	Vec v = { 0 };
	const char *p = strstr(text, "exports:");
	if (!p)
		return v;
	p += 8;
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		const char *s = p;
		while (isalnum((unsigned char)*p) || *p == '_')
			p++;
		if (p == s)
			break;
		vec_push(&v, xstrndup(s, p - s));
	}
	return v;
}

/* Is every symbol in NEED exported by the tree (Module.symvers)? */
static bool tree_exports(const char *symvers, Vec *need)
{
	for (int i = 0; i < need->len; i++) {
		const char *sym = vec_get(need, i);
		bool found = false;
		/* lines: CRC <tab> SYMBOL <tab> MODULE <tab> EXPORT... */
		for (const char *p = symvers; p && *p && !found;) {
			const char *t = strchr(p, '\t');
			const char *eol = strchr(p, '\n');
			if (t && (!eol || t < eol)) {
				size_t n = strlen(sym);
				found = !strncmp(t + 1, sym, n) && t[1 + n] == '\t';
			}
			p = eol ? eol + 1 : NULL;
		}
		if (!found)
			return false;
	}
	return true;
}

/* "have_proc_ops.c" -> "TAP_HAVE_PROC_OPS" */
static const char *feature_macro(const char *file)
{
	size_t n = strlen(file) - 2;
	char *m = xsprintf("TAP_%.*s", (int)n, file);
	for (char *p = m; *p; p++)
		*p = toupper((unsigned char)*p);
	return m;
}

static const char *features_key(const char *fdir, Vec *probes)
{
	Sha256 s;
	sha256_init(&s);
	hash_str(&s, "tapc features v1");
	hash_str(&s, PACKAGE_VERSION);
	hash_tree_identity(&s);
	for (int i = 0; i < probes->len; i++) {
		const char *name = vec_get(probes, i);
		hash_str(&s, name);
		hash_file(&s, xsprintf("%s/%s", fdir, name));
	}
	return sha256_hex(&s, 32);
}

/* Compile every probe in one kbuild run: each its own object, -k so one
 * failure does not stop the others, -Werror so a changed signature that
 * would only warn counts as missing. */
static const char *run_feature_probes(const char *fdir, Vec *probes)
{
	const char *dir = make_temp_dir("tapc-features");
	if (!dir)
		return NULL;
	StrBuf kb = { 0 }, hdr = { 0 }, log = { 0 };
	sb_puts(&kb, "# feature probes, generated by tapc\nccflags-y := -Werror\nobj-m :=");
	Vec texts = { 0 };
	const char **args = xalloc((probes->len + 3) * sizeof *args);
	int nargs = 0;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	args[nargs++] = "-k";
	args[nargs++] = xsprintf("-j%ld", ncpu < 1 ? 1 : ncpu > 16 ? 16 : ncpu);
	for (int i = 0; i < probes->len; i++) {
		const char *name = vec_get(probes, i);
		size_t len;
		char *text = read_whole_file(xsprintf("%s/%s", fdir, name), &len);
		if (!text || !write_file(xsprintf("%s/%s", dir, name), text)) {
			error_plain(_("cannot copy feature probe %s/%s: %s"), fdir, name,
				    strerror(errno));
			temp_dir_forget(dir);
			remove_tree(dir);
			return NULL;
		}
		vec_push(&texts, text);
		const char *obj = xsprintf("%.*s.o", (int)strlen(name) - 2, name);
		sb_printf(&kb, " %s", obj);
		args[nargs++] = obj;
	}
	sb_putc(&kb, '\n');
	if (!write_file(xsprintf("%s/Kbuild", dir), sb_cstr(&kb))) {
		error_plain(_("cannot write %s/Kbuild: %s"), dir, strerror(errno));
		temp_dir_forget(dir);
		remove_tree(dir);
		return NULL;
	}
	int st = run_kbuild(dir, args, nargs, &log);
	if (st < 0 || !is_file(xsprintf("%s/baseline.o", dir))) {
		/* The probe that needs nothing failed: the tree itself is
		 * broken, and every answer would be wrong. */
		show_build_errors(sb_cstr(&log), dir, true);
		error_plain(_("the kernel build tree %s cannot compile even an empty "
			      "feature probe"), kernel_build_tree());
		finish_tmpdir(dir);
		return NULL;
	}
	char *symvers = read_whole_file(xsprintf("%s/Module.symvers", kernel_build_tree()), NULL);
	sb_printf(&hdr, "/* tap_features.h - what the kernel API of %s offers, found by\n"
		  " * compiling runtime/features/ against %s.\n"
		  " * Generated by tapc; do not edit. */\n"
		  "#ifndef TAP_FEATURES_H\n#define TAP_FEATURES_H\n\n",
		  target_release(), kernel_build_tree());
	int have = 0, total = 0;
	for (int i = 0; i < probes->len; i++) {
		const char *name = vec_get(probes, i);
		if (strncmp(name, "have_", 5))
			continue;
		const char *obj = xsprintf("%s/%.*s.o", dir, (int)strlen(name) - 2, name);
		Vec need = probe_exports(vec_get(&texts, i));
		bool ok = is_file(obj) && (!need.len || (symvers && tree_exports(symvers, &need)));
		total++;
		have += ok;
		if (ok)
			sb_printf(&hdr, "#define %s 1\n", feature_macro(name));
		else
			sb_printf(&hdr, "/* #undef %s */\n", feature_macro(name));
	}
	sb_puts(&hdr, "\n#endif\n");
	verbose(2, _("Pass 4: feature probes: %d of %d present in %s\n"), have, total,
		kernel_build_tree());
	const char *text = xstrdup(sb_cstr(&hdr));
	sb_free(&kb);
	sb_free(&hdr);
	sb_free(&log);
	finish_tmpdir(dir);
	return text;
}

const char *build_features_header(void)
{
	static const char *path;
	if (path)
		return path;
	const char *fdir = xsprintf("%s/features", runtime_source_dir());
	Vec probes = list_dir(fdir, "", ".c");
	bool baseline = false;
	for (int i = 0; i < probes.len; i++)
		baseline |= !strcmp(vec_get(&probes, i), "baseline.c");
	if (!baseline) {
		error_plain(_("the runtime in %s has no features/baseline.c; "
			      "is -R or SYSTEMTAP_RUNTIME right?"), runtime_source_dir());
		return NULL;
	}
	if (!check_build_tree())
		return NULL;
	const char *key = features_key(fdir, &probes);
	const char *cdir = cache_subdir("features");
	if (cdir && is_file(xsprintf("%s/%s.h", cdir, key))) {
		verbose(2, _("Pass 4: using cached feature header %s/%s.h\n"), cdir, key);
		return path = xsprintf("%s/%s.h", cdir, key);
	}
	const char *text = run_feature_probes(fdir, &probes);
	if (!text)
		return NULL;
	if (cdir && write_file_atomic(xsprintf("%s/%s.h", cdir, key), text, strlen(text)))
		return path = xsprintf("%s/%s.h", cdir, key);
	/* no cache: a private copy for this run */
	const char *dir = make_temp_dir("tapc-features");
	if (!dir)
		return NULL;
	const char *p = xsprintf("%s/tap_features.h", dir);
	if (!write_file(p, text)) {
		error_plain(_("cannot write %s: %s"), p, strerror(errno));
		return NULL;
	}
	return path = p;
}

/* ================= pass 4 ================= */

static bool valid_module_name(const char *s)
{
	if (!*s || isdigit((unsigned char)*s) || strlen(s) > 55)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

/* The Kbuild file: one module of one object; the runtime is found
 * as "tap.h" (-I RUNTIME) or "runtime/tap.h" (a link in the folder). */
static const char *kbuild_text(const char *dir, const char *module_name)
{
	StrBuf sb = { 0 };
	sb_printf(&sb, "# generated by tapc\nobj-m := %s.o\nccflags-y += -I", module_name);
	put_kbuild_word(&sb, dir);
	sb_puts(&sb, " -I");
	put_kbuild_word(&sb, runtime_source_dir());
	/* The kernel's configuration adds -g, and pass 4 strips what it
	 * makes (strip_module): compiling it costs a sixth of a module's
	 * build for nothing.  It is kept with -k (NAME.ko.debug).  Where
	 * kbuild makes a module's BTF from its DWARF (a tree with vmlinux:
	 * Debian's 6.12 headers ship one with only BTF), pahole then finds
	 * only the .mod.c's few types, and says nothing. */
	if (!sess.keep_tmpdir)
		sb_puts(&sb, " -g0");
	for (int i = 0; i < sess.defines.len; i++) {
		Define *d = vec_get(&sess.defines, i);
		sb_putc(&sb, ' ');
		put_kbuild_word(&sb, d->value ? xsprintf("-D%s=%s", d->name, d->value)
						: xsprintf("-D%s", d->name));
	}
	sb_putc(&sb, '\n');
	const char *r = xstrdup(sb_cstr(&sb));
	sb_free(&sb);
	return r;
}

static bool prepare_build_dir(const char *dir, const char *c_text, size_t len,
			      const char *module_name, const char *features)
{
	const char *c_path = xsprintf("%s/%s.c", dir, module_name);
	bool ok = write_file_atomic(c_path, c_text, len);
	ok = ok && write_file(xsprintf("%s/Kbuild", dir), kbuild_text(dir, module_name));
	ok = ok && copy_file(features, xsprintf("%s/tap_features.h", dir));
	ok = ok && symlink(runtime_source_dir(), xsprintf("%s/runtime", dir)) == 0;
	if (!ok)
		error_plain(_("cannot prepare the build folder %s: %s"), dir, strerror(errno));
	return ok;
}

/* The module leaves pass 4 without its debug sections: the kernel's
 * configuration compiles it with -g, which is three quarters of its size,
 * and nothing reads them (the runtime unwinds by ORC or frame pointers,
 * and names its own functions by kallsyms).  A host gets a module of
 * about stap's size.  With -k the folder keeps the whole one as
 * NAME.ko.debug, for gdb or addr2line.  The target's objcopy does it:
 * the cross one for another architecture. */
static bool strip_module(const char *ko)
{
	if (sess.keep_tmpdir && !copy_file(ko, xsprintf("%s.debug", ko))) {
		error_plain(_("cannot keep a copy of '%s': %s"), ko, strerror(errno));
		return false;
	}
	const char *tool = target_tool("objcopy");
	const char *argv[] = { tool, "--strip-debug", ko, NULL };
	StrBuf log = { 0 };
	int st = run_program(argv, &log, sess.vp[3] >= 3);
	if (st != 0)
		error_plain(_("cannot strip the module's debug sections with %s: %s"),
			    tool, st < 0 ? _("it cannot be run (binutils gives it)")
					 : sb_cstr(&log));
	sb_free(&log);
	return st == 0;
}

const char *build_module(const char *c_file, const char *module_name)
{
	if (!valid_module_name(module_name)) {
		error_plain(_("invalid module name '%s': use letters, digits and '_', "
			      "at most 55 characters"), module_name);
		return NULL;
	}
	for (int i = 0; i < sess.defines.len; i++) {
		Define *d = vec_get(&sess.defines, i);
		if (d->value && strchr(d->value, '\n')) {
			error_plain(_("-D %s: a value cannot hold a newline"), d->name);
			return NULL;
		}
	}
	size_t len;
	char *text = read_whole_file(c_file, &len);
	if (!text) {
		error_plain(_("cannot read '%s': %s"), c_file, strerror(errno));
		return NULL;
	}
	if (!is_dir(runtime_source_dir())) {
		error_plain(_("runtime folder '%s' not found (use -R DIR or set "
			      "SYSTEMTAP_RUNTIME)"), runtime_source_dir());
		return NULL;
	}
	/* The runtime includes ../include/tap_wire.h (shared with taprun). */
	const char *wire = xsprintf("%s/../include/tap_wire.h", runtime_source_dir());
	if (!is_file(wire)) {
		error_plain(_("runtime folder '%s' has no include/tap_wire.h beside it "
			      "(%s): runtime/ and include/ are installed side by side"),
			    runtime_source_dir(), wire);
		return NULL;
	}
	if (!check_build_tree())
		return NULL;

	const char *key = build_cache_key(text, len, module_name);
	/* -k asks for the build folder, so it always builds. */
	const char *hit = sess.keep_tmpdir ? NULL : build_cache_lookup(key);
	if (hit) {
		verbose(1, _("Pass 4: using cached %s\n"), hit);
		return build_deliver(hit, module_name);
	}

	const char *features = build_features_header();
	if (!features)
		return NULL;
	const char *dir = make_temp_dir("tapc");
	if (!dir)
		return NULL;
	if (!prepare_build_dir(dir, text, len, module_name, features)) {
		finish_tmpdir(dir);
		return NULL;
	}
	StrBuf log = { 0 };
	const char *args[] = { "modules" };
	int st = run_kbuild(dir, args, 1, &log);
	const char *ko = xsprintf("%s/%s.ko", dir, module_name);
	if (st != 0 || !is_file(ko)) {
		show_build_errors(sb_cstr(&log), dir, true);
		if (st < 0)
			error_plain(_("cannot run make for the kernel build tree %s"),
				    kernel_build_tree());
		else
			error_plain(_("building module '%s' for kernel %s failed%s"),
				    module_name, target_release(),
				    sess.keep_tmpdir ? "" : _(" (-k keeps the build folder)"));
		sb_free(&log);
		finish_tmpdir(dir);
		return NULL;
	}
	if (sess.vp[3] == 2)   /* the compiler's warnings; -vvv showed it all */
		show_build_errors(sb_cstr(&log), dir, false);
	sb_free(&log);
	/* stripped, then signed (stripping would drop the signature), before
	 * it is cached: the cache keys on the signer */
	if (!strip_module(ko) || !sign_module_file(ko)) {
		finish_tmpdir(dir);
		return NULL;
	}

	const char *cached = build_cache_store(key, ko);
	const char *result = build_deliver(cached ? cached : ko, module_name);
	if (!cached && !sess.module_name && result) {
		/* Nowhere else holds the module: its folder stays. */
		verbose(1, _("Pass 4: module kept in %s\n"), dir);
		temp_dir_forget(dir);
		return result;
	}
	finish_tmpdir(dir);
	return result;
}
