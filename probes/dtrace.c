/* dtrace.c - the probes/ kit's `dtrace` command: from a provider
 * description (provider.d) it writes the header of a program's SDT
 * markers (-h) or the object that defines their semaphores (-G), with the
 * command line SystemTap's dtrace has, so a project's build works with
 * either.
 *
 *   provider NAME {
 *           probe PROBE(TYPE [NAME], ...);
 *           ...
 *   };
 *
 * Anything else at the top of the file (struct and typedef declarations,
 * which DTrace's probe argument types may use) is skipped up to its ';',
 * and lines starting with '#' (#pragma D ...) are ignored; -C runs the C
 * preprocessor over the file first.  Errors name FILE:LINE:COLUMN.
 */
#include "i18n.h"

#include <errno.h>
#include <limits.h>
#include <locale.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define _(s) gettext(s)

#define MAX_ARGS 12     /* STAP_PROBE12 is the largest marker */

static const char *prog = "dtrace";

/* ---- memory and messages ---- */

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		fprintf(stderr, "%s: %s\n", prog, strerror(ENOMEM));
		exit(1);
	}
	return p;
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		fprintf(stderr, "%s: %s\n", prog, strerror(ENOMEM));
		exit(1);
	}
	return p;
}

static char *xstrndup(const char *s, size_t n)
{
	char *d = xmalloc(n + 1);
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* ---- the provider file ---- */

typedef struct Probe {
	char *name;             /* as in the file: "req__done" */
	char *decl;             /* its arguments as written, for a comment */
	int nargs;
	int line;
} Probe;

typedef struct Provider {
	char *name;
	Probe *probes;
	int nprobes;
} Provider;

typedef struct Parser {
	const char *text, *p;
	const char *file;       /* the file named in messages */
	int line;               /* of p */
	const char *line_start;
	/* -C: "# N "file"" lines of the preprocessor move the place */
	bool cpp;
	Provider *provs;
	int nprovs;
} Parser;

static void error_at(const Parser *ps, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5), noreturn));
static void error_at(const Parser *ps, int line, int col, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s:%d:%d: %s", ps->file, line, col, _("error: "));
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static int col_of(const Parser *ps, const char *at)
{
	return (int)(at - ps->line_start) + 1;
}

/* A preprocessor line marker: "# 12 "file.d"" or "#line 12 "file.d"". */
static void line_marker(Parser *ps, const char *s, const char *end)
{
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	if (end - s >= 4 && !strncmp(s, "line", 4))
		s += 4;
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	if (s >= end || *s < '0' || *s > '9')
		return;
	long n = strtol(s, (char **)&s, 10);
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	if (s < end && *s == '"') {
		const char *q = memchr(s + 1, '"', end - s - 1);
		if (q)
			ps->file = xstrndup(s + 1, q - s - 1);
	}
	ps->line = (int)n - 1;  /* the newline ending the marker adds one */
}

/* Skip white space, comments and '#' lines. */
static void skip_blank(Parser *ps)
{
	for (;;) {
		const char *p = ps->p;
		if (*p == '\n') {
			ps->line++;
			ps->p = ps->line_start = p + 1;
		} else if (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\f' || *p == '\v') {
			ps->p++;
		} else if (p[0] == '/' && p[1] == '*') {
			int line = ps->line, col = col_of(ps, p);
			const char *q = p + 2;
			for (; *q && !(q[0] == '*' && q[1] == '/'); q++) {
				if (*q == '\n') {
					ps->line++;
					ps->line_start = q + 1;
				}
			}
			if (!*q)
				error_at(ps, line, col, _("comment not closed by '*/'"));
			ps->p = q + 2;
		} else if (p[0] == '/' && p[1] == '/') {
			ps->p += strcspn(p, "\n");
		} else if (*p == '#' && (size_t)(p - ps->line_start) == strspn(ps->line_start, " \t")) {
			const char *end = p + strcspn(p, "\n");
			if (ps->cpp)
				line_marker(ps, p + 1, end);
			ps->p = end;
		} else {
			return;
		}
	}
}

typedef struct Tok {
	const char *s;
	size_t len;
	int line, col;
} Tok;

static bool is_ident_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_ident_char(char c)
{
	return is_ident_start(c) || (c >= '0' && c <= '9');
}

/* The next token: an identifier or number, a string or character
 * literal, or one character; len 0 at the end. */
static Tok next(Parser *ps)
{
	skip_blank(ps);
	Tok t = { ps->p, 0, ps->line, col_of(ps, ps->p) };
	const char *p = ps->p;
	if (!*p)
		return t;
	if (is_ident_char(*p)) {
		while (is_ident_char(*p))
			p++;
	} else if (*p == '"' || *p == '\'') {
		char q = *p++;
		while (*p && *p != q && *p != '\n')
			p += p[0] == '\\' && p[1] ? 2 : 1;
		if (*p != q)
			error_at(ps, t.line, t.col, _("%s not closed on its line"),
				 q == '"' ? _("string") : _("character constant"));
		p++;
	} else {
		p++;
	}
	t.len = (size_t)(p - ps->p);
	ps->p = p;
	return t;
}

static bool tok_is(Tok t, const char *s)
{
	return t.len == strlen(s) && !memcmp(t.s, s, t.len);
}

static bool tok_ident(Tok t)
{
	return t.len && is_ident_start(t.s[0]);
}

/* "'x'" for messages, "end of file" at the end. */
static const char *tok_text(Tok t)
{
	if (!t.len)
		return _("end of file");
	size_t n = t.len > 40 ? 40 : t.len;
	char *s = xmalloc(n + 3);
	s[0] = '\'';
	memcpy(s + 1, t.s, n);
	s[n + 1] = '\'';
	s[n + 2] = '\0';
	return s;
}

static Tok expect(Parser *ps, const char *what)
{
	Tok t = next(ps);
	if (!tok_is(t, what))
		error_at(ps, t.line, t.col, _("expected '%s', found %s"), what, tok_text(t));
	return t;
}

/* The argument list after "probe NAME(": each argument's tokens up to a
 * ',' or ')' at depth 0.  "()" and "(void)" declare none. */
static void parse_args(Parser *ps, Probe *pr, Tok open)
{
	int depth = 0, ntoks = 0;
	bool only_void = true;
	const char *start = ps->p;
	Tok arg_start = { 0 };
	for (;;) {
		Tok t = next(ps);
		if (!t.len)
			error_at(ps, open.line, open.col,
				 _("the argument list of probe '%s' is not closed by ')'"), pr->name);
		bool close = depth == 0 && tok_is(t, ")");
		if ((depth == 0 && tok_is(t, ",")) || close) {
			if (!ntoks && (pr->nargs || !close))
				error_at(ps, t.line, t.col, _("probe '%s': argument %d is empty"),
					 pr->name, pr->nargs + 1);
			if (ntoks) {
				pr->nargs++;
				if (pr->nargs > MAX_ARGS)
					error_at(ps, arg_start.line, arg_start.col,
						 _("probe '%s' has more than %d arguments"),
						 pr->name, MAX_ARGS);
			}
			if (close) {
				if (pr->nargs == 1 && only_void)
					pr->nargs = 0;
				pr->decl = xstrndup(start, t.s - start);
				return;
			}
			ntoks = 0;
			only_void = false;
			continue;
		}
		if (tok_is(t, "(") || tok_is(t, "["))
			depth++;
		else if (tok_is(t, ")") || tok_is(t, "]"))
			depth--;
		else if (tok_is(t, "{") || tok_is(t, "}") || tok_is(t, ";"))
			error_at(ps, t.line, t.col, _("unexpected %s in the arguments of probe '%s'"),
				 tok_text(t), pr->name);
		if (!ntoks)
			arg_start = t;
		if (!tok_is(t, "void"))
			only_void = false;
		ntoks++;
	}
}

/* probe NAME(ARGS) [: (TRANSLATED)] ; */
static void parse_probe(Parser *ps, Provider *pv)
{
	Tok name = next(ps);
	if (!tok_ident(name))
		error_at(ps, name.line, name.col, _("expected a probe name, found %s"),
			 tok_text(name));
	for (int i = 0; i < pv->nprobes; i++)
		if (strlen(pv->probes[i].name) == name.len &&
		    !memcmp(pv->probes[i].name, name.s, name.len))
			error_at(ps, name.line, name.col,
				 _("probe '%s' of provider '%s' is declared twice (first at line %d)"),
				 pv->probes[i].name, pv->name, pv->probes[i].line);
	pv->probes = xrealloc(pv->probes, (pv->nprobes + 1) * sizeof *pv->probes);
	Probe *pr = &pv->probes[pv->nprobes++];
	memset(pr, 0, sizeof *pr);
	pr->name = xstrndup(name.s, name.len);
	pr->line = name.line;
	Tok open = expect(ps, "(");
	parse_args(ps, pr, open);
	Tok t = next(ps);
	if (tok_is(t, ":")) {           /* DTrace's translated argument types */
		Probe skip = { .name = pr->name };
		Tok o = expect(ps, "(");
		parse_args(ps, &skip, o);
		t = next(ps);
	}
	if (!tok_is(t, ";"))
		error_at(ps, t.line, t.col, _("expected ';' after probe '%s', found %s"),
			 pr->name, tok_text(t));
}

/* provider NAME { probe ...; ... } ; */
static void parse_provider(Parser *ps, Tok kw)
{
	Tok name = next(ps);
	if (!tok_ident(name))
		error_at(ps, name.line, name.col, _("expected a provider name, found %s"),
			 tok_text(name));
	for (int i = 0; i < ps->nprovs; i++)
		if (strlen(ps->provs[i].name) == name.len &&
		    !memcmp(ps->provs[i].name, name.s, name.len))
			error_at(ps, name.line, name.col, _("provider '%s' is declared twice"),
				 ps->provs[i].name);
	ps->provs = xrealloc(ps->provs, (ps->nprovs + 1) * sizeof *ps->provs);
	Provider *pv = &ps->provs[ps->nprovs++];
	memset(pv, 0, sizeof *pv);
	pv->name = xstrndup(name.s, name.len);
	expect(ps, "{");
	for (;;) {
		Tok t = next(ps);
		if (tok_is(t, "}"))
			break;
		if (!t.len)
			error_at(ps, kw.line, kw.col, _("provider '%s' is not closed by '}'"),
				 pv->name);
		if (!tok_is(t, "probe"))
			error_at(ps, t.line, t.col, _("expected 'probe' or '}' in provider '%s', "
						      "found %s"), pv->name, tok_text(t));
		parse_probe(ps, pv);
	}
	Tok t = next(ps);
	if (!tok_is(t, ";"))
		error_at(ps, t.line, t.col, _("expected ';' after the '}' of provider '%s', "
					      "found %s"), pv->name, tok_text(t));
}

/* A declaration that is not a provider: its tokens up to ';' outside
 * braces. */
static void skip_declaration(Parser *ps, Tok first)
{
	int depth = 0;
	Tok t = first;
	for (;;) {
		if (tok_is(t, "{"))
			depth++;
		else if (tok_is(t, "}") && --depth < 0)
			error_at(ps, t.line, t.col, _("unexpected '}'"));
		else if (tok_is(t, ";") && depth == 0)
			return;
		t = next(ps);
		if (!t.len)
			error_at(ps, first.line, first.col,
				 _("declaration starting with %s is not ended by ';'"),
				 tok_text(first));
	}
}

static void parse_file(Parser *ps)
{
	ps->p = ps->line_start = ps->text;
	ps->line = 1;
	for (;;) {
		Tok t = next(ps);
		if (!t.len)
			return;
		if (tok_is(t, "provider"))
			parse_provider(ps, t);
		else
			skip_declaration(ps, t);
	}
}

/* ---- reading the input ---- */

static char *read_stream(FILE *f, const char *name)
{
	size_t cap = 4096, len = 0;
	char *buf = xmalloc(cap);
	size_t n;
	while ((n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
		len += n;
		if (cap - len < 2)
			buf = xrealloc(buf, cap *= 2);
	}
	if (ferror(f))
		die(_("cannot read %s: %s"), name, strerror(errno));
	buf[len] = '\0';
	if (strlen(buf) != len)
		die(_("%s holds a NUL byte: not a provider description"), name);
	return buf;
}

/* The words of an environment variable (CC="gcc -m64"), split at blanks. */
static void add_words(char ***argv, int *argc, const char *text)
{
	const char *p = text;
	while (*p) {
		p += strspn(p, " \t\n");
		size_t n = strcspn(p, " \t\n");
		if (!n)
			break;
		*argv = xrealloc(*argv, (*argc + 2) * sizeof **argv);
		(*argv)[(*argc)++] = xstrndup(p, n);
		(*argv)[*argc] = NULL;
		p += n;
	}
}

static void add_arg(char ***argv, int *argc, const char *a)
{
	*argv = xrealloc(*argv, (*argc + 2) * sizeof **argv);
	(*argv)[(*argc)++] = (char *)a;
	(*argv)[*argc] = NULL;
}

/* Run argv; with out, its stdout goes there.  Its exit status. */
static int run(char **argv, int out_fd)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		die(_("cannot start %s: %s"), argv[0], strerror(errno));
	if (pid == 0) {
		if (out_fd >= 0 && dup2(out_fd, 1) < 0)
			_exit(127);
		execvp(argv[0], argv);
		fprintf(stderr, "%s: ", prog);
		fprintf(stderr, _("cannot run %s: %s"), argv[0], strerror(errno));
		fputc('\n', stderr);
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			die(_("cannot wait for %s: %s"), argv[0], strerror(errno));
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The file through the C preprocessor ($CPP, else "$CC -E", else
 * "cpp"), with the -I folders. */
static char *preprocess(const char *file, char **incs, int nincs)
{
	char **argv = NULL;
	int argc = 0;
	const char *cpp = getenv("CPP"), *cc = getenv("CC");
	if (cpp && *cpp) {
		add_words(&argv, &argc, cpp);
	} else if (cc && *cc) {
		add_words(&argv, &argc, cc);
		add_arg(&argv, &argc, "-E");
	} else {
		add_arg(&argv, &argc, "cpp");
	}
	for (int i = 0; i < nincs; i++)
		add_arg(&argv, &argc, incs[i]);
	/* as C: a .d file is not a name the driver knows */
	add_arg(&argv, &argc, "-x");
	add_arg(&argv, &argc, "c");
	add_arg(&argv, &argc, file);
	FILE *tmp = tmpfile();
	if (!tmp)
		die(_("cannot make a temporary file: %s"), strerror(errno));
	int rc = run(argv, fileno(tmp));
	if (rc)
		die(_("the C preprocessor (%s) failed on %s"), argv[0], file);
	rewind(tmp);
	char *text = read_stream(tmp, file);
	fclose(tmp);
	return text;
}

/* ---- output ---- */

/* "req__done" -> "REQ_DONE" (as SystemTap's dtrace names the macros). */
static char *macro_part(const char *s)
{
	char *d = xmalloc(strlen(s) + 1), *o = d;
	for (; *s; s++) {
		if (s[0] == '_' && s[1] == '_') {
			*o++ = '_';
			s++;
			continue;
		}
		*o++ = (*s >= 'a' && *s <= 'z') ? (char)(*s - 'a' + 'A') : *s;
	}
	*o = '\0';
	return d;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* The arguments as written, on one line, for a comment (no comment
 * closer can get in: the parser skipped comments). */
static char *one_line(const char *s)
{
	char *d = xmalloc(strlen(s) + 1), *o = d;
	bool blank = true;
	for (; *s; s++) {
		bool b = *s == ' ' || *s == '\t' || *s == '\n' || *s == '\r';
		if (b && blank)
			continue;
		*o++ = b ? ' ' : *s;
		blank = b;
	}
	while (o > d && o[-1] == ' ')
		o--;
	*o = '\0';
	return d;
}

static void write_header(FILE *out, const Parser *ps, const char *input, const char *outname)
{
	char *guard = xmalloc(strlen(outname) + 32);
	strcpy(guard, "_TAPC_DTRACE_");
	char *g = guard + strlen(guard);
	for (const char *s = base_name(outname); *s; s++)
		*g++ = is_ident_char(*s) ? (char)((*s >= 'a' && *s <= 'z') ? *s - 32 : *s) : '_';
	*g = '\0';
	fprintf(out, "/* Generated by tapc's dtrace -h from %s: the SDT markers of its\n"
		" * providers, for C and C++.  Do not edit. */\n", base_name(input));
	fprintf(out, "#ifndef %s\n#define %s 1\n\n", guard, guard);
	fprintf(out,
		"/* The markers name their semaphores (defined by the object that\n"
		" * \"dtrace -G\" writes), unless <sys/sdt.h> was included before this\n"
		" * header without them: then PROVIDER_PROBE_ENABLED() is always 1. */\n"
		"#if !defined(_SYS_SDT_H) && !defined(_SDT_HAS_SEMAPHORES)\n"
		"#define _SDT_HAS_SEMAPHORES 1\n"
		"#endif\n"
		"#ifdef _SDT_HAS_SEMAPHORES\n"
		"#define STAP_HAS_SEMAPHORES 1\n"
		"#endif\n"
		"#include <sys/sdt.h>\n");
	for (int i = 0; i < ps->nprovs; i++) {
		const Provider *pv = &ps->provs[i];
		char *up = macro_part(pv->name);
		for (int j = 0; j < pv->nprobes; j++) {
			const Probe *pr = &pv->probes[j];
			char *m = macro_part(pr->name);
			fprintf(out, "\n/* %s:%s(%s) */\n", pv->name, pr->name, one_line(pr->decl));
			fprintf(out, "#ifdef _SDT_HAS_SEMAPHORES\n");
			fprintf(out, "__extension__ extern volatile unsigned short %s_%s_semaphore\n"
				"\t__attribute__((unused)) __attribute__((section(\".probes\")));\n",
				pv->name, pr->name);
			fprintf(out, "#define %s_%s_ENABLED() __builtin_expect(%s_%s_semaphore != 0, 0)\n",
				up, m, pv->name, pr->name);
			fprintf(out, "#else\n#define %s_%s_ENABLED() 1\n#endif\n", up, m);
			fprintf(out, "#define %s_%s(", up, m);
			for (int a = 1; a <= pr->nargs; a++)
				fprintf(out, "%sarg%d", a > 1 ? ", " : "", a);
			if (pr->nargs) {
				fprintf(out, ") \\\n\tDTRACE_PROBE%d(%s, %s", pr->nargs, pv->name, pr->name);
				for (int a = 1; a <= pr->nargs; a++)
					fprintf(out, ", arg%d", a);
				fprintf(out, ")\n");
			} else {
				fprintf(out, ") \\\n\tDTRACE_PROBE(%s, %s)\n", pv->name, pr->name);
			}
			free(m);
		}
		free(up);
	}
	fprintf(out, "\n#endif /* %s */\n", guard);
	free(guard);
}

static void write_semaphores(FILE *out, const Parser *ps, const char *input)
{
	fprintf(out, "/* Generated by tapc's dtrace -G from %s: the semaphores of its\n"
		" * SDT markers, which tracers raise while they probe them. */\n",
		base_name(input));
	for (int i = 0; i < ps->nprovs; i++) {
		const Provider *pv = &ps->provs[i];
		for (int j = 0; j < pv->nprobes; j++)
			fprintf(out, "__extension__ volatile unsigned short %s_%s_semaphore\n"
				"\t__attribute__((unused)) __attribute__((section(\".probes\"))) = 0;\n",
				pv->name, pv->probes[j].name);
	}
	/* an object with no semaphore is still a valid translation unit */
	fprintf(out, "typedef int __tapc_dtrace_unit;\n");
}

/* -G: the semaphores' C compiled by $CC (default cc) with $CFLAGS. */
static void write_object(const Parser *ps, const char *input, const char *outname, bool keep)
{
	const char *tmpdir = getenv("TMPDIR");
	if (!tmpdir || !*tmpdir)
		tmpdir = "/tmp";
	char *src = xmalloc(strlen(tmpdir) + 32);
	sprintf(src, "%s/dtrace-XXXXXX.c", tmpdir);
	int fd = mkstemps(src, 2);
	if (fd < 0)
		die(_("cannot make a temporary file in %s: %s"), tmpdir, strerror(errno));
	FILE *f = fdopen(fd, "w");
	if (!f)
		die(_("cannot write %s: %s"), src, strerror(errno));
	write_semaphores(f, ps, input);
	if (fclose(f))
		die(_("cannot write %s: %s"), src, strerror(errno));
	char **argv = NULL;
	int argc = 0;
	const char *cc = getenv("CC"), *cflags = getenv("CFLAGS");
	add_words(&argv, &argc, cc && *cc ? cc : "cc");
	if (cflags)
		add_words(&argv, &argc, cflags);
	add_arg(&argv, &argc, "-fPIC");
	add_arg(&argv, &argc, "-c");
	add_arg(&argv, &argc, "-o");
	add_arg(&argv, &argc, outname);
	add_arg(&argv, &argc, src);
	int rc = run(argv, -1);
	if (keep)
		fprintf(stderr, _("%s: kept %s\n"), prog, src);
	else
		unlink(src);
	if (rc)
		die(_("the compiler (%s) failed to build %s"), argv[0], outname);
}

/* ---- the command ---- */

static void usage(FILE *f)
{
	fprintf(f, _("Usage: %s -h|-G -s FILE.d [-o OUTPUT] [-C [-I DIR]...] [-k] [OBJECT...]\n"
		     "  -h         write a header of the providers' marker macros (FILE.h)\n"
		     "  -G         write the object defining their semaphores (FILE.o)\n"
		     "  -s FILE.d  the provider description\n"
		     "  -o OUTPUT  the file written (default: FILE.d's name with .h or .o)\n"
		     "  -C         run the C preprocessor over FILE.d first (-I DIR for it)\n"
		     "  -k         keep the C source -G compiles\n"
		     "  OBJECT...  with -G, the program's objects (accepted and left as they are)\n"),
		prog);
}

/* The value of an option: the rest of its word or the next word. */
static const char *opt_value(int argc, char **argv, int *i, const char *rest)
{
	if (*rest)
		return rest;
	if (*i + 1 >= argc)
		die(_("option '%s' needs a value (try --help)"), argv[*i]);
	return argv[++*i];
}

int main(int argc, char **argv)
{
	setlocale(LC_ALL, "");
	bindtextdomain(PACKAGE, LOCALEDIR);
	textdomain(PACKAGE);

	bool header = false, object = false, cpp = false, keep = false;
	const char *input = NULL, *output = NULL;
	char **incs = NULL;
	int nincs = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		}
		if (!strcmp(a, "--version")) {
			printf("dtrace (tapc) %s\n", PACKAGE_VERSION);
			return 0;
		}
		if (a[0] != '-' || !a[1]) {
			if (!object)
				die(_("'%s': only -G takes object files (try --help)"), a);
			continue;       /* SystemTap's dtrace leaves them as they are */
		}
		/* grouped flags: -hC, -Gk, -s FILE, -sFILE */
		for (const char *f = a + 1; *f; f++) {
			if (*f == 'h') {
				header = true;
			} else if (*f == 'G') {
				object = true;
			} else if (*f == 'C') {
				cpp = true;
			} else if (*f == 'k') {
				keep = true;
			} else if (*f == 's') {
				input = opt_value(argc, argv, &i, f + 1);
				break;
			} else if (*f == 'o') {
				output = opt_value(argc, argv, &i, f + 1);
				break;
			} else if (*f == 'I') {
				const char *dir = opt_value(argc, argv, &i, f + 1);
				char *inc = xmalloc(strlen(dir) + 3);
				sprintf(inc, "-I%s", dir);
				incs = xrealloc(incs, (nincs + 1) * sizeof *incs);
				incs[nincs++] = inc;
				break;
			} else {
				die(_("unknown option '-%c' (try --help)"), *f);
			}
		}
	}
	if (header == object)
		die(header ? _("give -h or -G, not both") : _("give -h (a header) or -G (an object)"));
	if (!input)
		die(_("no provider description: give -s FILE.d"));
	char *out;
	if (output) {
		out = (char *)output;
	} else {
		size_t n = strlen(input);
		if (n > 2 && !strcmp(input + n - 2, ".d"))
			n -= 2;
		out = xmalloc(n + 3);
		memcpy(out, input, n);
		strcpy(out + n, header ? ".h" : ".o");
	}

	Parser ps = { .file = input, .cpp = cpp };
	if (cpp) {
		ps.text = preprocess(input, incs, nincs);
	} else {
		FILE *f = fopen(input, "r");
		if (!f)
			die(_("cannot open %s: %s"), input, strerror(errno));
		ps.text = read_stream(f, input);
		fclose(f);
	}
	parse_file(&ps);

	if (object) {
		write_object(&ps, input, out, keep);
		return 0;
	}
	FILE *f = strcmp(out, "-") ? fopen(out, "w") : stdout;
	if (!f)
		die(_("cannot write %s: %s"), out, strerror(errno));
	write_header(f, &ps, input, strcmp(out, "-") ? out : input);
	if (f != stdout ? fclose(f) : fflush(f))
		die(_("cannot write %s: %s"), out, strerror(errno));
	return 0;
}
