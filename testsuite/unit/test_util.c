/* test_util.c - unit tests for util.c: arena, interning, vectors, text
 * buffers, source files and version comparison. */
#include "tapc.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

static void test_arena(void)
{
	size_t before = arena_bytes();
	char *p = xalloc(100);
	for (int i = 0; i < 100; i++)
		CHECK(p[i] == 0);
	CHECK(((uintptr_t)p & 15) == 0);
	CHECK(arena_bytes() >= before + 100);
	/* bigger than a chunk: gets a block of its own, still zeroed */
	char *big = xalloc(4u << 20);
	CHECK(big[0] == 0 && big[(4u << 20) - 1] == 0);
	CHECK(strcmp(xstrndup("abcdef", 3), "abc") == 0);
	CHECK(strcmp(xsprintf("%s-%d", "x", 42), "x-42") == 0);
}

static void test_intern(void)
{
	char buf[32];
	const char *a = intern("probe");
	strcpy(buf, "probe");
	CHECK(intern(buf) == a);
	CHECK(intern_n("probes", 5) == a);
	CHECK(intern("Probe") != a);
	/* many names force the table to grow; old pointers stay valid */
	const char *first = intern("name0");
	for (int i = 1; i < 20000; i++)
		intern(xsprintf("name%d", i));
	CHECK(intern("name0") == first);
	CHECK(intern("probe") == a);
}

static void test_vec(void)
{
	Vec v = { 0 };
	for (long i = 0; i < 1000; i++)
		vec_push(&v, (void *)i);
	CHECK(v.len == 1000);
	CHECK((long)vec_get(&v, 500) == 500);
	CHECK((long)vec_last(&v) == 999);
	CHECK((long)vec_pop(&v) == 999);
	CHECK(v.len == 999);
	Vec empty = { 0 };
	CHECK(vec_pop(&empty) == NULL);
	vec_sort(&empty, cmp_cstr_ptr);   /* no data: must not touch it */

	Vec names = { 0 };
	vec_push(&names, "pear");
	vec_push(&names, "apple");
	vec_push(&names, "fig");
	vec_sort(&names, cmp_cstr_ptr);
	CHECK(!strcmp(vec_get(&names, 0), "apple"));
	CHECK(!strcmp(vec_get(&names, 1), "fig"));
	CHECK(!strcmp(vec_get(&names, 2), "pear"));
}

static void test_files(void)
{
	char dir[] = "/tmp/tapc-test-util-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	const char *sub = xsprintf("%s/a/b", dir);
	CHECK(make_dirs(sub));
	const char *f = xsprintf("%s/file", sub);
	CHECK(write_file_atomic(f, "hello\n", 6));
	size_t len = 0;
	char *text = read_whole_file(f, &len);
	CHECK(text && len == 6 && !strcmp(text, "hello\n"));
	CHECK(read_whole_file(xsprintf("%s/missing", dir), NULL) == NULL);
	CHECK(edit_distance("vfs_read", "vfs_raed") == 2);
	CHECK(edit_distance("", "abc") == 3);
	CHECK(edit_distance_swaps("vfs_read", "vfs_raed") == 1);
	CHECK(edit_distance_swaps("talyl", "tally") == 1);
	unlink(f);
	rmdir(sub);
	rmdir(xsprintf("%s/a", dir));
	rmdir(dir);
}

static void test_strbuf(void)
{
	StrBuf sb = { 0 };
	CHECK(strcmp(sb_cstr(&sb), "") == 0);
	sb_puts(&sb, "abc");
	sb_putc(&sb, '-');
	sb_printf(&sb, "%d", 123);
	CHECK(strcmp(sb_cstr(&sb), "abc-123") == 0);
	CHECK(sb.len == 7);
	for (int i = 0; i < 1000; i++)
		sb_putn(&sb, "xyz", 3);
	CHECK(sb.len == 3007);
	sb_reset(&sb);
	CHECK(sb.len == 0 && strcmp(sb_cstr(&sb), "") == 0);
	sb_free(&sb);
	CHECK(sb.data == NULL);
}

static void test_srcfile(void)
{
	SrcFile *f = srcfile_new("<t>", "ab\0cd", 5);
	CHECK(f->len == 5);
	CHECK(f->text[5] == 0);   /* always NUL-terminated */
	CHECK(f->name == intern("<t>"));
	CHECK(srcfile_read("/nonexistent/file.stp", NULL) == NULL);
}

static void test_version_cmp(void)
{
	CHECK(version_cmp("5.1", "5.1") == 0);
	CHECK(version_cmp("5.1", "5.10") < 0);
	CHECK(version_cmp("4.9", "5.0") < 0);
	CHECK(version_cmp("6.1.0-56-amd64", "6.1") > 0);
	CHECK(version_cmp("2.6.32", "3") < 0);
	CHECK(version_cmp("", "0") == 0);
}

int main(void)
{
	test_arena();
	test_intern();
	test_vec();
	test_files();
	test_strbuf();
	test_srcfile();
	test_version_cmp();
	if (failures) {
		fprintf(stderr, "test_util: %d checks failed\n", failures);
		return 1;
	}
	return 0;
}
