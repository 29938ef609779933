/* target.c - facts of the kernel the script is built for: its release,
 * architecture, configuration and kbuild tree.  They come from -r (a
 * release or a build tree), else from the running kernel.  Also the
 * tapset search path, which has a folder per architecture. */
#include "passes.h"
#include "arch/arch.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

static const char *release, *arch;
static bool cross;
static bool config_loaded;
static Vec config_names, config_values;

static const char *read_first_line(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	char buf[256];
	const char *r = NULL;
	if (fgets(buf, sizeof buf, f)) {
		buf[strcspn(buf, "\n")] = 0;
		r = xstrdup(buf);
	}
	fclose(f);
	return r;
}

/* A release given with -r must be one tapc can learn something about:
 * else every kernel probe would be accepted unchecked, for a kernel that
 * is not there.  Returns false after saying where it looked. */
static bool release_known(const char *rel)
{
	const char *places[] = {
		target_path(xsprintf("/lib/modules/%s", rel)),
		target_path(xsprintf("/usr/src/linux-headers-%s", rel)),
		target_path(xsprintf("/boot/System.map-%s", rel)),
		target_path(xsprintf("/usr/lib/debug/boot/System.map-%s", rel)),
		target_path(xsprintf("/boot/vmlinuz-%s", rel)),
		target_path(xsprintf("/boot/config-%s", rel)),
	};
	StrBuf where = { 0 };
	for (size_t i = 0; i < sizeof places / sizeof places[0]; i++) {
		if (access(places[i], F_OK) == 0) {
			sb_free(&where);
			return true;
		}
		sb_printf(&where, "%s%s", i ? ", " : "", places[i]);
	}
	if (cross)
		error_plain(_("unknown %s kernel release '%s': no modules folder, build "
			      "tree, headers, System.map, image or config for it (looked "
			      "for %s; scripts/fetch-%s.sh --release %s fetches Debian's "
			      "linux-headers-%s, linux-image-%s and, with --dbg, its -dbg "
			      "package there)"),
			    arch, rel, sb_cstr(&where), arch, rel, rel, rel);
	else
		error_plain(_("unknown kernel release '%s': no modules folder, build tree, "
			      "headers, System.map, image or config for it (looked for %s)"),
			    rel, sb_cstr(&where));
	sb_free(&where);
	return false;
}

/* The architecture a kernel build tree is configured for: the one whose
 * config symbol its .config sets (CONFIG_ARM64=y), or NULL. */
static const Arch *tree_arch(const char *dir)
{
	FILE *f = fopen(xsprintf("%s/.config", dir), "r");
	if (!f)
		return NULL;
	const Arch *found = NULL;
	char line[4096];
	for (const Arch *const *a = arch_all(); *a && !found; a++) {
		const char *want = xsprintf("%s=y", (*a)->kconfig);
		rewind(f);
		while (!found && fgets(line, sizeof line, f))
			if (!strncmp(line, want, strlen(want)) &&
			    (line[strlen(want)] == '\n' || !line[strlen(want)]))
				found = *a;
	}
	fclose(f);
	return found;
}

bool target_is_cross(void)
{
	return cross;
}

const char *target_sysroot(void)
{
	static const char *root;
	if (!cross)
		return NULL;
	if (!root) {
		StrBuf var = { 0 };
		sb_puts(&var, "TAPC_");
		for (const char *c = arch; *c; c++)
			sb_printf(&var, "%c", *c >= 'a' && *c <= 'z' ? *c - 'a' + 'A' : *c);
		sb_puts(&var, "_DIR");
		const char *env = getenv(sb_cstr(&var));
		sb_free(&var);
		root = env && *env ? xsprintf("%s/root", env)
			: xsprintf("/var/cache/tapc/%s/root", arch);
	}
	return root;
}

const char *target_path(const char *path)
{
	const char *root = target_sysroot();
	if (!root || path[0] != '/')
		return path;
	const char *in = xsprintf("%s%s", root, path);
	return access(in, F_OK) == 0 || access(path, F_OK) != 0 ? in : path;
}

/* What -B gives NAME ("CROSS_COMPILE=x-" gives "x-"), or NULL. */
static const char *make_var(const char *name)
{
	const char *r = NULL;
	size_t n = strlen(name);
	for (int i = 0; i < sess.make_vars.len; i++) {
		const char *v = vec_get(&sess.make_vars, i);
		if (!strncmp(v, name, n) && v[n] == '=')
			r = v + n + 1;
	}
	return r;
}

/* The cross compiler's prefix: -B CROSS_COMPILE=, else Debian's
 * (gcc-TRIPLET's TRIPLET-gcc). */
static const char *cross_prefix(void)
{
	const char *b = make_var("CROSS_COMPILE");
	return b ? b : xsprintf("%s-", arch_target()->multiarch);
}

const char *target_tool(const char *name)
{
	return cross ? xsprintf("%s%s", cross_prefix(), name) : name;
}

const Vec *target_kbuild_vars(void)
{
	static Vec v;
	static bool done;
	if (done || !cross)
		return &v;
	done = true;
	if (!make_var("ARCH"))
		vec_push(&v, xsprintf("ARCH=%s", arch_target()->kbuild_arch));
	if (!make_var("CROSS_COMPILE"))
		vec_push(&v, xsprintf("CROSS_COMPILE=%s", cross_prefix()));
	return &v;
}

/* A cross build needs the target's compiler: said at the start, not after
 * passes 1-3 (listings and -p1..-p3 do not compile). */
static bool check_cross_compiler(void)
{
	if (!cross || sess.listing || sess.last_pass < 4)
		return true;
	const char *cc = xsprintf("%sgcc", cross_prefix());
	if (program_on_path(cc))
		return true;
	if (make_var("CROSS_COMPILE"))
		error_plain(_("no cross compiler %s (from -B CROSS_COMPILE=%s) to build "
			      "the %s module"), cc, cross_prefix(), arch);
	else
		error_plain(_("no cross compiler %s to build the %s module: install "
			      "the package gcc-%s (scripts/fetch-%s.sh does), or name "
			      "another with -B CROSS_COMPILE=PREFIX"),
			    cc, arch, arch_target()->multiarch, arch);
	return false;
}

bool target_init(void)
{
	struct utsname u;
	if (uname(&u) != 0)
		memset(&u, 0, sizeof u);
	/* TAPC_DEFAULT_RELEASE stands for a -r that was not given (a path
	 * is a build tree, as with -r) */
	const char *dflt = getenv("TAPC_DEFAULT_RELEASE");
	if (!sess.release && !sess.kernel_build_dir && dflt && *dflt) {
		if (strchr(dflt, '/'))
			sess.kernel_build_dir = xstrdup(dflt);
		else
			sess.release = xstrdup(dflt);
	}
	/* -a, else the build tree's (-r DIR, by its .config), else the
	 * host's: one tapc builds for (arch/), whose name is what scripts
	 * test with arch == "..." */
	const Arch *a = arch_by_name(sess.arch ? sess.arch : u.machine);
	if (!sess.arch && sess.kernel_build_dir) {
		const Arch *t = tree_arch(sess.kernel_build_dir);
		if (t)
			a = t;
	}
	if (!a) {
		if (sess.arch)
			error_plain(_("-a %s: tapc does not build for that architecture "
				      "(it knows %s)"), sess.arch, arch_names());
		else
			error_plain(_("this machine's architecture '%s' is not one tapc "
				      "builds for (it knows %s); name one with -a"),
				    u.machine, arch_names());
		return false;
	}
	arch_set_target(a);
	arch = a->name;
	cross = a != arch_by_name(u.machine);
	if (sess.kernel_build_dir) {
		const char *f = xsprintf("%s/include/config/kernel.release",
					 sess.kernel_build_dir);
		release = read_first_line(f);
		if (release && *release)
			return check_cross_compiler();
		release = xstrdup(u.release);
		if (!is_dir(sess.kernel_build_dir))
			error_plain(_("-r %s: no such kernel build tree"),
				    sess.kernel_build_dir);
		else
			error_plain(_("-r %s: not a prepared kernel build tree (no %s; "
				      "run 'make prepare' in it)"),
				    sess.kernel_build_dir, f);
		return false;
	}
	if (cross && !sess.release) {
		error_plain(_("-a %s: name the %s kernel to build for with -r RELEASE "
			      "or -r DIR (this machine runs %s)"),
			    sess.arch, arch, u.machine);
		return false;
	}
	release = sess.release ? sess.release : xstrdup(u.release);
	if (cross)
		return release_known(sess.release) && check_cross_compiler();
	return !sess.release || !strcmp(sess.release, u.release) ||
	       release_known(sess.release);
}

const char *target_release(void)
{
	return release;
}

const char *target_arch(void)
{
	return arch;
}

/* Read NAME=VALUE lines of the kernel's .config, from the build tree or
 * /boot.  Values keep their quotes off. */
static void load_config(void)
{
	config_loaded = true;
	const char *paths[3];
	int n = 0;
	if (sess.kernel_build_dir)
		paths[n++] = xsprintf("%s/.config", sess.kernel_build_dir);
	paths[n++] = target_path(xsprintf("/lib/modules/%s/build/.config", release));
	paths[n++] = target_path(xsprintf("/boot/config-%s", release));
	for (int i = 0; i < n; i++) {
		FILE *f = fopen(paths[i], "r");
		if (!f)
			continue;
		char line[4096];
		while (fgets(line, sizeof line, f)) {
			if (strncmp(line, "CONFIG_", 7))
				continue;
			line[strcspn(line, "\n")] = 0;
			char *eq = strchr(line, '=');
			if (!eq)
				continue;
			*eq = 0;
			char *v = eq + 1;
			size_t vl = strlen(v);
			if (vl >= 2 && v[0] == '"' && v[vl - 1] == '"') {
				v[vl - 1] = 0;
				v++;
			}
			vec_push(&config_names, (void *)intern(line));
			vec_push(&config_values, xstrdup(v));
		}
		fclose(f);
		return;
	}
}

const char *target_config(const char *name)
{
	if (!config_loaded)
		load_config();
	const char *in = intern(name);
	for (int i = 0; i < config_names.len; i++)
		if (vec_get(&config_names, i) == in)
			return vec_get(&config_values, i);
	return NULL;
}

const char *kernel_build_tree(void)
{
	static const char *tree;
	if (tree)
		return tree;
	const char *t = sess.kernel_build_dir ? sess.kernel_build_dir
		: target_path(xsprintf("/lib/modules/%s/build", target_release()));
	char real[PATH_MAX];
	return tree = realpath(t, real) ? xstrdup(real) : t;
}


/* ---- the tapset search path ---- */

static const char *installed_tapset_dir(void)
{
	const char *env = getenv("SYSTEMTAP_TAPSET");
	if (env && *env)
		return env;
	const char *beside = self_dir() ? xsprintf("%s/tapsets", self_dir()) : NULL;
	if (beside && is_dir(beside))
		return beside;
	return installed_data_dir("tapsets");
}

static void add_dir_and_arch(Vec *v, const char *d)
{
	const char *a = xsprintf("%s/%s", d, target_arch());
	if (is_dir(a))
		vec_push(v, (void *)a);
	vec_push(v, (void *)d);
}

const Vec *tapset_dirs(void)
{
	static Vec dirs;
	static bool done;
	if (done)
		return &dirs;
	done = true;
	for (int i = 0; i < sess.tapset_dirs.len; i++)
		add_dir_and_arch(&dirs, vec_get(&sess.tapset_dirs, i));
	const char *inst = installed_tapset_dir();
	/* Without it nearly every function is "unresolved"; say why. */
	if (!is_dir(inst))
		warning_plain(_("no tapset folder at %s (is tapc installed? "
				"SYSTEMTAP_TAPSET names another)"), inst);
	add_dir_and_arch(&dirs, inst);
	return &dirs;
}
