/* main.c - the tapc command: read options, then run the passes in order
 * (main() at the end is the whole program). */
#include "driver.h"

#include <errno.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

/* ---- per-pass wall time and memory for -v ---- */

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static long max_rss_kb(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

static double pass_start;

static void report_pass(int pass, const char *what)
{
	if (sess.vp[pass - 1] < 1 && sess.verbose < 1)
		return;
	fprintf(stderr, _("Pass %d: %s in %.1f ms (memory: %ld KiB peak, %zu KiB arena)\n"),
		pass, what, now_ms() - pass_start, max_rss_kb(), arena_bytes() / 1024);
	pass_start = now_ms();
}

/* ---- pass 1 ---- */

static void parse_user_scripts(Vec *files)
{
	if (sess.script_text) {
		SrcFile *src = srcfile_new("<input>", sess.script_text,
					   strlen(sess.script_text));
		Stapfile *f = parse_file(src, false);
		if (f)
			vec_push(files, f);
	} else if (sess.script_file) {
		const char *shown = strcmp(sess.script_file, "-") ? sess.script_file : "<stdin>";
		SrcFile *src = srcfile_read(sess.script_file, shown);
		if (!src)
			fatal(_("cannot read script '%s': %s"), sess.script_file, strerror(errno));
		Stapfile *f = parse_file(src, false);
		if (f)
			vec_push(files, f);
	}
	for (int i = 0; i < sess.extra_scripts.len; i++) {
		const char *text = vec_get(&sess.extra_scripts, i);
		SrcFile *src = srcfile_new("<input>", text, strlen(text));
		Stapfile *f = parse_file(src, false);
		if (f)
			vec_push(files, f);
	}
}

/* ---- the state one run carries from pass to pass ---- */

typedef struct Run {
	Vec files;              /* pass 1: the user's scripts */
	Program *prog;          /* pass 2 */
	const char *cache_key;  /* the module's key in the cache, or NULL */
	const char *c_file;     /* pass 3 */
	const char *module;     /* pass 3: the module's name */
	const char *ko;         /* pass 4, or the cache */
	int rc;                 /* the exit status */
} Run;

/* The run ends here with exit status rc. */
static bool stop(Run *r, int rc)
{
	r->rc = rc;
	return false;
}

static const char *source_dir;   /* pass 3's folder: removed at exit unless -k */

static void finish_source_dir(void)
{
	if (!source_dir)
		return;
	temp_dir_forget(source_dir);
	if (sess.keep_tmpdir)
		fprintf(stderr, _("Keeping temporary folder \"%s\"\n"), source_dir);
	else
		remove_tree(source_dir);
	source_dir = NULL;
}

/* ---- the steps: each returns false when the run ends after it ---- */

static bool setup(Run *r, int argc, char **argv)
{
	setlocale(LC_ALL, "");
	bindtextdomain(PACKAGE, LOCALEDIR);
	textdomain(PACKAGE);
	diag_set_error_limit(DIAG_ERROR_LIMIT);
	Vec saved = { 0 };
	for (int i = 0; i < argc; i++)
		vec_push(&saved, argv[i]);   /* getopt reorders argv */
	parse_options(argc, argv);
	temp_dirs_on_signals();   /* ^C during passes 1-4 leaves no folder behind */
	if (remote_count()) {
		/* each target's kernel is built for and run there by remote.c,
		 * which runs tapc itself for each kernel */
		return stop(r, remote_main(argc, (char **)saved.data));
	}
	pass_start = now_ms();
	if (!target_init())          /* -r names nothing installed */
		return stop(r, 1);
	return true;
}

/* --dump-probe-types, --dump-probe-aliases, --dump-functions,
 * --dump-globals, -l, -L:
 * they are the whole run. */
static bool no_listing(Run *r)
{
	if (sess.dump_probe_types) {
		dump_probe_types(stdout);
		return stop(r, 0);
	}
	if (sess.dump_probe_aliases) {
		dump_probe_aliases(stdout);
		return stop(r, error_count ? 1 : 0);
	}
	if (sess.dump_functions) {
		dump_functions(stdout);
		return stop(r, error_count ? 1 : 0);
	}
	if (sess.dump_globals) {
		dump_globals(stdout);
		return stop(r, error_count ? 1 : 0);
	}
	if (sess.listing)
		return stop(r, list_probe_points(sess.listing_pattern, sess.listing_vars) ? 1 : 0);
	if (!sess.script_text && !sess.script_file) {
		fprintf(stderr, _("tapc: no script given: name a file, '-' for standard "
				  "input, or use -e SCRIPT\n"));
		fprintf(stderr, _("Try 'tapc --help' for more information.\n"));
		return stop(r, 1);
	}
	return true;
}

/* --sign-module: the signing tool and key are there (the key made on
 * first use) before any work, and before the cache keys, which name the
 * key.  Passes 1-3 build nothing to sign. */
static bool signing_ready(Run *r)
{
	if (sess.last_pass >= 4 && !sign_prepare())
		return stop(r, 1);
	return true;
}

static bool pass1_parse(Run *r)
{
	parse_user_scripts(&r->files);
	if (sess.last_pass == 1)
		tapset_check_reached(&r->files);
	report_pass(1, _("parsed user script and tapsets"));
	if (error_count)
		return stop(r, 1);
	if (sess.last_pass == 1) {
		for (int i = 0; i < r->files.len; i++)
			print_stapfile(stdout, vec_get(&r->files, i));
		return stop(r, 0);
	}
	return true;
}

static bool pass2_elaborate(Run *r)
{
	r->prog = elaborate(&r->files);
	report_pass(2, _("analyzed script"));
	if (!r->prog || error_count)
		return stop(r, 1);
	if (sess.last_pass == 2) {
		print_program(stdout, r->prog);
		return stop(r, 0);
	}
	return true;
}

/* Before any work for pass 5: can this machine load the module at all? */
static bool can_run_here(Run *r)
{
	/* a cross build stops after pass 4 (pass4_build) */
	if (sess.last_pass == 5 && !target_is_cross() && !stand_in_taprun()) {
		const char *why = cannot_load_modules();
		if (why) {
			explain_no_run(why);
			return stop(r, 1);
		}
	}
	return true;
}

/* The cache key of the module before pass 3: everything its C text is
 * made of (every source file, the elaborated program, the options pass 3
 * reads), handed to cache.c's build_cache_key(), which adds the runtime,
 * the kernel tree and -D. */
static const char *program_cache_key(Program *prog)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	fprintf(f, "tapc program key 1\n");
	/* a rebuilt translator may translate the same program differently */
	struct stat self;
	if (stat("/proc/self/exe", &self) == 0)
		fprintf(f, "tapc %lld %lld %lld\n", (long long)self.st_size,
			(long long)self.st_mtime, (long long)self.st_ino);
	for (int i = 0; i < prog->files.len; i++) {
		Stapfile *sf = vec_get(&prog->files, i);
		fprintf(f, "file %s %zu\n", sf->src->name, sf->src->len);
		fwrite(sf->src->text, 1, sf->src->len, f);
	}
	print_program(f, prog);
	fprintf(f, "\noptions %d %d %d %s\n", sess.guru, sess.unoptimized,
		sess.suppress_handler_errors, sess.script_file ? sess.script_file : "");
	for (int i = 0; i < sess.args.len; i++)
		fprintf(f, "arg %zu %s\n", strlen(vec_get(&sess.args, i)),
			(char *)vec_get(&sess.args, i));
	for (int i = 0; i < sess.globals_init.len; i++)
		fprintf(f, "G %s\n", ((Define *)vec_get(&sess.globals_init, i))->name);
	for (int i = 0; i < sess.modinfo.len; i++)
		fprintf(f, "modinfo %s\n", (char *)vec_get(&sess.modinfo, i));
	for (int i = 0; i < sess.make_vars.len; i++)
		fprintf(f, "B %s\n", (char *)vec_get(&sess.make_vars, i));
	usyms_cache_key(f, prog);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	const char *key = build_cache_key(buf, len, sess.module_name ? sess.module_name : "");
	free(buf);
	return key;
}

/* A module built before from the same program: no pass 3, no kbuild. */
static bool use_cached_module(Run *r)
{
	if (sess.last_pass >= 4 && !sess.keep_tmpdir)
		r->cache_key = program_cache_key(r->prog);
	const char *hit = r->cache_key ? build_cache_lookup(r->cache_key) : NULL;
	if (!hit)
		return true;
	verbose(1, _("Pass 3 and 4: using cached %s\n"), hit);
	r->ko = build_deliver(hit, sess.module_name);
	return r->ko ? true : stop(r, 1);
}

static bool pass3_translate(Run *r)
{
	if (r->ko)
		return true;   /* from the cache */
	const char *dir = NULL;
	r->c_file = translate_program(r->prog, &r->module, &dir);
	if (dir) {
		source_dir = dir;
		atexit(finish_source_dir);
	}
	report_pass(3, _("translated to C"));
	if (!r->c_file || error_count)
		return stop(r, 1);
	if (sess.last_pass == 3) {
		/* stap -p3 shows the generated C itself; -k also keeps it */
		size_t len;
		char *text = read_whole_file(r->c_file, &len);
		if (!text) {
			fprintf(stderr, _("tapc: cannot read %s: %s\n"), r->c_file,
				strerror(errno));
			return stop(r, 1);
		}
		fwrite(text, 1, len, stdout);
		return stop(r, fflush(stdout) == 0 ? 0 : 1);
	}
	return true;
}

static bool pass4_build(Run *r)
{
	if (!r->ko) {
		r->ko = build_module(r->c_file, r->module);
		report_pass(4, _("compiled C into a kernel module"));
		if (!r->ko || error_count)
			return stop(r, 1);
		if (r->cache_key)
			build_cache_alias(r->cache_key, r->ko);
	}
	if (sess.last_pass == 4) {
		printf("%s\n", r->ko);
		return stop(r, 0);
	}
	if (target_is_cross()) {
		/* a module for another architecture cannot be loaded here */
		printf("%s\n", r->ko);
		const char *loader = target_taprun(target_arch());
		if (loader)
			fprintf(stderr, _("tapc: %s is for %s %s and is not run here: copy it "
					  "and the %s taprun, %s, to that host and run "
					  "'taprun MODULE.ko' there\n"),
				r->ko, target_arch(), target_release(), target_arch(), loader);
		else
			fprintf(stderr, _("tapc: %s is for %s %s and is not run here: copy it "
					  "to that host and run it with a taprun built for %s "
					  "(make taprun-static-%s builds a static one)\n"),
				r->ko, target_arch(), target_release(), target_arch(),
				target_arch());
		return stop(r, 0);
	}
	return true;
}

static bool pass5_run(Run *r)
{
	finish_source_dir();
	r->rc = run_module(r->ko);
	report_pass(5, _("run completed"));
	return false;
}

int main(int argc, char **argv)
{
	Run r = { 0 };
	if (setup(&r, argc, argv) &&
	    no_listing(&r) &&
	    signing_ready(&r) &&
	    pass1_parse(&r) &&
	    pass2_elaborate(&r) &&
	    can_run_here(&r) &&
	    use_cached_module(&r) &&
	    pass3_translate(&r) &&
	    pass4_build(&r))
		pass5_run(&r);
	return r.rc;
}
