/* outfile.h - one output file of taprun, numbered and switched with -S.
 *
 * Without -S an output is one file, NAME (-o NAME; NAME_CPU with -b).
 * With -S SIZE[,N] it is a series NAME.0, NAME.1, ... (NAME_CPU.0, ...):
 * the next file starts when a write would take the current one past
 * max_bytes (a record is never split; one larger than max_bytes gets a
 * file to itself), and at each switch_file() mark.  With keep = N, the
 * file N places back is removed when one is started, so N remain.
 * NAME is -o's pattern with strftime() conversions, expanded when each
 * file is made.
 */
#ifndef TAPRUN_OUTFILE_H
#define TAPRUN_OUTFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct outfile {
	const char *pattern;	/* -o, maybe with strftime() conversions */
	int cpu;		/* -b: the CPU (NAME_CPU), else -1 */
	bool cpu_no_sep;	/* NAMECPU: tapc_cpuN when -b has no -o */
	bool numbered;		/* -S: NAME.0, NAME.1, ... */
	uint64_t max_bytes;	/* -S SIZE in bytes; 0: no limit */
	unsigned int keep;	/* -S ...,N; 0: keep all */
	unsigned long index;	/* number of the current file */
	uint64_t written;	/* bytes in the current file */
	FILE *f;
	char *name;		/* of the current file */
	char **kept;		/* keep entries: names, by index % keep */
};

/* Set up *o (fields above filled in by the caller) and create its first
 * file.  0 or a negative errno; says why on failure. */
int outfile_open(struct outfile *o);
/* Write len bytes, first starting the next file if a -S size says so.
 * 0 or a negative errno; every failure is reported here. */
int outfile_write(struct outfile *o, const char *data, size_t len);
/* switch_file(): start the next file (numbered outputs only; else 0). */
int outfile_switch(struct outfile *o);
/* Close the current file and free *o.  0 or -EIO (errno set; the
 * caller reports it). */
int outfile_close(struct outfile *o);

#endif
