/* sign.c - --sign-module: a key pair of the user's own for signing
 * modules, made with openssl the first time, and the signature itself
 * written by the target kbuild's scripts/sign-file, so the format is the
 * kernel's own (the module, then a PKCS#7 signature, a struct
 * module_signature and the "~Module signature appended~" marker). */
#include "sign.h"
#include "sha256.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* The names the kernel's own build gives its key pair: the private key
 * (PEM) and the certificate (DER, which mokutil --import takes). */
#define KEY_NAME "signing_key.pem"
#define CERT_NAME "signing_key.x509"
/* What sign-file appends last; a module ending so is signed already. */
#define SIG_MARKER "~Module signature appended~\n"

static bool requested;
static const char *key_dir;        /* --sign-module=DIR, then the folder used */
static const char *identity;       /* the certificate's SHA-256 */

void sign_request(const char *dir)
{
	requested = true;
	key_dir = dir && *dir ? dir : NULL;
}

bool sign_requested(void)
{
	return requested;
}

const char *sign_identity(void)
{
	return requested ? identity : NULL;
}

/* The last line of a program's output, for an error message. */
static const char *last_line(StrBuf *out)
{
	const char *s = sb_cstr(out);
	size_t n = strlen(s);
	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		n--;
	size_t b = n;
	while (b && s[b - 1] != '\n')
		b--;
	return n > b ? xstrndup(s + b, n - b) : "?";
}

/* ================= the key pair ================= */

/* $XDG_DATA_HOME/tapc/keys, else ~/.local/share/tapc/keys. */
static const char *default_key_dir(void)
{
	const char *base = user_data_dir();
	return base ? xsprintf("%s/keys", base) : NULL;
}

/* A word safe in openssl's configuration file: letters, digits, '.',
 * '-' and '_' kept, anything else '_'. */
static const char *config_word(const char *s)
{
	char *w = xstrdup(s && *s ? s : "unknown");
	for (char *p = w; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '.' || *p == '-' || *p == '_'))
			*p = '_';
	return w;
}

/* openssl req's configuration: a self-signed certificate for code
 * signing, good for a century (the kernel does not check dates; a key
 * enrolled in MOK should not lapse), named after the user and host so
 * that several enrolled keys can be told apart (mokutil --list-enrolled,
 * modinfo's signer). */
static const char *openssl_config(void)
{
	char host[256] = "";
	gethostname(host, sizeof host - 1);
	struct passwd *pw = getpwuid(getuid());
	const char *user = pw ? pw->pw_name : getenv("USER");
	StrBuf sb = { 0 };
	sb_puts(&sb, "# written by tapc --sign-module for openssl req\n"
		"[ req ]\n"
		"distinguished_name = subject\n"
		"x509_extensions = module_signing\n"
		"string_mask = utf8only\n"
		"prompt = no\n"
		"\n[ subject ]\n"
		"O = tapc\n");
	sb_printf(&sb, "CN = tapc module signing key %s@%s\n",
		  config_word(user), config_word(host));
	/* Not a CA; a signature key for code: what the kernel's keyring
	 * and shim's MOK manager accept for module signing. */
	sb_puts(&sb, "\n[ module_signing ]\n"
		"basicConstraints = critical,CA:FALSE\n"
		"keyUsage = digitalSignature\n"
		"extendedKeyUsage = codeSigning\n"
		"subjectKeyIdentifier = hash\n"
		"authorityKeyIdentifier = keyid\n");
	const char *r = xstrdup(sb_cstr(&sb));
	sb_free(&sb);
	return r;
}

/* Make the pair in DIR with openssl, under a lock so that two tapc
 * runs at once do not mix two pairs.  true when this run made it. */
static bool generate_pair(const char *dir, const char *key, const char *cert,
			  bool *made)
{
	*made = false;
	int lock = open(xsprintf("%s/.lock", dir), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (lock < 0 || flock(lock, LOCK_EX) != 0) {
		error_plain(_("--sign-module: cannot lock %s/.lock: %s"), dir, strerror(errno));
		if (lock >= 0)
			close(lock);
		return false;
	}
	if (is_file(key) && is_file(cert)) {   /* another run made it meanwhile */
		close(lock);
		return true;
	}
	const char *cfg = xsprintf("%s/.openssl.cnf", dir);
	const char *tkey = xsprintf("%s.new", key), *tcert = xsprintf("%s.new", cert);
	const char *text = openssl_config();
	bool ok = write_file_atomic(cfg, text, strlen(text));
	if (!ok) {
		error_plain(_("--sign-module: cannot write %s: %s"), cfg, strerror(errno));
		close(lock);
		return false;
	}
	const char *argv[] = { "openssl", "req", "-new", "-x509", "-newkey", "rsa:4096",
			       "-nodes", "-sha256", "-days", "36500", "-batch",
			       "-config", cfg, "-outform", "DER", "-out", tcert,
			       "-keyout", tkey, NULL };
	StrBuf out = { 0 };
	mode_t old = umask(077);   /* the private key is the user's only */
	verbose(1, _("Pass 4: making a module signing key in %s\n"), dir);
	int st = run_program(argv, &out, false);
	umask(old);
	unlink(cfg);
	if (st != 0 || !is_file(tkey) || !is_file(tcert)) {
		error_plain(_("--sign-module: openssl could not make a key pair in %s: %s"),
			    dir, last_line(&out));
		unlink(tkey);
		unlink(tcert);
		sb_free(&out);
		close(lock);
		return false;
	}
	sb_free(&out);
	/* the key first: a certificate alone is never taken for a pair */
	if (rename(tkey, key) != 0 || rename(tcert, cert) != 0) {
		error_plain(_("--sign-module: cannot write the key pair in %s: %s"),
			    dir, strerror(errno));
		close(lock);
		return false;
	}
	close(lock);
	chmod(cert, 0644);   /* the certificate is public */
	*made = true;
	return true;
}

static const char *cert_fingerprint(const char *cert)
{
	Sha256 s;
	sha256_init(&s);
	size_t len;
	char *der = read_whole_file(cert, &len);
	if (!der)
		return NULL;
	sha256_update(&s, der, len);
	return sha256_hex(&s, 64);
}

/* ================= the target's sign-file ================= */

/* Debian's kbuild trees lead their scripts/ to /usr/lib/linux-kbuild-V
 * (package linux-kbuild-V): the package a missing sign-file is in. */
static const char *kbuild_package(const char *tree)
{
	char link[4096];
	ssize_t n = readlink(xsprintf("%s/scripts", tree), link, sizeof link - 1);
	if (n <= 0)
		return NULL;
	link[n] = 0;
	const char *p = strstr(link, "linux-kbuild-");
	if (!p)
		return NULL;
	return xstrndup(p, strcspn(p, "/"));
}

static const char *sign_file_path(void)
{
	return xsprintf("%s/scripts/sign-file", kernel_build_tree());
}

static bool check_sign_file(void)
{
	const char *tool = sign_file_path();
	if (access(tool, X_OK) == 0)
		return true;
	const char *pkg = kbuild_package(kernel_build_tree());
	if (pkg)
		error_plain(_("--sign-module: no %s: install the package %s"), tool, pkg);
	else
		error_plain(_("--sign-module: no %s: the kernel build tree for %s has no "
			      "sign-file (Debian's linux-kbuild-VERSION package has it)"),
			    tool, target_release());
	return false;
}

/* The digest the target's kernel checks module signatures with. */
static const char *target_sig_hash(void)
{
	const char *h = target_config("CONFIG_MODULE_SIG_HASH");
	if (h && *h)
		return h;
	static bool told;
	if (!told) {
		told = true;
		warning_plain(_("--sign-module: kernel %s checks no module signatures "
				"(CONFIG_MODULE_SIG_HASH is not in its configuration); "
				"signing with sha256"), target_release());
	}
	return "sha256";
}

bool sign_prepare(void)
{
	if (!requested)
		return true;
	if (!key_dir)
		key_dir = default_key_dir();
	if (!key_dir) {
		error_plain(_("--sign-module: no home folder for the signing key; "
			      "name a folder with --sign-module=DIR"));
		return false;
	}
	if (!check_sign_file())
		return false;
	const char *key = xsprintf("%s/%s", key_dir, KEY_NAME);
	const char *cert = xsprintf("%s/%s", key_dir, CERT_NAME);
	bool have_key = is_file(key), have_cert = is_file(cert);
	if (have_key != have_cert) {
		error_plain(_("--sign-module: %s holds %s but not %s: put the pair's other "
			      "half back, or remove it for a new pair"),
			    key_dir, have_key ? KEY_NAME : CERT_NAME,
			    have_key ? CERT_NAME : KEY_NAME);
		return false;
	}
	if (!have_key) {
		if (!program_on_path("openssl")) {
			error_plain(_("--sign-module: no openssl to make the signing key in "
				      "%s: install the package openssl"), key_dir);
			return false;
		}
		if (!make_dirs(key_dir) || chmod(key_dir, 0700) != 0) {
			error_plain(_("--sign-module: cannot make the folder %s: %s"), key_dir,
				    strerror(errno));
			return false;
		}
		bool made;
		if (!generate_pair(key_dir, key, cert, &made))
			return false;
		if (made)
			fprintf(stderr, _("tapc: made a module signing key in %s.\n"
					  "tapc: For a host with Secure Boot (or module.sig_enforce=1) "
					  "to load modules signed with it, enroll its certificate there "
					  "once, as root:\n"
					  "tapc:     mokutil --import %s\n"
					  "tapc: then reboot and confirm the key in the MOK manager.\n"),
				key_dir, cert);
	}
	identity = cert_fingerprint(cert);
	if (!identity) {
		error_plain(_("--sign-module: cannot read %s: %s"), cert, strerror(errno));
		return false;
	}
	key_dir = xstrdup(key_dir);
	return true;
}

/* Whether the module file ends with a signature already. */
static bool is_signed(const char *ko)
{
	int fd = open(ko, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	char tail[sizeof SIG_MARKER - 1];
	off_t end = lseek(fd, 0, SEEK_END);
	bool yes = end >= (off_t)sizeof tail &&
		pread(fd, tail, sizeof tail, end - sizeof tail) == (ssize_t)sizeof tail &&
		!memcmp(tail, SIG_MARKER, sizeof tail);
	close(fd);
	return yes;
}

bool sign_module_file(const char *ko)
{
	if (!requested)
		return true;
	if (!identity && !sign_prepare())
		return false;
	if (is_signed(ko))
		return true;
	const char *hash = target_sig_hash();
	const char *key = xsprintf("%s/%s", key_dir, KEY_NAME);
	const char *cert = xsprintf("%s/%s", key_dir, CERT_NAME);
	const char *argv[] = { sign_file_path(), hash, key, cert, ko, NULL };
	StrBuf out = { 0 };
	verbose(2, _("Pass 4: signing %s with %s (%s)\n"), ko, cert, hash);
	int st = run_program(argv, &out, false);
	bool ok = st == 0 && is_signed(ko);
	if (!ok)
		error_plain(_("--sign-module: %s could not sign %s with %s: %s"),
			    sign_file_path(), ko, hash, last_line(&out));
	sb_free(&out);
	return ok;
}
