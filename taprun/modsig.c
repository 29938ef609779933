/* modsig.c - why the kernel refused a module for its signature, and what
 * to do about it.
 *
 * The kernel gives few errors for many causes (kernel/module/signing.c):
 * with module.sig_enforce (or CONFIG_MODULE_SIG_FORCE) an unsigned module
 * and one signed with a key it does not hold both fail with EKEYREJECTED,
 * and so does a signature whose key it holds but which does not match the
 * module; under lockdown (Secure Boot) the first two fail with EPERM
 * instead; a malformed signature is EBADMSG.  The module file tells
 * signed from unsigned, and the notice the kernel logs when enforcement
 * rejects a module ("Loading of module with unavailable key is rejected")
 * tells an unknown key from a wrong signature.  So module_load() watches
 * the kernel log from just before the load (sig_watch_start()) and asks
 * here afterwards (sig_explain()).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "taprun.h"

#define SIG_MARKER "~Module signature appended~\n"

/* Whether the file at PATH ends with an appended module signature. */
static bool file_is_signed(const char *path)
{
	char tail[sizeof(SIG_MARKER) - 1];
	off_t end;
	bool yes;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	end = lseek(fd, 0, SEEK_END);
	yes = end >= (off_t)sizeof(tail) &&
	      pread(fd, tail, sizeof(tail), end - sizeof(tail)) == (ssize_t)sizeof(tail) &&
	      !memcmp(tail, SIG_MARKER, sizeof(tail));
	close(fd);
	return yes;
}

/* The first line of a small file (sysfs), or "" */
static void read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");

	buf[0] = '\0';
	if (!f)
		return;
	if (!fgets(buf, size, f))
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

static bool sig_enforced(void)
{
	char v[8];

	read_line("/sys/module/module/parameters/sig_enforce", v, sizeof(v));
	return v[0] == 'Y' || v[0] == '1';
}

/* Lockdown "integrity" or "confidentiality": the selected mode is in
 * brackets ("none [integrity] confidentiality"). */
bool locked_down(void)
{
	char v[128];

	read_line("/sys/kernel/security/lockdown", v, sizeof(v));
	return strstr(v, "[integrity]") || strstr(v, "[confidentiality]");
}

int sig_watch_start(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0 && lseek(fd, 0, SEEK_END) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* What the kernel said about module signatures since sig_watch_start(). */
enum notice { N_UNREAD, N_NONE, N_UNSIGNED, N_NO_KEY, N_CRYPTO, N_LOCKDOWN };

static enum notice read_notices(int fd)
{
	enum notice n = N_NONE;
	char rec[2048];
	ssize_t len;

	if (fd < 0)
		return N_UNREAD;
	/* one record a read; EAGAIN at the end, EPIPE when some were
	 * overwritten (read on) */
	while ((len = read(fd, rec, sizeof(rec) - 1)) != 0) {
		if (len < 0) {
			if (errno == EPIPE || errno == EINTR)
				continue;
			break;
		}
		rec[len] = '\0';
		if (strstr(rec, "Loading of unsigned module is rejected"))
			n = N_UNSIGNED;
		else if (strstr(rec, "Loading of module with unavailable key is rejected"))
			n = N_NO_KEY;
		else if (strstr(rec, "Loading of module with unsupported crypto is rejected"))
			n = N_CRYPTO;
		else if (strstr(rec, "Lockdown:") && strstr(rec, "module"))
			n = N_LOCKDOWN;
	}
	return n;
}

bool sig_explain(int kmsg_fd, const char *path, const char *name, int err)
{
	bool is_signed, lockdown;
	enum notice n;

	if (err != EKEYREJECTED && err != EPERM && err != EBADMSG &&
	    err != ENOKEY && err != ENOPKG) {
		if (kmsg_fd >= 0)
			close(kmsg_fd);
		return false;
	}
	n = read_notices(kmsg_fd);
	if (kmsg_fd >= 0)
		close(kmsg_fd);
	is_signed = file_is_signed(path);
	/* Enforcement is checked first and refuses with EKEYREJECTED; only
	 * without it does lockdown refuse, with EPERM.  EPERM is also a
	 * loader without CAP_SYS_MODULE: the caller says that when lockdown
	 * is not the reason. */
	lockdown = err == EPERM && (n == N_LOCKDOWN || locked_down());
	if (err == EPERM && !lockdown)
		return false;

	if (!is_signed && err != EBADMSG) {
		msg_error(_("module '%s': the kernel refused '%s': it loads signed modules only (%s) and this one is not signed; build it with \"tapc --sign-module\" and enroll that key's certificate on this host (\"mokutil --import signing_key.x509\" from the key's folder, then a reboot)"),
			  name, path,
			  lockdown ? _("lockdown, as under Secure Boot") :
			  _("module.sig_enforce"));
		return true;
	}
	if (err == EBADMSG) {
		msg_error(_("module '%s': the kernel refused '%s': its signature is malformed (the file was damaged after signing); build and sign it again with \"tapc --sign-module\""),
			  name, path);
		return true;
	}
	if (n == N_CRYPTO || err == ENOPKG) {
		msg_error(_("module '%s': the kernel refused '%s': it cannot check the signature's algorithm; sign it again with the digest the kernel's CONFIG_MODULE_SIG_HASH names (\"tapc --sign-module\" does)"),
			  name, path);
		return true;
	}
	if (n == N_NO_KEY || err == ENOKEY || lockdown) {
		msg_error(_("module '%s': the kernel refused '%s': it is signed with a key this kernel does not trust; enroll that key's certificate on this host (\"mokutil --import signing_key.x509\" from tapc's --sign-module folder, then a reboot), or sign it with a key the kernel trusts"),
			  name, path);
		return true;
	}
	if (n == N_NONE || !sig_enforced()) {
		/* the key was found (or enforcement is off, where an unknown
		 * key is no error): the signature itself does not check */
		msg_error(_("module '%s': the kernel refused '%s': its signature does not match the module (the file was changed after signing, or signed for another file); build and sign it again with \"tapc --sign-module\""),
			  name, path);
		return true;
	}
	msg_error(_("module '%s': the kernel refused '%s': it did not accept the signature: either its key is not trusted here (enroll the certificate: \"mokutil --import signing_key.x509\", then a reboot) or the signature does not match the module (build and sign it again with \"tapc --sign-module\"); the kernel log says which"),
		  name, path);
	return true;
}
