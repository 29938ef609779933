/*
 * procfs.c - procfs("NAME").read / .write probes: files under
 * /proc/systemtap/MODULE/.
 *
 * Pass 3 emits one struct _tap_procfs_file per file name (the read and
 * write probes of that name hang on it, in module order) and calls
 * _tap_procfs_start() from tap_on_start() and _tap_procfs_stop() from
 * tap_on_stop().
 *
 *   read   each open of the file gets its own buffer (bufsize bytes: the
 *          .maxsize of the read probes, at least MAXSTRINGLEN, and room
 *          for one more string, so `$value .= s` appends in place up to
 *          bufsize; .maxsize cuts what the reader gets); the first
 *          read() runs the read probes on it (each sees what the one
 *          before it left in $value) and the reads of that open return
 *          it.  Another open runs them again.
 *   write  every write() runs the write probes once per piece of at most
 *          MAXSTRINGLEN - 1 bytes, $value holding the piece.
 *
 * The probe runs of one file are serialised by its mutex (they would
 * mostly contend for the same globals anyway); a reader reads its own
 * buffer outside it.  Concurrent reads of one open file (threads sharing
 * it) are not ordered beyond what the kernel's f_pos lock gives.  The probes run in the caller's process context, through
 * tap_context_enter(): before the session runs (or once it stops) a read
 * gives an empty file and a write is accepted and dropped.
 *
 * /proc/systemtap is shared by every module: it is created when missing
 * and left in place (an empty procfs folder holds no code of ours); the
 * module's own folder and files are removed at the stop, which waits for
 * the calls in progress (proc_remove) and closes the open files.
 */
#ifndef TAP_PROBES_PROCFS_C
#define TAP_PROBES_PROCFS_C

#include "probe_common.h"

#include <linux/proc_fs.h>
#include <linux/namei.h>
#include <linux/mutex.h>
#include <linux/uaccess.h>

/* What a probe body's $value reads and writes (pdata of tapp_N). */
struct _tap_procfs_call {
	char *value;		/* read: the file's buffer; write: the piece */
	size_t size;		/* read: the file's size limit (bufsize) */
};

typedef void (*_tap_procfs_fn)(struct _tap_procfs_call *call);

struct _tap_procfs_file {
	/* from pass 3 */
	const char *name;		/* relative to the module's folder */
	umode_t mode;
	size_t maxsize;			/* content limit of a read */
	const _tap_procfs_fn *reads;	/* NULL-terminated, or NULL */
	const _tap_procfs_fn *writes;

	/* run time */
	struct proc_dir_entry *pde;
	struct mutex lock;		/* one probe run of the file at a time */
};

/* One open file. */
struct _tap_procfs_open {
	struct _tap_procfs_file *f;
	char *buf;			/* read: bufsize + 1 bytes */
	size_t len;
	bool filled;
};

static struct proc_dir_entry *_tap_procfs_dir;

static size_t _tap_procfs_bufsize(const struct _tap_procfs_file *f)
{
	return max_t(size_t, f->maxsize, MAXSTRINGLEN);
}

/* $value of a read probe as an assignment's target: the text is cut
 * back to the file's size, and the buffer has MAXSTRINGLEN bytes of
 * room past that for `$value .= s`. */
static __maybe_unused char *_tap_procfs_value_w(void *pdata)
{
	struct _tap_procfs_call *call = pdata;

	if (call->size)
		call->value[call->size] = '\0';
	return call->value;
}

static void _tap_procfs_run(const _tap_procfs_fn *fns, char *value, size_t size)
{
	struct _tap_procfs_call call = { .value = value, .size = size };

	for (; fns && *fns; fns++)
		(*fns)(&call);
}

static int _tap_procfs_open(struct inode *inode, struct file *file)
{
	struct _tap_procfs_file *f = pde_data(inode);
	struct _tap_procfs_open *o;

	/* root may open what the mode forbids: no probe, no access */
	if (((file->f_mode & FMODE_READ) && !f->reads) ||
	    ((file->f_mode & FMODE_WRITE) && !f->writes))
		return -EACCES;
	o = tap_alloc(sizeof(*o));
	if (!o)
		return -ENOMEM;
	o->f = f;
	if (file->f_mode & FMODE_READ) {
		o->buf = tap_alloc(_tap_procfs_bufsize(f) + MAXSTRINGLEN + 1);
		if (!o->buf) {
			tap_free(o);
			return -ENOMEM;
		}
	}
	file->private_data = o;
	return 0;
}

static int _tap_procfs_release(struct inode *inode, struct file *file)
{
	struct _tap_procfs_open *o = file->private_data;

	tap_free(o->buf);
	tap_free(o);
	return 0;
}

static ssize_t _tap_procfs_read(struct file *file, char __user *ubuf,
				size_t count, loff_t *ppos)
{
	struct _tap_procfs_open *o = file->private_data;
	ssize_t ret;

	if (!o->buf)
		return -EBADF;
	mutex_lock(&o->f->lock);
	if (!o->filled) {
		size_t size = _tap_procfs_bufsize(o->f);

		o->buf[0] = '\0';
		_tap_procfs_run(o->f->reads, o->buf, size);
		o->buf[size] = '\0';
		o->len = min(strlen(o->buf), o->f->maxsize);
		o->filled = true;
	}
	mutex_unlock(&o->f->lock);
	ret = simple_read_from_buffer(ubuf, count, ppos, o->buf, o->len);
	return ret;
}

static ssize_t _tap_procfs_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	struct _tap_procfs_open *o = file->private_data;
	char *piece;
	size_t done = 0;
	ssize_t ret = 0;

	piece = tap_alloc(MAXSTRINGLEN);
	if (!piece)
		return -ENOMEM;
	mutex_lock(&o->f->lock);
	while (done < count) {
		size_t n = min_t(size_t, count - done, MAXSTRINGLEN - 1);

		if (copy_from_user(piece, ubuf + done, n)) {
			ret = -EFAULT;
			break;
		}
		piece[n] = '\0';
		_tap_procfs_run(o->f->writes, piece, 0);
		done += n;
	}
	mutex_unlock(&o->f->lock);
	tap_free(piece);
	if (done) {
		*ppos += done;
		return done;
	}
	return ret;
}

static const struct proc_ops _tap_procfs_ops = {
	.proc_open = _tap_procfs_open,
	.proc_release = _tap_procfs_release,
	.proc_read = _tap_procfs_read,
	.proc_write = _tap_procfs_write,
	.proc_lseek = default_llseek,
};

/* /proc/systemtap, made when missing.  NULL parent pointers are how
 * procfs names a path from its root; proc_mkdir() of a folder that
 * exists would warn, so look first. */
static int _tap_procfs_root(void)
{
	struct path path;

	if (kern_path("/proc/systemtap", LOOKUP_DIRECTORY, &path) == 0) {
		path_put(&path);
		return 0;
	}
	return proc_mkdir("systemtap", NULL) ? 0 : -ENOMEM;
}

/* The folders of NAME ("a/b/file": "a", "a/b") under the module's
 * folder, those the files before it have not made already. */
static int _tap_procfs_mkdirs(struct _tap_procfs_file *t, int i)
{
	char dir[256];
	const char *name = t[i].name, *slash;
	int j;

	for (slash = strchr(name, '/'); slash; slash = strchr(slash + 1, '/')) {
		size_t n = slash - name;
		bool made = false;

		if (n >= sizeof(dir))
			return -ENAMETOOLONG;
		memcpy(dir, name, n);
		dir[n] = '\0';
		for (j = 0; j < i && !made; j++)
			made = !strncmp(t[j].name, dir, n) && t[j].name[n] == '/';
		if (!made && !proc_mkdir(dir, _tap_procfs_dir))
			return -ENOMEM;
	}
	return 0;
}

static void _tap_procfs_stop(struct _tap_procfs_file *t, int n)
{
	int i;

	if (!_tap_procfs_dir)
		return;
	/* removes the files and folders below, waiting for the calls in
	 * progress, and closes the open files */
	proc_remove(_tap_procfs_dir);
	_tap_procfs_dir = NULL;
	for (i = 0; i < n; i++)
		t[i].pde = NULL;
}

static int _tap_procfs_start(struct _tap_procfs_file *t, int n)
{
	char path[64 + MODULE_NAME_LEN];
	int i, ret;

	ret = _tap_procfs_root();
	if (ret)
		goto fail;
	snprintf(path, sizeof(path), "systemtap/%s", KBUILD_MODNAME);
	_tap_procfs_dir = proc_mkdir(path, NULL);
	if (!_tap_procfs_dir) {
		ret = -EEXIST;
		goto fail;
	}
	for (i = 0; i < n; i++) {
		mutex_init(&t[i].lock);
		ret = _tap_procfs_mkdirs(t, i);
		if (ret)
			goto fail;
		t[i].pde = proc_create_data(t[i].name, t[i].mode, _tap_procfs_dir,
					    &_tap_procfs_ops, &t[i]);
		if (!t[i].pde) {
			ret = -ENOMEM;
			goto fail;
		}
	}
	return 0;

fail:
	_tap_procfs_stop(t, n);
	snprintf(path, sizeof(path), "cannot create /proc/systemtap/%s (rc %d)",
		 KBUILD_MODNAME, ret);
	tap_msg_error(path);
	return ret;
}

#endif /* TAP_PROBES_PROCFS_C */
