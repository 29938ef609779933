/* module.c - load and unload a kernel module, and learn its name. */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "taprun.h"

static int read_file(const char *path, char **data, size_t *size)
{
	struct stat st;
	size_t got = 0;
	char *buf;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	buf = malloc(st.st_size ? st.st_size : 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, st.st_size - got);

		if (n <= 0) {
			err = n < 0 ? -errno : -EIO;
			free(buf);
			close(fd);
			return err;
		}
		got += n;
	}
	close(fd);
	*data = buf;
	*size = got;
	return 0;
}

/* Call fn for each NUL-terminated "key=value" string of the .modinfo
 * section.  Returns 0, or -ENOEXEC when img is no 64-bit ELF. */
static int modinfo_each(const char *img, size_t size,
			void (*fn)(void *arg, const char *s, size_t len),
			void *arg)
{
	const Elf64_Ehdr *eh = (const void *)img;
	const Elf64_Shdr *sh, *strsec;
	int i;

	if (size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    eh->e_shoff > size ||
	    eh->e_shnum > (size - eh->e_shoff) / sizeof(Elf64_Shdr) ||
	    eh->e_shstrndx >= eh->e_shnum)
		return -ENOEXEC;
	sh = (const void *)(img + eh->e_shoff);
	strsec = &sh[eh->e_shstrndx];
	if (strsec->sh_offset > size || strsec->sh_size > size - strsec->sh_offset)
		return -ENOEXEC;
	for (i = 0; i < eh->e_shnum; i++) {
		const char *p, *end;

		if (sh[i].sh_name >= strsec->sh_size ||
		    strncmp(img + strsec->sh_offset + sh[i].sh_name, ".modinfo",
			    strsec->sh_size - sh[i].sh_name) ||
		    sh[i].sh_type == SHT_NOBITS ||
		    sh[i].sh_offset > size ||
		    sh[i].sh_size > size - sh[i].sh_offset)
			continue;
		p = img + sh[i].sh_offset;
		end = p + sh[i].sh_size;
		while (p < end) {
			size_t n = strnlen(p, end - p);

			if (n && n < (size_t)(end - p))
				fn(arg, p, n);
			p += n + 1;
		}
	}
	return 0;
}

static bool has_key(const char *s, size_t len, const char *key)
{
	size_t k = strlen(key);

	return len > k && !strncmp(s, key, k);
}

/* Copy the value of "key=value" (at most size - 1 bytes of it). */
static void copy_value(char *dst, size_t size, const char *s, size_t len,
		       size_t keylen)
{
	size_t n = len - keylen;

	if (n >= size)
		n = size - 1;
	memcpy(dst, s + keylen, n);
	dst[n] = '\0';
}

static void take_modinfo(void *arg, const char *s, size_t len)
{
	struct modinfo *mi = arg;

	if (has_key(s, len, "name=") && !mi->name[0]) {
		copy_value(mi->name, sizeof(mi->name), s, len, 5);
	} else if (has_key(s, len, "vermagic=") && !mi->release[0]) {
		/* "6.1.0-56-amd64 SMP preempt mod_unload modversions " */
		const char *v = s + 9, *sp = memchr(v, ' ', len - 9);

		copy_value(mi->release, sizeof(mi->release), s,
			   sp ? (size_t)(sp - s) : len, 9);
	} else if (has_key(s, len, "parmtype=") || has_key(s, len, "parm=")) {
		/* "parmtype=NAME:TYPE" (module_param(), or tapc's globals),
		 * "parm=NAME:TEXT" (MODULE_PARM_DESC()) */
		size_t k = s[4] == '=' ? 5 : 9;
		const char *v = s + k, *colon = memchr(v, ':', len - k);
		char **grown;

		if (!colon || colon == v ||
		    module_has_param(mi, v, colon - v))
			return;
		grown = realloc(mi->params, (mi->nparams + 1) * sizeof(*grown));
		if (!grown)
			return;
		mi->params = grown;
		mi->params[mi->nparams] = strndup(v, colon - v);
		if (mi->params[mi->nparams])
			mi->nparams++;
	}
}

/* What the module file says about itself (modinfo_free() it). */
int module_info(const char *path, struct modinfo *mi)
{
	const char *base = strrchr(path, '/');
	char *img;
	size_t len, i;
	int err;

	memset(mi, 0, sizeof(*mi));
	err = read_file(path, &img, &len);
	if (err) {
		msg_error(_("cannot read module '%s': %s"), path, strerror(-err));
		return err;
	}
	err = modinfo_each(img, len, take_modinfo, mi);
	free(img);
	if (err == -ENOEXEC) {
		msg_error(_("'%s' is not a kernel module (no 64-bit ELF)"),
			  path);
		modinfo_free(mi);
		return err;
	}
	if (mi->name[0])
		return 0;
	/* No "name=": the file name without ".ko", with '-' as '_' (as
	 * kbuild does). */
	base = base ? base + 1 : path;
	len = strlen(base);
	if (len > 3 && !strcmp(base + len - 3, ".ko"))
		len -= 3;
	if (len == 0 || len >= sizeof(mi->name)) {
		msg_error(_("cannot tell the module name of '%s'"), path);
		modinfo_free(mi);
		return -EINVAL;
	}
	for (i = 0; i < len; i++)
		mi->name[i] = base[i] == '-' ? '_' : base[i];
	mi->name[len] = '\0';
	return 0;
}

void modinfo_free(struct modinfo *mi)
{
	int i;

	for (i = 0; i < mi->nparams; i++)
		free(mi->params[i]);
	free(mi->params);
	mi->params = NULL;
	mi->nparams = 0;
}

bool module_has_param(const struct modinfo *mi, const char *name,
		      size_t len)
{
	int i;

	for (i = 0; i < mi->nparams; i++)
		if (strlen(mi->params[i]) == len &&
		    !strncmp(mi->params[i], name, len))
			return true;
	return false;
}

static const char *load_hint(int err)
{
	switch (err) {
	case EPERM:
		return _("loading modules needs root (CAP_SYS_MODULE)");
	case ENOEXEC:
		return _("it was not built for this kernel (see dmesg)");
	case ENOENT:
		return _("unknown symbols, built for another kernel? (see dmesg)");
	case EINVAL:
		return _("a bad parameter or a build for another kernel (see dmesg)");
	default:
		return NULL;
	}
}

int module_load(const char *path, const char *name, const char *params)
{
	char *img;
	size_t size;
	int fd, kmsg, err = 0;
	const char *hint;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		msg_error(_("module '%s': cannot open '%s': %s"), name, path,
			  strerror(errno));
		return err;
	}
	kmsg = sig_watch_start();	/* why a signature was refused */
	if (syscall(SYS_finit_module, fd, params, 0) < 0)
		err = -errno;
	close(fd);
	/* Old kernels, or a file system finit_module cannot read from. */
	if (err == -ENOSYS || err == -EOPNOTSUPP || err == -EBADF) {
		err = read_file(path, &img, &size);
		if (!err) {
			if (syscall(SYS_init_module, img, size, params) < 0)
				err = -errno;
			free(img);
		}
	}
	if (!err || err == -EEXIST) {	/* the caller looks into EEXIST */
		if (kmsg >= 0)
			close(kmsg);
		return err;
	}
	if (sig_explain(kmsg, path, name, -err))
		return err;
	hint = load_hint(-err);
	if (hint)
		msg_error(_("module '%s': cannot load '%s': %s: %s"), name,
			  path, strerror(-err), hint);
	else
		msg_error(_("module '%s': cannot load '%s': %s"), name, path,
			  strerror(-err));
	return err;
}

/* Retries while the module is busy (files still being closed) for up to
 * wait_ms.  A module that is not loaded is an error only when the user
 * named it (-d); after a run it may be gone already. */
int module_unload(const char *name, int wait_ms, bool missing_ok)
{
	const struct timespec pause = { 0, 50 * 1000 * 1000 };
	int waited = 0, err;

	for (;;) {
		if (syscall(SYS_delete_module, name, O_NONBLOCK) == 0)
			return 0;
		err = errno;
		if (err == ENOENT) {
			if (missing_ok)
				return 0;
			msg_error(_("module '%s' is not loaded"), name);
			return -ENOENT;
		}
		if ((err != EAGAIN && err != EBUSY) || waited >= wait_ms)
			break;
		nanosleep(&pause, NULL);
		waited += 50;
	}
	if (err == EAGAIN || err == EBUSY)
		msg_error(_("module '%s': cannot unload, still in use; remove it later with \"taprun -d %s\""),
			  name, name);
	else
		msg_error(_("module '%s': cannot unload: %s"), name,
			  strerror(err));
	return -err;
}
