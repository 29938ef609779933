/* options.c - the tapc command's options: parsing them into the session
 * (the option state every pass reads), --help and --version. */
#include "driver.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
"  -S SIZE[,N]       with -o: output files FILE.0, FILE.1, ... of at most SIZE\n"
"                    megabytes (and at switch_file()), keeping the last N\n"
"  -c CMD            run CMD while the probes are active; target() is its pid\n"
"  -x PID            set target() to PID\n"
"  -T SECONDS        stop the script after SECONDS\n"
"  --remote URL      run on ssh://[USER@]HOST[:PORT] or direct:// (repeatable)\n"
"  --remote-prefix   start each line of a --remote host's output with \"N: \"\n"
"  --compatible=VERSION      behave like that SystemTap version\n"
"  --runtime=MODE            kernel (the default)\n"
"  --skip-badvars            replace unresolvable context variables with 0\n"
"  --suppress-handler-errors abandon a failing handler and go on\n"
"  --privilege=LEVEL         stapusr, stapsys or stapdev\n"
"  --unprivileged            same as --privilege=stapusr\n"
"  --dump-probe-types        list the probe point families\n"
"  --dump-probe-aliases      list the probe aliases the tapsets define\n"
"  --dump-functions          list the functions the tapsets define\n"
"  --dump-globals            list the global variables the tapsets declare\n"));
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

/* An option of stap's that tapc does not have: WHAT says what it would do. */
_Noreturn static void not_supported(const char *opt, const char *what)
{
	fprintf(stderr, _("tapc: option %s (%s) is not supported\n"), opt, what);
	exit(1);
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

/* -S SIZE[,N]: megabytes per output file, files kept (taprun -S). */
static void parse_size_option(const char *arg)
{
	const char *comma = strchr(arg, ',');
	char *end;
	long size, files = 0;

	errno = 0;
	size = strtol(arg, &end, 10);
	if (errno || end == arg || end != (comma ? comma : arg + strlen(arg)) ||
	    size < 1 || size > (1L << 20))
		goto bad;
	if (comma) {
		files = strtol(comma + 1, &end, 10);
		if (errno || end == comma + 1 || *end || files < 1 ||
		    files > (1L << 20))
			goto bad;
	}
	sess.size_mb = (int)size;
	sess.size_files = (int)files;
	return;
bad:
	fprintf(stderr, _("tapc: invalid argument '%s' for -S (expected SIZE[,N]: "
			  "megabytes per file from 1 to 1048576, then optionally "
			  "the number of files to keep, from 1)\n"), arg);
	exit(1);
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

/*
 * The -D names whose values the runtime uses as numbers (runtime/tap.h,
 * stap's names), with the least value each can take.  Anything else
 * there would only fail in gcc, far from the option that caused it.
 */
static const struct {
	const char *name;
	long long min;
} numeric_defines[] = {
	{ "MAXSTRINGLEN", 16 },		/* tap.h: smaller cannot hold messages */
	{ "MAXACTION", 0 },
	{ "MAXACTION_INTERRUPTIBLE", 0 },
	{ "MAXNESTING", 0 },
	{ "MAXMAPENTRIES", 0 },
	{ "MAXERRORS", 0 },
	{ "MAXSKIPPED", 0 },
	{ "MAXTRYLOCK", 0 },
	{ "TRYLOCKDELAY", 0 },
	{ "MAXTRACE", 0 },
	{ "MAPHASHBIAS", LLONG_MIN },
	{ "HIST_ELISION", 0 },
	{ "STP_OVERLOAD_THRESHOLD", 0 },
	{ "STP_OVERLOAD_INTERVAL", 0 },
};

/* A C integer constant: digits (decimal, 0x hex or 0 octal) with at most
 * one sign and u/l suffixes, as the runtime's own defaults are written. */
static bool define_number(const char *s, long long *v)
{
	char *end;
	errno = 0;
	*v = strtoll(s, &end, 0);
	if (errno || end == s || isspace((unsigned char)*s))
		return false;
	return strspn(end, "uUlL") == strlen(end) && strlen(end) <= 3;
}

/* -D NAME=VALUE of a numeric limit: its value must be a number in range. */
static void check_define_value(const char *arg, const Define *d)
{
	long long v;

	for (size_t i = 0; i < sizeof(numeric_defines) / sizeof(numeric_defines[0]); i++) {
		if (strcmp(d->name, numeric_defines[i].name))
			continue;
		/* a bare -D NAME is NAME 1, as for the compiler */
		if (!d->value ? 1 >= numeric_defines[i].min :
		    define_number(d->value, &v) && v >= numeric_defines[i].min)
			return;
		if (numeric_defines[i].min == LLONG_MIN)
			fprintf(stderr, _("tapc: invalid -D '%s': %s takes a whole number\n"),
				arg, d->name);
		else
			fprintf(stderr, _("tapc: invalid -D '%s': %s takes a whole number "
					  "of at least %lld\n"), arg, d->name,
				numeric_defines[i].min);
		exit(1);
	}
}

enum {
	OPT_COMPATIBLE = 256, OPT_RUNTIME, OPT_SKIP_BADVARS,
	OPT_SUPPRESS_HANDLER_ERRORS, OPT_UNPRIVILEGED, OPT_PRIVILEGE,
	OPT_DUMP_PROBE_TYPES, OPT_DUMP_PROBE_ALIASES, OPT_DUMP_FUNCTIONS, OPT_DUMP_GLOBALS,
	OPT_VP, OPT_PROLOGUE_SEARCHING, OPT_CLEAN_CACHE, OPT_DISABLE_CACHE,
	OPT_POISON_CACHE, OPT_COLOR, OPT_MODINFO, OPT_LDD, OPT_ALL_MODULES,
	OPT_CHECK_VERSION, OPT_SUPPRESS_TIME_LIMITS, OPT_NO_GLOBAL_VAR_DISPLAY,
	OPT_SYSROOT, OPT_SYSENV, OPT_RLIMIT, OPT_DYNINST, OPT_BPF,
	OPT_EXAMPLE, OPT_SAVE_UPROBES, OPT_TARGET_NAMESPACES, OPT_MONITOR,
	OPT_USE_SERVER, OPT_LIST_SERVERS, OPT_TRUST_SERVERS, OPT_SIGN_MODULE,
	OPT_REMOTE, OPT_REMOTE_PREFIX, OPT_DOWNLOAD_DEBUGINFO, OPT_TMPDIR,
	OPT_USE_SERVER_ON_ERROR, OPT_INTERACTIVE, OPT_REMOTE_BUILD,
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
	{ "dump-globals", no_argument, NULL, OPT_DUMP_GLOBALS },
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
	/* not for users: remote.c's build for one target kernel */
	{ "remote-build", required_argument, NULL, OPT_REMOTE_BUILD },
	{ "download-debuginfo", optional_argument, NULL, OPT_DOWNLOAD_DEBUGINFO },
	{ "tmpdir", required_argument, NULL, OPT_TMPDIR },
	{ NULL, 0, NULL, 0 },
};

void parse_options(int argc, char **argv)
{
	int c;
	bool have_e = false, monitor = false, clean_cache = false;
	bool remote_build = false;
	const char *rb_arch = NULL, *rb_release = NULL;
	int rb_pass = 0;

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
			check_define_value(optarg, d);
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
			not_supported("-q", _("a report of tapset coverage"));
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
			not_supported("-F", _("leave the module running and detach; taprun "
					      "cannot reattach to one"));
		case 'S':
			parse_size_option(optarg);
			break;
		case 'a':
			sess.arch = optarg;
			break;
		case 't':
			not_supported("-t", _("timing statistics of each probe"));
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
		case OPT_DUMP_GLOBALS:
			sess.dump_globals = true;
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
		case OPT_CLEAN_CACHE:
			clean_cache = true;
			break;
		case OPT_DISABLE_CACHE:
			build_cache_disable();
			break;
		case OPT_SIGN_MODULE:
			sign_request(optarg);
			break;
		case OPT_ALL_MODULES:
			/* symbols and stacks come from the kernel's own kallsyms
			 * and unwinder, which cover every loaded module: what
			 * stap adds the modules' data for is always there */
			break;
		case OPT_LDD:
			sess.ldd = true;
			break;
		case OPT_CHECK_VERSION:
		case OPT_POISON_CACHE:
		case OPT_SUPPRESS_TIME_LIMITS:
		case OPT_NO_GLOBAL_VAR_DISPLAY:
		case OPT_SYSROOT:
		case OPT_SYSENV:
		case OPT_SAVE_UPROBES:
		case OPT_TARGET_NAMESPACES:
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
			fprintf(stderr, _("tapc: compile servers are not supported "
					  "(option %s)\n"), argv[optind - 1]);
			exit(1);
		case OPT_REMOTE:
			if (!remote_build)
				remote_add(optarg);
			break;
		case OPT_REMOTE_PREFIX:
			if (!remote_build)
				remote_set_prefix();
			break;
		case OPT_REMOTE_BUILD: {
			/* --remote-build=ARCH:RELEASE:PASS, first on the line:
			 * the user's options follow, their --remote ignored */
			char *a = xstrdup(optarg), *rel = strchr(a, ':');
			char *pass = rel ? strchr(rel + 1, ':') : NULL;
			if (!pass)
				exit(1);
			*rel++ = 0;
			*pass++ = 0;
			remote_build = true;
			rb_arch = a;
			rb_release = rel;
			rb_pass = (int)parse_number("--remote-build", pass, 1, 5);
			break;
		}
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

	if (sess.size_mb && !sess.output_file) {
		fprintf(stderr, _("tapc: -S needs -o FILE: the output files are "
				  "FILE.0, FILE.1, ...\n"));
		exit(1);
	}

	if (sess.runtime_mode && strcmp(sess.runtime_mode, "kernel")) {
		fprintf(stderr, _("tapc: --runtime=%s is not supported; tapc builds "
				  "kernel modules only\n"), sess.runtime_mode);
		exit(1);
	}
	if (remote_build) {
		sess.arch = rb_arch;
		sess.release = rb_release;
		sess.kernel_build_dir = NULL;
		sess.last_pass = rb_pass;
	}
	if (remote_count()) {
		if (sess.release || sess.kernel_build_dir || sess.arch) {
			fprintf(stderr, _("tapc: -r and -a cannot be used with --remote: "
					  "each target's own kernel is built for\n"));
			exit(1);
		}
		if (sess.bulk || sess.size_mb) {
			fprintf(stderr, _("tapc: -b and -S cannot be used with --remote: "
					  "the targets' output is merged here\n"));
			exit(1);
		}
		bool listing = sess.listing || sess.dump_functions ||
			       sess.dump_probe_aliases || sess.dump_globals;
		if (listing && remote_count() > 1) {
			fprintf(stderr, _("tapc: -l, -L and --dump-* take one --remote "
					  "target, not %d\n"), remote_count());
			exit(1);
		}
		if (sess.dump_probe_types) {
			fprintf(stderr, _("tapc: --dump-probe-types does not depend on the "
					  "target: give it without --remote\n"));
			exit(1);
		}
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
	if (clean_cache) {
		/* as stap's: clean, then exit whatever else was asked */
		int n = build_cache_clean();
		if (sess.verbose)
			fprintf(stderr, _("tapc: removed %d cached files from %s\n"), n,
				build_cache_dir() ? build_cache_dir() : "?");
		exit(0);
	}
	check_tmpdir();
}

