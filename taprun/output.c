/* output.c - the script's output: the module's trace files read (one per
 * CPU), their records merged in order (merge.c) and written to standard
 * output or the -o files (outfile.c, one per CPU with -b).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "taprun.h"
#include "session.h"
#include "merge.h"
#include "outfile.h"
#include "tap_wire.h"

#define READ_BUDGET	(8u << 20)	/* per stream and round */
#define READ_MIN	(64u << 10)

static void fail_output(struct session *s)
{
	s->output_failed = true;
	s->status = 1;
	control_request_stop(s, _("output failed"));
}

static struct outfile *file_of(struct session *s, int cpu)
{
	if (!s->files)
		return NULL;
	if (opt.bulk)
		return (unsigned int)cpu < s->nfiles && s->files[cpu].pattern ?
			       &s->files[cpu] : NULL;
	return &s->files[0];
}

static int emit_record(void *arg, int cpu, const char *data, size_t len)
{
	struct session *s = arg;
	struct outfile *o = file_of(s, cpu);

	if (s->output_failed)
		return 0;
	if (o) {
		if (outfile_write(o, data, len))
			fail_output(s);
		return 0;
	}
	if (!s->out)
		return 0;
	if (fwrite(data, 1, len, s->out) != len) {
		s->output_failed = true;
		if (errno != EPIPE) {
			msg_error(_("cannot write the output: %s"),
				  strerror(errno));
			s->status = 1;
		}
		control_request_stop(s, _("output failed"));
	}
	return 0;
}

/* An error or warning: printed here, in its place among the records, so
 * the output before it is written (and flushed, msg.c) first.
 * switch_file(): in bulk mode every CPU's file switches (the mark is in
 * one CPU's stream; the files of the others have no common order). */
static int emit_mark(void *arg, int cpu, uint32_t flag, const char *data,
		     size_t len)
{
	struct session *s = arg;
	unsigned int i;

	(void)cpu;
	if (flag == TAP_REC_F_ERROR || flag == TAP_REC_F_WARNING) {
		control_module_message(s, flag == TAP_REC_F_ERROR, data, len);
		return 0;
	}
	if (flag != TAP_REC_F_SWITCH || s->output_failed)
		return 0;
	if (!opt.size_mb) {
		msg_verbose(2, _("module '%s': switch_file() without -S: ignored"),
			    s->name);
		return 0;
	}
	for (i = 0; i < s->nfiles; i++)
		if (s->files[i].pattern && outfile_switch(&s->files[i])) {
			fail_output(s);
			break;
		}
	return 0;
}

int output_open(struct session *s)
{
	unsigned int n = 1;
	int i;

	if (!opt.outfile && !opt.bulk) {
		s->out = stdout;
		msg_set_output(s->out);
		return 0;
	}
	if (opt.bulk)
		n = s->hello.nr_trace;
	s->files = calloc(n, sizeof(*s->files));
	if (!s->files)
		return -ENOMEM;
	s->nfiles = n;
	for (i = 0; i < (opt.bulk ? s->merge.nr : 1); i++) {
		int cpu = opt.bulk ? s->merge.streams[i].cpu : 0;
		struct outfile *o = &s->files[cpu];

		/* -b: NAME_N, or tapc_cpuN without -o */
		o->pattern = opt.outfile ? opt.outfile : "tapc_cpu";
		o->cpu = opt.bulk ? cpu : -1;
		o->cpu_no_sep = !opt.outfile;
		o->numbered = opt.size_mb != 0;
		o->max_bytes = (uint64_t)opt.size_mb << 20;
		o->keep = opt.size_files;
		if (outfile_open(o)) {
			outfile_close(o);
			o->pattern = NULL;
			return -EIO;
		}
	}
	return 0;
}

void output_close(struct session *s)
{
	unsigned int i;

	for (i = 0; i < s->nfiles; i++) {
		if (!s->files[i].pattern)
			continue;
		if (outfile_close(&s->files[i]) && !s->output_failed) {
			msg_error(_("cannot write the output: %s"),
				  strerror(errno));
			s->status = 1;
		}
	}
	free(s->files);
	s->files = NULL;
	s->nfiles = 0;
	if (s->out && fflush(s->out) && !s->output_failed &&
	    errno != EPIPE) {
		msg_error(_("cannot write the output: %s"), strerror(errno));
		s->status = 1;
	}
	s->out = NULL;
	msg_set_output(NULL);
}

int output_open_traces(struct session *s)
{
	int *cpus, nr = 0, err;
	unsigned int cpu;
	char path[PATH_MAX + 32];

	if (s->hello.nr_trace == 0 || s->hello.nr_trace > 65536) {
		msg_error(_("module '%s': bad number of trace files (%u)"),
			  s->name, s->hello.nr_trace);
		return -EPROTO;
	}
	cpus = calloc(s->hello.nr_trace, sizeof(*cpus));
	if (!cpus)
		return -ENOMEM;
	/* Which files exist: CPUs that are not possible have none. */
	for (cpu = 0; cpu < s->hello.nr_trace; cpu++) {
		snprintf(path, sizeof(path), "%s/trace%u", s->dir, cpu);
		if (access(path, F_OK) == 0)
			cpus[nr++] = cpu;
	}
	err = merger_init(&s->merge, nr, cpus, s->hello.max_record,
			  emit_record, s);
	free(cpus);
	if (err)
		return err;
	s->merge.mark = emit_mark;
	s->merge.ordered = !opt.bulk;
	s->reported_broken = calloc(nr ? nr : 1, sizeof(bool));
	if (!s->reported_broken)
		return -ENOMEM;
	for (int i = 0; i < nr; i++) {
		struct stream *st = &s->merge.streams[i];

		snprintf(path, sizeof(path), "%s/trace%d", s->dir, st->cpu);
		st->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (st->fd < 0) {
			err = -errno;
			msg_error(_("module '%s': trace buffer %d: cannot open %s: %s"),
				  s->name, st->cpu, path, strerror(errno));
			return err;
		}
	}
	if (nr == 0) {
		msg_error(_("module '%s': no trace files in %s"), s->name, s->dir);
		return -ENOENT;
	}
	return 0;
}

void output_close_traces(struct session *s)
{
	int i;

	for (i = 0; i < s->merge.nr; i++) {
		if (s->merge.streams[i].fd >= 0)
			close(s->merge.streams[i].fd);
		s->merge.streams[i].fd = -1;
	}
}

/* Read what each trace file has (up to a budget).  Sets *got if any;
 * returns the bytes read. */
size_t output_read_traces(struct session *s, bool *got)
{
	size_t all = 0;
	int i;

	for (i = 0; i < s->merge.nr; i++) {
		struct stream *st = &s->merge.streams[i];
		size_t total = 0;

		while (st->fd >= 0 && total < READ_BUDGET) {
			size_t room;
			char *p = merger_space(&s->merge, i, READ_MIN, &room);
			ssize_t n;

			if (!p) {
				msg_error(_("module '%s': trace buffer %d: out of memory"),
					  s->name, st->cpu);
				close(st->fd);
				st->fd = -1;
				break;
			}
			n = read(st->fd, p, room);
			if (n < 0 && errno == EINTR)
				continue;
			if (n == 0 || (n < 0 && errno == EAGAIN))
				break;
			if (n < 0) {
				msg_error(_("module '%s': trace buffer %d: read failed: %s"),
					  s->name, st->cpu, strerror(errno));
				close(st->fd);
				st->fd = -1;
				break;
			}
			merger_added(&s->merge, i, n);
			total += n;
			*got = true;
		}
		all += total;
	}
	return all;
}

void output_merge(struct session *s, bool final)
{
	int i;

	merger_run(&s->merge, final);
	for (i = 0; i < s->merge.nr; i++) {
		struct stream *st = &s->merge.streams[i];

		if (st->broken && !s->reported_broken[i]) {
			s->reported_broken[i] = true;
			msg_error(_("module '%s': trace buffer %d: corrupt record (length %u); ignoring the rest of it"),
				  s->name, st->cpu, st->bad_len);
			s->status = 1;
			close(st->fd);
			st->fd = -1;
		}
	}
	if (s->out && !s->output_failed)
		fflush(s->out);
	for (i = 0; i < (int)s->nfiles && !s->output_failed; i++)
		if (s->files[i].f)
			fflush(s->files[i].f);
}

/* After DONE (or when giving up): read until every file is empty. */
void output_drain(struct session *s)
{
	bool got = true;
	int rounds = 0;

	while (got && rounds++ < 100000) {
		got = false;
		output_read_traces(s, &got);
		output_merge(s, false);
	}
	output_merge(s, true);
	if (merger_leftover(&s->merge))
		msg_verbose(1, _("module '%s': %zu bytes of an incomplete record left"),
			    s->name, merger_leftover(&s->merge));
	if (s->merge.skipped_seqs && !s->aborting)
		msg_warning(_("module '%s': %llu output records missing from the sequence"),
			    s->name, (unsigned long long)s->merge.skipped_seqs);
}
