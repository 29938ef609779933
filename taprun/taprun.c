/* taprun.c - the command line of the loader.
 *
 *   taprun [OPTIONS] MODULE.ko [NAME=VALUE ...]
 *
 * The options follow staprun(8) where they mean the same thing; see
 * usage() for the list and man/taprun.8 for the differences.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "taprun.h"

static void usage(FILE *f)
{
	fprintf(f, _("Usage: taprun [OPTIONS] MODULE.ko [NAME=VALUE ...]\n"
		     "Load a tapc module, show its output until it ends, unload it.\n"
		     "\n"
		     "  -o FILE     write the output to FILE (strftime conversions allowed)\n"
		     "  -c CMD      run CMD under the probes; stop when it exits\n"
		     "  -x PID      the target process (target() in the script)\n"
		     "  -T SECONDS  stop after SECONDS\n"
		     "  -b          bulk mode: one output file per CPU, FILE_N or tapc_cpuN\n"
		     "  -S SIZE[,N] with -o: write FILE.0, FILE.1, ..., the next one when a\n"
		     "              file would pass SIZE MiB or at switch_file(); keep N\n"
		     "  -s MB       trace buffer per CPU, in MiB\n"
		     "  -w          suppress warnings\n"
		     "  -v          more messages (repeat for more)\n"
		     "  -C WHEN     color messages: never, always or auto\n"
		     "  -r N:URI    the values of remote_id() and remote_uri()\n"
		     "  -D DIR      where debugfs is mounted (default /sys/kernel/debug)\n"
		     "  -d NAME     unload the module NAME and exit\n"
		     "  -V, --version  print the version and exit\n"
		     "  -h, --help     print this help and exit\n"
		     "\n"
		     "NAME=VALUE sets a module parameter, e.g. a global of the script.\n"));
}

/* staprun options taprun knows but does not do. */
static const char *unsupported(int c)
{
	switch (c) {
	case 'L':
	case 'A':
		return _("detaching from and attaching to a module");
	case 'u':
		return _("loading uprobes.ko (the kernel has uprobes)");
	case 'N':
		return _("pid namespaces");
	case 'M':
		return _("monitor mode");
	case 'R':
		return _("renaming the module");
	default:
		return NULL;
	}
}

/* arg is a whole decimal number from min to max: true and *out. */
static bool number_in(const char *arg, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < min || v > max)
		return false;
	*out = v;
	return true;
}

static int parse_long(const char *arg, char opt_char, long min, long max,
		      long *out)
{
	long v;

	if (!number_in(arg, min, max, &v)) {
		msg_error(_("option -%c: '%s' is not a number from %ld to %ld"),
			  opt_char, arg, min, max);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

static int parse_remote(const char *arg)
{
	const char *colon = strchr(arg, ':');
	char num[16];
	long id;

	if (!colon || colon == arg || (size_t)(colon - arg) >= sizeof(num)) {
		msg_error(_("option -r: expected N:URI, not '%s'"), arg);
		return -EINVAL;
	}
	memcpy(num, arg, colon - arg);
	num[colon - arg] = '\0';
	if (parse_long(num, 'r', 0, 1 << 20, &id))
		return -EINVAL;
	opt.remote_id = (int)id;
	opt.remote_uri = colon + 1;
	return 0;
}

/* -S SIZE[,N]: MiB per file, and how many files to keep. */
#define SIZE_MB_MAX	(1L << 20)
#define SIZE_FILES_MAX	(1L << 20)

static int parse_size(const char *arg)
{
	char size[24];
	const char *comma = strchr(arg, ',');
	size_t len = comma ? (size_t)(comma - arg) : strlen(arg);
	long v;

	if (!len || len >= sizeof(size) || (comma && !comma[1])) {
		msg_error(_("option -S: expected SIZE[,N] (megabytes per file, files to keep), not '%s'"),
			  arg);
		return -EINVAL;
	}
	memcpy(size, arg, len);
	size[len] = '\0';
	if (!number_in(size, 1, SIZE_MB_MAX, &v)) {
		msg_error(_("option -S: the size '%s' is not a number of megabytes from 1 to %ld"),
			  size, SIZE_MB_MAX);
		return -EINVAL;
	}
	opt.size_mb = (unsigned int)v;
	opt.size_files = 0;
	if (comma) {
		if (!number_in(comma + 1, 1, SIZE_FILES_MAX, &v)) {
			msg_error(_("option -S: the number of files '%s' is not a number from 1 to %ld"),
				  comma + 1, SIZE_FILES_MAX);
			return -EINVAL;
		}
		opt.size_files = (unsigned int)v;
	}
	return 0;
}

static bool valid_param(const char *a)
{
	const char *p = a;

	if (!isalpha((unsigned char)*p) && *p != '_')
		return false;
	while (isalnum((unsigned char)*p) || *p == '_')
		p++;
	return *p == '=';
}

static int parse_option(int c, const char *arg)
{
	const char *what = unsupported(c);
	char *end;
	long v;

	switch (c) {
	case 'o':
		opt.outfile = arg;
		return 0;
	case 'c':
		opt.command = arg;
		return 0;
	case 'x':
		if (parse_long(arg, 'x', 1, 0x7fffffff, &v))
			return -EINVAL;
		opt.target_pid = (pid_t)v;
		return 0;
	case 'T':
		opt.timeout = strtod(arg, &end);
		if (end == arg || *end || !(opt.timeout > 0)) {
			msg_error(_("option -T: '%s' is not a positive number of seconds"),
				  arg);
			return -EINVAL;
		}
		return 0;
	case 'b':
		opt.bulk = true;
		return 0;
	case 's':
		if (parse_long(arg, 's', 1, 4095, &v))
			return -EINVAL;
		opt.buffer_mb = (unsigned int)v;
		return 0;
	case 'S':
		return parse_size(arg);
	case 'w':
		opt.no_warnings = true;
		return 0;
	case 'v':
		opt.verbose++;
		return 0;
	case 'C':
		if (strcmp(arg, "never") && strcmp(arg, "always") &&
		    strcmp(arg, "auto")) {
			msg_error(_("option -C: expected never, always or auto, not '%s'"),
				  arg);
			return -EINVAL;
		}
		msg_set_color(arg);
		return 0;
	case 'r':
		return parse_remote(arg);
	case 'D':
		opt.debugfs = arg;
		return 0;
	case 'd':
		opt.delete_name = arg;
		return 0;
	default:
		break;
	}
	if (what)
		msg_error(_("option -%c (%s) is not supported by taprun"), c,
			  what);
	return -EINVAL;
}

/* 0: run; 1: exit 0 (help, version); -EINVAL: exit 1. */
static int parse_args(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	int c, i, err;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:o:c:x:T:bs:wvC:r:D:d:VhLAuN:M:S:R",
				longopts, NULL)) != -1) {
		switch (c) {
		case 'V':
			printf("taprun (%s) %s\n", PACKAGE_NAME, PACKAGE_VERSION);
			return 1;
		case 'h':
			usage(stdout);
			return 1;
		case ':':
			msg_error(_("option -%c needs an argument"), optopt);
			return -EINVAL;
		case '?':
			if (optopt)
				msg_error(_("unknown option -%c (taprun -h lists the options)"),
					  optopt);
			else
				msg_error(_("unknown option %s (taprun -h lists the options)"),
					  argv[optind - 1]);
			return -EINVAL;
		default:
			err = parse_option(c, optarg);
			if (err)
				return err;
		}
	}
	if (opt.delete_name) {
		if (optind != argc) {
			msg_error(_("-d NAME takes no module file or parameters"));
			return -EINVAL;
		}
		return 0;
	}
	if (optind >= argc) {
		usage(stderr);
		return -EINVAL;
	}
	if (opt.size_mb && !opt.outfile) {
		msg_error(_("-S needs -o FILE: the output files are FILE.0, FILE.1, ..."));
		return -EINVAL;
	}
	if (opt.command && opt.target_pid) {
		msg_error(_("-c and -x cannot be used together"));
		return -EINVAL;
	}
	opt.module_path = argv[optind++];
	for (i = optind; i < argc; i++) {
		if (!valid_param(argv[i])) {
			msg_error(_("module parameter '%s': expected NAME=VALUE"),
				  argv[i]);
			return -EINVAL;
		}
	}
	opt.params = argv + optind;
	opt.nparams = argc - optind;
	return 0;
}

int main(int argc, char **argv)
{
	int ret;

	setlocale(LC_ALL, "");
	bindtextdomain(PACKAGE, LOCALEDIR);
	textdomain(PACKAGE);
	msg_set_color("auto");

	ret = parse_args(argc, argv);
	if (ret)
		return ret > 0 ? 0 : 1;
	if (opt.delete_name)
		return module_unload(opt.delete_name, 0, false) ? 1 : 0;
	return run_session();
}
