/* outfile.c - taprun's output files, numbered and switched with -S
 * (see outfile.h). */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "taprun.h"
#include "outfile.h"

/* pattern (strftime() conversions expanded) and, for cpu >= 0, "_CPU"
 * (or "CPU" with no_sep). */
static char *outfile_base_name(const char *pattern, int cpu, bool no_sep)
{
	char name[PATH_MAX], *full;
	time_t now = time(NULL);
	struct tm tm;

	if (!strchr(pattern, '%') || !localtime_r(&now, &tm) ||
	    !strftime(name, sizeof(name), pattern, &tm))
		snprintf(name, sizeof(name), "%s", pattern);
	if (cpu < 0)
		return strdup(name);
	full = malloc(strlen(name) + 16);
	if (full)
		sprintf(full, "%s%s%d", name, no_sep ? "" : "_", cpu);
	return full;
}

static char *file_name(const struct outfile *o)
{
	char *base = outfile_base_name(o->pattern, o->cpu, o->cpu_no_sep), *full;

	if (!base || !o->numbered)
		return base;
	full = malloc(strlen(base) + 24);
	if (full)
		sprintf(full, "%s.%lu", base, o->index);
	free(base);
	return full;
}

/* Create file number o->index; with keep, remove the one keep back. */
static int start_file(struct outfile *o)
{
	char *name = file_name(o);
	int err;

	if (!name)
		return -ENOMEM;
	o->f = fopen(name, "w");
	if (!o->f) {
		err = -errno;
		msg_error(_("cannot create output file '%s': %s"), name,
			  strerror(errno));
		free(name);
		return err;
	}
	o->written = 0;
	o->name = name;
	if (o->keep) {
		char **slot = &o->kept[o->index % o->keep];

		if (*slot) {
			if (unlink(*slot) < 0 && errno != ENOENT)
				msg_warning(_("cannot remove old output file '%s': %s"),
					    *slot, strerror(errno));
			free(*slot);
		}
		*slot = strdup(name);
	}
	return 0;
}

int outfile_open(struct outfile *o)
{
	o->index = 0;
	o->f = NULL;
	o->name = NULL;
	o->kept = NULL;
	if (o->keep) {
		o->kept = calloc(o->keep, sizeof(*o->kept));
		if (!o->kept)
			return -ENOMEM;
	}
	return start_file(o);
}

static int close_file(struct outfile *o)
{
	int ret = 0;

	if (o->f && fclose(o->f))
		ret = -EIO;
	o->f = NULL;
	free(o->name);
	o->name = NULL;
	return ret;
}

int outfile_switch(struct outfile *o)
{
	int err;

	if (!o->numbered || !o->f)
		return 0;
	if (fclose(o->f)) {
		err = -errno;
		msg_error(_("cannot write output file '%s': %s"), o->name,
			  strerror(errno));
		o->f = NULL;
		return err ? err : -EIO;
	}
	o->f = NULL;
	close_file(o);
	o->index++;
	return start_file(o);
}

int outfile_write(struct outfile *o, const char *data, size_t len)
{
	int err;

	if (!o->f)
		return -EBADF;
	if (o->numbered && o->max_bytes && o->written &&
	    o->written + len > o->max_bytes) {
		err = outfile_switch(o);
		if (err)
			return err;
	}
	if (fwrite(data, 1, len, o->f) != len) {
		err = -errno;
		msg_error(_("cannot write output file '%s': %s"), o->name,
			  strerror(errno));
		return err ? err : -EIO;
	}
	o->written += len;
	return 0;
}

int outfile_close(struct outfile *o)
{
	int ret = close_file(o);
	unsigned int i;

	for (i = 0; o->kept && i < o->keep; i++)
		free(o->kept[i]);
	free(o->kept);
	o->kept = NULL;
	return ret;
}
