/*
 * regex.h - `s =~ "pattern"` with a small POSIX ERE matcher: . [] [^]
 * [:class:] * + ? {m} {m,} {m,n} | () ^ $ and backslash escapes.
 *
 * The pattern is compiled once at module init into a fixed program (no
 * allocation afterwards); matching is a Pike VM over that program, so it
 * runs in O(len(s) * program size) time with the per-CPU scratch memory
 * allocated at load and no recursion.  The overall match is the leftmost-
 * longest one, as POSIX wants; submatches are those of the first thread
 * (in priority order) reaching that end, which can differ from POSIX's
 * subexpression rules in ambiguous patterns.
 */
#ifndef TAP_REGEX_H
#define TAP_REGEX_H

#define TAP_RE_MAXINST 256
#define TAP_RE_MAXCLASS 16

struct tap_re_inst {
	u8 op;
	u8 arg;			/* character, class index, or capture slot */
	u16 x, y;		/* jump targets */
};

struct tap_regex {
	u16 ninst;
	u8 nclass;
	u8 nsub;		/* groups, not counting matched(0) */
	struct tap_re_inst inst[TAP_RE_MAXINST];
	u8 classes[TAP_RE_MAXCLASS][32];
};

struct tap_context;

int tap_regex_compile(struct tap_regex *re, const char *pattern);
size_t tap_regex_scratch_size(void);
int tap_regex_match(struct tap_context *c, const struct tap_regex *re, const char *s);
int tap_regex_matched(struct tap_context *c, int64_t n, char *dst);

#endif /* TAP_REGEX_H */
