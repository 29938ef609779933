/* test_probes.c - unit tests for translator/families/: wildcard matching,
 * matching points against the families, and their error messages.
 *
 * Points are written as text ("timer.ms(10).randomize(2)") and split by
 * a small reader here, so the tests do not depend on the parser. */
#include "tapc.h"
#include "passes.h"
#include "families/family.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

/* ---- reading a point: name[(arg)] { . name[(arg)] } [?|!] ---- */

static SrcFile *src;

static ProbePoint *point(const char *text)
{
	src = srcfile_new("<test>", xstrdup(text), strlen(text));
	ProbePoint *pp = NEW(ProbePoint);
	const char *p = text;
	pp->loc = (Loc){ src, 1, 1 };
	while (*p) {
		ProbePointComp *c = NEW(ProbePointComp);
		c->loc = (Loc){ src, 1, (int)(p - text) + 1 };
		const char *s = p;
		while (*p && *p != '.' && *p != '(' && *p != '?' && *p != '!')
			p++;
		c->name = intern_n(s, p - s);
		if (*p == '(') {
			p++;
			Node *a;
			if (*p == '"') {
				const char *e = strchr(p + 1, '"');
				a = node_new(N_STRING, c->loc);
				a->str = intern_n(p + 1, e - p - 1);
				p = e + 1;
			} else {
				a = node_new(N_NUMBER, c->loc);
				a->num = strtoll(p, (char **)&p, 0);
			}
			c->arg = a;
			if (*p == ')')
				p++;
		}
		vec_push(&pp->comps, c);
		if (*p == '.')
			p++;
		if (*p == '?')
			pp->optional = true, p++;
		if (*p == '!')
			pp->sufficient = true, p++;
	}
	return pp;
}

static char errbuf[8192];

/* Resolve with stderr captured into errbuf. */
static int resolve(const char *text, Vec *out)
{
	fflush(stderr);
	int saved = dup(2);
	FILE *tmp = tmpfile();
	dup2(fileno(tmp), 2);
	int r = probe_family_resolve(point(text), out);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	size_t n = fread(errbuf, 1, sizeof errbuf - 1, tmp);
	errbuf[n] = 0;
	fclose(tmp);
	return r;
}

static const char *resolved_text(Vec *out, int i)
{
	ResolvedPoint *rp = out->data[i];
	return pp_text(rp->point);
}

/* The point resolves to exactly one probe whose text is `want`. */
static void ok1(const char *text, const char *want, int line)
{
	Vec out = { 0 };
	int r = resolve(text, &out);
	if (r != 1 || out.len != 1 || strcmp(resolved_text(&out, 0), want)) {
		fprintf(stderr, "%s:%d: '%s' resolved to %d (%s) %s\n", __FILE__, line,
			text, r, out.len ? resolved_text(&out, 0) : "-", errbuf);
		failures++;
	}
}
#define OK1(t, w) ok1(t, w, __LINE__)

/* The point is an error whose message holds `want`. */
static void bad(const char *text, const char *want, int line)
{
	Vec out = { 0 };
	int r = resolve(text, &out);
	if (r != -1 || !strstr(errbuf, want)) {
		fprintf(stderr, "%s:%d: '%s' gave %d, wanted an error with '%s'; got: %s\n",
			__FILE__, line, text, r, want, errbuf);
		failures++;
	}
}
#define BAD(t, w) bad(t, w, __LINE__)

/* Nothing matched, nothing reported. */
static void none(const char *text, int line)
{
	Vec out = { 0 };
	int r = resolve(text, &out);
	if (r != 0 || errbuf[0]) {
		fprintf(stderr, "%s:%d: '%s' gave %d, wanted 0 quietly; got: %s\n",
			__FILE__, line, text, r, errbuf);
		failures++;
	}
}
#define NONE(t) none(t, __LINE__)

static void test_wildcards(void)
{
	CHECK(wildcard_match("begin", "begin"));
	CHECK(!wildcard_match("begin", "beginx"));
	CHECK(wildcard_match("*", "anything"));
	CHECK(wildcard_match("*", ""));
	CHECK(!wildcard_match("*", "a.b"));          /* * stays in a component */
	CHECK(wildcard_match("**", "a.b.c"));        /* ** crosses dots */
	CHECK(wildcard_match("sys**open", "syscall.open"));
	CHECK(wildcard_match("*sys**pen", "nd_syscall.mq_open"));
	CHECK(!wildcard_match("sys*open", "syscall.open"));
	CHECK(wildcard_match("a*b*c", "axxbyyc"));
	CHECK(!wildcard_match("a*b*c", "axxbyy"));
	CHECK(wildcard_match("ab*fg*bc*", "abcdefgabc"));
	CHECK(wildcard_match("{open,close}", "close"));
	CHECK(!wildcard_match("{open,close}", "read"));
	CHECK(wildcard_match("sys_{read,write}v", "sys_writev"));
	CHECK(wildcard_match("{a{b,c},d}x", "acx"));   /* nested braces */
	CHECK(wildcard_match("{a{b,c},d}x", "dx"));
	CHECK(!wildcard_match("{a{b,c},d}x", "adx"));
	CHECK(wildcard_match("{,pre}fix", "fix"));      /* empty alternative */
	CHECK(wildcard_match("a.b", "a.b"));             /* literal dot */
	CHECK(!wildcard_match("a.b", "axb"));
	CHECK(wildcard_match("{x*,y}z", "xqqz"));
	CHECK(wildcard_match("a{b", "a{b"));             /* unbalanced: literal */
	CHECK(has_wildcard("a*"));
	CHECK(has_wildcard("{a,b}"));
	CHECK(!has_wildcard("abc"));
	CHECK(!has_wildcard(NULL));
}

static void test_core(void)
{
	OK1("begin", "begin");
	OK1("begin(-5)", "begin(-5)");
	OK1("end(3)", "end(3)");
	OK1("error", "error");
	OK1("never", "never");
	OK1("timer.ms(10)", "timer.ms(10)");
	OK1("timer.sec(1).randomize(0)", "timer.sec(1).randomize(0)");
	OK1("timer.jiffies(100).randomize(20)", "timer.jiffies(100).randomize(20)");
	OK1("timer.hz(100)", "timer.hz(100)");
	OK1("timer.profile.tick", "timer.profile.tick");
	OK1("timer.profile.freq.hz(100)", "timer.profile.freq.hz(100)");
	OK1("ti**es(1)", "timer.jiffies(1)");
	OK1("ne*", "never");

	BAD("timer.ms", "timer.ms needs a number argument");
	BAD("timer.ms(\"x\")", "timer.ms needs a number argument");
	BAD("begin(\"x\")", "begin needs a number argument");
	BAD("never(1)", "never takes no argument");
	BAD("timer.ms(0)", "positive interval");
	BAD("timer.ms(10).randomize(10)", "less than the interval");
	BAD("timer.jiffies(2000000)", "too large");
	BAD("timer.hz(1000).randomize(500)", "timer.hz does not support .randomize");
	BAD("timer.sec(100).maxactive(3)", "timer probes do not take .maxactive");
	BAD("begin.maxactive(3)", "begin probes do not take .maxactive");
	BAD("timer.mss(10)", "did you mean 'timer.ms'");
	BAD("timer", "is incomplete");
	BAD("timer.profile", "is incomplete");

	NONE("foo.bar");
	NONE("nosuch*");
}

static void test_kernel(void)
{
	BAD("kernel.funtion(\"vfs_read\")", "did you mean 'kernel.function'");
	BAD("kernel.function(\"vfs_read\").maxactive(3)",
	    ".maxactive applies only to .return probes");
	BAD("kernel.function(\"*\").return.maxactive(\"hi\")", "maxactive needs a number argument");
	BAD("kernel.function(\"vfs_read\").return.maxactive(-4)", "out of range");
	BAD("kernel.function(\"vfs_read\").return.maxactive(99999999)", "out of range");
	BAD("kernel.function(\"f\").inline.return", "inlined functions have no return probe");
	BAD("kernel.statement(0).absolute", "guru mode");
	BAD("kprobe.statement(0).absolute", "guru mode");
	BAD("kernel.data(0x10).length(16).write", "not supported");
	BAD("kernel.data(0x10).length(4).rw", "not a kernel address");
	BAD("kernel.data(-2130706430).length(4).rw", "not aligned");
	BAD("kernel.data(0x10)", "is incomplete");
	NONE("kernel.function(\"do_IRQ\")");
	NONE("kernel.function(\"*@*/kprobes.c\")");
	NONE("kernel.function(\"*@kernel/kprobes.c\").call");

	OK1("kernel.data(-2130706428).length(4).rw", "kernel.data(-2130706428).length(4).rw");
	OK1("kernel.data(\"pid_max\").write", "kernel.data(\"pid_max\").write");
	sess.guru = true;
	OK1("kernel.statement(0).absolute", "kernel.statement(0).absolute");
	sess.guru = false;

	/* With a symbol table for the target, names are checked. */
	const char *saved = getenv("TAPC_TEST_NO_KALLSYMS");
	if (!saved && access("/proc/kallsyms", R_OK) == 0) {
		Vec out = { 0 };
		NONE("kernel.function(\"no_such_function_at_all\")");
		NONE("kprobe.function(\"no_such_function_at_all\")");
		CHECK(resolve("kprobe.function(\"vfs_read\").return", &out) == 1);
		CHECK(out.len == 1 && ((ResolvedPoint *)out.data[0])->is_return);
		out.len = 0;
		CHECK(resolve("kernel.function(\"vfs_rea?\")", &out) >= 1);
		CHECK(out.len >= 1 && !strcmp(resolved_text(&out, 0), "kernel.function(\"vfs_read\")"));
		/* with DWARF or BTF the point is whole: its variables known */
		CHECK(((ResolvedPoint *)out.data[0])->needs_debuginfo ==
		      (di_source(NULL) == DI_SRC_NONE));
	}
}

static void test_misc(void)
{
	Vec out = { 0 };
	CHECK(resolve("procfs(\"foo\").read", &out) == 1);
	const CtxVar *v = resolved_ctx_var(out.data[0], "value");
	/* a read probe sets $value and may append to it, never read it */
	CHECK(v && v->type == TY_STRING && v->writable && v->write_only &&
	      v->appendable && v->scalar);
	out.len = 0;
	CHECK(resolve("procfs.write", &out) == 1);
	v = resolved_ctx_var(out.data[0], "value");
	CHECK(v && !v->writable && !v->write_only);
	OK1("procfs(\"a/b\").umask(0040).read.maxsize(1024)",
	    "procfs(\"a/b\").umask(32).read.maxsize(1024)");
	BAD("procfs", "is incomplete");
	BAD("procfs(\"foo\").rread", "did you mean 'read'");
	BAD("procfs.read.write", "either .read or .write");
	BAD("procfs(\"/foo\").read", "must not start with '/'");
	BAD("procfs(\"foo/\").read", "must not end with '/'");
	BAD("procfs(\"foo/../bar\").read", "'..'");
	BAD("procfs(\"a//c\").read", "empty part");
	BAD("procfs.read.maxsize", "maxsize needs a number argument");
	BAD("procfs.read.maxsize(-1)", "out of range (1 to 16777216 bytes)");
	BAD("procfs.read.maxsize(0x1000001)", "out of range");
	BAD("procfs.umask(0x200).read", "out of range (0 to 0777)");

	OK1("netfilter.hook(\"NF_INET_PRE_ROUTING\").pf(\"NFPROTO_IPV4\")",
	    "netfilter.hook(\"NF_INET_PRE_ROUTING\").pf(\"NFPROTO_IPV4\")");
	OK1("netfilter.pf(\"NFPROTO_IPV6\").hook(\"NF_IP6_PRE_ROUTING\").priority(\"NF_IP6_PRI_FIRST\")",
	    "netfilter.pf(\"NFPROTO_IPV6\").hook(\"NF_IP6_PRE_ROUTING\").priority(\"NF_IP6_PRI_FIRST\")");
	BAD("netfilter", "is incomplete");
	BAD("netfilter.hook", "netfilter.hook needs a string argument");
	BAD("netfilter.hook(\"NF_INET_PRE_ROUTING\")", "is incomplete");
	BAD("netfilter.hook(\"NF_INET_PRE_ROUTING\").pf(\"INTERGALACTIC\")", "unknown netfilter protocol");
	BAD("netfilter.hook(\"NF_X\").pf(\"NFPROTO_IPV4\")", "unknown netfilter hook");
	BAD("netfilter.hook(\"NF_INET_PRE_ROUTING\").pf(\"NFPROTO_IPV4\").priority(2)",
	    "priority needs a string argument");
	sess.guru = true;
	OK1("netfilter.hook(\"NF_INET_WARP_10\").pf(\"INTERGALACTIC_IPV3000\")",
	    "netfilter.hook(\"NF_INET_WARP_10\").pf(\"INTERGALACTIC_IPV3000\")");
	sess.guru = false;

	OK1("perf.type(0).config(0).sample(100)", "perf.type(0).config(0).sample(100)");
	BAD("perf.type(0).config(0).sample(100).hz(100)", ".sample and .hz cannot be combined");
	BAD("perf.type(0).config(0).counter(\"\")", "needs a counter name");
	BAD("perf.type(0).config(0).process", "needs a program name");

	NONE("kernel.mark(\"foo\")");
	BAD("java(\"x\").class(\"c\").method(\"m\")", "not supported");
	BAD("python3.module(\"m\").function(\"f\")", "not supported");
}

static void test_process(void)
{
	Vec out = { 0 };
	OK1("process.begin", "process.begin");     /* every process */
	OK1("process.thread.end", "process.thread.end");
	BAD("process(\"/bin/sh\").insn", "not supported");
	BAD("process(1).insn.block", "not supported");
	NONE("process(1).insn?");
	BAD("process.plt", "needs a program path or PID");
	BAD("process(\"/no/such/program\").begin", "cannot find program");
	NONE("process(\"/no/such/program\").begin?");
	BAD("process(\"/bin/cat\").end.return", "nothing may follow");
	OK1("process(1).begin", "process(1).begin");
	CHECK(resolve("process(\"/bin/sh\").syscall", &out) == 1);
	ResolvedPoint *rp = out.data[0];
	CHECK(resolved_ctx_var(rp, "syscall") && resolved_ctx_var(rp, "arg6"));
	CHECK(!resolved_ctx_var(rp, "return"));
	CHECK(rp->point->comps.len == 2);
	out.len = 0;
	CHECK(resolve("process(\"/bin/sh\").syscall.return", &out) == 1);
	rp = out.data[0];
	CHECK(resolved_ctx_var(rp, "return") && !resolved_ctx_var(rp, "arg1"));
	CHECK(rp->is_return);       /* $return is there */
	out.len = 0;
	BAD("process(\"/bin/sh\").function(\"_start\").return", "never returns");
	if (access("/bin/sh", X_OK) == 0) {
		CHECK(resolve("process(\"sh\").plt(\"malloc\")", &out) >= 0);
	}
}

static void test_dump(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	dump_probe_types(f);
	fclose(f);
	CHECK(strstr(buf, "begin\n"));
	CHECK(strstr(buf, "begin(number)\n"));
	CHECK(strstr(buf, "kernel.function(string).return.maxactive(number)\n"));
	CHECK(strstr(buf, "\nprocess(string).function(string).call\n"));
	CHECK(strstr(buf, "process(string).function(string).callees(number)  [not translatable]\n"));
	CHECK(strstr(buf, "timer.ms(number).randomize(number)\n"));
	CHECK(strstr(buf, "\nprocfs.read\n"));
	CHECK(strstr(buf, "\nperf.type(number).config(number)\n"));
	CHECK(strstr(buf, "java(string).class(string).method(string)  [not translatable]\n"));
	CHECK(strstr(buf, "kernel.trace(string)\n"));
	/* a family that translates some of its points only */
	CHECK(strstr(buf, "\nkernel.function(string)\n"));
	CHECK(strstr(buf, "\nmodule(string).statement(number)  [not translatable]\n"));
	CHECK(strstr(buf, "\nkernel.function(string).inline\n"));
	CHECK(strstr(buf, "\nkernel.statement(number)\n"));
	CHECK(!strstr(buf, "timer.hz(number).randomize"));
	/* sorted, one a line */
	char *prev = NULL;
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		if (prev)
			CHECK(strcmp(prev, line) < 0);
		prev = line;
	}
	free(buf);
	CHECK(probe_family_known_prefix("kernel"));
	CHECK(probe_family_known_prefix("timer"));
	CHECK(!probe_family_known_prefix("syscall"));
}

int main(void)
{
	sess.color = 0;
	target_init();
	test_wildcards();
	test_core();
	test_kernel();
	test_misc();
	test_process();
	test_dump();
	if (failures)
		fprintf(stderr, "test_probes: %d failures\n", failures);
	return failures ? 1 : 0;
}
