/* wildcard.c - matching probe-point names and arguments against patterns
 * (wildcard.h).  It knows nothing of probe points: pass 2 and the
 * families hand it strings.
 */
#include "wildcard.h"

#include <fnmatch.h>
#include <string.h>

/* Find the '}' closing the '{' at p (nesting counts), or NULL. */
static const char *brace_end(const char *p)
{
	int depth = 0;
	for (; *p; p++) {
		if (*p == '{')
			depth++;
		else if (*p == '}' && --depth == 0)
			return p;
	}
	return NULL;
}

static bool wmatch(const char *p, const char *s);

/* Try each alternative of the brace group at p, followed by the rest of
 * the pattern. */
static bool wmatch_braces(const char *p, const char *s)
{
	const char *end = brace_end(p);
	if (!end)		/* unbalanced: the '{' is a plain character */
		return *s == '{' && wmatch(p + 1, s + 1);
	const char *alt = p + 1;
	int depth = 0;
	for (const char *q = p + 1; q <= end; q++) {
		if (*q == '{') {
			depth++;
			continue;
		}
		if (*q == '}' && depth > 0) {
			depth--;
			continue;
		}
		if ((*q == ',' && depth == 0) || q == end) {
			char *pat = xsprintf("%.*s%s", (int)(q - alt), alt, end + 1);
			if (wmatch(pat, s))
				return true;
			alt = q + 1;
		}
	}
	return false;
}

/* '*' matches within one component, '**' across dots too. */
static bool wmatch(const char *p, const char *s)
{
	for (;;) {
		switch (*p) {
		case 0:
			return *s == 0;
		case '{':
			return wmatch_braces(p, s);
		case '*': {
			bool dstar = p[1] == '*';
			while (*p == '*')
				p++;
			for (const char *t = s;; t++) {
				if (wmatch(p, t))
					return true;
				if (!*t || (*t == '.' && !dstar))
					return false;
			}
		}
		default:
			if (*p != *s)
				return false;
			p++;
			s++;
		}
	}
}

bool wildcard_match(const char *pattern, const char *name)
{
	return wmatch(pattern, name);
}

bool has_wildcard(const char *s)
{
	return s && (strchr(s, '*') || strchr(s, '{'));
}

bool arg_glob_match(const char *pattern, const char *name)
{
	return fnmatch(pattern, name, 0) == 0;
}

bool arg_has_glob(const char *s)
{
	return s && strpbrk(s, "*?[") != NULL;
}
