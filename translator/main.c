/* main.c - the tapc command: read options, then run the passes in order. */
#include "driver.h"

#include <errno.h>
#include <signal.h>
#include <getopt.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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

/* ---- passes 3 to 5 ---- */

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


static int passes_3_to_5(Program *prog)
{
	if (sess.last_pass == 5 && !stand_in_taprun()) {
		const char *why = cannot_load_modules();
		if (why) {
			explain_no_run(why);
			return 1;
		}
	}
	/* A module built before from the same program: no pass 3, no kbuild. */
	const char *key = NULL, *ko = NULL;
	if (sess.last_pass >= 4 && !sess.keep_tmpdir)
		key = program_cache_key(prog);
	const char *hit = key ? build_cache_lookup(key) : NULL;
	if (hit) {
		verbose(1, _("Pass 3 and 4: using cached %s\n"), hit);
		ko = build_deliver(hit, sess.module_name);
		if (!ko)
			return 1;
		if (sess.last_pass == 4) {
			printf("%s\n", ko);
			return 0;
		}
		return run_module(ko);
	}
	/* pass 3: translate */
	const char *name = NULL, *dir = NULL;
	const char *c_file = translate_program(prog, &name, &dir);
	if (dir) {
		source_dir = dir;
		atexit(finish_source_dir);
	}
	report_pass(3, _("translated to C"));
	if (!c_file || error_count)
		return 1;
	if (sess.last_pass == 3) {
		/* stap -p3 shows the generated C itself; -k also keeps it */
		size_t len;
		char *text = read_whole_file(c_file, &len);
		if (!text) {
			fprintf(stderr, _("tapc: cannot read %s: %s\n"), c_file, strerror(errno));
			return 1;
		}
		fwrite(text, 1, len, stdout);
		return fflush(stdout) == 0 ? 0 : 1;
	}
	/* pass 4: build (or take it from the cache by its C text) */
	ko = build_module(c_file, name);
	report_pass(4, _("compiled C into a kernel module"));
	if (!ko || error_count)
		return 1;
	if (key)
		build_cache_store(key, ko);
	if (sess.last_pass == 4) {
		printf("%s\n", ko);
		return 0;
	}
	/* pass 5: run */
	finish_source_dir();
	int rc = run_module(ko);
	report_pass(5, _("run completed"));
	return rc;
}

int main(int argc, char **argv)
{
	setlocale(LC_ALL, "");
	bindtextdomain(PACKAGE, LOCALEDIR);
	textdomain(PACKAGE);

	parse_options(argc, argv);
	temp_dirs_on_signals();   /* ^C during passes 1-4 leaves no folder behind */
	pass_start = now_ms();
	if (!target_init())
		return 1;

	if (sess.dump_probe_types) {
		dump_probe_types(stdout);
		return 0;
	}
	if (sess.dump_probe_aliases) {
		dump_probe_aliases(stdout);
		return error_count ? 1 : 0;
	}
	if (sess.dump_functions) {
		dump_functions(stdout);
		return error_count ? 1 : 0;
	}
	if (sess.listing)
		return list_probe_points(sess.listing_pattern, sess.listing_vars) ? 1 : 0;

	if (!sess.script_text && !sess.script_file) {
		fprintf(stderr, _("tapc: no script given: name a file, '-' for standard "
				  "input, or use -e SCRIPT\n"));
		fprintf(stderr, _("Try 'tapc --help' for more information.\n"));
		return 1;
	}

	/* pass 1: parse */
	Vec files = { 0 };
	parse_user_scripts(&files);
	if (sess.last_pass == 1)
		check_tapset_syntax();
	report_pass(1, _("parsed user script and tapsets"));
	if (error_count)
		return 1;
	if (sess.last_pass == 1) {
		for (int i = 0; i < files.len; i++)
			print_stapfile(stdout, vec_get(&files, i));
		return 0;
	}

	/* pass 2: elaborate */
	Program *prog = elaborate(&files);
	report_pass(2, _("analyzed script"));
	if (!prog || error_count)
		return 1;
	if (sess.last_pass == 2) {
		print_program(stdout, prog);
		return 0;
	}

	return passes_3_to_5(prog);
}
