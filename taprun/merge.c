/* merge.c - per-CPU record streams merged by sequence number. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "merge.h"
#include "tap_wire.h"

#define HDR sizeof(struct tap_rec_hdr)

int merger_init(struct merger *m, int nr, const int *cpus,
		uint32_t max_record, merge_emit_fn emit, void *arg)
{
	int i;

	memset(m, 0, sizeof(*m));
	m->streams = calloc(nr > 0 ? nr : 1, sizeof(*m->streams));
	if (!m->streams)
		return -ENOMEM;
	m->nr = nr;
	for (i = 0; i < nr; i++) {
		m->streams[i].cpu = cpus ? cpus[i] : i;
		m->streams[i].fd = -1;
	}
	m->next_seq = 1;
	m->max_record = max_record < TAP_REC_LEN_MASK ? max_record
						      : TAP_REC_LEN_MASK;
	m->max_pending = 64u << 20;
	m->ordered = true;
	m->emit = emit;
	m->arg = arg;
	return 0;
}

void merger_free(struct merger *m)
{
	int i;

	for (i = 0; i < m->nr; i++)
		free(m->streams[i].buf);
	free(m->streams);
	m->streams = NULL;
	m->nr = 0;
}

char *merger_space(struct merger *m, int i, size_t want, size_t *room)
{
	struct stream *s = &m->streams[i];

	/* Slide the unparsed bytes to the front before growing. */
	if (s->start && s->cap - s->end < want) {
		memmove(s->buf, s->buf + s->start, s->end - s->start);
		s->end -= s->start;
		s->start = 0;
	}
	if (s->cap - s->end < want) {
		size_t cap = s->cap ? s->cap : 4096;
		char *p;

		while (cap - s->end < want)
			cap *= 2;
		p = realloc(s->buf, cap);
		if (!p)
			return NULL;
		s->buf = p;
		s->cap = cap;
	}
	*room = s->cap - s->end;
	return s->buf + s->end;
}

void merger_added(struct merger *m, int i, size_t n)
{
	m->streams[i].end += n;
	m->pending += n;
}

int merger_feed(struct merger *m, int i, const void *data, size_t n)
{
	size_t room;
	char *p = merger_space(m, i, n, &room);

	if (!p)
		return -ENOMEM;
	memcpy(p, data, n);
	merger_added(m, i, n);
	return 0;
}

/* The whole record at the front of s, or false.  Marks s broken on a
 * length no module writes, so garbage cannot make us buffer forever. */
static bool head_record(struct merger *m, struct stream *s,
			struct tap_rec_hdr *h)
{
	size_t have = s->end - s->start;

	if (s->broken || have < HDR)
		return false;
	memcpy(h, s->buf + s->start, HDR);
	/* max_record is far below the flags; a switch has no payload, an
	 * error or warning its text. */
	if ((h->len & ~TAP_REC_F_MASK) > m->max_record ||
	    (h->len & TAP_REC_F_SWITCH && h->len != TAP_REC_F_SWITCH) ||
	    (h->len & TAP_REC_F_ERROR && h->len & TAP_REC_F_WARNING)) {
		s->broken = true;
		s->bad_len = h->len;
		m->pending -= have;
		s->start = s->end = 0;
		return false;
	}
	return have >= HDR + (h->len & TAP_REC_LEN_MASK);
}

static int emit_head(struct merger *m, int i, const struct tap_rec_hdr *h)
{
	struct stream *s = &m->streams[i];
	const char *data = s->buf + s->start + HDR;

	uint32_t len = h->len & TAP_REC_LEN_MASK;

	s->start += HDR + len;
	m->pending -= HDR + len;
	if (s->start == s->end)
		s->start = s->end = 0;
	m->last = i;
	if (h->seq - m->next_seq < 0x80000000u)	/* not a late one */
		m->next_seq = h->seq + 1;
	if (h->len & TAP_REC_F_MASK) {
		m->marks++;
		return m->mark ? m->mark(m->arg, s->cpu, h->len & TAP_REC_F_MASK,
					 data, len) : 0;
	}
	m->records++;
	m->bytes += len;
	return m->emit(m->arg, s->cpu, data, len);
}

/* Distance of seq from the record due next; a record already overtaken
 * (after a skip) counts as due at once. */
static uint32_t distance(const struct merger *m, uint32_t seq)
{
	uint32_t d = seq - m->next_seq;

	return d >= 0x80000000u ? 0 : d;
}

/* The stream whose front record comes first, or -1. */
static int earliest(struct merger *m, struct tap_rec_hdr *best)
{
	struct tap_rec_hdr h;
	int i, found = -1;
	uint32_t bestd = 0;

	/* The last stream first: runs of records from one CPU are common. */
	if (head_record(m, &m->streams[m->last], &h) &&
	    distance(m, h.seq) == 0) {
		*best = h;
		return m->last;
	}
	for (i = 0; i < m->nr; i++) {
		uint32_t d;

		if (!head_record(m, &m->streams[i], &h))
			continue;
		d = distance(m, h.seq);
		if (found < 0 || d < bestd) {
			found = i;
			bestd = d;
			*best = h;
			if (d == 0)
				break;
		}
	}
	return found;
}

static int run_unordered(struct merger *m)
{
	struct tap_rec_hdr h;
	int i, ret;

	for (i = 0; i < m->nr; i++) {
		while (head_record(m, &m->streams[i], &h)) {
			ret = emit_head(m, i, &h);
			if (ret)
				return ret;
		}
	}
	return 0;
}

int merger_run(struct merger *m, bool final)
{
	struct tap_rec_hdr h;
	int i, ret;

	if (!m->ordered)
		return run_unordered(m);
	while ((i = earliest(m, &h)) >= 0) {
		uint32_t d = distance(m, h.seq);

		if (d && !final && m->pending <= m->max_pending)
			break;	/* the record due next is still on its way */
		m->skipped_seqs += d;
		ret = emit_head(m, i, &h);
		if (ret)
			return ret;
	}
	return 0;
}

size_t merger_leftover(const struct merger *m)
{
	return m->pending;
}
