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

/* "name=" in the .modinfo section: what the kernel will call the module.
 * Returns 0 and fills name, or -ENOENT / -ENOEXEC. */
static int modinfo_name(const char *img, size_t size, char *name, size_t len)
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
		    sh[i].sh_offset > size ||
		    sh[i].sh_size > size - sh[i].sh_offset)
			continue;
		p = img + sh[i].sh_offset;
		end = p + sh[i].sh_size;
		while (p < end) {
			size_t n = strnlen(p, end - p);

			if (n > 5 && n < end - p && !strncmp(p, "name=", 5) &&
			    n - 5 < len) {
				memcpy(name, p + 5, n - 5);
				name[n - 5] = '\0';
				return 0;
			}
			p += n + 1;
		}
	}
	return -ENOENT;
}

/* The kernel's name for the module in path: its "name=" modinfo, else
 * the file name without ".ko", with '-' as '_' (as kbuild does). */
int module_name_of(const char *path, char *name, size_t size)
{
	const char *base = strrchr(path, '/');
	char *img;
	size_t len, i;
	int err;

	err = read_file(path, &img, &len);
	if (err) {
		msg_error(_("cannot read module '%s': %s"), path, strerror(-err));
		return err;
	}
	err = modinfo_name(img, len, name, size);
	free(img);
	if (err == -ENOEXEC) {
		msg_error(_("'%s' is not a kernel module (no 64-bit ELF)"),
			  path);
		return err;
	}
	if (!err)
		return 0;
	base = base ? base + 1 : path;
	len = strlen(base);
	if (len > 3 && !strcmp(base + len - 3, ".ko"))
		len -= 3;
	if (len == 0 || len >= size) {
		msg_error(_("cannot tell the module name of '%s'"), path);
		return -EINVAL;
	}
	for (i = 0; i < len; i++)
		name[i] = base[i] == '-' ? '_' : base[i];
	name[len] = '\0';
	return 0;
}

static const char *load_hint(int err)
{
	switch (err) {
	case EEXIST:
		return _("it is already loaded (\"taprun -d NAME\" removes it)");
	case EPERM:
		return _("loading modules needs root (CAP_SYS_MODULE)");
	case ENOEXEC:
		return _("it was not built for this kernel (see dmesg)");
	case ENOENT:
		return _("unknown symbols, built for another kernel? (see dmesg)");
	case EINVAL:
		return _("a bad parameter or a build for another kernel (see dmesg)");
	case EKEYREJECTED:
		return _("the kernel accepts signed modules only");
	default:
		return NULL;
	}
}

int module_load(const char *path, const char *name, const char *params)
{
	char *img;
	size_t size;
	int fd, err = 0;
	const char *hint;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		msg_error(_("module '%s': cannot open '%s': %s"), name, path,
			  strerror(errno));
		return err;
	}
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
	if (!err)
		return 0;
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
 * wait_ms; gone already counts as success. */
int module_unload(const char *name, int wait_ms)
{
	const struct timespec pause = { 0, 50 * 1000 * 1000 };
	int waited = 0, err;

	for (;;) {
		if (syscall(SYS_delete_module, name, O_NONBLOCK) == 0 ||
		    errno == ENOENT)
			return 0;
		err = errno;
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
