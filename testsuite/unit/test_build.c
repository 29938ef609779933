/* test_build.c - unit tests for build.c (SHA-256, cache keys) and, when a
 * kernel build tree is installed, a real pass 4: a cold build, a cached
 * one, -m delivery, a compile error reported at its #line place, and the
 * feature probes.
 *
 * Also a small driver for scripts (the VM harness builds its hand-written
 * modules through pass 4 with it):
 *   test_build build FILE.c NAME [RELEASE|TREE]   print the .ko path
 *   test_build features [RELEASE|TREE]           print tap_features.h */
#include "build.h"
#include "passes.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static const char *sha_hex_of(const char *s, size_t len)
{
	Sha256 h;
	sha256_init(&h);
	sha256_update(&h, s, len);
	return sha256_hex(&h, 64);
}

static void test_sha256(void)
{
	CHECK(!strcmp(sha_hex_of("", 0),
		      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
	CHECK(!strcmp(sha_hex_of("abc", 3),
		      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
	const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	CHECK(!strcmp(sha_hex_of(two, strlen(two)),
		      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"));
	/* a million 'a', fed in odd pieces so block boundaries fall anywhere */
	Sha256 h;
	char a[997];
	memset(a, 'a', sizeof a);
	sha256_init(&h);
	size_t left = 1000000;
	for (size_t step = 1; left; step = step % 997 + 1) {
		size_t n = step < left ? step : left;
		sha256_update(&h, a, n);
		left -= n;
	}
	CHECK(!strcmp(sha256_hex(&h, 64),
		      "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"));
	sha256_init(&h);
	CHECK(strlen(sha256_hex(&h, 32)) == 32);
}

static void test_keys(void)
{
	const char *k1 = build_cache_key("int x;", 6, "m");
	CHECK(strlen(k1) == 32);
	CHECK(!strcmp(k1, build_cache_key("int x;", 6, "m")));
	CHECK(strcmp(k1, build_cache_key("int y;", 6, "m")));
	CHECK(strcmp(k1, build_cache_key("int x;", 6, "n")));
	Define d = { "MAXACTION", "5" };
	vec_push(&sess.defines, &d);
	CHECK(strcmp(k1, build_cache_key("int x;", 6, "m")));
	vec_pop(&sess.defines);
	vec_push(&sess.make_vars, "CONFIG_X=y");
	CHECK(strcmp(k1, build_cache_key("int x;", 6, "m")));
	vec_pop(&sess.make_vars);
	CHECK(!strcmp(k1, build_cache_key("int x;", 6, "m")));
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static bool write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return false;
	fputs(text, f);
	return fclose(f) == 0;
}

static const char good_module[] =
	"#include <linux/module.h>\n"
	"#include \"tap_features.h\"\n"
	"static int __init t_init(void) { return 0; }\n"
	"static void __exit t_exit(void) { }\n"
	"module_init(t_init);\nmodule_exit(t_exit);\n"
	"MODULE_LICENSE(\"GPL\");\n";

static const char bad_module[] =
	"#include <linux/module.h>\n"
	"#line 7 \"hello.stp\"\n"
	"static int __init t_init(void) { return undeclared_thing; }\n"
	"module_init(t_init);\n"
	"MODULE_LICENSE(\"GPL\");\n";

/* A real build against the installed tree, with a private cache. */
static void test_kbuild(void)
{
	if (access(kernel_build_tree(), F_OK) != 0) {
		printf("skipped kbuild tests: no tree at %s\n", kernel_build_tree());
		return;
	}
	char dir[] = "/tmp/tapc-test-buildXXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	setenv("XDG_CACHE_HOME", dir, 1);
	const char *c = xsprintf("%s/t.c", dir);
	CHECK(write_text(c, good_module));

	double t0 = now_s();
	const char *ko = build_module(c, "tap_unit");
	double t1 = now_s();
	CHECK(ko && !strncmp(ko, dir, strlen(dir)));
	const char *ko2 = build_module(c, "tap_unit");
	double t2 = now_s();
	CHECK(ko2 && ko && !strcmp(ko, ko2));
	CHECK(t2 - t1 < 0.5);  /* a cache hit runs no make */
	printf("kbuild: cold %.2f s (with feature probes), cached %.3f s\n",
	       t1 - t0, t2 - t1);

	/* -m NAME leaves NAME.ko in the current folder */
	char cwd[4096];
	CHECK(getcwd(cwd, sizeof cwd) != NULL);
	CHECK(chdir(dir) == 0);
	sess.module_name = "tap_unit";
	const char *m = build_module(c, "tap_unit");
	CHECK(m && !strcmp(m, "tap_unit.ko") && access("tap_unit.ko", R_OK) == 0);
	sess.module_name = NULL;

	/* a compile error names the #line place, not the build folder */
	CHECK(write_text(c, bad_module));
	fflush(stderr);
	int saved = dup(2);
	CHECK(freopen("err.txt", "w", stderr) != NULL);
	int errs = error_count;
	const char *bad = build_module(c, "tap_unit");
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	CHECK(bad == NULL && error_count == errs + 1);
	char *log = NULL;
	size_t cap = 0;
	FILE *f = fopen("err.txt", "r");
	CHECK(f != NULL);
	if (f) {
		ssize_t n = getdelim(&log, &cap, 0, f);
		fclose(f);
		CHECK(n > 0 && strstr(log, "hello.stp:7:") && strstr(log, "undeclared_thing"));
		CHECK(!strstr(log, "/tmp/") && !strstr(log, "make["));
		if (failures)
			fputs(log, stdout);
		free(log);
	}
	CHECK(chdir(cwd) == 0);

	/* the feature header has every probe, present or not */
	const char *fh = build_features_header();
	CHECK(fh != NULL);
	size_t len = 0;
	char *text = NULL;
	f = fh ? fopen(fh, "r") : NULL;
	if (f) {
		getdelim(&text, &len, 0, f);
		fclose(f);
	}
	CHECK(text && strstr(text, "TAP_HAVE_X86_UNWIND 1"));
	CHECK(text && strstr(text, "TAP_HAVE_HRTIMER_SETUP"));
	CHECK(text && strstr(text, "TAP_HAVE_MODULE_MEMORY"));
	free(text);
	CHECK(build_cache_clean() >= 2);
	char *rm = xsprintf("rm -rf '%s'", dir);
	CHECK(system(rm) == 0);
}

static void set_target(const char *r)
{
	if (r && strchr(r, '/'))
		sess.kernel_build_dir = r;
	else
		sess.release = r;
	target_init();
}

int main(int argc, char **argv)
{
	sess.last_pass = 5;
#ifdef TEST_RUNTIME_DIR
	/* the source tree's runtime, wherever the test binary is */
	if (!getenv("SYSTEMTAP_RUNTIME"))
		sess.runtime_dir = TEST_RUNTIME_DIR;
#endif
	if (argc >= 4 && !strcmp(argv[1], "build")) {
		set_target(argc > 4 ? argv[4] : NULL);
		if (getenv("TAPC_VERBOSE"))
			sess.verbose = sess.vp[3] = atoi(getenv("TAPC_VERBOSE"));
		const char *ko = build_module(argv[2], argv[3]);
		if (ko)
			puts(ko);
		return ko ? 0 : 1;
	}
	if (argc >= 2 && !strcmp(argv[1], "features")) {
		set_target(argc > 2 ? argv[2] : NULL);
		sess.verbose = sess.vp[3] = 2;
		const char *h = build_features_header();
		if (!h)
			return 1;
		FILE *f = fopen(h, "r");
		int ch;
		while (f && (ch = getc(f)) != EOF)
			putchar(ch);
		return 0;
	}
	/* the installed Debian 6.1 tree when there is one, else the host's */
	set_target(access("/lib/modules/6.1.0-56-amd64/build", F_OK) == 0
		   ? "6.1.0-56-amd64" : NULL);
	test_sha256();
	test_keys();
	test_kbuild();
	if (failures)
		fprintf(stderr, "%d check(s) failed\n", failures);
	return failures ? 1 : 0;
}
