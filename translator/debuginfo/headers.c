/* headers.c - the types of user-space headers, for @cast(p, "T",
 * "<sys/un.h>"): the headers are compiled by gcc -g (with
 * -fno-eliminate-unused-debug-types, so every type they declare is in the
 * DWARF) into a small object, and dwarf.c reads the types from it.
 *
 * The object is cached in tapc's cache folder (headers/KEY.o), KEY a hash
 * of the header list and of each header's path and content as found in
 * the system's include folders; a header found in none of them (gcc
 * then usually fails) is compiled every time.  A header the top-level
 * ones include is not part of the key: a package that changes it changes
 * them too, and --clean-cache starts afresh. */
#include "tapc.h"
#include "cache.h"
#include "debuginfo/kreaders.h"
#include "arch/arch.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One header list, compiled (or not) once per run. */
typedef struct HeaderSet {
	const char *spec;       /* interned, as the script wrote it */
	const DiModule *mod;    /* its object's DWARF, or NULL */
	const char *why;        /* why not */
} HeaderSet;

static Vec sets;                /* HeaderSet * */

/* The folders gcc looks in for <...> (the ones of a plain Debian
 * system, in gcc's order; MULTIARCH: the target's triplet, arch/). */
static const char *const include_dirs[] = {
	"/usr/local/include", "/usr/include/MULTIARCH", "/usr/include",
};

/* "<a.h><b/c.h>" -> its header names; false when it is not that form. */
static bool split_headers(const char *spec, Vec *out)
{
	const char *p = spec;
	while (*p == ' ')
		p++;
	if (*p != '<')
		return false;
	while (*p) {
		if (*p == ' ') {
			p++;
			continue;
		}
		if (*p != '<')
			return false;
		const char *end = strchr(p, '>');
		if (!end || end == p + 1)
			return false;
		const char *h = xstrndup(p + 1, end - p - 1);
		if (strpbrk(h, "<\n\"") || h[0] == ' ')
			return false;
		vec_push(out, (void *)h);
		p = end + 1;
	}
	return out->len > 0;
}

/* gcc's first error line, without the name of tapc's own C file. */
static const char *first_error(const char *log, const char *cfile)
{
	const char *line = log, *pick = NULL;
	while (*line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		const char *l = xstrndup(line, len);
		if (strstr(l, "error:")) {
			pick = l;
			break;
		}
		if (!pick && len)
			pick = l;
		line = nl ? nl + 1 : line + len;
	}
	if (!pick)
		return _("gcc failed");
	size_t cl = strlen(cfile);
	if (!strncmp(pick, cfile, cl) && pick[cl] == ':') {
		/* "FILE:LINE:COL: fatal error: ..." -> "fatal error: ..." */
		const char *s = pick + cl + 1;
		for (int colons = 0; *s && colons < 2; s++)
			if (*s == ':')
				colons++;
		while (*s == ' ')
			s++;
		if (*s)
			pick = s;
	}
	return pick;
}

/* Run gcc on cfile into ofile; false with *why gcc's first error. */
static bool compile(const char *cfile, const char *ofile, const char **why)
{
	const char *argv[] = { "gcc", "-g", "-c", "-fno-eliminate-unused-debug-types",
		"-fdiagnostics-color=never", "-w", "-o", ofile, cfile, NULL };
	StrBuf log = { 0 };
	int st = run_program(argv, &log, false);
	if (st < 0) {
		*why = _("cannot run gcc (the package gcc gives it)");
		sb_free(&log);
		return false;
	}
	bool ok = st == 0;
	if (!ok)
		*why = first_error(sb_cstr(&log), cfile);
	sb_free(&log);
	return ok;
}

/* Compile the headers of spec (cached) and open the object's DWARF. */
static void load(HeaderSet *hs)
{
	Vec hdrs = { 0 };
	if (!split_headers(hs->spec, &hdrs)) {
		hs->why = _("not a list of headers such as \"<sys/un.h>\"");
		return;
	}
	Sha256 sh;
	sha256_init(&sh);
	hash_str(&sh, "tapc header types 1");
	StrBuf src = { 0 };
	bool keyed = true;
	for (int i = 0; i < hdrs.len; i++) {
		const char *h = vec_get(&hdrs, i);
		sb_printf(&src, "#include <%s>\n", h);
		hash_str(&sh, h);
		bool found = false;
		for (size_t d = 0; d < sizeof include_dirs / sizeof include_dirs[0]; d++) {
			const char *path = xsprintf("%s/%s", arch_multiarch_path(include_dirs[d]),
						    h);
			if (!is_file(path))
				continue;
			hash_str(&sh, path);
			found = hash_file(&sh, path);
			break;
		}
		keyed = keyed && found;
	}
	sb_puts(&src, "int tapc_header_types;\n");
	const char *key = sha256_hex(&sh, 32);
	const char *dir = keyed ? cache_subdir("headers") : NULL;
	const char *ofile = dir ? xsprintf("%s/%s.o", dir, key) : NULL;
	if (!ofile || !is_file(ofile)) {
		const char *t = getenv("TMPDIR");
		char *tmpdir = xsprintf("%s/tapc-hdr-XXXXXX", t && *t ? t : "/tmp");
		if (!mkdtemp(tmpdir)) {
			hs->why = xsprintf(_("cannot make a temporary folder: %s"),
					   strerror(errno));
			sb_free(&src);
			return;
		}
		temp_dir_add(tmpdir);   /* removed on a fatal signal */
		const char *cfile = xsprintf("%s/types.c", tmpdir);
		const char *tmpo = xsprintf("%s/types.o", tmpdir);
		FILE *f = fopen(cfile, "w");
		bool ok = f && fputs(sb_cstr(&src), f) >= 0;
		if (f && fclose(f) != 0)
			ok = false;
		const char *why = NULL;
		if (!ok)
			why = xsprintf(_("cannot write %s: %s"), cfile, strerror(errno));
		else if (!compile(cfile, tmpo, &why))
			ok = false;
		if (ok && ofile) {
			/* into the cache under a temporary name, then renamed */
			const char *part = xsprintf("%s/.%s.%d", dir, key, (int)getpid());
			if (copy_file(tmpo, part) && rename(part, ofile) == 0)
				unlink(tmpo);
			else {
				unlink(part);
				ofile = NULL;
			}
		}
		if (ok && !ofile)
			ofile = tmpo;
		else
			unlink(tmpo);
		unlink(cfile);
		if (!ok) {
			rmdir(tmpdir);
			temp_dir_forget(tmpdir);
			hs->why = why;
			sb_free(&src);
			return;
		}
		const char *why2 = NULL;
		hs->mod = dwarf_open(hs->spec, ofile, &why2);
		if (ofile == tmpo) {
			/* libelf holds it open: the name can go */
			unlink(tmpo);
		}
		rmdir(tmpdir);
		temp_dir_forget(tmpdir);
		if (!hs->mod)
			hs->why = why2;
		sb_free(&src);
		return;
	}
	sb_free(&src);
	const char *why = NULL;
	hs->mod = dwarf_open(hs->spec, ofile, &why);
	if (!hs->mod)
		hs->why = why;
}

const DiType *di_header_type(const char *headers, const char *name,
			     const char **why)
{
	const char *spec = intern(headers);
	HeaderSet *hs = NULL;
	for (int i = 0; i < sets.len && !hs; i++)
		if (((HeaderSet *)vec_get(&sets, i))->spec == spec)
			hs = vec_get(&sets, i);
	if (!hs) {
		hs = NEW(HeaderSet);
		hs->spec = spec;
		load(hs);
		vec_push(&sets, hs);
	}
	*why = hs->why;
	if (!hs->mod)
		return NULL;
	return dwarf_object_type(hs->mod, name);
}
