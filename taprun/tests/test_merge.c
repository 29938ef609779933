/* test_merge.c - taprun's merge of per-CPU record streams. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../merge.h"
#include "tap_wire.h"

#include "../../testsuite/unit/check.h"

static char out[1 << 20];
static size_t out_len;

static int collect(void *arg, int cpu, const char *data, size_t len)
{
	(void)arg;
	(void)cpu;
	memcpy(out + out_len, data, len);
	out_len += len;
	return 0;
}

/* Feed record (seq, text) to stream i, optionally in two pieces. */
static void rec(struct merger *m, int i, uint32_t seq, const char *text,
		size_t split)
{
	char buf[256];
	struct tap_rec_hdr h = { (uint32_t)strlen(text), seq };
	size_t n = sizeof(h) + h.len;

	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), text, h.len);
	if (split && split < n) {
		merger_feed(m, i, buf, split);
		merger_feed(m, i, buf + split, n - split);
	} else {
		merger_feed(m, i, buf, n);
	}
}

static void reset(void)
{
	out_len = 0;
	out[0] = '\0';
}

static int same(const char *want)
{
	return out_len == strlen(want) && !memcmp(out, want, out_len);
}

static void test_in_order_across_cpus(void)
{
	struct merger m;

	reset();
	merger_init(&m, 3, NULL, 8192, collect, NULL);
	rec(&m, 1, 2, "b", 0);
	rec(&m, 0, 1, "a", 3);
	rec(&m, 2, 4, "d", 0);
	merger_run(&m, false);
	CHECK(same("ab"));		/* 3 has not come yet */
	rec(&m, 0, 3, "c", 5);
	rec(&m, 0, 5, "e", 0);
	merger_run(&m, false);
	CHECK(same("abcde"));
	CHECK(m.skipped_seqs == 0);
	CHECK(merger_leftover(&m) == 0);
	merger_free(&m);
}

static void test_partial_record_waits(void)
{
	struct merger m;
	struct tap_rec_hdr h = { 5, 1 };

	reset();
	merger_init(&m, 1, NULL, 8192, collect, NULL);
	merger_feed(&m, 0, &h, sizeof(h));
	merger_feed(&m, 0, "hel", 3);
	merger_run(&m, false);
	CHECK(out_len == 0);
	merger_feed(&m, 0, "lo", 2);
	merger_run(&m, false);
	CHECK(same("hello"));
	merger_free(&m);
}

static void test_final_skips_gaps(void)
{
	struct merger m;

	reset();
	merger_init(&m, 2, NULL, 8192, collect, NULL);
	rec(&m, 0, 1, "a", 0);
	rec(&m, 1, 4, "d", 0);
	rec(&m, 0, 6, "f", 0);
	merger_run(&m, false);
	CHECK(same("a"));
	merger_run(&m, true);
	CHECK(same("adf"));
	CHECK(m.skipped_seqs == 3);	/* 2, 3 and 5 */
	merger_free(&m);
}

static void test_wrap(void)
{
	struct merger m;

	reset();
	merger_init(&m, 2, NULL, 8192, collect, NULL);
	m.next_seq = 0xfffffffeu;
	rec(&m, 1, 0xffffffffu, "2", 0);
	rec(&m, 0, 0xfffffffeu, "1", 0);
	rec(&m, 0, 0, "3", 0);
	rec(&m, 1, 1, "4", 0);
	rec(&m, 1, 2, "5", 0);
	merger_run(&m, false);
	CHECK(same("12345"));
	CHECK(m.next_seq == 3);
	merger_free(&m);
}

static void test_too_much_pending_skips(void)
{
	struct merger m;
	int i;

	reset();
	merger_init(&m, 2, NULL, 8192, collect, NULL);
	m.max_pending = 64;
	/* seq 1 never comes; stream 1 piles up records 2.. */
	for (i = 2; i < 12; i++)
		rec(&m, 1, i, "x", 0);
	merger_run(&m, false);
	CHECK(out_len > 0);
	CHECK(m.skipped_seqs == 1);
	merger_run(&m, true);
	CHECK(out_len == 10);
	merger_free(&m);
}

static void test_corrupt_length(void)
{
	struct merger m;
	struct tap_rec_hdr h = { 100000, 1 };

	reset();
	merger_init(&m, 2, NULL, 8192, collect, NULL);
	merger_feed(&m, 0, &h, sizeof(h));
	rec(&m, 1, 2, "ok", 0);
	merger_run(&m, true);
	CHECK(m.streams[0].broken);
	CHECK(m.streams[0].bad_len == 100000);
	CHECK(same("ok"));
	merger_free(&m);
}

static int mark_to_out(void *arg, int cpu, uint32_t flag, const char *data,
		       size_t len)
{
	(void)arg;
	out_len += (size_t)sprintf(out + out_len, "|%d:%s%.*s|", cpu,
				   flag == TAP_REC_F_SWITCH ? "switch" :
				   flag == TAP_REC_F_ERROR ? "error " :
				   flag == TAP_REC_F_WARNING ? "warning " : "?",
				   (int)len, data);
	return 0;
}

static void mark(struct merger *m, int i, uint32_t seq, size_t split)
{
	struct tap_rec_hdr h = { TAP_REC_F_SWITCH, seq };

	if (split) {
		merger_feed(m, i, &h, split);
		merger_feed(m, i, (char *)&h + split, sizeof(h) - split);
	} else {
		merger_feed(m, i, &h, sizeof(h));
	}
}

/* A switch_file() mark comes out between the records numbered around it,
 * whichever stream holds it, and is not counted as output. */
static void test_switch_mark_in_order(void)
{
	struct merger m;

	reset();
	merger_init(&m, 2, NULL, 8192, collect, NULL);
	m.mark = mark_to_out;
	rec(&m, 1, 3, "c", 0);
	mark(&m, 1, 4, 3);
	rec(&m, 0, 1, "a", 0);
	mark(&m, 0, 2, 0);
	rec(&m, 0, 5, "e", 0);
	merger_run(&m, false);
	CHECK(same("a|0:switch|c|1:switch|e"));
	CHECK(m.records == 3 && m.marks == 2 && m.bytes == 3);
	CHECK(m.skipped_seqs == 0 && merger_leftover(&m) == 0);
	merger_free(&m);

	/* without a mark callback the mark is dropped, the order kept */
	reset();
	merger_init(&m, 1, NULL, 8192, collect, NULL);
	rec(&m, 0, 1, "a", 0);
	mark(&m, 0, 2, 0);
	rec(&m, 0, 3, "b", 0);
	merger_run(&m, true);
	CHECK(same("ab"));
	CHECK(m.marks == 1 && m.skipped_seqs == 0);
	merger_free(&m);

	/* a flag that is not a known mark, or a mark with a payload, is a
	 * corrupt record */
	reset();
	merger_init(&m, 1, NULL, 8192, collect, NULL);
	{
		struct tap_rec_hdr h = { TAP_REC_F_SWITCH | 1, 1 };

		merger_feed(&m, 0, &h, sizeof(h));
		merger_feed(&m, 0, "x", 1);
	}
	merger_run(&m, true);
	CHECK(m.streams[0].broken && out_len == 0);
	merger_free(&m);

	/* both message flags at once is no mark either */
	reset();
	merger_init(&m, 1, NULL, 8192, collect, NULL);
	{
		struct tap_rec_hdr h = { TAP_REC_F_ERROR | TAP_REC_F_WARNING, 1 };

		merger_feed(&m, 0, &h, sizeof(h));
	}
	merger_run(&m, true);
	CHECK(m.streams[0].broken && out_len == 0);
	merger_free(&m);
}

static void text_mark(struct merger *m, int i, uint32_t seq, uint32_t flag,
		      const char *text)
{
	struct tap_rec_hdr h = { flag | (uint32_t)strlen(text), seq };

	merger_feed(m, i, &h, sizeof(h));
	merger_feed(m, i, text, strlen(text));
}

/* An error or warning comes out, with its text, between the records
 * numbered around it, whichever stream holds it: taprun prints it there,
 * after the output before it.  It is not counted as output. */
static void test_message_marks_in_order(void)
{
	struct merger m;

	reset();
	merger_init(&m, 2, NULL, 8192, collect, NULL);
	m.mark = mark_to_out;
	text_mark(&m, 1, 3, TAP_REC_F_ERROR, "overflow");
	rec(&m, 1, 4, "c", 0);
	rec(&m, 0, 1, "a", 0);
	text_mark(&m, 0, 2, TAP_REC_F_WARNING, "careful");
	merger_run(&m, false);
	CHECK(same("a|0:warning careful||1:error overflow|c"));
	CHECK(m.records == 2 && m.marks == 2 && m.bytes == 2);
	CHECK(merger_leftover(&m) == 0);
	merger_free(&m);
}

static void test_unordered_bulk(void)
{
	struct merger m;

	reset();
	merger_init(&m, 2, NULL, 8192, collect, NULL);
	m.ordered = false;
	rec(&m, 1, 7, "b", 0);
	rec(&m, 0, 9, "a", 0);
	merger_run(&m, false);
	CHECK(out_len == 2);
	merger_free(&m);
}

/* Many interleaved records across 4 streams, fed in random chunks. */
static void test_random_interleaving(void)
{
	enum { N = 5000, S = 4 };
	static char feed[S][N * 16];
	size_t flen[S] = { 0 }, fpos[S] = { 0 };
	struct merger m;
	char want[N * 8], text[16];
	size_t wlen = 0;
	int i, s;

	reset();
	srand(7);
	for (i = 1; i <= N; i++) {
		struct tap_rec_hdr h;

		s = rand() % S;
		snprintf(text, sizeof(text), "%d\n", i);
		h.len = strlen(text);
		h.seq = i;
		memcpy(feed[s] + flen[s], &h, sizeof(h));
		memcpy(feed[s] + flen[s] + sizeof(h), text, h.len);
		flen[s] += sizeof(h) + h.len;
		memcpy(want + wlen, text, h.len);
		wlen += h.len;
	}
	merger_init(&m, S, NULL, 8192, collect, NULL);
	for (;;) {
		int left = 0;

		for (s = 0; s < S; s++) {
			size_t n = rand() % 97;

			if (n > flen[s] - fpos[s])
				n = flen[s] - fpos[s];
			merger_feed(&m, s, feed[s] + fpos[s], n);
			fpos[s] += n;
			left += fpos[s] < flen[s];
		}
		merger_run(&m, false);
		if (!left)
			break;
	}
	merger_run(&m, true);
	CHECK(out_len == wlen && !memcmp(out, want, wlen));
	CHECK(m.skipped_seqs == 0);
	CHECK(m.records == N);
	merger_free(&m);
}

int main(void)
{
	test_in_order_across_cpus();
	test_partial_record_waits();
	test_final_skips_gaps();
	test_wrap();
	test_too_much_pending_skips();
	test_corrupt_length();
	test_unordered_bulk();
	test_switch_mark_in_order();
	test_message_marks_in_order();
	test_random_interleaving();
	if (failures)
		fprintf(stderr, "test_merge: %d failures\n", failures);
	return failures ? 1 : 0;
}
