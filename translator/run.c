/* run.c - pass 5: hand the module to taprun (found beside tapc, in the
 * build tree or on PATH), or explain why this machine cannot run it. */
#include "driver.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

/* Why pass 5 cannot load a module here, or NULL when it can. */
const char *cannot_load_modules(void)
{
	struct utsname u;
	struct stat st;
	if (uname(&u) == 0 && strcmp(u.release, target_release()))
		return xsprintf(_("the module is for kernel %s, but this machine runs %s"),
				target_release(), u.release);
	if (stat("/proc/modules", &st) != 0 || stat("/sys/module", &st) != 0)
		return _("this kernel cannot load modules (it has no /proc/modules or "
			 "/sys/module: CONFIG_MODULES is not set)");
	const char *cfg = target_config("CONFIG_MODULES");
	if (cfg && strcmp(cfg, "y"))
		return _("this kernel was built without module support (CONFIG_MODULES)");
	if (geteuid() != 0)
		return _("loading a kernel module needs root");
	return NULL;
}

void explain_no_run(const char *why)
{
	fprintf(stderr, _("tapc: cannot run the script here: %s\n"), why);
	fprintf(stderr, _("tapc: build it with 'tapc -p4 -r RELEASE -m NAME ...' and run "
			  "'taprun NAME.ko' on a machine whose kernel can load modules,\n"
			  "      or, from a tapc checkout, in the test VM: "
			  "'scripts/run-in-vm SCRIPT.stp [-- COMMAND]'\n"));
}

/* $TAPC_TAPRUN: a stand-in loader (tests), which any kernel can "run". */
const char *stand_in_taprun(void)
{
	const char *env = getenv("TAPC_TAPRUN");
	return env && *env ? env : NULL;
}

/* A stand-in loader, else taprun beside tapc (installed), in the build
 * tree's taprun/ folder, or on $PATH. */
const char *find_taprun(void)
{
	if (stand_in_taprun())
		return stand_in_taprun();
	const char *self = self_dir();
	if (self) {
		const char *a = xsprintf("%s/taprun", self);
		if (is_exec_file(a))
			return a;
		const char *b = xsprintf("%s/taprun/taprun", self);
		if (is_exec_file(b))
			return b;
	}
	return find_on_path("taprun");
}

/* The static taprun built for ARCH (a cross build's target): in the build
 * tree (make taprun-static-ARCH), else installed as
 * PKGLIBEXECDIR/ARCH/taprun, looked up beside this tapc first so that
 * "make install prefix=..." finds its own.  NULL when there is none. */
const char *target_taprun(const char *arch)
{
	const char *self = self_dir();
	if (self) {
		const char *tree = xsprintf("%s/taprun/taprun-static-%s", self, arch);
		if (is_exec_file(tree))
			return tree;
		const char *rel = xsprintf("%s/../libexec/tapc/%s/taprun", self, arch);
		char *real = is_exec_file(rel) ? realpath(rel, NULL) : NULL;
		if (real)
			return real;
	}
	const char *inst = xsprintf("%s/%s/taprun", PKGLIBEXECDIR, arch);
	return is_exec_file(inst) ? inst : NULL;
}

/* taprun's options from the session (-o, -b and -S only WITH_OUTPUT). */
void push_taprun_options(Vec *argv, bool with_output)
{
	if (with_output && sess.output_file) {
		vec_push(argv, "-o");
		vec_push(argv, (void *)sess.output_file);
	}
	if (sess.target_cmd) {
		vec_push(argv, "-c");
		vec_push(argv, (void *)sess.target_cmd);
	}
	if (sess.target_pid) {
		vec_push(argv, "-x");
		vec_push(argv, xsprintf("%ld", sess.target_pid));
	}
	if (sess.timeout_s) {
		vec_push(argv, "-T");
		vec_push(argv, xsprintf("%ld", sess.timeout_s));
	}
	if (with_output && sess.bulk)
		vec_push(argv, "-b");
	if (sess.buffer_mb) {
		vec_push(argv, "-s");
		vec_push(argv, xsprintf("%d", sess.buffer_mb));
	}
	if (with_output && sess.size_mb) {
		vec_push(argv, "-S");
		vec_push(argv, sess.size_files ?
			 xsprintf("%d,%d", sess.size_mb, sess.size_files) :
			 xsprintf("%d", sess.size_mb));
	}
	if (sess.suppress_warnings)
		vec_push(argv, "-w");
	for (int i = 0; i < sess.verbose; i++)
		vec_push(argv, "-v");
}

/* The -G globals, after the module. */
void push_taprun_globals(Vec *argv)
{
	for (int i = 0; i < sess.globals_init.len; i++) {
		Define *d = vec_get(&sess.globals_init, i);
		vec_push(argv, xsprintf("%s=%s", d->name, d->value));
	}
}

static pid_t run_child;

static void forward_signal(int sig)
{
	if (run_child > 0)
		kill(run_child, sig);
}

/* Pass 5: taprun with the module and the options that belong to it. */
int run_module(const char *ko)
{
	const char *taprun = find_taprun();
	if (!taprun) {
		fprintf(stderr, _("tapc: cannot find taprun (beside tapc or on PATH); the "
				  "module is %s\n"), ko);
		return 1;
	}
	Vec argv = { 0 };
	vec_push(&argv, (void *)taprun);
	push_taprun_options(&argv, true);
	vec_push(&argv, (void *)ko);
	push_taprun_globals(&argv);
	vec_push(&argv, NULL);

	fflush(stdout);
	fflush(stderr);
	/* ^C reaches taprun from the terminal itself; TERM and HUP sent to
	 * tapc alone are passed on, so taprun still unloads the module. */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, forward_signal);
	signal(SIGHUP, forward_signal);
	run_child = fork();
	if (run_child < 0) {
		fprintf(stderr, _("tapc: cannot start taprun: %s\n"), strerror(errno));
		return 1;
	}
	if (run_child == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		execv(taprun, (char **)argv.data);
		fprintf(stderr, _("tapc: cannot run %s: %s\n"), taprun, strerror(errno));
		_exit(127);
	}
	int st;
	while (waitpid(run_child, &st, 0) < 0 && errno == EINTR)
		;
	run_child = 0;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

