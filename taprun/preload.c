/* preload.c - before the module is loaded: its parameters checked against
 * the ones it has and put in the kernel's form, its kernel release
 * checked, and a module of the same name a dead taprun left removed.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "taprun.h"
#include "session.h"
#include "tap_wire.h"

/* "NAME=VALUE ..." for the kernel; a value with blanks is quoted. */
char *preload_params(void)
{
	size_t len = 64;
	char *buf, *p;
	int i;

	for (i = 0; i < opt.nparams; i++)
		len += strlen(opt.params[i]) + 4;
	buf = malloc(len);
	if (!buf)
		return NULL;
	p = buf;
	*p = '\0';
	for (i = 0; i < opt.nparams; i++) {
		const char *a = opt.params[i], *eq = strchr(a, '=');

		if (strpbrk(eq + 1, " \t") && !strchr(eq + 1, '"'))
			p += sprintf(p, "%s%.*s\"%s\"", p == buf ? "" : " ",
				     (int)(eq + 1 - a), a, eq + 1);
		else
			p += sprintf(p, "%s%s", p == buf ? "" : " ", a);
	}
	if (opt.buffer_mb)
		sprintf(p, "%s_tap_bufsize=%u", p == buf ? "" : " ",
			opt.buffer_mb * 1024);
	return buf;
}

/* Every NAME=VALUE must be a parameter of the module: the kernel would
 * ignore an unknown one with a note in its log, and the run would go on
 * without the value the user meant to give. */
int preload_check_params(const struct modinfo *mi)
{
	int i, j;

	for (i = 0; i < opt.nparams; i++) {
		const char *a = opt.params[i];
		size_t len = strcspn(a, "=");
		char list[512] = "";
		size_t used = 0;

		if (module_has_param(mi, a, len))
			continue;
		for (j = 0; j < mi->nparams && used < sizeof(list); j++) {
			if (!strncmp(mi->params[j], "_tap_", 5))
				continue;	/* the runtime's own */
			used += snprintf(list + used, sizeof(list) - used,
					 "%s%s", used ? ", " : "",
					 mi->params[j]);
		}
		if (used)
			msg_error(_("module '%s' has no parameter '%.*s' (it has: %s)"),
				  mi->name, (int)len, a, list);
		else
			msg_error(_("module '%s' has no parameter '%.*s'"),
				  mi->name, (int)len, a);
		return -EINVAL;
	}
	return 0;
}

/* A module only loads into the kernel it was built for (the kernel would
 * refuse it with a note in its log, or with a vague error). */
int preload_check_release(const struct modinfo *mi)
{
	struct utsname u;

	if (!mi->release[0] || uname(&u) < 0 || !strcmp(u.release, mi->release))
		return 0;
	msg_error(_("module '%s' was built for kernel %s, but this kernel is %s (build it again with \"tapc -r %s\")"),
		  mi->name, mi->release, u.release, u.release);
	return -ENOEXEC;
}

/* A module of this name is loaded already.  If it is a tapc module that
 * no taprun is attached to (its ctl opens: ctl has one opener at a time),
 * an earlier taprun died without unloading it; closing ctl ended its
 * session if it was still running, so it is removed.  0 if it is gone. */
int preload_remove_stale(const char *name)
{
	char path[PATH_MAX + 80];
	int fd;

	snprintf(path, sizeof(path), "%s/%s%s/ctl", control_debugfs_dir(),
		 TAP_DIR_PREFIX, name);
	fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		snprintf(path, sizeof(path), "/proc/%s%s/ctl", TAP_DIR_PREFIX,
			 name);
		fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	}
	if (fd < 0) {
		if (errno == EBUSY)
			msg_error(_("module '%s' is already loaded and another taprun is running it"),
				  name);
		else
			msg_error(_("module '%s' is already loaded (\"taprun -d %s\" removes it)"),
				  name, name);
		return -EEXIST;
	}
	close(fd);
	msg_warning(_("module '%s' was left loaded by a taprun that is gone; removing it"),
		    name);
	return module_unload(name, UNLOAD_WAIT_MS, true);
}
