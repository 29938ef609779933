/* main.c - the tapc command: read options, then run the passes in order. */
#include "passes.h"
#include "build.h"
#include "emit.h"

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

Session sess;

static void usage(FILE *out)
{
	fprintf(out, _("Usage: tapc [OPTIONS] FILE|- [ARGS...]\n"
		       "   or: tapc [OPTIONS] -e SCRIPT [ARGS...]\n"
		       "   or: tapc [OPTIONS] -l PROBE | -L PROBE\n"
		       "Translate a SystemTap script into a kernel module, build it, run it.\n\n"));
	fprintf(out, _(
"  -h, --help        show this help\n"
"  -V, --version     show the version\n"
"  -p NUM            stop after pass NUM (1 parse, 2 elaborate, 3 translate,\n"
"                    4 build, 5 run)\n"
"  -v                more verbose; with it each pass reports time and memory\n"
"  --vp ABCDE        verbosity per pass\n"
"  -e SCRIPT         run SCRIPT given on the command line\n"
"  -E SCRIPT         run SCRIPT in addition to the main script\n"
"  -l PROBE          list the probe points matching PROBE\n"
"  -L PROBE          like -l, with the context variables of each\n"
"  -I DIR            look for tapsets in DIR too\n"
"  -R DIR            use the runtime sources in DIR\n"
"  -r RELEASE|DIR    build for kernel RELEASE or the build tree DIR\n"
"  -a ARCH           build for architecture ARCH\n"
"  -B NAME=VALUE     pass NAME=VALUE (or a flag) to kbuild\n"
"  -D NAME[=VALUE]   define NAME for the module's C compiler\n"
"  -G NAME=VALUE     set global NAME to VALUE when the module loads\n"
"  -m NAME           name the module NAME and keep it in this folder\n"
"  -k                keep the build folder\n"
"  -g                guru mode: allow embedded C and writes to kernel data\n"
"  -u                unoptimized: keep unused functions, globals and locals\n"
"  -w                no warnings\n"
"  -W                warnings are errors\n"
"  -P                prologue searching for function parameters\n"
"  -b                bulk mode: one output file per CPU\n"
"  -s NUM            NUM megabytes of transport buffer per CPU\n"
"  -o FILE           write the output to FILE\n"
"  -S SIZE[,N]       switch output files after SIZE megabytes, keep N\n"
"  -F                load the module and detach\n"
"  -c CMD            run CMD while the probes are active; target() is its pid\n"
"  -x PID            set target() to PID\n"
"  -T SECONDS        stop the script after SECONDS\n"
"  -t                collect probe timing statistics\n"
"  --compatible=VERSION      behave like that SystemTap version\n"
"  --runtime=MODE            kernel (the default)\n"
"  --skip-badvars            replace unresolvable context variables with 0\n"
"  --suppress-handler-errors abandon a failing handler and go on\n"
"  --privilege=LEVEL         stapusr, stapsys or stapdev\n"
"  --unprivileged            same as --privilege=stapusr\n"
"  --dump-probe-types        list the probe point families\n"
"  --dump-probe-aliases      list the probe aliases the tapsets define\n"
"  --dump-functions          list the functions the tapsets define\n"));
}

static void version(void)
{
	printf(_("tapc %s, a SystemTap-compatible tracer (language version %s)\n"),
	       PACKAGE_VERSION, TAPC_STAP_COMPAT_VERSION);
	printf(_("enabled features: elfutils-libdw%s\n"),
#if ENABLE_NLS
	       " NLS"
#else
	       ""
#endif
	);
}

/* Accepted for compatibility; it does not do anything (yet) in tapc. */
static void not_effective(const char *opt)
{
	fprintf(stderr, _("tapc: option %s is accepted but has no effect yet\n"), opt);
}

/* $TMPDIR must be a folder whose name survives a shell and a makefile. */
static void check_tmpdir(void)
{
	const char *t = getenv("TMPDIR");
	struct stat st;
	if (!t || !*t)
		return;
	if (strpbrk(t, " \t\n\"'$`\\;&|<>*?#()[]{}:=%")) {
		fprintf(stderr, _("tapc: TMPDIR '%s' has characters a shell or make "
				  "would misread\n"), t);
		exit(1);
	}
	if (stat(t, &st) != 0 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, _("tapc: TMPDIR '%s' is not a folder\n"), t);
		exit(1);
	}
}

static long parse_number(const char *opt, const char *s, long lo, long hi)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi) {
		fprintf(stderr, _("tapc: invalid argument '%s' for %s\n"), s, opt);
		exit(1);
	}
	return v;
}

static Define *parse_define(const char *s)
{
	Define *d = NEW(Define);
	const char *eq = strchr(s, '=');
	d->name = eq ? xstrndup(s, eq - s) : xstrdup(s);
	d->value = eq ? xstrdup(eq + 1) : NULL;
	return d;
}

static bool valid_identifier(const char *s)
{
	if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
		return false;
	for (s++; *s; s++)
		if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9')))
			return false;
	return true;
}

enum {
	OPT_COMPATIBLE = 256, OPT_RUNTIME, OPT_SKIP_BADVARS,
	OPT_SUPPRESS_HANDLER_ERRORS, OPT_UNPRIVILEGED, OPT_PRIVILEGE,
	OPT_DUMP_PROBE_TYPES, OPT_DUMP_PROBE_ALIASES, OPT_DUMP_FUNCTIONS,
	OPT_VP, OPT_PROLOGUE_SEARCHING, OPT_CLEAN_CACHE, OPT_DISABLE_CACHE,
	OPT_POISON_CACHE, OPT_COLOR, OPT_MODINFO, OPT_LDD, OPT_ALL_MODULES,
	OPT_CHECK_VERSION, OPT_SUPPRESS_TIME_LIMITS, OPT_NO_GLOBAL_VAR_DISPLAY,
	OPT_SYSROOT, OPT_SYSENV, OPT_RLIMIT, OPT_DYNINST, OPT_BPF,
	OPT_EXAMPLE, OPT_SAVE_UPROBES, OPT_TARGET_NAMESPACES, OPT_MONITOR,
	OPT_USE_SERVER, OPT_LIST_SERVERS, OPT_TRUST_SERVERS, OPT_SIGN_MODULE,
	OPT_REMOTE, OPT_REMOTE_PREFIX, OPT_DOWNLOAD_DEBUGINFO, OPT_TMPDIR,
	OPT_USE_SERVER_ON_ERROR, OPT_INTERACTIVE,
};

static const struct option long_opts[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ "interactive", no_argument, NULL, OPT_INTERACTIVE },
	{ "compatible", required_argument, NULL, OPT_COMPATIBLE },
	{ "runtime", required_argument, NULL, OPT_RUNTIME },
	{ "dyninst", no_argument, NULL, OPT_DYNINST },
	{ "bpf", no_argument, NULL, OPT_BPF },
	{ "skip-badvars", no_argument, NULL, OPT_SKIP_BADVARS },
	{ "suppress-handler-errors", no_argument, NULL, OPT_SUPPRESS_HANDLER_ERRORS },
	{ "unprivileged", no_argument, NULL, OPT_UNPRIVILEGED },
	{ "privilege", optional_argument, NULL, OPT_PRIVILEGE },
	{ "dump-probe-types", no_argument, NULL, OPT_DUMP_PROBE_TYPES },
	{ "dump-probe-aliases", no_argument, NULL, OPT_DUMP_PROBE_ALIASES },
	{ "dump-functions", no_argument, NULL, OPT_DUMP_FUNCTIONS },
	{ "vp", required_argument, NULL, OPT_VP },
	{ "prologue-searching", optional_argument, NULL, OPT_PROLOGUE_SEARCHING },
	{ "clean-cache", no_argument, NULL, OPT_CLEAN_CACHE },
	{ "disable-cache", no_argument, NULL, OPT_DISABLE_CACHE },
	{ "poison-cache", no_argument, NULL, OPT_POISON_CACHE },
	{ "color", optional_argument, NULL, OPT_COLOR },
	{ "colour", optional_argument, NULL, OPT_COLOR },
	{ "modinfo", required_argument, NULL, OPT_MODINFO },
	{ "ldd", no_argument, NULL, OPT_LDD },
	{ "all-modules", no_argument, NULL, OPT_ALL_MODULES },
	{ "check-version", no_argument, NULL, OPT_CHECK_VERSION },
	{ "suppress-time-limits", no_argument, NULL, OPT_SUPPRESS_TIME_LIMITS },
	{ "no-global-var-display", no_argument, NULL, OPT_NO_GLOBAL_VAR_DISPLAY },
	{ "sysroot", required_argument, NULL, OPT_SYSROOT },
	{ "sysenv", required_argument, NULL, OPT_SYSENV },
	{ "rlimit-as", required_argument, NULL, OPT_RLIMIT },
	{ "rlimit-cpu", required_argument, NULL, OPT_RLIMIT },
	{ "rlimit-nproc", required_argument, NULL, OPT_RLIMIT },
	{ "rlimit-stack", required_argument, NULL, OPT_RLIMIT },
	{ "rlimit-fsize", required_argument, NULL, OPT_RLIMIT },
	{ "example", no_argument, NULL, OPT_EXAMPLE },
	{ "save-uprobes", no_argument, NULL, OPT_SAVE_UPROBES },
	{ "target-namespaces", required_argument, NULL, OPT_TARGET_NAMESPACES },
	{ "monitor", optional_argument, NULL, OPT_MONITOR },
	{ "use-server", optional_argument, NULL, OPT_USE_SERVER },
	{ "use-server-on-error", optional_argument, NULL, OPT_USE_SERVER_ON_ERROR },
	{ "list-servers", optional_argument, NULL, OPT_LIST_SERVERS },
	{ "trust-servers", optional_argument, NULL, OPT_TRUST_SERVERS },
	{ "sign-module", optional_argument, NULL, OPT_SIGN_MODULE },
	{ "remote", required_argument, NULL, OPT_REMOTE },
	{ "remote-prefix", no_argument, NULL, OPT_REMOTE_PREFIX },
	{ "download-debuginfo", optional_argument, NULL, OPT_DOWNLOAD_DEBUGINFO },
	{ "tmpdir", required_argument, NULL, OPT_TMPDIR },
	{ NULL, 0, NULL, 0 },
};

static void parse_options(int argc, char **argv)
{
	int c;
	bool have_e = false, monitor = false;

	sess.last_pass = 5;
	sess.color = -1;
	sess.target_pid = 0;
	opterr = 0;
	/* Options and arguments may be mixed, as with stap: the first
	 * non-option is the script (unless -e gave it), the rest are its
	 * arguments. */
	while ((c = getopt_long(argc, argv,
				"hVvp:I:e:E:o:R:r:m:kgPc:x:D:bs:uqiwl:d:L:FS:B:WG:a:tT:C:",
				long_opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			version();
			exit(0);
		case 'v':
			sess.verbose++;
			for (int i = 0; i < 5; i++)
				sess.vp[i]++;
			break;
		case OPT_VP: {
			size_t n = strlen(optarg);
			if (n > 5 || strspn(optarg, "0123456789") != n) {
				fprintf(stderr, _("tapc: invalid argument '%s' for --vp\n"), optarg);
				exit(1);
			}
			for (size_t i = 0; i < n; i++) {
				sess.vp[i] += optarg[i] - '0';
				if (sess.vp[i] > sess.verbose)
					sess.verbose = sess.vp[i];
			}
			break;
		}
		case 'p':
			sess.last_pass = parse_number("-p", optarg, 1, 5);
			break;
		case 'I':
			vec_push(&sess.tapset_dirs, optarg);
			break;
		case 'e':
			if (have_e || sess.script_text) {
				fprintf(stderr, _("tapc: only one -e script may be given\n"));
				exit(1);
			}
			sess.script_text = optarg;
			have_e = true;
			break;
		case 'E':
			vec_push(&sess.extra_scripts, optarg);
			break;
		case 'o':
			sess.output_file = optarg;
			break;
		case 'R':
			sess.runtime_dir = optarg;
			break;
		case 'r':
			if (strchr(optarg, '/')) {
				sess.kernel_build_dir = optarg;
				sess.release = NULL;
			} else {
				sess.release = optarg;
			}
			break;
		case 'm':
			if (!valid_identifier(optarg) || strlen(optarg) > 55) {
				fprintf(stderr, _("tapc: invalid module name '%s': use letters, "
						  "digits and '_', at most 55 characters\n"), optarg);
				exit(1);
			}
			sess.module_name = optarg;
			break;
		case 'k':
			sess.keep_tmpdir = true;
			break;
		case 'g':
			sess.guru = true;
			break;
		case 'P':
			sess.prologue_searching = true;
			break;
		case OPT_PROLOGUE_SEARCHING:
			if (!optarg || !strcmp(optarg, "always"))
				sess.prologue_searching = true;
			else if (!strcmp(optarg, "never"))
				sess.prologue_searching = false;
			else if (strcmp(optarg, "auto")) {
				fprintf(stderr, _("tapc: invalid argument '%s' for "
						  "--prologue-searching (use always, never or auto)\n"),
					optarg);
				exit(1);
			}
			break;
		case 'c':
			sess.target_cmd = optarg;
			break;
		case 'x':
			sess.target_pid = parse_number("-x", optarg, 1, 0x7fffffff);
			break;
		case 'D': {
			Define *d = parse_define(optarg);
			if (!valid_identifier(d->name)) {
				fprintf(stderr, _("tapc: invalid -D '%s': expected NAME or NAME=VALUE\n"),
					optarg);
				exit(1);
			}
			vec_push(&sess.defines, d);
			break;
		}
		case 'G': {
			Define *d = parse_define(optarg);
			if (!valid_identifier(d->name) || !d->value) {
				fprintf(stderr, _("tapc: invalid -G '%s': expected NAME=VALUE\n"),
					optarg);
				exit(1);
			}
			vec_push(&sess.globals_init, d);
			break;
		}
		case 'B':
			vec_push(&sess.make_vars, optarg);
			break;
		case 'b':
			sess.bulk = true;
			break;
		case 's':
			sess.buffer_mb = parse_number("-s", optarg, 1, 4095);
			break;
		case 'u':
			sess.unoptimized = true;
			break;
		case 'q':
			not_effective("-q");
			break;
		case 'i':
		case OPT_INTERACTIVE:
			fprintf(stderr, _("tapc: interactive mode is not supported\n"));
			exit(1);
		case 'w':
			sess.suppress_warnings = true;
			break;
		case 'W':
			sess.warnings_are_errors = true;
			break;
		case 'l':
		case 'L':
			sess.listing = true;
			sess.listing_vars = c == 'L';
			sess.listing_pattern = optarg;
			break;
		case 'd':
			vec_push(&sess.debug_modules, optarg);
			break;
		case 'F':
			sess.detach = true;
			break;
		case 'S':
			sess.output_size = optarg;
			break;
		case 'a':
			sess.arch = optarg;
			break;
		case 't':
			sess.timing = true;
			break;
		case 'T':
			sess.timeout_s = parse_number("-T", optarg, 1, 0x7fffffff);
			break;
		case 'C':
			not_effective("-C");
			break;
		case OPT_COMPATIBLE:
			if (!*optarg || strspn(optarg, "0123456789.") != strlen(optarg)) {
				fprintf(stderr, _("tapc: invalid --compatible version '%s'\n"), optarg);
				exit(1);
			}
			sess.compatible = optarg;
			break;
		case OPT_RUNTIME:
			if (strcmp(optarg, "kernel") && strcmp(optarg, "bpf") &&
			    strcmp(optarg, "dyninst")) {
				fprintf(stderr, _("tapc: invalid --runtime '%s' (use kernel, bpf "
						  "or dyninst)\n"), optarg);
				exit(1);
			}
			sess.runtime_mode = optarg;
			break;
		case OPT_DYNINST:
			sess.runtime_mode = "dyninst";
			break;
		case OPT_BPF:
			sess.runtime_mode = "bpf";
			break;
		case OPT_SKIP_BADVARS:
			sess.skip_badvars = true;
			break;
		case OPT_SUPPRESS_HANDLER_ERRORS:
			sess.suppress_handler_errors = true;
			break;
		case OPT_UNPRIVILEGED:
			sess.unprivileged = true;
			sess.privilege = "stapusr";
			break;
		case OPT_PRIVILEGE:
			if (!optarg || !strcmp(optarg, "stapusr")) {
				sess.privilege = "stapusr";
				sess.unprivileged = true;
			} else if (!strcmp(optarg, "stapsys") || !strcmp(optarg, "stapdev")) {
				sess.privilege = optarg;
				sess.unprivileged = false;
			} else {
				fprintf(stderr, _("tapc: invalid --privilege '%s' (use stapusr, "
						  "stapsys or stapdev)\n"), optarg);
				exit(1);
			}
			break;
		case OPT_DUMP_PROBE_TYPES:
			sess.dump_probe_types = true;
			break;
		case OPT_DUMP_PROBE_ALIASES:
			sess.dump_probe_aliases = true;
			break;
		case OPT_DUMP_FUNCTIONS:
			sess.dump_functions = true;
			break;
		case OPT_COLOR:
			if (!optarg || !strcmp(optarg, "always"))
				sess.color = 1;
			else if (!strcmp(optarg, "never"))
				sess.color = 0;
			else if (!strcmp(optarg, "auto"))
				sess.color = -1;
			else {
				fprintf(stderr, _("tapc: invalid --color '%s' (use always, never "
						  "or auto)\n"), optarg);
				exit(1);
			}
			break;
		case OPT_MODINFO:
			vec_push(&sess.modinfo, optarg);
			break;
		case OPT_CHECK_VERSION:
		case OPT_CLEAN_CACHE:
		case OPT_DISABLE_CACHE:
		case OPT_POISON_CACHE:
		case OPT_LDD:
		case OPT_ALL_MODULES:
		case OPT_SUPPRESS_TIME_LIMITS:
		case OPT_NO_GLOBAL_VAR_DISPLAY:
		case OPT_SYSROOT:
		case OPT_SYSENV:
		case OPT_SAVE_UPROBES:
		case OPT_TARGET_NAMESPACES:
		case OPT_SIGN_MODULE:
		case OPT_DOWNLOAD_DEBUGINFO:
		case OPT_TMPDIR:
			not_effective(argv[optind - 1]);
			break;
		case OPT_EXAMPLE:
			not_effective("--example");
			break;
		case OPT_RLIMIT:
			parse_number(argv[optind - 1], optarg, 0, 0x7fffffffL);
			not_effective(argv[optind - 1]);
			break;
		case OPT_MONITOR:
			monitor = true;
			not_effective("--monitor");
			break;
		case OPT_USE_SERVER:
		case OPT_USE_SERVER_ON_ERROR:
		case OPT_LIST_SERVERS:
		case OPT_TRUST_SERVERS:
		case OPT_REMOTE:
		case OPT_REMOTE_PREFIX:
			fprintf(stderr, _("tapc: compile servers and remote runs are not "
					  "supported (option %s)\n"), argv[optind - 1]);
			exit(1);
		case '?':
		default:
			if (optopt && strchr("pIeEoRrmcxDsldLSBGaTC", optopt))
				fprintf(stderr, _("tapc: option -%c needs an argument\n"), optopt);
			else if (optopt)
				fprintf(stderr, _("tapc: unknown option -%c\n"), optopt);
			else
				fprintf(stderr, _("tapc: unknown option '%s'\n"), argv[optind - 1]);
			fprintf(stderr, _("Try 'tapc --help' for more information.\n"));
			exit(1);
		}
	}

	/* The first non-option is the script unless -e/-l gave one; the rest
	 * are script arguments ($1 ... and @1 ...). */
	if (!sess.script_text && !sess.listing && optind < argc)
		sess.script_file = argv[optind++];
	for (; optind < argc; optind++)
		vec_push(&sess.args, argv[optind]);

	if (sess.runtime_mode && strcmp(sess.runtime_mode, "kernel")) {
		fprintf(stderr, _("tapc: --runtime=%s is not supported; tapc builds "
				  "kernel modules only\n"), sess.runtime_mode);
		exit(1);
	}
	if (sess.listing && sess.last_pass == 5)
		sess.last_pass = 2;
	if (monitor && sess.listing) {
		fprintf(stderr, _("tapc: --monitor cannot be used with -l or -L\n"));
		exit(1);
	}
	if (sess.target_cmd && sess.target_pid) {
		fprintf(stderr, _("tapc: -c and -x cannot be used together\n"));
		exit(1);
	}
	check_tmpdir();
	if (sess.bulk)
		not_effective("-b");
	if (sess.output_size)
		not_effective("-S");
	if (sess.detach)
		not_effective("-F");
	if (sess.timing)
		not_effective("-t");
	if (sess.debug_modules.len)
		not_effective("-d");
}

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

/* Why pass 5 cannot load a module here, or NULL when it can. */
static const char *cannot_load_modules(void)
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

static void explain_no_run(const char *why)
{
	fprintf(stderr, _("tapc: cannot run the script here: %s\n"), why);
	fprintf(stderr, _("tapc: build it with 'tapc -p4 -r RELEASE -m NAME ...' and run "
			  "'taprun NAME.ko' on a machine whose kernel can load modules,\n"
			  "      or, from a tapc checkout, in the test VM: "
			  "'scripts/run-in-vm SCRIPT.stp [-- COMMAND]'\n"));
}

static bool is_exec_file(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0;
}

/* $TAPC_TAPRUN: a stand-in loader (tests), which any kernel can "run". */
static const char *stand_in_taprun(void)
{
	const char *env = getenv("TAPC_TAPRUN");
	return env && *env ? env : NULL;
}

/* A stand-in loader, else taprun beside tapc (installed), in the build
 * tree's taprun/ folder, or on $PATH. */
static const char *find_taprun(void)
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
	const char *path = getenv("PATH");
	for (const char *p = path ? path : ""; *p;) {
		const char *end = strchr(p, ':');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len) {
			const char *c = xsprintf("%.*s/taprun", (int)len, p);
			if (is_exec_file(c))
				return c;
		}
		p += len + (end ? 1 : 0);
	}
	return NULL;
}

static pid_t run_child;

static void forward_signal(int sig)
{
	if (run_child > 0)
		kill(run_child, sig);
}

/* Pass 5: taprun with the module and the options that belong to it. */
static int run_module(const char *ko)
{
	const char *taprun = find_taprun();
	if (!taprun) {
		fprintf(stderr, _("tapc: cannot find taprun (beside tapc or on PATH); the "
				  "module is %s\n"), ko);
		return 1;
	}
	Vec argv = { 0 };
	vec_push(&argv, (void *)taprun);
	if (sess.output_file) {
		vec_push(&argv, "-o");
		vec_push(&argv, (void *)sess.output_file);
	}
	if (sess.target_cmd) {
		vec_push(&argv, "-c");
		vec_push(&argv, (void *)sess.target_cmd);
	}
	if (sess.target_pid) {
		vec_push(&argv, "-x");
		vec_push(&argv, xsprintf("%ld", sess.target_pid));
	}
	if (sess.timeout_s) {
		vec_push(&argv, "-T");
		vec_push(&argv, xsprintf("%ld", sess.timeout_s));
	}
	if (sess.buffer_mb) {
		vec_push(&argv, "-s");
		vec_push(&argv, xsprintf("%d", sess.buffer_mb));
	}
	if (sess.suppress_warnings)
		vec_push(&argv, "-w");
	for (int i = 0; i < sess.verbose; i++)
		vec_push(&argv, "-v");
	vec_push(&argv, (void *)ko);
	for (int i = 0; i < sess.globals_init.len; i++) {
		Define *d = vec_get(&sess.globals_init, i);
		vec_push(&argv, xsprintf("%s=%s", d->name, d->value));
	}
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

/* The cache key of the module before pass 3: everything its C text is
 * made of (every source file, the elaborated program, the options pass 3
 * reads); build_cache_key() adds the runtime, the kernel tree and -D. */
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
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	const char *key = build_cache_key(buf, len, sess.module_name ? sess.module_name : "");
	free(buf);
	return key;
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
	diag_set_error_limit(DIAG_ERROR_LIMIT);

	parse_options(argc, argv);
	temp_dirs_on_signals();   /* ^C during passes 1-4 leaves no folder behind */
	pass_start = now_ms();
	target_init();

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
