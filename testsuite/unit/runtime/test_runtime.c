/*
 * test_runtime.c - unit tests of the module runtime (maps, statistics,
 * histograms, printf, strings, arithmetic, regex, contexts), compiled in
 * user space through runtime/tap_shim_user.h.
 */
#define TAP_USER_TEST 1
#include "tap_runtime.c"

int tap_test_cpu;
int tap_test_ncpus = 4;
u64 tap_test_cycles;

/* ---- a user-space stand-in for the transport ---- */

static char out[1 << 16];
static size_t out_len;
static char pbuf[TAP_PRINT_BUFSIZE];
static size_t pbuf_used;
static char last_msg[4 * MAXSTRINGLEN];
static int nerrors_counted, nskips[TAP_SKIP_NR], exit_called;
static int state = TAP_STATE_RUNNING;

int tap_session_state(void) { return state; }
void tap_commit(void)
{
	memcpy(out + out_len, pbuf, pbuf_used);
	out_len += pbuf_used;
	pbuf_used = 0;
}
char *tap_reserve(size_t len)
{
	char *p;

	if (len > TAP_PRINT_BUFSIZE)
		return NULL;
	if (pbuf_used + len > TAP_PRINT_BUFSIZE)
		tap_commit();
	p = pbuf + pbuf_used;
	pbuf_used += len;
	return p;
}
bool tap_output_pending(void) { return pbuf_used != 0; }
void tap_unreserve(size_t len) { pbuf_used -= len < pbuf_used ? len : pbuf_used; }
void tap_write(const char *buf, size_t len)
{
	while (len) {
		size_t n = len < TAP_PRINT_BUFSIZE ? len : TAP_PRINT_BUFSIZE;
		char *p = tap_reserve(n);

		memcpy(p, buf, n);
		buf += n;
		len -= n;
	}
}
void tap_print(const char *s) { tap_write(s, strlen(s)); }
void tap_msg_error(const char *text) { snprintf(last_msg, sizeof(last_msg), "%s", text); }
void tap_count_error(void) { nerrors_counted++; }
void tap_count_skip(enum tap_skip_reason why) { nskips[why]++; }
void tap_exit(void) { exit_called++; }
int tap_read_kernel(void *d, const void *s, size_t n)
{
	if (!s)
		return -EFAULT;
	memcpy(d, s, n);
	return 0;
}
int tap_read_user(void *d, const void __user *s, size_t n) { return tap_read_kernel(d, s, n); }

/* ---- checking ---- */

static int failures, checks;

static void check_str(int line, const char *what, const char *got, const char *want)
{
	checks++;
	if (strcmp(got, want)) {
		failures++;
		printf("FAIL line %d: %s\n--- want ---\n%s\n--- got ---\n%s\n-----\n",
		       line, what, want, got);
	}
}

static void check_int(int line, const char *what, long long got, long long want)
{
	checks++;
	if (got != want) {
		failures++;
		printf("FAIL line %d: %s: got %lld, want %lld\n", line, what, got, want);
	}
}

#define CHECK_STR(got, want) check_str(__LINE__, #got, got, want)
#define CHECK_INT(got, want) check_int(__LINE__, #got, (long long)(got), (long long)(want))

static struct tap_context *enter(void)
{
	struct tap_context *c = tap_context_enter("test", TAP_STATE_RUNNING);

	assert(c);
	return c;
}

/* Ends the handler and returns its output (and resets the capture). */
static const char *leave(struct tap_context *c)
{
	static char got[sizeof(out) + 1];

	tap_context_exit(c);
	memcpy(got, out, out_len);
	got[out_len] = '\0';
	out_len = 0;
	return got;
}

/*
 * Formats arrive as tables (tapc's pass 2 parses each format once and
 * pass 3 writes its directives out); FMT(args, nargs, directives...) runs
 * one.  The comment above each case is the format the table stands for.
 */
static size_t fmt_len;

static const char *fmt(const struct tap_fmt_spec *sp, int nsp, const struct tap_arg *a, int n)
{
	static char buf[1024];

	fmt_len = tap_format_spec(buf, sizeof(buf), sp, nsp, a, n);
	return buf;
}

#define SPECS(...) ((const struct tap_fmt_spec[]){ __VA_ARGS__ })
#define NSPECS(...) ((int)(sizeof(SPECS(__VA_ARGS__)) / sizeof(struct tap_fmt_spec)))
#define FMT(a, n, ...) fmt(SPECS(__VA_ARGS__), NSPECS(__VA_ARGS__), a, n)
#define LIT(s) TAP_FMT_LIT(s)
#define CV(k, fl, w, p) { .conv = TAP_CONV_##k, .flags = (fl), .width = (w), .prec = (p) }
#define D(k) CV(k, 0, -1, -1)
#define LEFT TAP_FMT_LEFT
#define PLUS TAP_FMT_PLUS
#define SPACE TAP_FMT_SPACE
#define ALT TAP_FMT_ALT
#define ZERO TAP_FMT_ZERO
#define STAR TAP_FMT_STAR

/* ---- printf ---- */

static void test_printf(void)
{
	struct tap_arg a[8];
	char buf[64];
	const char mem[] = "ab\001\377";
	const char *bin;
	size_t n;

#define L(v) ((struct tap_arg)TAP_ARG_LONG(v))
#define S(v) ((struct tap_arg)TAP_ARG_STR(v))
	a[0] = L(97); a[1] = S("alice"); a[2] = L(0x1234abcd); a[3] = L(0x1234abcd);
	a[4] = L(0x1234abcd); a[5] = L(-1); a[6] = L(-1);
	/* "%c is %s; %x or %X or %p; %d or %u\n" */
	CHECK_STR(FMT(a, 7, D(CHAR), LIT(" is "), D(STRING), LIT("; "), D(HEX), LIT(" or "),
		      D(HEX_UPPER), LIT(" or "), D(POINTER), LIT("; "), D(SIGNED), LIT(" or "),
		      D(UNSIGNED), LIT("\n")),
		  "a is alice; 1234abcd or 1234ABCD or 0x1234abcd; -1 or 18446744073709551615\n");
	a[0] = L(1); a[1] = L(2); a[2] = L(3);
	/* "%#o %#x %#X" */
	CHECK_STR(FMT(a, 3, CV(OCTAL, ALT, -1, -1), LIT(" "), CV(HEX, ALT, -1, -1), LIT(" "),
		      CV(HEX_UPPER, ALT, -1, -1)), "01 0x2 0X3");
	a[0] = L(0); a[1] = L(9); a[2] = L(42);
	/* "%#c %#c %#c" */
	CHECK_STR(FMT(a, 3, CV(CHAR, ALT, -1, -1), LIT(" "), CV(CHAR, ALT, -1, -1), LIT(" "),
		      CV(CHAR, ALT, -1, -1)), "\\000 \\t *");
	/* "[%#x] [%#o] [%.0d] [%p]" */
	CHECK_STR(FMT(((struct tap_arg[]){L(0), L(0), L(0), L(0)}), 4,
		      LIT("["), CV(HEX, ALT, -1, -1), LIT("] ["), CV(OCTAL, ALT, -1, -1),
		      LIT("] ["), CV(SIGNED, 0, -1, 0), LIT("] ["), D(POINTER), LIT("]")),
		  "[0x0] [00] [0] [0x0]");
	/* "[%5d] [%-5d] [%05d] [%+d] [% d] [%-05d]" */
	CHECK_STR(FMT(((struct tap_arg[]){L(42), L(42), L(42), L(42), L(42), L(42)}), 6,
		      LIT("["), CV(SIGNED, 0, 5, -1), LIT("] ["), CV(SIGNED, LEFT, 5, -1),
		      LIT("] ["), CV(SIGNED, ZERO, 5, -1), LIT("] ["), CV(SIGNED, PLUS, -1, -1),
		      LIT("] ["), CV(SIGNED, SPACE, -1, -1), LIT("] ["),
		      CV(SIGNED, LEFT | ZERO, 5, -1), LIT("]")),
		  "[   42] [42   ] [00042] [+42] [ 42] [42   ]");
	/* "[%05d] [%+05d] [%.4d] [%8.4d] [%-8.4d|" */
	CHECK_STR(FMT(((struct tap_arg[]){L(-42), L(42), L(-42), L(42), L(42)}), 5,
		      LIT("["), CV(SIGNED, ZERO, 5, -1), LIT("] ["), CV(SIGNED, PLUS | ZERO, 5, -1),
		      LIT("] ["), CV(SIGNED, 0, -1, 4), LIT("] ["), CV(SIGNED, 0, 8, 4),
		      LIT("] ["), CV(SIGNED, LEFT, 8, 4), LIT("|")),
		  "[-0042] [+0042] [-0042] [    0042] [0042    |");
	/* "[%#08x] [%#8x] [%#-8x] [%08X]" */
	CHECK_STR(FMT(((struct tap_arg[]){L(255), L(255), L(255), L(255)}), 4,
		      LIT("["), CV(HEX, ALT | ZERO, 8, -1), LIT("] ["), CV(HEX, ALT, 8, -1),
		      LIT("] ["), CV(HEX, ALT | LEFT, 8, -1), LIT("] ["),
		      CV(HEX_UPPER, ZERO, 8, -1), LIT("]")),
		  "[0x0000ff] [    0xff] [0xff    ] [000000FF]");
	/* "[%i] [%u] [%o] [%x]" */
	CHECK_STR(FMT(((struct tap_arg[]){L(INT64_MIN), L(-2), L(8), L(-1)}), 4,
		      LIT("["), D(SIGNED), LIT("] ["), D(UNSIGNED), LIT("] ["), D(OCTAL),
		      LIT("] ["), D(HEX), LIT("]")),
		  "[-9223372036854775808] [18446744073709551614] [10] [ffffffffffffffff]");
	/* "[%+u] [% x]": '+' and ' ' are for %d and %i only */
	CHECK_STR(FMT(((struct tap_arg[]){L(5), L(5)}), 2, LIT("["), CV(UNSIGNED, PLUS, -1, -1),
		      LIT("] ["), CV(HEX, SPACE, -1, -1), LIT("]")), "[5] [5]");
	/* "[%s] [%8s] [%-8s] [%.3s] [%8.3s] [%.0s]" */
	CHECK_STR(FMT(((struct tap_arg[]){S("hello"), S("hello"), S("hello"), S("hello"),
				      S("hello"), S("hello")}), 6,
		      LIT("["), D(STRING), LIT("] ["), CV(STRING, 0, 8, -1), LIT("] ["),
		      CV(STRING, LEFT, 8, -1), LIT("] ["), CV(STRING, 0, -1, 3), LIT("] ["),
		      CV(STRING, 0, 8, 3), LIT("] ["), CV(STRING, 0, -1, 0), LIT("]")),
		  "[hello] [   hello] [hello   ] [hel] [     hel] []");
	/* "[%*d] [%-*d] [%*d] [%.*s] [%*.*s]": a negative '*' width means '-' */
	CHECK_STR(FMT(((struct tap_arg[]){L(4), L(7), L(4), L(7), L(-4), L(7), L(2), S("abc"),
				      L(5), L(1), S("xyz")}), 11,
		      LIT("["), CV(SIGNED, 0, STAR, -1), LIT("] ["), CV(SIGNED, LEFT, STAR, -1),
		      LIT("] ["), CV(SIGNED, 0, STAR, -1), LIT("] ["), CV(STRING, 0, -1, STAR),
		      LIT("] ["), CV(STRING, 0, STAR, STAR), LIT("]")),
		  "[   7] [7   ] [7   ] [ab] [    x]");
	/* "[%3c] [%-3c] [%c]" */
	CHECK_STR(FMT(((struct tap_arg[]){L('x'), L('y'), L('z')}), 3,
		      LIT("["), CV(CHAR, 0, 3, -1), LIT("] ["), CV(CHAR, LEFT, 3, -1), LIT("] ["),
		      D(CHAR), LIT("]")), "[  x] [y  ] [z]");
	/* "100%% [%%5d]" */
	CHECK_STR(FMT(NULL, 0, LIT("100"), D(PERCENT), LIT(" ["), D(PERCENT), LIT("5d]")),
		  "100% [%5d]");
	/* "%d %s|" with no values: missing ones read as 0 and "" */
	CHECK_STR(FMT(NULL, 0, D(SIGNED), LIT(" "), D(STRING), LIT("|")), "0 |");
	/* %M: hex of precision bytes; %m: raw bytes */
	/* "[%.4M] [%M] [%10.2M] [%-6.2M]" */
	CHECK_STR(FMT(((struct tap_arg[]){L((long)mem), L((long)mem), L((long)mem),
				      L((long)mem)}), 4,
		      LIT("["), CV(MEMORY_HEX, 0, -1, 4), LIT("] ["), D(MEMORY_HEX), LIT("] ["),
		      CV(MEMORY_HEX, 0, 10, 2), LIT("] ["), CV(MEMORY_HEX, LEFT, 6, 2), LIT("]")),
		  "[616201ff] [61] [      6162] [6162  ]");
	/* "[%.2m] [%4.2m] [%-4.2m] [%m]" */
	CHECK_STR(FMT(((struct tap_arg[]){L((long)mem), L((long)mem), L((long)mem),
				      L((long)mem)}), 4,
		      LIT("["), CV(MEMORY, 0, -1, 2), LIT("] ["), CV(MEMORY, 0, 4, 2), LIT("] ["),
		      CV(MEMORY, LEFT, 4, 2), LIT("] ["), D(MEMORY), LIT("]")),
		  "[ab] [  ab] [ab  ] [a]");
	/* "[%.*M]" */
	CHECK_STR(FMT(((struct tap_arg[]){L(3), L((long)mem)}), 2,
		      LIT("["), CV(MEMORY_HEX, 0, -1, STAR), LIT("]")), "[616201]");
	/* "%b|%1b|%2b|%4b|%8b": raw little-endian bytes (x86-64 host order) */
	bin = FMT(((struct tap_arg[]){L(0x0102030405060708LL), L(0x41), L(0x4241),
				      L(0x44434241), L(0x4847464544434241LL)}), 5,
		  D(BINARY), LIT("|"), CV(BINARY, 0, 1, -1), LIT("|"), CV(BINARY, 0, 2, -1),
		  LIT("|"), CV(BINARY, 0, 4, -1), LIT("|"), CV(BINARY, 0, 8, -1));
	n = fmt_len;
	CHECK_INT(n, 8 + 1 + 1 + 1 + 2 + 1 + 4 + 1 + 8);
	CHECK_INT(memcmp(bin, "\x08\x07\x06\x05\x04\x03\x02\x01|A|AB|ABCD|ABCDEFGH", n), 0);
	/* stap's vsprintf quirks: '0' with a precision still pads with
	 * zeros; %p is %#x with its '0'; %#c leaves " alone; a negative
	 * '*' precision is 0; a '0' %s ends with a NUL; %.0m is one byte.
	 * "[%08.3d] [%08p] [%#c%#c] [%.*s] [%05s] [%.0m]" */
	bin = FMT(((struct tap_arg[]){L(7), L(4096), L('"'), L('\''), L(-1), S("abc"),
				      S("ab"), L((long)mem)}), 8,
		  LIT("["), CV(SIGNED, ZERO, 8, 3), LIT("] ["), CV(POINTER, ZERO, 8, -1),
		  LIT("] ["), CV(CHAR, ALT, -1, -1), CV(CHAR, ALT, -1, -1), LIT("] ["),
		  CV(STRING, 0, -1, STAR), LIT("] ["), CV(STRING, ZERO, 5, -1), LIT("] ["),
		  CV(MEMORY, 0, -1, 0), LIT("]"));
	n = fmt_len;
	CHECK_INT(n, 43);
	CHECK_INT(memcmp(bin, "[00000007] [0x001000] [\"\\'] [] [   ab\0] [a]", n), 0);
	/* %b: the precision is the size, the width pads with NULs:
	 * "%6.2b|%-6.2b|%.2b|%3b" */
	bin = FMT(((struct tap_arg[]){L(0x4241), L(0x4241), L(0x4241), L(0x41)}), 4,
		  CV(BINARY, 0, 6, 2), LIT("|"), CV(BINARY, LEFT, 6, 2), LIT("|"),
		  CV(BINARY, 0, -1, 2), LIT("|"), CV(BINARY, 0, 3, -1));
	n = fmt_len;
	CHECK_INT(n, 6 + 1 + 6 + 1 + 2 + 1 + 8);
	CHECK_INT(memcmp(bin, "\0\0\0\0AB|AB\0\0\0\0|AB|A\0\0\0\0\0\0\0", n), 0);
	/* truncation: returns the needed length, keeps size - 1 bytes ("%s-%d") */
	n = tap_format_spec(buf, 6, SPECS(D(STRING), LIT("-"), D(SIGNED)), 3,
			    (struct tap_arg[]){S("abcdef"), L(12)}, 2);
	CHECK_INT(n, 9);
	CHECK_STR(buf, "abcde");
	/* "x=%-4d|%s\n" */
	tap_format_spec(buf, sizeof(buf), SPECS(LIT("x="), CV(SIGNED, LEFT, 4, -1), LIT("|"),
						D(STRING), LIT("\n")), 5,
			(struct tap_arg[]){L(3), S("s")}, 2);
	CHECK_STR(buf, "x=3   |s\n");
	/* huge widths are clamped, not looped over ("%*d") */
	n = tap_format_spec(buf, sizeof(buf), SPECS(CV(SIGNED, 0, STAR, -1)), 1,
			    (struct tap_arg[]){L(INT64_MAX), L(1)}, 2);
	CHECK_INT(n, 65536);
	n = tap_format_spec(buf, sizeof(buf), SPECS(CV(SIGNED, 0, STAR, -1)), 1,
			    (struct tap_arg[]){L(INT64_MIN), L(1)}, 2);
	CHECK_INT(n, 65536);
}

static void test_print_output(void)
{
	static const struct tap_fmt_spec f[] = {
		TAP_FMT_LIT("pid "),
		{ .conv = TAP_CONV_SIGNED, .width = -1, .prec = -1 },
		TAP_FMT_LIT(" name "),
		{ .conv = TAP_CONV_STRING, .flags = TAP_FMT_LEFT, .width = 6, .prec = -1 },
		TAP_FMT_LIT("|\n"),
	};
	struct tap_context *c = enter();
	struct tap_arg a[] = { TAP_ARG_LONG(42), TAP_ARG_STR("bash") };

	CHECK_INT(tap_printf_spec(c, f, 5, a, 2), 0);
	tap_print("x");
	tap_printf("%d-%s\n", 7, "y");
	/* "%.2m" of address 0 */
	CHECK_INT(tap_printf_spec(c, SPECS(CV(MEMORY, 0, -1, 2)), 1,
				  (struct tap_arg[]){TAP_ARG_LONG(0)}, 1), -1);
	CHECK_STR(leave(c), "pid 42 name bash  |\nx7-y\n");
	CHECK_STR(last_msg, "read fault at 0x0");
}

/* ---- strings and arithmetic ---- */

static void test_strings(void)
{
	char s[MAXSTRINGLEN], t[MAXSTRINGLEN], big[3 * MAXSTRINGLEN];
	const char *end;

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	tap_str_assign(s, big);
	CHECK_INT(strlen(s), MAXSTRINGLEN - 1);
	tap_str_assign(s, "abc");
	tap_str_concat(s, s, "def");
	CHECK_STR(s, "abcdef");
	tap_str_concat(s, "012", s);
	CHECK_STR(s, "012abcdef");
	tap_str_assign(t, big + 10);	/* MAXSTRINGLEN - 1 x's */
	tap_str_concat(s, "ab", t);
	CHECK_INT(strlen(s), MAXSTRINGLEN - 1);
	CHECK_INT(s[0] == 'a' && s[1] == 'b' && s[MAXSTRINGLEN - 2] == 'x', 1);
	tap_str_assign(s, "abc");
	tap_str_append(s, big);
	CHECK_INT(strlen(s), MAXSTRINGLEN - 1);
	tap_long_to_str(s, INT64_MIN);
	CHECK_STR(s, "-9223372036854775808");
	CHECK_INT(tap_strtol("  -0x1F", 16, NULL), -31);
	CHECK_INT(tap_strtol("0x1F", 0, NULL), 31);
	CHECK_INT(tap_strtol("017", 0, NULL), 15);
	CHECK_INT(tap_strtol("z", 36, NULL), 35);
	CHECK_INT(tap_strtol("12abc", 10, &end), 12);
	CHECK_STR(end, "abc");
	tap_strtol("abc", 10, &end);
	CHECK_STR(end, "abc");
	tap_substr(s, "hello world", 6, 100);
	CHECK_STR(s, "world");
	tap_substr(s, "hello", 1, 3);
	CHECK_STR(s, "ell");
	tap_substr(s, "hello", 9, 3);
	CHECK_STR(s, "");
	tap_substr(s, "hello", -1, 3);
	CHECK_STR(s, "");
}

static void test_arith(void)
{
	struct tap_context *c = enter();
	int64_t r = 99;

	CHECK_INT(tap_div(c, 7, -2, &r), 0);
	CHECK_INT(r, -3);
	CHECK_INT(tap_mod(c, -7, 2, &r), 0);
	CHECK_INT(r, -1);
	CHECK_INT(tap_div(c, INT64_MIN, -1, &r), 0);
	CHECK_INT(r, INT64_MIN);
	CHECK_INT(tap_mod(c, INT64_MIN, -1, &r), 0);
	CHECK_INT(r, 0);
	CHECK_INT(tap_add(INT64_MAX, 1), INT64_MIN);
	CHECK_INT(tap_mul(INT64_MIN, -1), INT64_MIN);
	CHECK_INT(tap_shl(1, 63), INT64_MIN);
	CHECK_INT(tap_shl(1, 64), 1);
	CHECK_INT(tap_shr(-8, 1), -4);
	CHECK_INT(tap_shr(-8, 65), -4);
	c->last_stmt = "operator '/' at t.stp:3:9";
	r = 5;
	CHECK_INT(tap_div(c, 1, 0, &r), -1);
	CHECK_INT(r, 5);
	CHECK_INT(tap_mod(c, 1, 0, &r), -1);	/* first error wins */
	CHECK_STR(c->last_error, "division by 0");
	exit_called = 0;
	leave(c);
	CHECK_STR(last_msg, "division by 0 near operator '/' at t.stp:3:9");
	CHECK_INT(exit_called, 1);		/* MAXERRORS 0: the first error ends it */
}

/* ---- contexts ---- */

static void test_context(void)
{
	struct tap_context *c = enter(), *c2;
	rwlock_t l1, l2;
	struct tap_lock_req req[] = { { &l1, false, NULL }, { &l2, true, NULL } };
	int i;

	/* reentry on the same CPU is refused and counted */
	c2 = tap_context_enter("inner", TAP_STATE_RUNNING);
	CHECK_INT(c2 == NULL, 1);
	CHECK_INT(nskips[TAP_SKIP_REENTRANT], 1);
	/* another CPU has its own context */
	tap_test_cpu = 1;
	c2 = tap_context_enter("other", TAP_STATE_RUNNING);
	CHECK_INT(c2 != NULL && c2 != c, 1);
	leave(c2);
	tap_test_cpu = 0;
	/* MAXACTION */
	for (i = 0; i < MAXACTION; i++)
		if (tap_action(c, 1))
			break;
	CHECK_INT(i, MAXACTION);
	CHECK_INT(c->last_error == NULL, 1);
	CHECK_INT(tap_action(c, 1), -1);
	CHECK_STR(c->last_error, "MAXACTION exceeded");
	tap_error_clear(c);	/* as a catch block does */
	/* MAXNESTING */
	for (i = 0; i < MAXNESTING; i++)
		CHECK_INT(tap_call_enter(c), 0);
	CHECK_INT(tap_call_enter(c), -1);
	CHECK_STR(c->last_error, "MAXNESTING exceeded");
	for (i = 0; i < MAXNESTING; i++)
		tap_call_exit(c);
	tap_error_clear(c);
	/* locks: all or nothing */
	rwlock_init(&l1);
	rwlock_init(&l2);
	l2.readers = 1;		/* someone reads l2: the write lock fails */
	CHECK_INT(tap_lock_globals(c, req, 2), -EBUSY);
	CHECK_INT(l1.readers, 0);
	CHECK_INT(nskips[TAP_SKIP_LOCK], 1);
	l2.readers = 0;
	CHECK_INT(tap_lock_globals(c, req, 2), 0);
	CHECK_INT(l1.readers == 1 && l2.writer == 1, 1);
	tap_unlock_globals(c, req, 2);
	CHECK_INT(l1.readers == 0 && l2.writer == 0, 1);
	leave(c);
	/* the wrong state: skipped, and not counted (no script data is lost
	 * before the start or after the stop) */
	state = TAP_STATE_STOPPING;
	CHECK_INT(tap_context_enter("p", TAP_STATE_RUNNING) == NULL, 1);
	CHECK_INT(nskips[TAP_SKIP_STATE], 0);
	c = tap_context_enter("end", TAP_STATE_STOPPING);
	CHECK_INT(c != NULL && c->action_limit == MAXACTION_INTERRUPTIBLE, 1);
	leave(c);
	state = TAP_STATE_RUNNING;
}

/* ---- the overload guard ---- */

/* One handler on the current CPU that takes `cost` cycles. */
static void handler_taking(u64 cost)
{
	struct tap_context *c = enter();

	tap_test_cycles += cost;
	leave(c);
}

static void test_overload(void)
{
	int exits = exit_called, counted = nerrors_counted;
	struct tap_context *c;

	atomic_set(&tap_error_count, 0);
	CHECK_INT(tap_stopped_by_error(), 0);
	tap_test_cpu = 2;
	/* a CPU's first hit opens its first window */
	tap_test_cycles = 5000000000ULL;
	handler_taking(10);
	/* exactly the threshold in an interval is allowed */
	handler_taking(400000000);
	tap_test_cycles += 700000000;
	handler_taking(100000000);
	CHECK_INT(exit_called, exits);
	/* begin/end/error probes are not counted */
	state = TAP_STATE_STOPPING;
	c = tap_context_enter("end", TAP_STATE_STOPPING);
	tap_test_cycles += 3000000000ULL;
	leave(c);
	state = TAP_STATE_RUNNING;
	handler_taking(1);	/* a new window: the end probe's time is not in it */
	CHECK_INT(exit_called, exits);
	/* more than the threshold: reported when the interval is over */
	handler_taking(600000000);
	CHECK_INT(exit_called, exits);
	tap_test_cycles += 500000000;
	last_msg[0] = '\0';
	handler_taking(1);
	CHECK_STR(last_msg, "probe overhead (600000001 cycles) exceeded threshold "
		  "(500000000 cycles) in last 1000000000 cycles");
	CHECK_INT(exit_called, exits + 1);
	CHECK_INT(nerrors_counted, counted + 1);
	/* not an error of the script's: its end probes run */
	CHECK_INT(atomic_read(&tap_error_count), 0);
	CHECK_INT(tap_stopped_by_error(), 0);
	/* another CPU over the limit too: said once only */
	tap_test_cpu = 3;
	last_msg[0] = '\0';
	handler_taking(10);
	handler_taking(2000000000);
	tap_test_cycles += 1;
	handler_taking(1);
	CHECK_STR(last_msg, "");
	CHECK_INT(exit_called, exits + 1);
	/* errors of the script's own still end it with the error probes */
	atomic_set(&tap_error_count, MAXERRORS + 1);
	CHECK_INT(tap_stopped_by_error(), 1);
	atomic_set(&tap_overloaded, 0);
	atomic_set(&tap_error_count, 0);
	tap_test_cpu = 0;
}

/* ---- maps ---- */

static const u8 k_long[] = { TAP_LONG };
static const u8 k_str[] = { TAP_STRING };
static const u8 k_ls[] = { TAP_LONG, TAP_STRING };

#define KL(v) ((union tap_key[]){ { .l = (v) } })
#define KS(v) ((union tap_key[]){ { .s = (v) } })
#define KLS(a, b) ((union tap_key[]){ { .l = (a) }, { .s = (b) } })

/* "k=v k=v ..." of a (long -> long) map in the given order. */
static const char *dump_ll(struct tap_context *c, struct tap_map *m, int col, int dir,
			   int64_t limit)
{
	static char buf[4096];
	struct tap_iter it;
	size_t n = 0;

	buf[0] = '\0';
	if (tap_map_iter_begin(c, &it, m, NULL, 0, col, dir, 0, limit))
		return "error";
	while (tap_map_iter_next(&it))
		n += snprintf(buf + n, sizeof(buf) - n, "%s%lld=%lld", n ? " " : "",
			      (long long)tap_iter_key_long(&it, 0), (long long)tap_iter_long(&it));
	tap_map_iter_end(c, &it);
	return buf;
}

static void test_map_basic(void)
{
	struct tap_map *m = tap_map_create(1, k_long, TAP_LONG, NULL, 3, false);
	struct tap_map *w = tap_map_create(1, k_long, TAP_LONG, NULL, 3, true);
	struct tap_map *s = tap_map_create(1, k_str, TAP_STRING, NULL, 4, false);
	struct tap_context *c;
	char big[3 * MAXSTRINGLEN];
	int64_t r = 0;

	assert(m && w && s);
	CHECK_INT(tap_contexts_init(), 0);	/* after the maps */
	c = enter();
	CHECK_INT(tap_map_set_long(c, m, KL(1), 10), 0);
	CHECK_INT(tap_map_set_long(c, m, KL(2), 20), 0);
	CHECK_INT(tap_map_set_long(c, m, KL(3), 30), 0);
	CHECK_INT(tap_map_set_long(c, m, KL(2), 21), 0);	/* update when full */
	CHECK_INT(tap_map_get_long(m, KL(2)), 21);
	CHECK_INT(tap_map_get_long(m, KL(9)), 0);
	CHECK_INT(tap_map_exists(m, KL(9)), 0);
	CHECK_INT(tap_map_set_long(c, m, KL(4), 40), -1);
	CHECK_STR(c->last_error, "Array overflow, check MAXMAPENTRIES");
	tap_error_clear(c);
	tap_map_delete(m, KL(1));
	CHECK_INT(tap_map_add_long(c, m, KL(4), 5, &r), 0);
	CHECK_INT(r, 5);
	CHECK_INT(tap_map_add_long(c, m, KL(4), 5, &r), 0);
	CHECK_INT(r, 10);
	CHECK_STR(dump_ll(c, m, 0, 0, -1), "2=21 3=30 4=10");
	CHECK_INT(tap_map_size(c, m), 3);
	tap_map_clear(m);
	CHECK_INT(tap_map_size(c, m), 0);
	CHECK_STR(dump_ll(c, m, 0, 0, -1), "");

	/* wrap: the least recently inserted goes; updates do not reorder */
	tap_map_set_long(c, w, KL(1), 1);
	tap_map_set_long(c, w, KL(2), 2);
	tap_map_set_long(c, w, KL(3), 3);
	tap_map_set_long(c, w, KL(1), 11);
	CHECK_INT(tap_map_set_long(c, w, KL(4), 4), 0);
	CHECK_STR(dump_ll(c, w, 0, 0, -1), "2=2 3=3 4=4");
	tap_map_set_long(c, w, KL(5), 5);
	tap_map_set_long(c, w, KL(6), 6);
	CHECK_STR(dump_ll(c, w, 0, 0, -1), "4=4 5=5 6=6");
	CHECK_INT(c->last_error == NULL, 1);

	/* string keys and values are cut at MAXSTRINGLEN - 1 */
	memset(big, 'k', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	CHECK_INT(tap_map_set_str(c, s, KS(big), big), 0);
	CHECK_INT(strlen(tap_map_get_str(s, KS(big))), MAXSTRINGLEN - 1);
	big[MAXSTRINGLEN - 1] = '\0';	/* the same key, as stored */
	CHECK_INT(tap_map_exists(s, KS(big)), 1);
	CHECK_INT(tap_map_size(c, s), 1);
	CHECK_STR(tap_map_get_str(s, KS("nope")), "");
	tap_map_set_str(c, s, KS(""), "empty key");
	CHECK_STR(tap_map_get_str(s, KS("")), "empty key");
	leave(c);
	tap_contexts_free();
	tap_map_destroy(m);
	tap_map_destroy(w);
	tap_map_destroy(s);
}

static void test_map_sort(void)
{
	struct tap_map *m = tap_map_create(1, k_long, TAP_LONG, NULL, 0, false);
	struct tap_map *m2 = tap_map_create(2, k_ls, TAP_LONG, NULL, 0, false);
	static const int64_t keys[] = { 5, -3, 12, 0, 7 }, vals[] = { 50, 7, 7, -1, 20 };
	char buf[512];
	struct tap_context *c;
	struct tap_iter it;
	size_t n;
	int i;

	assert(m && m2);
	CHECK_INT(tap_contexts_init(), 0);
	c = enter();
	for (i = 0; i < 5; i++)
		tap_map_set_long(c, m, KL(keys[i]), vals[i]);
	CHECK_STR(dump_ll(c, m, 0, 0, -1), "5=50 -3=7 12=7 0=-1 7=20");
	CHECK_STR(dump_ll(c, m, 1, 1, -1), "-3=7 0=-1 5=50 7=20 12=7");
	CHECK_STR(dump_ll(c, m, 1, -1, -1), "12=7 7=20 5=50 0=-1 -3=7");
	/* ties in the value are ordered by key */
	CHECK_STR(dump_ll(c, m, 0, 1, -1), "0=-1 -3=7 12=7 7=20 5=50");
	CHECK_STR(dump_ll(c, m, 0, -1, -1), "5=50 7=20 -3=7 12=7 0=-1");
	CHECK_STR(dump_ll(c, m, 0, -1, 2), "5=50 7=20");
	CHECK_STR(dump_ll(c, m, 1, 1, 0), "");
	CHECK_STR(dump_ll(c, m, 0, 0, 1), "5=50");

	tap_map_set_long(c, m2, KLS(2, "b"), 1);
	tap_map_set_long(c, m2, KLS(1, "c"), 2);
	tap_map_set_long(c, m2, KLS(2, "a"), 3);
	tap_map_set_long(c, m2, KLS(1, "a"), 4);
	tap_map_set_long(c, m2, KLS(3, "b"), 5);
	/* sort by the second key (string), descending; ties by the keys */
	CHECK_INT(tap_map_iter_begin(c, &it, m2, NULL, 0, 2, -1, 0, -1), 0);
	for (n = 0, buf[0] = '\0'; tap_map_iter_next(&it);)
		n += snprintf(buf + n, sizeof(buf) - n, "[%lld,%s]",
			      (long long)tap_iter_key_long(&it, 0), tap_iter_key_str(&it, 1));
	tap_map_iter_end(c, &it);
	CHECK_STR(buf, "[1,c][2,b][3,b][1,a][2,a]");
	/* slice: foreach ([a, b] in m2[*, "b"]) */
	CHECK_INT(tap_map_iter_begin(c, &it, m2, KLS(0, "b"), 1, 1, 1, 0, -1), 0);
	for (n = 0, buf[0] = '\0'; tap_map_iter_next(&it);)
		n += snprintf(buf + n, sizeof(buf) - n, "[%lld,%s]=%lld",
			      (long long)tap_iter_key_long(&it, 0), tap_iter_key_str(&it, 1),
			      (long long)tap_iter_long(&it));
	tap_map_iter_end(c, &it);
	CHECK_STR(buf, "[2,b]=1[3,b]=5");
	/* [1, *] in m2, [9, *] in m2, delete m2[*, "a"] */
	CHECK_INT(tap_map_exists_match(m2, KLS(1, ""), 2), 1);
	CHECK_INT(tap_map_exists_match(m2, KLS(9, ""), 2), 0);
	CHECK_INT(tap_map_exists_match(m2, KLS(0, "c"), 1), 1);
	tap_map_delete_match(m2, KLS(0, "a"), 1);
	CHECK_INT(tap_map_size(c, m2), 3);
	CHECK_INT(tap_map_exists(m2, KLS(2, "a")), 0);
	CHECK_INT(tap_map_exists(m2, KLS(2, "b")), 1);
	tap_map_delete_match(m2, KLS(0, ""), 3);	/* delete m2[*, *] */
	CHECK_INT(tap_map_size(c, m2), 0);
	leave(c);
	tap_contexts_free();
	tap_map_destroy(m);
	tap_map_destroy(m2);
}

static void test_map_delete_in_foreach(void)
{
	struct tap_map *m = tap_map_create(1, k_long, TAP_LONG, NULL, 8, false);
	struct tap_context *c;
	struct tap_iter it, in;
	char buf[256];
	size_t n = 0;
	int i, inner = 0;

	CHECK_INT(tap_contexts_init(), 0);
	c = enter();
	for (i = 1; i <= 6; i++)
		tap_map_set_long(c, m, KL(i), i * 10);
	CHECK_INT(tap_map_iter_begin(c, &it, m, NULL, 0, 1, 1, 0, -1), 0);
	while (tap_map_iter_next(&it)) {
		int64_t k = tap_iter_key_long(&it, 0);

		n += snprintf(buf + n, sizeof(buf) - n, "%lld ", (long long)k);
		tap_map_delete(m, KL(k));		/* the current element */
		if (k == 2)
			tap_map_delete(m, KL(4));	/* a later one */
		if (k == 3) {	/* reuse a freed node: the new key is not visited */
			tap_map_set_long(c, m, KL(100), 1);
			/* a nested loop over the same array */
			CHECK_INT(tap_map_iter_begin(c, &in, m, NULL, 0, 0, 0, 0, -1), 0);
			while (tap_map_iter_next(&in))
				inner++;
			tap_map_iter_end(c, &in);
		}
	}
	tap_map_iter_end(c, &it);
	CHECK_STR(buf, "1 2 3 5 6 ");
	CHECK_INT(inner, 3);	/* 5, 6, 100 */
	CHECK_STR(dump_ll(c, m, 0, 0, -1), "100=1");
	CHECK_INT(c->iter_scratch_used, 0);
	leave(c);
	tap_contexts_free();
	tap_map_destroy(m);
}

/* ---- statistics ---- */

static void test_stats(void)
{
	struct tap_hist_spec sh = { .type = TAP_HIST_NONE, .variance = 1 },
			      s1 = { .var_shift = 1, .variance = 1 };
	struct tap_stat *s = tap_stat_create(&sh), *v1 = tap_stat_create(&s1);
	struct tap_hist_spec sv = { .variance = 1 };
	struct tap_stat *v0 = tap_stat_create(&sv);
	struct tap_stat *nv = tap_stat_create(NULL);
	const struct tap_stat_data *d;
	struct tap_context *c;
	int64_t r = 0;
	int i;

	CHECK_INT(tap_contexts_init(), 0);
	c = enter();
	/* empty: count and sum are 0, the rest an error */
	d = tap_stat_get(s);
	CHECK_INT(tap_stat_extract(c, &s->spec, d, TAP_STAT_COUNT, &r), 0);
	CHECK_INT(r, 0);
	CHECK_INT(tap_stat_extract(c, &s->spec, d, TAP_STAT_SUM, &r), 0);
	CHECK_INT(r, 0);
	CHECK_INT(tap_stat_extract(c, &s->spec, d, TAP_STAT_AVG, &r), -1);
	CHECK_STR(c->last_error, "empty aggregate");
	tap_error_clear(c);
	/* values from four CPUs */
	for (i = 1; i <= 20; i++) {
		tap_test_cpu = i % 4;
		tap_stat_add(c, s, i % 2 ? -i : i);
	}
	tap_test_cpu = 0;
	d = tap_stat_get(s);
	CHECK_INT(d->count, 20);
	CHECK_INT(d->sum, 10);
	CHECK_INT(d->min, -19);
	CHECK_INT(d->max, 20);
	tap_stat_extract(c, &s->spec, d, TAP_STAT_AVG, &r);
	CHECK_INT(r, 0);	/* 10 / 20, integer division */
	/* @variance: 1..5 on one CPU: 12 (shift 0), 2 (shift 1), as man stap */
	for (i = 1; i <= 5; i++) {
		tap_stat_add(c, v0, i);
		tap_stat_add(c, v1, i);
	}
	tap_stat_extract(c, &v0->spec, tap_stat_get(v0), TAP_STAT_VARIANCE, &r);
	CHECK_INT(r, 12);
	tap_stat_extract(c, &v1->spec, tap_stat_get(v1), TAP_STAT_VARIANCE, &r);
	CHECK_INT(r, 2);
	/* spread over CPUs the merge keeps the exact mean/m2 here */
	tap_stat_clear(v0);
	for (i = 1; i <= 8; i++) {
		tap_test_cpu = i % 3;
		tap_stat_add(c, v0, i * 10);
	}
	tap_test_cpu = 0;
	tap_stat_extract(c, &v0->spec, tap_stat_get(v0), TAP_STAT_VARIANCE, &r);
	CHECK_INT(r, 600);	/* sample variance of 10..80 */
	tap_stat_extract(c, &v0->spec, tap_stat_get(v0), TAP_STAT_AVG, &r);
	CHECK_INT(r, 45);
	/* kept without @variance (no division per add): the other
	 * aggregates are the same, and a @variance is an error */
	for (i = 1; i <= 8; i++) {
		tap_test_cpu = i % 3;
		tap_stat_add(c, nv, i * 10);
	}
	tap_test_cpu = 0;
	d = tap_stat_get(nv);
	CHECK_INT(d->count, 8);
	CHECK_INT(d->sum, 360);
	CHECK_INT(d->min, 10);
	CHECK_INT(d->max, 80);
	tap_stat_extract(c, &nv->spec, d, TAP_STAT_AVG, &r);
	CHECK_INT(r, 45);
	CHECK_INT(tap_stat_extract(c, &nv->spec, d, TAP_STAT_VARIANCE, &r), -1);
	CHECK_INT(c->last_error != NULL, 1);
	tap_error_clear(c);
	/* a reader holds this CPU's part: the add gives up after MAXTRYLOCK
	 * tries and the rest of the hit is skipped, counted, with no message */
	i = nskips[TAP_SKIP_LOCK];
	atomic_set(tap_cpu_lock_of(&v0->locks, 0), 1);
	CHECK_INT(tap_stat_add(c, v0, 1000), -1);
	CHECK_INT(c->aborted, 1);
	CHECK_INT(c->last_error == NULL, 1);
	CHECK_INT(nskips[TAP_SKIP_LOCK], i + 1);
	atomic_set(tap_cpu_lock_of(&v0->locks, 0), 0);
	c->aborted = false;
	CHECK_INT(tap_stat_add(c, v0, 90), 0);
	CHECK_INT(atomic_read(tap_cpu_lock_of(&v0->locks, 0)), 0);	/* released */
	CHECK_INT(tap_stat_get(v0)->count, 9);
	CHECK_INT(tap_stat_get(v0)->sum, 450);
	/* a handler that reads v0 holds v0's write lock and every CPU's word:
	 * its own add goes in, an add on another CPU is skipped */
	{
		struct tap_cpu_locks *plv = &v0->locks;
		rwlock_t lv;
		struct tap_lock_req rq[1] = { { &lv, true, &plv } };

		rwlock_init(&lv);
		CHECK_INT(tap_lock_globals(c, rq, 1), 0);
		CHECK_INT(atomic_read(tap_cpu_lock_of(plv, 1)), TAP_CPU_READER(0));
		CHECK_INT(tap_stat_add(c, v0, 10), 0);
		CHECK_INT(atomic_read(tap_cpu_lock_of(plv, 0)), TAP_CPU_READER(0));
		tap_test_cpu = 1;
		CHECK_INT(tap_stat_add(c, v0, 10), -1);
		tap_test_cpu = 0;
		c->aborted = false;
		tap_unlock_globals(c, rq, 1);
		CHECK_INT(lv.writer, 0);
		CHECK_INT(atomic_read(tap_cpu_lock_of(plv, 0)) + atomic_read(tap_cpu_lock_of(plv, 1)), 0);
		/* a CPU's word held by an adder: all or nothing */
		atomic_set(tap_cpu_lock_of(plv, 1), 1);
		CHECK_INT(tap_lock_globals(c, rq, 1), -EBUSY);
		CHECK_INT(lv.writer + atomic_read(tap_cpu_lock_of(plv, 0)), 0);
		atomic_set(tap_cpu_lock_of(plv, 1), 0);
		CHECK_INT(tap_stat_get(v0)->count, 10);
		/* an adder with a lock table: this CPU's word only, in order */
		rq[0].lock = NULL;
		CHECK_INT(tap_lock_globals(c, rq, 1), 0);
		CHECK_INT(atomic_read(tap_cpu_lock_of(plv, 0)), TAP_CPU_OWNER(0));
		CHECK_INT(atomic_read(tap_cpu_lock_of(plv, 1)), 0);
		CHECK_INT(tap_stat_add(c, v0, 10), 0);
		tap_unlock_globals(c, rq, 1);
		CHECK_INT(atomic_read(tap_cpu_lock_of(plv, 0)), 0);
		CHECK_INT(tap_stat_get(v0)->count, 11);
	}
	leave(c);
	tap_contexts_free();
	tap_stat_destroy(s);
	tap_stat_destroy(v0);
	tap_stat_destroy(v1);
	tap_stat_destroy(nv);
}

static void test_stat_map(void)
{
	struct tap_hist_spec hs = { .type = TAP_HIST_LOG };
	struct tap_map *m = tap_map_create(1, k_str, TAP_STATS, &hs, 4, false);
	const struct tap_stat_data *d;
	struct tap_context *c;
	struct tap_iter it;
	char buf[256];
	size_t n = 0;
	int64_t r = 0;
	int i;

	assert(m);
	CHECK_INT(tap_contexts_init(), 0);
	c = enter();
	for (i = 0; i < 12; i++) {
		tap_test_cpu = i % 4;
		tap_map_stat_add(c, m, KS(i % 3 == 0 ? "a" : i % 3 == 1 ? "b" : "c"), i);
	}
	tap_map_stat_add(c, m, KS("b"), 100);
	/* a reader holds CPU 3's map: that CPU's add is skipped */
	tap_test_cpu = 3;
	atomic_set(tap_cpu_lock_of(&m->locks, 3), 1);
	CHECK_INT(tap_map_stat_add(c, m, KS("b"), 1000), -1);
	CHECK_INT(c->aborted == 1 && c->last_error == NULL, 1);
	c->aborted = false;
	atomic_set(tap_cpu_lock_of(&m->locks, 3), 0);
	tap_test_cpu = 0;
	d = tap_map_get_stat(m, KS("b"));	/* 1 4 7 10 100 */
	CHECK_INT(d->count, 5);
	CHECK_INT(d->sum, 122);
	CHECK_INT(d->max, 100);
	CHECK_INT(d->hist[TAP_HIST_LOG_ZERO + 7], 1);	/* 100 in 64..127 */
	d = tap_map_get_stat(m, KS("zz"));
	CHECK_INT(tap_stat_extract(c, &m->spec, d, TAP_STAT_COUNT, &r), 0);
	CHECK_INT(r, 0);
	CHECK_INT(tap_map_exists(m, KS("c")), 1);
	CHECK_INT(tap_map_size(c, m), 3);
	/* foreach (k in m @sum-) */
	CHECK_INT(tap_map_iter_begin(c, &it, m, NULL, 0, 0, -1, TAP_STAT_SUM, -1), 0);
	while (tap_map_iter_next(&it))
		n += snprintf(buf + n, sizeof(buf) - n, "%s:%lld/%lld ", tap_iter_key_str(&it, 0),
			      (long long)tap_iter_stat(&it)->count,
			      (long long)tap_iter_stat(&it)->sum);
	tap_map_iter_end(c, &it);
	CHECK_STR(buf, "b:5/122 c:4/26 a:4/18 ");
	tap_map_delete(m, KS("b"));
	CHECK_INT(tap_map_exists(m, KS("b")), 0);
	CHECK_INT(tap_map_size(c, m), 2);
	tap_map_clear(m);
	CHECK_INT(tap_map_size(c, m), 0);
	leave(c);
	tap_contexts_free();
	tap_map_destroy(m);
}

/*
 * Counters: adds on each CPU go to its part; a reader's lock table folds
 * them in (sums exact through 64-bit wrap-around, new keys in the order
 * they first came on any CPU), then its own adds go to the global; a key
 * beyond the array's size is the overflow error at the add.
 */
static void test_counters(void)
{
	int64_t v = 5;
	struct tap_counter *ct = tap_counter_create(&v);
	struct tap_map *m = tap_map_create_counter(1, k_long, 5);
	struct tap_cpu_locks *pl, *plm;
	struct tap_context *c;
	rwlock_t lv, lm;
	struct tap_lock_req rd[2] = { { &lv, true, &pl }, { &lm, true, &plm } };
	struct tap_lock_req add[2] = { { NULL, false, &pl }, { NULL, false, &plm } };
	int i;

	assert(ct && m);
	pl = &ct->locks;
	plm = &m->locks;
	rwlock_init(&lv);
	rwlock_init(&lm);
	CHECK_INT(tap_contexts_init(), 0);
	c = enter();
	/* adds outside any lock table, then with each CPU's own word */
	for (i = 0; i < 6; i++) {
		tap_test_cpu = i % 3;
		CHECK_INT(tap_counter_add(c, ct, INT64_MAX), 0);
		CHECK_INT(tap_map_counter_add(c, m, KL(30 - i % 3 * 10), 1), 0);
	}
	tap_test_cpu = 2;
	CHECK_INT(tap_lock_globals(c, add, 2), 0);
	CHECK_INT(tap_counter_add(c, ct, 3), 0);
	CHECK_INT(tap_map_counter_add(c, m, KL(40), -1), 0);
	CHECK_INT(tap_map_counter_add(c, m, KL(30), 0), 0);
	CHECK_INT(v, 5);				/* not folded yet */
	CHECK_INT(m->count, 0);
	tap_unlock_globals(c, add, 2);
	/* a reader: the parts are folded in at its lock table */
	tap_test_cpu = 1;
	CHECK_INT(tap_lock_globals(c, rd, 2), 0);
	CHECK_INT(v, tap_add(5 + 3, tap_mul(6, INT64_MAX)));
	CHECK_STR(dump_ll(c, m, 0, 0, -1), "30=2 20=2 10=2 40=-1");
	CHECK_STR(dump_ll(c, m, 0, -1, -1), "10=2 20=2 30=2 40=-1");
	/* its own adds go straight in, and it reads them */
	CHECK_INT(tap_counter_add(c, ct, 1), 0);
	CHECK_INT(v, tap_add(5 + 4, tap_mul(6, INT64_MAX)));
	CHECK_INT(tap_map_counter_add(c, m, KL(20), 5), 0);
	CHECK_INT(tap_map_get_long(m, KL(20)), 7);
	v = 0;
	tap_map_delete(m, KL(20));
	tap_map_delete(m, KL(40));
	tap_unlock_globals(c, rd, 2);
	CHECK_INT(atomic_read(tap_cpu_lock_of(pl, 0)) + atomic_read(tap_cpu_lock_of(pl, 2)), 0);
	/* deleted, then added again: at the end, after keys added meanwhile */
	tap_test_cpu = 0;
	CHECK_INT(tap_map_counter_add(c, m, KL(50), 1), 0);
	tap_test_cpu = 2;
	CHECK_INT(tap_map_counter_add(c, m, KL(50), 1), 0);
	CHECK_INT(tap_map_counter_add(c, m, KL(20), 1), 0);
	CHECK_INT(tap_counter_add(c, ct, -2), 0);
	/* 50 is new on two CPUs: 2 + 3 of 5 entries seem taken; the adder of
	 * 60 counts them exactly (every CPU's word, the fold) and fits */
	CHECK_INT(atomic_read(&m->pending), 3);
	CHECK_INT(tap_map_counter_add(c, m, KL(60), 1), 0);
	CHECK_INT(m->count, 5);
	CHECK_INT(atomic_read(&m->pending), 0);
	CHECK_INT(atomic_read(tap_cpu_lock_of(plm, 0)) + atomic_read(tap_cpu_lock_of(plm, 1)) +
		  atomic_read(tap_cpu_lock_of(plm, 2)) + atomic_read(tap_cpu_lock_of(plm, 3)), 0);
	/* a sixth key is too many, as for one shared array */
	CHECK_INT(tap_map_counter_add(c, m, KL(70), 1), -1);
	CHECK_STR(c->last_error, "Array overflow, check MAXMAPENTRIES");
	tap_error_clear(c);
	/* ... and so is one when another CPU's word cannot be had: skipped */
	i = nskips[TAP_SKIP_LOCK];
	atomic_set(tap_cpu_lock_of(plm, 1), 1);
	CHECK_INT(tap_map_counter_add(c, m, KL(80), 1), -1);
	CHECK_INT(c->aborted == 1 && c->last_error == NULL, 1);
	CHECK_INT(nskips[TAP_SKIP_LOCK], i + 1);
	CHECK_INT(atomic_read(tap_cpu_lock_of(plm, 0)) + atomic_read(tap_cpu_lock_of(plm, 2)), 0);
	c->aborted = false;
	atomic_set(tap_cpu_lock_of(plm, 1), 0);
	CHECK_INT(tap_map_counter_add(c, m, KL(10), 1), 0);	/* known keys still add */
	CHECK_INT(tap_lock_globals(c, rd, 2), 0);
	CHECK_INT(v, -2);
	CHECK_STR(dump_ll(c, m, 0, 0, -1), "30=2 10=3 50=2 20=1 60=1");
	CHECK_STR(dump_ll(c, m, 0, -1, 2), "10=3 30=2");
	CHECK_INT(tap_map_get_long(m, KL(70)), 0);
	CHECK_INT(tap_map_exists(m, KL(70)), 0);
	tap_map_clear(m);
	tap_unlock_globals(c, rd, 2);
	/* a reader holding a word: the add is skipped, as a statistic's */
	atomic_set(tap_cpu_lock_of(plm, 2), TAP_CPU_READER(0));
	CHECK_INT(tap_map_counter_add(c, m, KL(1), 1), -1);
	CHECK_INT(c->aborted, 1);
	c->aborted = false;
	atomic_set(tap_cpu_lock_of(plm, 2), 0);
	tap_test_cpu = 0;
	leave(c);
	tap_contexts_free();
	tap_counter_destroy(ct);
	tap_map_destroy(m);
}

static const char *hist(struct tap_stat *s)
{
	static char buf[16384];

	tap_hist_sprint(buf, sizeof(buf), &s->spec, tap_stat_get(s));
	return buf;
}

static void test_hist(void)
{
	struct tap_hist_spec lg = { .type = TAP_HIST_LOG };
	struct tap_hist_spec ln = { .type = TAP_HIST_LINEAR, .start = 0, .stop = 100, .interval = 10 };
	struct tap_hist_spec l3 = { .type = TAP_HIST_LINEAR, .start = 1, .stop = 3, .interval = 1 };
	struct tap_stat *s;
	struct tap_context *c;
	int64_t r = 0;
	int i;

	CHECK_INT(tap_contexts_init(), 0);
	c = enter();	/* the adds below run in a handler */
	s = tap_stat_create(&lg);
	CHECK_STR(hist(s),
		  "value |-------------------------------------------------- count\n"
		  "\n");
	for (i = 0; i < 10; i++)
		tap_stat_add(c, s, 1);
	tap_stat_add(c, s, 2);
	tap_stat_add(c, s, 3);
	tap_stat_add(c, s, 5);
	tap_stat_add(c, s, 0);
	/* values >= 0: no rows below 0 (stap's margin stops there) */
	CHECK_STR(hist(s),
		  "value |-------------------------------------------------- count\n"
		  "    0 |@                                                   1\n"
		  "    1 |@@@@@@@@@@                                         10\n"
		  "    2 |@@                                                  2\n"
		  "    4 |@                                                   1\n"
		  "    8 |                                                    0\n"
		  "   16 |                                                    0\n"
		  "\n");
	/* negatives and a gap that is elided */
	tap_stat_clear(s);
	tap_stat_add(c, s, -5);
	tap_stat_add(c, s, -1);
	tap_stat_add(c, s, 1000);
	CHECK_STR(hist(s),
		  "value |-------------------------------------------------- count\n"
		  "  -16 |                                                   0\n"
		  "   -8 |                                                   0\n"
		  "   -4 |@                                                  1\n"
		  "   -2 |                                                   0\n"
		  "   -1 |@                                                  1\n"
		  "    0 |                                                   0\n"
		  "    1 |                                                   0\n"
		  "      ~\n"
		  "  128 |                                                   0\n"
		  "  256 |                                                   0\n"
		  "  512 |@                                                  1\n"
		  " 1024 |                                                   0\n"
		  " 2048 |                                                   0\n"
		  "\n");
	/* large counts scale to 50 columns: scale = ceil(max / 50) */
	tap_stat_clear(s);
	for (i = 0; i < 1234; i++)
		tap_stat_add(c, s, 64);
	for (i = 0; i < 100; i++)
		tap_stat_add(c, s, 200);
	tap_stat_add(c, s, INT64_MIN);
	tap_stat_add(c, s, INT64_MAX);
	CHECK_STR(hist(s),
		  "               value |-------------------------------------------------- count\n"
		  "-9223372036854775808 |                                                      1\n"
		  "-4611686018427387904 |                                                      0\n"
		  "-2305843009213693952 |                                                      0\n"
		  "                     ~\n"
		  "                  16 |                                                      0\n"
		  "                  32 |                                                      0\n"
		  "                  64 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@  1234\n"
		  "                 128 |@@@@                                                100\n"
		  "                 256 |                                                      0\n"
		  "                 512 |                                                      0\n"
		  "                     ~\n"
		  " 1152921504606846976 |                                                      0\n"
		  " 2305843009213693952 |                                                      0\n"
		  " 4611686018427387904 |                                                      1\n"
		  "\n");
	tap_stat_destroy(s);

	s = tap_stat_create(&ln);
	CHECK_INT(tap_hist_nbuckets(&s->spec), 13);
	tap_stat_add(c, s, -5);
	tap_stat_add(c, s, 0);
	tap_stat_add(c, s, 9);
	tap_stat_add(c, s, 10);
	tap_stat_add(c, s, 55);
	tap_stat_add(c, s, 109);
	tap_stat_add(c, s, 110);
	tap_stat_add(c, s, 5000);
	CHECK_STR(hist(s),
		  "value |-------------------------------------------------- count\n"
		  "   <0 |@                                                  1\n"
		  "    0 |@@                                                 2\n"
		  "   10 |@                                                  1\n"
		  "   20 |                                                   0\n"
		  "   30 |                                                   0\n"
		  "   40 |                                                   0\n"
		  "   50 |@                                                  1\n"
		  "   60 |                                                   0\n"
		  "   70 |                                                   0\n"
		  "   80 |                                                   0\n"
		  "   90 |                                                   0\n"
		  "  100 |@                                                  1\n"
		  " >100 |@@                                                 2\n"
		  "\n");
	tap_stat_clear(s);
	tap_stat_add(c, s, 50);
	CHECK_STR(hist(s),
		  "value |-------------------------------------------------- count\n"
		  "   30 |                                                   0\n"
		  "   40 |                                                   0\n"
		  "   50 |@                                                  1\n"
		  "   60 |                                                   0\n"
		  "   70 |                                                   0\n"
		  "\n");
	tap_stat_destroy(s);

	/* stap sizes the value column by start + interval * (last row's
	 * index), one interval past the last row's value: 1000000 here */
	{
		struct tap_hist_spec big = { .type = TAP_HIST_LINEAR, .start = 0,
					     .stop = 1000000, .interval = 100000 };

		s = tap_stat_create(&big);
		tap_stat_add(c, s, 700000);
		CHECK_STR(hist(s),
			  "  value |-------------------------------------------------- count\n"
			  " 500000 |                                                   0\n"
			  " 600000 |                                                   0\n"
			  " 700000 |@                                                  1\n"
			  " 800000 |                                                   0\n"
			  " 900000 |                                                   0\n"
			  "\n");
		tap_stat_destroy(s);
		s = tap_stat_create(&lg);
		tap_stat_add(c, s, 1);
		CHECK_STR(hist(s),
			  "value |-------------------------------------------------- count\n"
			  "    0 |                                                   0\n"
			  "    1 |@                                                  1\n"
			  "    2 |                                                   0\n"
			  "    4 |                                                   0\n"
			  "\n");
		tap_stat_destroy(s);
	}

	/* man stap: @hist_linear(x, 1, 3, 1) of -100 1 2 3 100 */
	s = tap_stat_create(&l3);
	for (i = 0; i < 5; i++)
		tap_stat_add(c, s, (int64_t[]){ -100, 1, 2, 3, 100 }[i]);
	CHECK_INT(tap_hist_nbuckets(&s->spec), 5);
	for (i = 0; i < 5; i++) {
		CHECK_INT(tap_hist_bucket(c, &s->spec, tap_stat_get(s), i, &r), 0);
		CHECK_INT(r, 1);
	}
	CHECK_INT(tap_hist_bucket(c, &s->spec, tap_stat_get(s), 5, &r), -1);
	tap_error_clear(c);
	tap_hist_print(c, &s->spec, tap_stat_get(s));
	CHECK_STR(leave(c),
		  "value |-------------------------------------------------- count\n"
		  "   <1 |@                                                  1\n"
		  "    1 |@                                                  1\n"
		  "    2 |@                                                  1\n"
		  "    3 |@                                                  1\n"
		  "   >3 |@                                                  1\n"
		  "\n");
	tap_stat_destroy(s);
	tap_contexts_free();
}

/* ---- regex ---- */

static void test_regex(void)
{
	static const struct { const char *re, *s; int want; const char *m0, *m1; } cases[] = {
		{ "abc", "xxabcxx", 1, "abc", "" },
		{ "^abc", "xxabc", 0, NULL, NULL },
		{ "^abc$", "abc", 1, "abc", "" },
		{ "a.c", "a-c", 1, "a-c", "" },
		{ "a[0-9]+b", "a123b", 1, "a123b", "" },
		{ "a[^0-9]b", "a1b", 0, NULL, NULL },
		{ "colou?r", "color", 1, "color", "" },
		{ "(ab)+", "xababab", 1, "ababab", "ab" },
		{ "(a|b)*c", "abbac", 1, "abbac", "a" },
		{ "x{2,3}", "xxxx", 1, "xxx", "" },
		{ "^x{2}$", "xxx", 0, NULL, NULL },
		{ "^x{2,}$", "xxxxx", 1, "xxxxx", "" },
		{ "^(foo|foobar)$", "foobar", 1, "foobar", "foobar" },
		{ "(a*)b", "aaab", 1, "aaab", "aaa" },
		{ "[[:digit:]]+", "ab 42 c", 1, "42", "" },
		{ "[[:alpha:]_][[:alnum:]_]*", "9 sys_read", 1, "sys_read", "" },
		{ "\\.so$", "libc.so", 1, ".so", "" },
		{ "\\.so$", "libcxso", 0, NULL, NULL },
		{ "a|b|c", "zzc", 1, "c", "" },
		{ "()", "", 1, "", "" },
		{ "(a*)*", "b", 1, "", "" },
		{ "(x+x+)+y", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", 0, NULL, NULL },
		{ "[]a]+", "]a]", 1, "]a]", "" },
		{ "[a-]+", "-a-", 1, "-a-", "" },
		{ "^$", "", 1, "", "" },
		{ "b*", "abbb", 1, "", "" },	/* leftmost: the empty match at 0 */
		{ "ab|abcd", "abcd", 1, "abcd", "" },	/* then longest */
	};
	static const char *const bad[] = { "(", "a)", "[a", "*a", "a{2", "a{3,1}", "[z-a]", "\\" };
	struct tap_regex re;
	struct tap_context *c;
	char buf[MAXSTRINGLEN];
	unsigned int i;
	int r;

	CHECK_INT(tap_contexts_init(), 0);
	c = enter();
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		r = tap_regex_compile(&re, cases[i].re);
		check_int(__LINE__, cases[i].re, r, 0);
		if (r)
			continue;
		check_int(__LINE__, cases[i].re, tap_regex_match(c, &re, cases[i].s), cases[i].want);
		if (!cases[i].want)
			continue;
		tap_regex_matched(c, 0, buf);
		check_str(__LINE__, cases[i].re, buf, cases[i].m0);
		tap_regex_matched(c, 1, buf);
		check_str(__LINE__, cases[i].re, buf, cases[i].m1);
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		check_int(__LINE__, bad[i], tap_regex_compile(&re, bad[i]) < 0, 1);
	CHECK_INT(tap_regex_compile(&re, "(((((((((((a)))))))))))"), -E2BIG);
	CHECK_INT(tap_regex_compile(&re, "a{200}b{200}"), -E2BIG);
	tap_regex_compile(&re, "z");
	CHECK_INT(tap_regex_match(c, &re, "abc"), 0);
	CHECK_INT(tap_regex_matched(c, 0, buf), -1);
	leave(c);
	tap_contexts_free();
}

/* Every allocation of setup can fail without leaks or crashes. */
static void test_alloc_failures(void)
{
	static const u8 kt[] = { TAP_LONG, TAP_STRING };
	struct tap_hist_spec hs = { .type = TAP_HIST_LOG };
	long i, live = tap_test_alloc_live;

	for (i = 0; i < 60; i++) {
		struct tap_map *m;
		struct tap_stat *s;
		struct tap_regex re;

		CHECK_INT(tap_test_alloc_live, live);
		tap_test_alloc_countdown = i;
		m = tap_map_create(2, kt, TAP_STATS, &hs, 16, false);
		s = tap_stat_create(&hs);
		tap_map_destroy(tap_map_create_counter(2, kt, 16));
		tap_counter_destroy(tap_counter_create(&i));
		if (tap_contexts_init() == 0)
			tap_contexts_free();
		tap_regex_compile(&re, "a+");
		tap_map_destroy(m);
		tap_stat_destroy(s);
	}
	tap_test_alloc_countdown = -1;
	CHECK_INT(tap_test_alloc_live, live);
}

int main(void)
{
	static const u8 kt[] = { TAP_LONG };
	struct tap_map *dummy = tap_map_create(1, kt, TAP_LONG, NULL, 0, false);

	/* contexts are sized by the largest map (MAXMAPENTRIES here) */
	CHECK_INT(tap_contexts_init(), 0);
	test_printf();
	test_print_output();
	test_strings();
	test_arith();
	test_context();
	test_overload();
	tap_contexts_free();
	test_map_basic();
	test_map_sort();
	test_map_delete_in_foreach();
	test_stats();
	test_stat_map();
	test_counters();
	test_hist();
	test_regex();
	test_alloc_failures();
	tap_map_destroy(dummy);
	printf("%d checks, %d failures\n", checks, failures);
	return failures ? 1 : 0;
}
