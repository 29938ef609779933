/* merge.h - put the per-CPU record streams back into program order.
 *
 * Each trace file is a byte stream of records (runtime/transport.h) whose
 * sequence numbers grow within the stream.  The module numbers records
 * without holes, so the merger emits exactly the record numbered next_seq
 * whenever some stream has it at its front, and waits otherwise: the
 * missing record is still in the kernel, on a CPU not read yet.  Only at
 * the end (final) or when too much is buffered does it skip ahead, and it
 * counts what it skipped.  Sequence numbers wrap at 2^32; they compare by
 * their difference from next_seq.
 */
#ifndef TAPRUN_MERGE_H
#define TAPRUN_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct stream {
	int cpu;
	int fd;			/* -1: closed (owned by the caller) */
	char *buf;		/* unparsed bytes: buf[start..end) */
	size_t start, end, cap;
	bool broken;		/* a corrupt record was seen: stop using it */
	uint32_t bad_len;	/* its length, for the message */
};

/* Called for every record, in order; nonzero stops the merge. */
typedef int (*merge_emit_fn)(void *arg, int cpu, const char *data,
			     size_t len);
/* Called for every mark (a record with a TAP_REC_F_* flag: flag, and its
 * payload, the text of an error or warning), in order among the records;
 * nonzero stops the merge. */
typedef int (*merge_mark_fn)(void *arg, int cpu, uint32_t flag,
			     const char *data, size_t len);

struct merger {
	struct stream *streams;
	int nr;
	uint32_t next_seq;	/* the record due next */
	uint32_t max_record;	/* longest valid payload */
	size_t max_pending;	/* skip ahead when more is buffered */
	size_t pending;		/* bytes buffered in all streams */
	int last;		/* stream emitted from last (a hint) */
	bool ordered;		/* false: emit each stream as it comes */
	merge_emit_fn emit;
	merge_mark_fn mark;	/* NULL: marks are dropped (set after init) */
	void *arg;
	uint64_t records;	/* emitted */
	uint64_t marks;		/* marks seen */
	uint64_t bytes;
	uint64_t skipped_seqs;	/* numbers skipped: records never seen */
};

/* nr streams, cpu numbers cpus[i] (or i when cpus is NULL). */
int merger_init(struct merger *m, int nr, const int *cpus,
		uint32_t max_record, merge_emit_fn emit, void *arg);
void merger_free(struct merger *m);

/* Room for at least want more bytes at the end of stream i's buffer;
 * returns where to put them and sets *room, or NULL (-ENOMEM). */
char *merger_space(struct merger *m, int i, size_t want, size_t *room);
/* n bytes were put there. */
void merger_added(struct merger *m, int i, size_t n);
/* Convenience: copy n bytes into stream i. */
int merger_feed(struct merger *m, int i, const void *data, size_t n);

/* Emit what can be emitted.  final: the streams are complete, emit
 * everything in order, skipping over numbers that never came.
 * Returns 0, or the nonzero value of emit. */
int merger_run(struct merger *m, bool final);

/* Bytes left over that do not form a whole record (after a final run). */
size_t merger_leftover(const struct merger *m);

#endif
