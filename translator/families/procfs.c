/* procfs.c - procfs("path").read / .write: files under
 * /proc/systemtap/MODULE.
 *
 * Pass 3 writes one callback per probe and one struct _tap_procfs_file
 * per file name for runtime/families/procfs.c; the read and write probes
 * of one name share the file.  The file's mode: 0444 for reads, 0222 for
 * writes, less each probe's umask; without .umask a read gives 0400 and a
 * write 0200 (stap's defaults).
 */
#include "emit_glue.h"

#include <ctype.h>
#include <string.h>

/* ResolvedPoint.data for procfs probes. */
typedef struct ProcfsData {
	const char *path;       /* relative to /proc/systemtap/MODULE */
	int64_t umask;          /* -1 when not given */
	int64_t maxsize;        /* 0 when not given */
	bool is_read;
} ProcfsData;

/* The largest .maxsize: each open of a read file holds a buffer that
 * large (16 MiB). */
#define PROCFS_MAXSIZE_MAX (1 << 24)

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
		if (d->maxsize <= 0 || d->maxsize > PROCFS_MAXSIZE_MAX) {
			error_at(ms->loc, _("procfs maxsize %lld is out of range (1 to %d bytes)"),
				 (long long)d->maxsize, PROCFS_MAXSIZE_MAX);
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
	v->appendable = d->is_read;
	return 1;
}

/* ---- pass 3 ---- */

/* The permission bits one probe gives its file. */
static int procfs_mode(const ProcfsData *d)
{
	int base = d->is_read ? 0444 : 0222;
	if (d->umask < 0)
		return d->is_read ? 0400 : 0200;
	return base & ~(int)d->umask;
}

static bool emit_procfs_decls(Emitter *e, EmitProbe **probes, int n)
{
	(void)probes;
	(void)n;
	emit(e, "#include \"runtime/families/procfs.c\"");
	return true;
}

static void emit_procfs_callback(Emitter *e, const EmitProbe *ep)
{
	emit_void_handler(e, ep, xsprintf("tapf_%d", ep->index),
			  "struct _tap_procfs_call *call", "NULL", "procfs", false, "call");
}

/* The callbacks of the read (or write) probes of file `name`, as a
 * NULL-terminated array; its C name, or "NULL" when there are none. */
static const char *emit_procfs_fns(Emitter *e, EmitProbe **probes, int n,
				   const char *name, bool reads)
{
	const char *arr = NULL;
	for (int i = 0; i < n; i++) {
		const ProcfsData *d = probes[i]->rp->data;
		if (d->is_read != reads || strcmp(d->path, name))
			continue;
		if (!arr) {
			arr = emit_fresh_name(e, reads ? "_tap_procfs_reads" : "_tap_procfs_writes");
			emit(e, "static const _tap_procfs_fn %s[] = {", arr);
		}
		emit(e, "\ttapf_%d,", probes[i]->index);
	}
	if (!arr)
		return "NULL";
	emit(e, "\tNULL");
	emit(e, "};");
	return arr;
}

static bool emit_procfs_code(Emitter *e, EmitProbe **probes, int n,
			     FamilyCode *out)
{
	Vec files = { 0 };         /* const char *: file names, first use order */
	for (int i = 0; i < n; i++) {
		const ProcfsData *d = probes[i]->rp->data;
		emit_procfs_callback(e, probes[i]);
		bool seen = false;
		for (int f = 0; f < files.len && !seen; f++)
			seen = !strcmp(vec_get(&files, f), d->path);
		if (!seen)
			vec_push(&files, (void *)d->path);
	}
	const char **reads = xalloc(files.len * sizeof *reads);
	const char **writes = xalloc(files.len * sizeof *writes);
	for (int f = 0; f < files.len; f++) {
		reads[f] = emit_procfs_fns(e, probes, n, vec_get(&files, f), true);
		writes[f] = emit_procfs_fns(e, probes, n, vec_get(&files, f), false);
	}
	emit_blank(e);
	emit(e, "static struct _tap_procfs_file _tap_procfs_table[] = {");
	for (int f = 0; f < files.len; f++) {
		const char *name = vec_get(&files, f);
		int mode = 0;
		int64_t maxsize = 0;
		for (int i = 0; i < n; i++) {
			const ProcfsData *d = probes[i]->rp->data;
			if (strcmp(d->path, name))
				continue;
			mode |= procfs_mode(d);
			if (d->maxsize > maxsize)
				maxsize = d->maxsize;
		}
		emit(e, "\t{ .name = %s, .mode = 0%o,", c_string(name), mode);
		emit(e, "\t  .maxsize = %s, .reads = %s, .writes = %s },",
		     maxsize ? xsprintf("%lld", (long long)maxsize) : "MAXSTRINGLEN",
		     reads[f], writes[f]);
	}
	emit(e, "};");
	emit_blank(e);
	emit(e, "static int _tap_procfs_family_start(void)");
	emit(e, "{");
	emit(e, "\treturn _tap_procfs_start(_tap_procfs_table, ARRAY_SIZE(_tap_procfs_table));");
	emit(e, "}");
	emit_blank(e);
	emit(e, "static void _tap_procfs_family_stop(void)");
	emit(e, "{");
	emit(e, "\t_tap_procfs_stop(_tap_procfs_table, ARRAY_SIZE(_tap_procfs_table));");
	emit(e, "}");
	emit_blank(e);
	out->start_fn = "_tap_procfs_family_start";
	out->stop_fn = "_tap_procfs_family_stop";
	return true;
}

static const char *procfs_ctx_expr(const EmitProbe *ep, const CtxVar *v, bool write)
{
	(void)ep;
	if (strcmp(v->name, "value"))
		return NULL;
	/* a write gets the buffer cut back to the file's size, so an
	 * append always has MAXSTRINGLEN bytes of room */
	if (write)
		return "_tap_procfs_value_w(pdata)";
	return "((struct _tap_procfs_call *)pdata)->value";
}

static const char *const procfs_shapes[] = {
	"procfs(s?)[.umask(n)].read[.maxsize(n)]",
	"procfs(s?)[.umask(n)].write",
	NULL
};

const ProbeFamily family_procfs = {
	.name = "procfs", .shapes = procfs_shapes, .resolve = resolve_procfs,
	.emit_decls = emit_procfs_decls, .emit_code = emit_procfs_code,
	.ctx_expr = procfs_ctx_expr,
};
