/* tracepoint.c - kernel.trace("system:event"): static tracepoints.
 *
 * The candidates are the target kernel's tracepoints.  They come from:
 *  - the target's tracepoint headers (include/trace/events/NAME.h and the
 *    arch's asm/trace/NAME.h under /lib/modules/RELEASE/build and its
 *    "source" folder): TRACE_EVENT / DEFINE_EVENT / DECLARE_TRACE give the
 *    event name, the TRACE_SYSTEM it is under and its TP_PROTO arguments,
 *    which are what a handler reads as $prev, $next ...;
 *  - the tracefs of the running kernel (when it is the target), which
 *    lists the events present; an event found there but in no header has
 *    its $variables left to debuginfo (the format file lists the fields of
 *    the trace record, which are not the TP_PROTO arguments).
 * With neither, a plain name is accepted as written (needs_debuginfo) and
 * a wildcard cannot be expanded.
 *
 * Header #if/#ifdef on CONFIG_ options are followed with the target's
 * .config when there is one; anything else counts as true.
 */
#include "pointdata.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ResolvedPoint.data for tracepoints: TraceEvent (pointdata.h). */

static Vec events;                   /* TraceEvent * */
static bool events_loaded, have_source;

static TraceEvent *find_event(const char *sys, const char *name)
{
	for (int i = 0; i < events.len; i++) {
		TraceEvent *e = events.data[i];
		if (e->name == name && (!sys || e->system == sys))
			return e;
	}
	return NULL;
}

/* ---- reading headers ---- */

/* Blank out comments and join backslash-continued lines, in place. */
static void clean_source(char *s)
{
	for (char *p = s; *p; p++) {
		if (p[0] == '/' && p[1] == '*') {
			char *e = strstr(p + 2, "*/");
			char *stop = e ? e + 2 : p + strlen(p);
			for (; p < stop; p++)
				if (*p != '\n')
					*p = ' ';
			p--;
		} else if (p[0] == '/' && p[1] == '/') {
			while (*p && *p != '\n')
				*p++ = ' ';
			p--;
		} else if (p[0] == '\\' && p[1] == '\n') {
			p[0] = p[1] = ' ';
		} else if (*p == '"') {
			for (p++; *p && *p != '"' && *p != '\n'; p++)
				if (*p == '\\' && p[1])
					p++;
			if (!*p)
				return;
		}
	}
}

/* ---- #if expressions: 1 true, 0 false, -1 cannot tell ---- */

typedef struct CondParser {
	const char *p;
} CondParser;

static int cond_or(CondParser *cp);

static void cond_space(CondParser *cp)
{
	while (*cp->p == ' ' || *cp->p == '\t')
		cp->p++;
}

static const char *cond_ident(CondParser *cp)
{
	cond_space(cp);
	const char *s = cp->p;
	while (*cp->p == '_' || (*cp->p >= 'a' && *cp->p <= 'z') ||
	       (*cp->p >= 'A' && *cp->p <= 'Z') || (*cp->p >= '0' && *cp->p <= '9'))
		cp->p++;
	return cp->p > s ? xstrndup(s, cp->p - s) : NULL;
}

static bool config_known(void)
{
	static int known = -1;
	if (known < 0)
		known = target_config("CONFIG_CC_VERSION_TEXT") ||
			target_config("CONFIG_MODULES") || target_config("CONFIG_PRINTK");
	return known;
}

static int config_state(const char *id, bool builtin_only)
{
	if (strncmp(id, "CONFIG_", 7) || !config_known())
		return -1;
	const char *v = target_config(id);
	if (!v)
		return 0;
	return builtin_only ? !strcmp(v, "y") : (!strcmp(v, "y") || !strcmp(v, "m"));
}

static int cond_primary(CondParser *cp)
{
	cond_space(cp);
	if (*cp->p == '!') {
		cp->p++;
		int v = cond_primary(cp);
		return v < 0 ? -1 : !v;
	}
	if (*cp->p == '(') {
		cp->p++;
		int v = cond_or(cp);
		cond_space(cp);
		if (*cp->p == ')')
			cp->p++;
		return v;
	}
	if (*cp->p >= '0' && *cp->p <= '9') {
		long n = strtol(cp->p, (char **)&cp->p, 0);
		while (*cp->p && strchr("uUlL", *cp->p))
			cp->p++;
		return n != 0;
	}
	const char *id = cond_ident(cp);
	if (!id) {
		if (*cp->p)
			cp->p++;
		return -1;
	}
	bool is_def = !strcmp(id, "defined");
	bool is_en = !strcmp(id, "IS_ENABLED") || !strcmp(id, "IS_BUILTIN");
	if (is_def || is_en) {
		cond_space(cp);
		bool paren = *cp->p == '(';
		if (paren)
			cp->p++;
		const char *arg = cond_ident(cp);
		cond_space(cp);
		if (paren && *cp->p == ')')
			cp->p++;
		return arg ? config_state(arg, !strcmp(id, "IS_BUILTIN")) : -1;
	}
	/* A plain macro name: CONFIG_ options that are set are 1. */
	cond_space(cp);
	if (*cp->p == '(')     /* some other function-like macro */
		return -1;
	int v = config_state(id, false);
	return v;
}

/* Comparisons and arithmetic: cannot tell. */
static int cond_cmp(CondParser *cp)
{
	int v = cond_primary(cp);
	for (;;) {
		cond_space(cp);
		const char *p = cp->p;
		if (!*p || *p == ')' || (p[0] == '&' && p[1] == '&') ||
		    (p[0] == '|' && p[1] == '|'))
			return v;
		while (*cp->p && strchr("<>=!+-*/%&|^~", *cp->p))
			cp->p++;
		if (cp->p == p)
			cp->p++;
		cond_primary(cp);
		v = -1;
	}
}

static int cond_and(CondParser *cp)
{
	int v = cond_cmp(cp);
	for (;;) {
		cond_space(cp);
		if (cp->p[0] != '&' || cp->p[1] != '&')
			return v;
		cp->p += 2;
		int w = cond_cmp(cp);
		v = (v == 0 || w == 0) ? 0 : (v < 0 || w < 0) ? -1 : 1;
	}
}

static int cond_or(CondParser *cp)
{
	int v = cond_and(cp);
	for (;;) {
		cond_space(cp);
		if (cp->p[0] != '|' || cp->p[1] != '|')
			return v;
		cp->p += 2;
		int w = cond_and(cp);
		v = (v == 1 || w == 1) ? 1 : (v < 0 || w < 0) ? -1 : 0;
	}
}

/* ---- scanning a header ---- */

typedef struct IfState {
	bool parent, taken, active;
} IfState;

/* The TP_PROTO arguments: "struct task_struct *prev, int cpu". */
static void parse_proto(TraceEvent *e, const char *proto, size_t len)
{
	e->have_args = true;
	const char *p = proto, *end = proto + len;
	while (p < end) {
		int depth = 0;
		const char *q = p;
		for (; q < end && (depth > 0 || *q != ','); q++)
			depth += (*q == '(') - (*q == ')');
		const char *a = p, *b = q;
		while (a < b && (*a == ' ' || *a == '\n' || *a == '\t'))
			a++;
		while (b > a && (b[-1] == ' ' || b[-1] == '\n' || b[-1] == '\t'))
			b--;
		p = q + 1;
		if (b - a == 4 && !strncmp(a, "void", 4))
			continue;
		const char *n = b;
		while (n > a && (n[-1] == '_' || (n[-1] >= 'a' && n[-1] <= 'z') ||
				 (n[-1] >= 'A' && n[-1] <= 'Z') ||
				 (n[-1] >= '0' && n[-1] <= '9')))
			n--;
		if (n == b || n == a) {
			e->odd_args = true; /* pass 3 cannot declare it */
			continue;          /* unnamed or odd: no $variable */
		}
		TraceArg *arg = NEW(TraceArg);
		arg->name = intern_n(n, b - n);
		const char *t = n;
		while (t > a && (t[-1] == ' ' || t[-1] == '\n' || t[-1] == '\t'))
			t--;
		StrBuf ct = { 0 };     /* squeeze runs of blanks */
		for (const char *c = a; c < t; c++) {
			bool blank = *c == ' ' || *c == '\n' || *c == '\t';
			if (blank && (ct.len == 0 || ct.data[ct.len - 1] == ' '))
				continue;
			sb_putc(&ct, blank ? ' ' : *c);
		}
		arg->ctype = xstrdup(sb_cstr(&ct));
		sb_free(&ct);
		vec_push(&e->args, arg);
	}
}

static const struct {
	const char *macro;
	int name_arg;           /* which argument is the event name */
} event_macros[] = {
	{ "TRACE_EVENT", 0 }, { "TRACE_EVENT_FN", 0 },
	{ "TRACE_EVENT_FN_COND", 0 }, { "TRACE_EVENT_CONDITION", 0 },
	{ "DECLARE_TRACE", 0 }, { "DECLARE_TRACE_CONDITION", 0 },
	{ "DEFINE_EVENT", 1 }, { "DEFINE_EVENT_FN", 1 },
	{ "DEFINE_EVENT_CONDITION", 1 }, { "DEFINE_EVENT_PRINT", 1 },
};

/* An event macro call at p (just after the macro name): record it. */
static const char *scan_event(const char *p, int name_arg,
			      const char *system, const char *header)
{
	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	if (*p != '(')
		return p;
	const char *args[8];
	size_t lens[8];
	int n = 0, depth = 0;
	const char *start = p + 1;
	for (p++; *p; p++) {
		if (*p == '"' || *p == '\'') {
			char quote = *p;
			for (p++; *p && *p != quote; p++)
				if (*p == '\\' && p[1])
					p++;
			if (!*p)
				break;
		} else if (*p == '(') {
			depth++;
		} else if (*p == ')' && depth > 0) {
			depth--;
		} else if ((*p == ',' || *p == ')') && depth == 0) {
			if (n < 8) {
				args[n] = start;
				lens[n++] = p - start;
			}
			start = p + 1;
			if (*p == ')')
				break;
		}
	}
	if (n <= name_arg || !system)
		return p;
	const char *nm = args[name_arg];
	size_t nl = lens[name_arg];
	while (nl && (*nm == ' ' || *nm == '\n' || *nm == '\t'))
		nm++, nl--;
	while (nl && (nm[nl - 1] == ' ' || nm[nl - 1] == '\n' || nm[nl - 1] == '\t'))
		nl--;
	if (!nl)
		return p;
	const char *sys = intern(system), *name = intern_n(nm, nl);
	if (find_event(sys, name))
		return p;
	TraceEvent *e = NEW(TraceEvent);
	e->system = sys;
	e->name = name;
	e->header = header;
	for (int i = name_arg + 1; i < n; i++) {
		const char *a = args[i];
		size_t l = lens[i];
		while (l && (*a == ' ' || *a == '\n' || *a == '\t'))
			a++, l--;
		if (l > 9 && !strncmp(a, "TP_PROTO(", 9)) {
			const char *close = a + l;
			while (close > a && close[-1] != ')')
				close--;
			if (close > a + 9)
				parse_proto(e, a + 9, close - 1 - (a + 9));
			else
				e->have_args = true;
			break;
		}
	}
	vec_push(&events, e);
	return p;
}

static bool ident_char(char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9');
}

/* One preprocessor line (without the '#'): conditionals and the
 * TRACE_SYSTEM the following events belong to. */
static void directive(const char *line, IfState *stack, int *depth,
		      bool *active, const char **system)
{
	CondParser cp = { line };
	const char *dir = cond_ident(&cp);
	if (!dir)
		return;
	if (!strcmp(dir, "if") || !strcmp(dir, "ifdef") || !strcmp(dir, "ifndef")) {
		int v;
		if (!strcmp(dir, "if")) {
			v = cond_or(&cp);
		} else {
			const char *id = cond_ident(&cp);
			v = id ? config_state(id, false) : -1;
			if (!strcmp(dir, "ifndef") && v >= 0)
				v = !v;
		}
		if (*depth < 64)
			stack[(*depth)++] = (IfState){ *active, v != 0, *active && v != 0 };
		*active = *active && v != 0;
	} else if ((!strcmp(dir, "elif") || !strcmp(dir, "else")) && *depth) {
		IfState *s = &stack[*depth - 1];
		int v = !strcmp(dir, "else") ? 1 : cond_or(&cp);
		s->active = s->parent && !s->taken && v != 0;
		s->taken = s->taken || v != 0;
		*active = s->active;
	} else if (!strcmp(dir, "endif") && *depth) {
		*active = stack[--(*depth)].parent;
	} else if (!strcmp(dir, "define") && *active) {
		const char *id = cond_ident(&cp);
		if (id && !strcmp(id, "TRACE_SYSTEM")) {
			const char *v = cond_ident(&cp);
			if (v)
				*system = intern(v);
		}
	}
}

static void scan_header(const char *path)
{
	char *text = read_whole_file(path, NULL);
	if (!text)
		return;
	clean_source(text);
	const char *system = NULL;
	IfState stack[64];
	int depth = 0;
	bool active = true;
	const char *p = text;
	bool line_start = true;
	while (*p) {
		if (line_start) {
			const char *q = p;
			while (*q == ' ' || *q == '\t')
				q++;
			if (*q == '#') {
				const char *eol = strchr(q, '\n');
				if (!eol)
					eol = q + strlen(q);
				directive(xstrndup(q + 1, eol - q - 1), stack, &depth,
					  &active, &system);
				p = *eol ? eol + 1 : eol;
				continue;
			}
			line_start = false;
		}
		if (*p == '\n') {
			line_start = true;
			p++;
			continue;
		}
		if (active && (*p == 'T' || *p == 'D') && (p == text || !ident_char(p[-1]))) {
			const char *q = p;
			while (ident_char(*q))
				q++;
			size_t len = q - p;
			for (size_t i = 0; i < sizeof event_macros / sizeof event_macros[0]; i++) {
				if (strlen(event_macros[i].macro) == len &&
				    !strncmp(p, event_macros[i].macro, len)) {
					q = scan_event(q, event_macros[i].name_arg, system, path);
					break;
				}
			}
			p = q;
			continue;
		}
		p++;
	}
}

static int cmp_path(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool scan_dir(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return false;
	Vec files = { 0 };
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		if (l > 2 && !strcmp(de->d_name + l - 2, ".h"))
			vec_push(&files, xsprintf("%s/%s", dir, de->d_name));
	}
	closedir(d);
	vec_sort(&files, cmp_path);
	for (int i = 0; i < files.len; i++)
		scan_header(files.data[i]);
	return files.len > 0;
}

/* The running kernel's tracefs events folder, or NULL. */
static const char *tracefs_events(void)
{
	static const char *const dirs[] = {
		"/sys/kernel/tracing/events", "/sys/kernel/debug/tracing/events",
	};
	for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
		struct stat st;
		if (stat(dirs[i], &st) == 0 && S_ISDIR(st.st_mode))
			return dirs[i];
	}
	return NULL;
}

/* Add the events tracefs lists; with headers read too, keep only the
 * events tracefs has (it is the truth for the running kernel). */
static void load_tracefs(const char *root, bool headers_read)
{
	DIR *d = opendir(root);
	if (!d)
		return;
	Vec keep = { 0 };
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		const char *sysdir = xsprintf("%s/%s", root, de->d_name);
		DIR *sd = opendir(sysdir);
		if (!sd)
			continue;
		const char *sys = intern(de->d_name);
		struct dirent *ee;
		while ((ee = readdir(sd))) {
			if (ee->d_name[0] == '.' ||
			    access(xsprintf("%s/%s/format", sysdir, ee->d_name), F_OK))
				continue;
			const char *name = intern(ee->d_name);
			TraceEvent *e = find_event(sys, name);
			if (!e) {
				e = NEW(TraceEvent);
				e->system = sys;
				e->name = name;
			}
			vec_push(&keep, e);
		}
		closedir(sd);
	}
	closedir(d);
	if (keep.len || !headers_read)
		events = keep;
}

static void load_events(void)
{
	if (events_loaded)
		return;
	events_loaded = true;
	const Vec *dirs = kernel_header_dirs();
	bool headers = false;
	for (int i = 0; i < dirs->len; i++) {
		const char *d = dirs->data[i];
		headers |= scan_dir(xsprintf("%s/include/trace/events", d));
		headers |= scan_dir(xsprintf("%s/arch/%s/include/asm/trace", d, kernel_arch_dir()));
	}
	have_source = headers;
	const char *tfs = target_is_running_kernel() ? tracefs_events() : NULL;
	if (tfs) {
		load_tracefs(tfs, headers);
		have_source = have_source || events.len > 0;
	}
	verbose(2, "probes: %d tracepoints known for %s", events.len, target_release());
}

/* ---- the family ---- */

static void add_vars(ResolvedPoint *rp, TraceEvent *e)
{
	rp->data = e;
	/* $$system and $$name: the parts of the tracepoint's name */
	rp_var(rp, "$system", TY_STRING, NULL)->scalar = true;
	rp_var(rp, "$name", TY_STRING, NULL)->scalar = true;
	if (!e->have_args) {
		rp->needs_debuginfo = true;
		return;
	}
	for (int i = 0; i < e->args.len; i++) {
		TraceArg *a = e->args.data[i];
		rp_var(rp, a->name, TY_LONG, a->ctype);
	}
}

static int resolve_trace(const ProbeFamily *fam, ProbePoint *pp, Vec *out)
{
	ProbePointComp *tc = pp_comp(pp, "trace");
	const char *pat = comp_str(tc);
	if (!*pat) {
		error_at(tc->loc, _("kernel.trace needs a tracepoint name"));
		return -1;
	}
	const char *colon = strchr(pat, ':');
	const char *sys_pat = colon ? xstrndup(pat, colon - pat) : "*";
	const char *ev_pat = colon ? colon + 1 : pat;
	if (!*ev_pat || !*sys_pat) {
		error_at(tc->loc, _("bad tracepoint name '%s' (expected \"system:event\" or \"event\")"),
			 pat);
		return -1;
	}
	load_events();
	if (!have_source) {
		if (arg_has_glob(pat)) {
			if (pp_is_optional(pp))
				return 0;
			error_at(tc->loc, _("cannot expand '%s': no tracepoint list for kernel %s (no tracefs, no headers in /lib/modules/%s/build)"),
				 pat, target_release(), target_release());
			return -1;
		}
		TraceEvent *e = NEW(TraceEvent);
		e->system = colon ? intern(sys_pat) : NULL;
		e->name = intern(ev_pat);
		ResolvedPoint *rp = rp_push(out, fam, pp);
		add_vars(rp, e);
		return 1;
	}
	int n = 0;
	int ti = 1;    /* kernel.trace(...) */
	for (int i = 0; i < events.len; i++) {
		TraceEvent *e = events.data[i];
		if (!arg_glob_match(sys_pat, e->system) || !arg_glob_match(ev_pat, e->name))
			continue;
		const char *full = xsprintf("%s:%s", e->system, e->name);
		ProbePoint *c = strcmp(full, pat) ? pp_with_str(pp, ti, full) : pp;
		ResolvedPoint *rp = rp_push(out, fam, c);
		add_vars(rp, e);
		n++;
	}
	return n;
}

static const char *const trace_shapes[] = { "kernel.trace(s)", NULL };

const ProbeFamily family_trace = { "kernel.trace", trace_shapes, resolve_trace };
