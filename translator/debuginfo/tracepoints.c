/* tracepoints.c - the target kernel's tracepoints and their prototypes
 * (debuginfo.h), for kernel.trace("system:event").
 *
 * They come from:
 *  - the target's tracepoint headers (include/trace/events/NAME.h and the
 *    arch's asm/trace/NAME.h under /lib/modules/RELEASE/build and its
 *    "source" folder): TRACE_EVENT / DEFINE_EVENT / DECLARE_TRACE give the
 *    event name, the TRACE_SYSTEM it is under and its TP_PROTO arguments,
 *    which are what a handler reads as $prev, $next ... (also when the
 *    header calls them through a wrapper macro of its own);
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
#include "debuginfo.h"

#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* ---- wrapper macros ----
 *
 * Headers often declare events through macros of their own: an
 * object-like one that a config option points at DEFINE_EVENT or at
 * DEFINE_EVENT_NOP (sched.h's DEFINE_EVENT_SCHEDSTAT), or a function-like
 * one that pastes the event's name (irq_vectors.h's
 * DEFINE_IRQ_VECTOR_EVENT(name) makes name##_entry and name##_exit).  The
 * #defines seen in the active branches of a header are kept, and a call
 * of one is expanded (parameters, ## pasting, __VA_ARGS__) and scanned
 * again, a few levels deep.
 */

typedef struct Macro {
	const char *name;       /* interned */
	bool function_like;
	Vec params;             /* const char * (interned); "__VA_ARGS__" for ... */
	const char *body;
} Macro;

#define MAX_EXPANSION_DEPTH 8

typedef struct HeaderScan {
	const char *path;
	const char *system;     /* TRACE_SYSTEM, interned */
	Vec macros;             /* Macro * */
} HeaderScan;

static Macro *find_macro(HeaderScan *hs, const char *name)
{
	for (int i = hs->macros.len - 1; i >= 0; i--) {
		Macro *m = hs->macros.data[i];
		if (m->name == name)
			return m;
	}
	return NULL;
}

static void undefine(HeaderScan *hs, const char *name)
{
	int n = 0;
	for (int i = 0; i < hs->macros.len; i++)
		if (((Macro *)hs->macros.data[i])->name != name)
			hs->macros.data[n++] = hs->macros.data[i];
	hs->macros.len = n;
}

/* "#define NAME BODY" or "#define NAME(A, B) BODY" (p after "define"). */
static void define_macro(HeaderScan *hs, const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	const char *s = p;
	while (ident_char(*p))
		p++;
	if (p == s)
		return;
	Macro *m = NEW(Macro);
	m->name = intern_n(s, p - s);
	if (*p == '(') {
		m->function_like = true;
		for (p++; *p && *p != ')';) {
			while (*p == ' ' || *p == '\t' || *p == ',')
				p++;
			if (!strncmp(p, "...", 3)) {
				vec_push(&m->params, (void *)intern("__VA_ARGS__"));
				p += 3;
				continue;
			}
			const char *a = p;
			while (ident_char(*p))
				p++;
			if (p == a) {
				if (*p && *p != ')')
					return;       /* not a parameter list we know */
				break;
			}
			vec_push(&m->params, (void *)intern_n(a, p - a));
		}
		if (*p != ')')
			return;
		p++;
	}
	while (*p == ' ' || *p == '\t')
		p++;
	m->body = xstrdup(p);
	undefine(hs, m->name);
	vec_push(&hs->macros, m);
}

/* The arguments of a call at p (at the '('), trimmed; *end is set after
 * the ')'.  False when the call is not closed. */
static bool call_args(const char *p, Vec *args, const char **end)
{
	int depth = 0;
	const char *start = p + 1;
	for (p++; *p; p++) {
		if (*p == '"' || *p == '\'') {
			char quote = *p;
			for (p++; *p && *p != quote; p++)
				if (*p == '\\' && p[1])
					p++;
			if (!*p)
				return false;
		} else if (*p == '(') {
			depth++;
		} else if (*p == ')' && depth > 0) {
			depth--;
		} else if ((*p == ',' || *p == ')') && depth == 0) {
			const char *a = start, *b = p;
			while (a < b && strchr(" \t\n", *a))
				a++;
			while (b > a && strchr(" \t\n", b[-1]))
				b--;
			vec_push(args, xstrndup(a, b - a));
			start = p + 1;
			if (*p == ')') {
				*end = p + 1;
				return true;
			}
		}
	}
	return false;
}

/* The body of m with its parameters replaced by args and ## pasted. */
static const char *expand_macro(const Macro *m, Vec *args)
{
	StrBuf sb = { 0 };
	for (const char *p = m->body; *p;) {
		if (p[0] == '#' && p[1] == '#') {
			while (sb.len && strchr(" \t\n", sb.data[sb.len - 1]))
				sb.len--;
			for (p += 2; *p == ' ' || *p == '\t' || *p == '\n';)
				p++;
			continue;
		}
		if (!ident_char(*p)) {
			sb_putc(&sb, *p++);
			continue;
		}
		const char *s = p;
		while (ident_char(*p))
			p++;
		const char *id = intern_n(s, p - s);
		int k = -1;
		for (int i = 0; i < m->params.len && k < 0; i++)
			if (m->params.data[i] == id)
				k = i;
		if (k < 0) {
			sb_puts(&sb, id);
		} else if (id == intern("__VA_ARGS__")) {
			for (int i = k; i < args->len; i++)
				sb_printf(&sb, "%s%s", i > k ? ", " : "", (char *)args->data[i]);
		} else if (k < args->len) {
			sb_puts(&sb, args->data[k]);
		}
	}
	const char *r = xstrdup(sb_cstr(&sb));
	sb_free(&sb);
	return r;
}

/* The event macro an identifier stands for, through object-like
 * wrappers: its index in event_macros, or -1. */
static int event_macro_of(HeaderScan *hs, const char *id)
{
	for (int depth = 0; depth < MAX_EXPANSION_DEPTH; depth++) {
		for (size_t i = 0; i < sizeof event_macros / sizeof event_macros[0]; i++)
			if (!strcmp(id, event_macros[i].macro))
				return i;
		Macro *m = find_macro(hs, id);
		if (!m || m->function_like)
			return -1;
		const char *b = m->body, *e = b;
		while (ident_char(*e))
			e++;
		if (e == b || *e)
			return -1;      /* not a plain alias of another name */
		id = intern_n(b, e - b);
	}
	return -1;
}

static const char *skip_blank(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	return p;
}

static const char *scan_ident(HeaderScan *hs, const char *p, int depth);

/* Events in code without directives (a macro's expansion). */
static void scan_code(HeaderScan *hs, const char *text, int depth)
{
	for (const char *p = text; *p;) {
		if (ident_char(*p) && (p == text || !ident_char(p[-1])) &&
		    !(*p >= '0' && *p <= '9'))
			p = scan_ident(hs, p, depth);
		else
			p++;
	}
}

/* The identifier at p: an event macro's call is recorded, a wrapper's
 * call expanded and scanned.  Returns where to go on scanning. */
static const char *scan_ident(HeaderScan *hs, const char *p, int depth)
{
	const char *q = p;
	while (ident_char(*q))
		q++;
	const char *id = intern_n(p, q - p);
	int em = event_macro_of(hs, id);
	if (em >= 0)
		return scan_event(q, event_macros[em].name_arg, hs->system, hs->path);
	Macro *m = hs->macros.len ? find_macro(hs, id) : NULL;
	if (!m || !m->function_like || depth >= MAX_EXPANSION_DEPTH)
		return q;
	const char *open = skip_blank(q), *end;
	Vec args = { 0 };
	if (*open != '(' || !call_args(open, &args, &end))
		return q;
	scan_code(hs, expand_macro(m, &args), depth + 1);
	return end;
}

/* One preprocessor line (without the '#'): conditionals, the
 * TRACE_SYSTEM the following events belong to, and wrapper macros. */
static void directive(const char *line, IfState *stack, int *depth,
		      bool *active, HeaderScan *hs)
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
		const char *rest = cp.p;
		const char *id = cond_ident(&cp);
		if (id && !strcmp(id, "TRACE_SYSTEM")) {
			const char *v = cond_ident(&cp);
			if (v)
				hs->system = intern(v);
		} else if (id) {
			define_macro(hs, rest);
		}
	} else if (!strcmp(dir, "undef") && *active) {
		const char *id = cond_ident(&cp);
		if (id)
			undefine(hs, intern(id));
	}
}

static void scan_header(const char *path)
{
	char *text = read_whole_file(path, NULL);
	if (!text)
		return;
	clean_source(text);
	HeaderScan hs = { .path = path };
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
					  &active, &hs);
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
		if (active && ident_char(*p) && (p == text || !ident_char(p[-1])) &&
		    !(*p >= '0' && *p <= '9')) {
			p = scan_ident(&hs, p, 0);
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

const Vec *kernel_tracepoints(void)
{
	if (events_loaded)
		return have_source ? &events : NULL;
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
	return have_source ? &events : NULL;
}
