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

/*
 * The Pike VM's per-CPU working memory: the context allocates one with
 * itself at load (context.c), so its size is known here, not asked of
 * regex.c.
 */
#define TAP_RE_NCAP (2 * TAP_RE_NSUB)

struct tap_re_thread {
	u16 pc;
	s32 cap[TAP_RE_NCAP];
};

struct tap_re_frame {
	u16 pc;			/* or a capture to restore */
	s8 restore;		/* capture slot, -1 for a pc entry */
	s32 old;
};

struct tap_regex_scratch {
	struct tap_re_thread list[2][TAP_RE_MAXINST];
	struct tap_re_frame stack[3 * TAP_RE_MAXINST + 4];
	u32 mark[TAP_RE_MAXINST];	/* step number when last added */
	s32 cap[TAP_RE_NCAP];
};

struct tap_context;

int tap_regex_compile(struct tap_regex *re, const char *pattern);
int tap_regex_match(struct tap_context *c, const struct tap_regex *re, const char *s);
int tap_regex_matched(struct tap_context *c, int64_t n, char *dst);

#endif /* TAP_REGEX_H */
