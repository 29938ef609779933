/* programs.c - which file a program or library name stands for
 * (debuginfo.h): process("NAME"), -c CMD, -x PID, .library("NAME").
 */
#include "debuginfo.h"
#include "arch/arch.h"

#include <glob.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool is_regular(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static const char *canonical(const char *p)
{
	char *r = realpath(p, NULL);
	if (!r)
		return NULL;
	const char *s = intern(r);
	free(r);
	return s;
}

const char *regular_file(const char *p)
{
	return is_regular(p) ? canonical(p) : NULL;
}

/* A "#!" script stands for its interpreter. */
static const char *through_interpreter(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return path;
	char line[PATH_MAX + 3];
	const char *r = path;
	if (fgets(line, sizeof line, f) && line[0] == '#' && line[1] == '!') {
		char *p = line + 2;
		while (*p == ' ' || *p == '\t')
			p++;
		p[strcspn(p, " \t\n")] = 0;
		if (*p && is_regular(p))
			r = canonical(p) ? canonical(p) : path;
	}
	fclose(f);
	return r;
}

static const char *search_path(const char *name)
{
	if (strchr(name, '/'))
		return regular_file(name);
	const char *env = getenv("PATH");
	if (!env || !*env)
		env = "/usr/local/bin:/usr/bin:/bin";
	for (const char *p = env;;) {
		const char *colon = strchr(p, ':');
		size_t n = colon ? (size_t)(colon - p) : strlen(p);
		const char *cand = n ? xsprintf("%.*s/%s", (int)n, p, name)
				     : xsprintf("./%s", name);
		if (is_regular(cand) && access(cand, X_OK) == 0)
			return canonical(cand);
		if (!colon)
			return NULL;
		p = colon + 1;
	}
}

const char *program_path(const char *name)
{
	if (!name) {
		if (sess.target_cmd) {
			const char *c = sess.target_cmd;
			while (*c == ' ' || *c == '\t')
				c++;
			name = xstrndup(c, strcspn(c, " \t"));
		} else if (sess.target_pid > 0) {
			return canonical(xsprintf("/proc/%ld/exe", sess.target_pid));
		} else {
			return NULL;
		}
	}
	if (!*name)
		return NULL;
	const char *p = search_path(name);
	return p ? through_interpreter(p) : NULL;
}

/* Add a canonical (interned) path unless it is there: a glob's symlinks
 * (python3 -> python3.11, libX.so -> libX.so.1.0) name one file, which
 * gets one probe, not one per name. */
static void push_file_once(Vec *out, const char *c)
{
	if (!c)
		return;
	for (int k = 0; k < out->len; k++)
		if (out->data[k] == c)
			return;
	vec_push(out, (void *)c);
}

Vec programs_matching(const char *pattern)
{
	Vec out = { 0 };
	glob_t g;
	if (glob(pattern, 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++)
			if (is_regular(g.gl_pathv[i]))
				push_file_once(&out, canonical(g.gl_pathv[i]));
		globfree(&g);
	}
	return out;
}

const char *process_program(int64_t pid)
{
	return canonical(xsprintf("/proc/%lld/exe", (long long)pid));
}

/* MULTIARCH: the target's Debian triplet (arch/) */
static const char *const lib_dirs[] = {
	"/lib/MULTIARCH", "/usr/lib/MULTIARCH", "/lib64",
	"/usr/lib64", "/lib", "/usr/lib", "/usr/local/lib",
};

/* Paths the .library("...") argument stands for. */
Vec find_libraries(const char *pat)
{
	Vec out = { 0 };
	if (strchr(pat, '/')) {
		glob_t g;
		if (glob(pat, 0, NULL, &g) == 0) {
			for (size_t i = 0; i < g.gl_pathc; i++)
				if (is_regular(g.gl_pathv[i]))
					push_file_once(&out, canonical(g.gl_pathv[i]));
			globfree(&g);
		}
		return out;
	}
	for (size_t i = 0; i < sizeof lib_dirs / sizeof lib_dirs[0]; i++) {
		glob_t g;
		if (glob(xsprintf("%s/%s", arch_multiarch_path(lib_dirs[i]), pat), 0, NULL,
			 &g) != 0)
			continue;
		for (size_t j = 0; j < g.gl_pathc; j++) {
			push_file_once(&out, regular_file(g.gl_pathv[j]));
		}
		globfree(&g);
		if (out.len)
			break;
	}
	return out;
}
