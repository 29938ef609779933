/* procfs.c - procfs("path").read / .write: files under
 * /proc/systemtap/MODULE. */
#include "family.h"

#include <ctype.h>
#include <string.h>

/* ResolvedPoint.data for procfs probes. */
typedef struct ProcfsData {
	const char *path;       /* relative to /proc/systemtap/MODULE */
	int64_t umask;          /* -1 when not given */
	int64_t maxsize;        /* 0 when not given */
	bool is_read;
} ProcfsData;

/* The file name must stay inside the module's folder: no leading or
 * trailing '/', no empty, "." or ".." part. */
static const char *bad_procfs_path(const char *path)
{
	if (!*path)
		return _("it is empty");
	if (path[0] == '/')
		return _("it must not start with '/'");
	if (path[strlen(path) - 1] == '/')
		return _("it must not end with '/'");
	for (const char *p = path; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("_-./", *p))
			return _("it may hold only letters, digits, '_', '-', '.' and '/'");
	const char *part = path;
	for (;;) {
		const char *end = strchr(part, '/');
		size_t n = end ? (size_t)(end - part) : strlen(part);
		if (n == 0)
			return _("it has an empty part ('//')");
		if ((n == 1 && part[0] == '.') || (n == 2 && !strncmp(part, "..", 2)))
			return _("it must not have '.' or '..' parts");
		if (!end)
			return NULL;
		part = end + 1;
	}
}

static int resolve_procfs(const ProbeFamily *fam, ProbePoint *pp, Vec *out)
{
	ProbePointComp *pc = pp_comp(pp, "procfs");
	ProbePointComp *um = pp_comp(pp, "umask");
	ProbePointComp *ms = pp_comp(pp, "maxsize");
	ProcfsData *d = NEW(ProcfsData);
	d->path = pc->arg ? comp_str(pc) : "command";
	d->is_read = pp_has(pp, "read");
	d->umask = -1;
	const char *why = bad_procfs_path(d->path);
	if (why) {
		error_at(pc->arg ? pc->arg->loc : pc->loc, _("bad procfs file name '%s': %s"),
			 d->path, why);
		return -1;
	}
	if (um) {
		d->umask = comp_num(um);
		if (d->umask < 0 || d->umask > 0777) {
			error_at(um->loc, _("procfs umask %#llo is out of range (0 to 0777)"),
				 (unsigned long long)d->umask);
			return -1;
		}
	}
	if (ms) {
		d->maxsize = comp_num(ms);
		if (d->maxsize <= 0 || d->maxsize > (1 << 30)) {
			error_at(ms->loc, _("procfs maxsize must be a positive size, not %lld"),
				 (long long)d->maxsize);
			return -1;
		}
	}
	ResolvedPoint *rp = rp_push(out, fam, pp);
	rp->data = d;
	/* A read probe fills $value for the reader; a write probe gets what
	 * the writer wrote. */
	CtxVar *v = rp_var(rp, "value", TY_STRING, NULL);
	v->scalar = true;
	v->writable = d->is_read;
	v->write_only = d->is_read;
	return 1;
}

static const char *const procfs_shapes[] = {
	"procfs(s?)[.umask(n)].read[.maxsize(n)]",
	"procfs(s?)[.umask(n)].write",
	NULL
};

const ProbeFamily family_procfs = { "procfs", procfs_shapes, resolve_procfs };
