/* test_outfile.c - taprun's output files: names, -S sizes and counts,
 * switch_file(), errors (taprun/outfile.c). */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../taprun.h"
#include "../outfile.h"

#include "../../testsuite/unit/check.h"
static char dir[] = "/tmp/test_outfile.XXXXXX";
static char msgs[4096];

/* taprun.c's messages, collected here. */
static void vcollect(const char *prefix, const char *fmt, va_list ap)
{
	size_t n = strlen(msgs);

	n += snprintf(msgs + n, sizeof(msgs) - n, "%s ", prefix);
	n += vsnprintf(msgs + n, sizeof(msgs) - n, fmt, ap);
	snprintf(msgs + n, sizeof(msgs) - n, "\n");
}

void msg_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vcollect("ERROR:", fmt, ap);
	va_end(ap);
}

void msg_warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vcollect("WARNING:", fmt, ap);
	va_end(ap);
}

static char *path(const char *name)
{
	static char buf[4][256];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, name);
	return buf[i];
}

/* The file's content is exactly want; NULL: the file does not exist. */
static int content_is(const char *name, const char *want)
{
	static char got[256];
	FILE *f = fopen(path(name), "r");
	size_t n;

	if (!f)
		return want == NULL && errno == ENOENT;
	n = fread(got, 1, sizeof(got) - 1, f);
	fclose(f);
	got[n] = '\0';
	if (!want || strcmp(got, want)) {
		fprintf(stderr, "%s: got '%s', want '%s'\n", name, got,
			want ? want : "(no file)");
		return 0;
	}
	return 1;
}

static void wr(struct outfile *o, const char *s)
{
	CHECK(outfile_write(o, s, strlen(s)) == 0);
}

static void test_plain(void)
{
	struct outfile o = { .pattern = path("plain"), .cpu = -1 };

	CHECK(outfile_open(&o) == 0);
	wr(&o, "one\n");
	CHECK(outfile_switch(&o) == 0);	/* no -S: nothing happens */
	wr(&o, "two\n");
	CHECK(outfile_close(&o) == 0);
	CHECK(content_is("plain", "one\ntwo\n"));
	CHECK(content_is("plain.0", NULL));
	CHECK(content_is("plain.1", NULL));
}

static void test_sizes(void)
{
	static char big[21];
	struct outfile o = { .pattern = path("s"), .cpu = -1,
			     .numbered = true, .max_bytes = 10 };

	memset(big, 'x', 20);
	CHECK(outfile_open(&o) == 0);
	wr(&o, "12345");
	wr(&o, "6789");		/* 9 bytes: fits */
	wr(&o, "ab");		/* 11 would pass 10: next file */
	wr(&o, big);		/* larger than a file: one of its own */
	wr(&o, "y");
	wr(&o, "123456789");	/* exactly 10 */
	CHECK(outfile_switch(&o) == 0);	/* switch_file(): an empty file */
	CHECK(outfile_close(&o) == 0);
	CHECK(content_is("s", NULL));
	CHECK(content_is("s.0", "123456789"));
	CHECK(content_is("s.1", "ab"));
	CHECK(content_is("s.2", big));
	CHECK(content_is("s.3", "y123456789"));
	CHECK(content_is("s.4", ""));
	CHECK(content_is("s.5", NULL));
}

static void test_keep(void)
{
	struct outfile o = { .pattern = path("k"), .cpu = -1,
			     .numbered = true, .max_bytes = 4, .keep = 2 };

	CHECK(outfile_open(&o) == 0);
	wr(&o, "aaaa");
	wr(&o, "bbbb");
	CHECK(content_is("k.0", "aaaa"));
	wr(&o, "cc");
	CHECK(outfile_switch(&o) == 0);
	wr(&o, "dd");
	CHECK(outfile_close(&o) == 0);
	CHECK(content_is("k.0", NULL));
	CHECK(content_is("k.1", NULL));
	CHECK(content_is("k.2", "cc"));
	CHECK(content_is("k.3", "dd"));
	CHECK(msgs[0] == '\0');
}

static void test_names(void)
{
	struct outfile a = { .pattern = path("b"), .cpu = 3, .numbered = true };
	struct outfile b = { .pattern = path("tapc_cpu"), .cpu = 1,
			     .cpu_no_sep = true };
	struct outfile c = { .pattern = path("p%%q"), .cpu = -1,
			     .numbered = true };

	CHECK(outfile_open(&a) == 0 && outfile_switch(&a) == 0);
	CHECK(outfile_open(&b) == 0);
	CHECK(outfile_open(&c) == 0);
	CHECK(outfile_close(&a) == 0 && outfile_close(&b) == 0 &&
	      outfile_close(&c) == 0);
	CHECK(content_is("b_3.0", "") && content_is("b_3.1", ""));
	CHECK(content_is("tapc_cpu1", ""));
	CHECK(content_is("p%q.0", ""));	/* strftime()'s %% */
}

static void test_errors(void)
{
	struct outfile o = { .pattern = path("none/out"), .cpu = -1,
			     .numbered = true };
	char want[512];

	msgs[0] = '\0';
	CHECK(outfile_open(&o) == -ENOENT);
	CHECK(outfile_close(&o) == 0);
	snprintf(want, sizeof(want),
		 "ERROR: cannot create output file '%s': No such file or directory\n",
		 path("none/out.0"));
	CHECK(!strcmp(msgs, want));

	/* the next file cannot be made: the switch fails and says why */
	{
		struct outfile p = { .pattern = path("gone/out"), .cpu = -1,
				     .numbered = true, .max_bytes = 2 };

		CHECK(mkdir(path("gone"), 0700) == 0);
		CHECK(outfile_open(&p) == 0);
		wr(&p, "ab");
		CHECK(unlink(path("gone/out.0")) == 0 &&
		      rmdir(path("gone")) == 0);
		msgs[0] = '\0';
		CHECK(outfile_write(&p, "c", 1) == -ENOENT);
		snprintf(want, sizeof(want),
			 "ERROR: cannot create output file '%s': No such file or directory\n",
			 path("gone/out.1"));
		CHECK(!strcmp(msgs, want));
		CHECK(outfile_write(&p, "c", 1) == -EBADF);
		CHECK(outfile_close(&p) == 0);
	}
}

int main(void)
{
	char cmd[64];

	setenv("LC_ALL", "C", 1);
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_plain();
	test_sizes();
	test_keep();
	test_names();
	test_errors();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		fprintf(stderr, "test_outfile: cannot remove %s\n", dir);
	if (failures)
		fprintf(stderr, "test_outfile: %d failures\n", failures);
	return failures ? 1 : 0;
}
