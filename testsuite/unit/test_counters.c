/* test_counters.c - unit tests for translator/counters.c: which number
 * globals pass 3 keeps per CPU as counters (every write an add whose
 * value is not used), and for the others the reason, exactly.
 *
 * Each script goes through passes 1 and 2 in a child process of its own
 * (pass 2 keeps state between runs), with begin and end probes only, so
 * no kernel is needed. */
#include "tapc.h"
#include "passes.h"

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

/* The reason counter_reason gives for global `name` of script `text`
 * ("counter" when it is one), or "(pass 2 failed)". */
static const char *reason(const char *text, const char *name)
{
	static char buf[512];
	int fd[2];
	if (pipe(fd))
		return "(pipe)";
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		close(fd[0]);
		SrcFile *src = srcfile_new("t.stp", xstrdup(text), strlen(text));
		Vec files = { 0 };
		Stapfile *f = parse_file(src, false);
		Program *prog = NULL;
		if (f) {
			vec_push(&files, f);
			prog = elaborate(&files);
		}
		const char *r = "(pass 2 failed)";
		for (int i = 0; prog && i < prog->globals.len; i++) {
			Var *v = vec_get(&prog->globals, i);
			if (!strcmp(v->name, name)) {
				r = counter_reason(prog, v);
				if (!r)
					r = "counter";
			}
		}
		if (write(fd[1], r, strlen(r)) < 0)
			_exit(1);
		_exit(0);
	}
	close(fd[1]);
	ssize_t n = read(fd[0], buf, sizeof buf - 1);
	close(fd[0]);
	waitpid(pid, NULL, 0);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

static void expect(const char *text, const char *name, const char *want)
{
	const char *got = reason(text, name);
	CHECK(!strcmp(got, want));
	if (strcmp(got, want))
		fprintf(stderr, "  script: %s\n  global %s\n  got:  %s\n  want: %s\n", text,
			name, got, want);
}

#define END(x) " probe end { println(" x ") }"

int main(void)
{
	setenv("SYSTEMTAP_TAPSET", TEST_TAPSET_DIR, 1);

	/* qualifies: adds as statements, any reads */
	expect("global n; probe begin { n++ }" END("n"), "n", "counter");
	expect("global n; probe begin { ++n; n--; --n; n += 5; n -= 2 }" END("n"), "n",
	       "counter");
	expect("global n = 7; probe begin { n += 1 }" END("n"), "n", "counter");
	expect("global m; probe begin { m[1, \"a\"]++; m[2, \"b\"] += 3 }"
	       " probe end { foreach ([k, s] in m- limit 1) println(m[k, s]) }", "m", "counter");
	expect("global m; probe begin { m[\"x\"]--; if ([\"x\"] in m) delete m[\"x\"] }"
	       END("m[\"x\"]"), "m", "counter");
	expect("global n; probe begin { for (n++; n < 3; n++) {} }" END("n"), "n", "counter");
	expect("global n; function f(x) { return x } probe begin { n += f(n) }" END("n"),
	       "n", "counter");
	expect("global n, m; probe begin { m[n++]++ }" END("m[0]"), "m", "counter");
	expect("global n; probe begin { n++; delete n }" END("n"), "n", "counter");

	/* does not */
	expect("global n, m; probe begin { m[n++]++ }" END("n"), "n",
	       "the value of '++' is used at t.stp:1:30");
	expect("global n; probe begin { n = 1; n++ }" END("n"), "n",
	       "'=' assigns it at t.stp:1:25");
	expect("global n; probe begin { n *= 2 }" END("n"), "n",
	       "'*=' assigns it at t.stp:1:25");
	expect("global n; probe begin { x = n++; println(x) }" END("n"), "n",
	       "the value of '++' is used at t.stp:1:29");
	expect("global n; probe begin { println(++n) }" END("n"), "n",
	       "the value of '++' is used at t.stp:1:33");
	expect("global n; probe begin { if ((n += 2) > 1) next }" END("n"), "n",
	       "the value of '+=' is used at t.stp:1:30");
	expect("global m; probe begin { m[1] = 2 }" END("m[1]"), "m",
	       "'=' assigns it at t.stp:1:25");
	expect("global m; probe begin { m[1]++ } function f() { m[2] %= 3 }"
	       " probe end { f(); println(m[1]) }", "m", "'%=' assigns it at t.stp:1:49");
	expect("global m%; probe begin { m[1]++ }" END("m[1]"), "m",
	       "declared with '%': a full array replaces its oldest element");
	expect("global s; probe begin { s .= \"a\" }" END("s"), "s", "not a number");
	expect("global s; probe begin { s <<< 1 }" END("@count(s)"), "s", "not a number");
	expect("global n = 1; probe begin { println(n) }", "n", "nothing adds to it");
	expect("global n, m; probe begin { m[1]++; foreach (n in m) println(n) }", "n",
	       "foreach assigns it at t.stp:1:36");
	expect("global n, m; probe begin { m[1] = 1; foreach (k in m) n++ ; "
	       "foreach (k- in m) { n += k } }" END("n"), "n", "counter");
	return failures ? 1 : 0;
}
