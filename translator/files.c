/* files.c - files and folders: whole files read and written (source files
 * among them), folders made, listed and removed, files copied, where tapc
 * keeps its cache and finds its own installed data (tapsets, runtime), and
 * the temporary folders a signal must not leave behind. */
#include "files.h"

#include <dirent.h>
#include <fcntl.h>
#include <errno.h>
#include <ftw.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- whole files ---- */

SrcFile *srcfile_new(const char *name, const char *text, size_t len)
{
	SrcFile *f = NEW(SrcFile);
	f->name = intern(name);
	char *t = xalloc(len + 1);
	memcpy(t, text, len);
	f->text = t;
	f->len = len;
	return f;
}

char *read_whole_file(const char *path, size_t *len)
{
	FILE *fp = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	if (!fp)
		return NULL;
	StrBuf sb = { 0 };
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, fp)) > 0)
		sb_putn(&sb, buf, n);
	int err = ferror(fp) ? EIO : 0;
	if (fp != stdin)
		fclose(fp);
	if (err) {
		sb_free(&sb);
		errno = err;
		return NULL;
	}
	char *r = xstrndup(sb_cstr(&sb), sb.len);
	if (len)
		*len = sb.len;
	sb_free(&sb);
	return r;
}

SrcFile *srcfile_read(const char *path, const char *shown_name)
{
	size_t len;
	char *text = read_whole_file(path, &len);
	if (!text)
		return NULL;
	SrcFile *f = NEW(SrcFile);
	f->name = intern(shown_name ? shown_name : path);
	f->text = text;
	f->len = len;
	return f;
}

static bool write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		p += n;
		len -= n;
	}
	return true;
}

bool write_file_atomic(const char *path, const char *data, size_t len)
{
	char *tmp = xsprintf("%s.tmpXXXXXX", path);
	int fd = mkstemp(tmp);
	if (fd < 0)
		return false;
	bool ok = write_all(fd, data, len) && fchmod(fd, 0644) == 0;
	ok = close(fd) == 0 && ok;
	if (ok && rename(tmp, path) == 0)
		return true;
	int e = errno;
	unlink(tmp);
	errno = e;
	return false;
}

bool make_dirs(const char *path)
{
	char *p = xstrdup(path);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		if (mkdir(p, 0755) != 0 && errno != EEXIST)
			return false;
		*s = '/';
	}
	return mkdir(p, 0755) == 0 || errno == EEXIST;
}

bool copy_file(const char *from, const char *to)
{
	size_t len;
	char *data = read_whole_file(from, &len);
	return data && write_file_atomic(to, data, len);
}

/* ---- folders ---- */

bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool is_file(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

void remove_tree(const char *path)
{
	nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* Names in DIR that start with PREFIX and end with SUFFIX, sorted. */
Vec list_dir(const char *dir, const char *prefix, const char *suffix)
{
	Vec v = { 0 };
	DIR *d = opendir(dir);
	if (!d)
		return v;
	size_t pl = strlen(prefix), sl = strlen(suffix);
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t nl = strlen(e->d_name);
		if (e->d_name[0] == '.' || nl < pl + sl || strncmp(e->d_name, prefix, pl) ||
		    strcmp(e->d_name + nl - sl, suffix))
			continue;
		vec_push(&v, xstrdup(e->d_name));
	}
	closedir(d);
	if (v.len)
		vec_sort(&v, cmp_cstr_ptr);
	return v;
}

/* ---- where tapc keeps and finds its own files ---- */

/* The user's home folder: $HOME, else the password entry's; NULL when
 * neither is an absolute path. */
static const char *home_dir(void)
{
	const char *home = getenv("HOME");
	if (!home || home[0] != '/') {
		struct passwd *pw = getpwuid(getuid());
		home = pw && pw->pw_dir && pw->pw_dir[0] == '/' ? pw->pw_dir : NULL;
	}
	return home;
}

/* $XDG_VAR/tapc, else ~/FALLBACK/tapc. */
static const char *xdg_dir(const char *var, const char *fallback)
{
	const char *xdg = getenv(var);
	if (xdg && xdg[0] == '/')
		return xsprintf("%s/tapc", xdg);
	const char *home = home_dir();
	return home ? xsprintf("%s/%s/tapc", home, fallback) : NULL;
}

const char *user_cache_dir(void)
{
	static const char *dir;
	static bool done;
	if (!done) {
		done = true;
		dir = xdg_dir("XDG_CACHE_HOME", ".cache");
	}
	return dir;
}

const char *user_data_dir(void)
{
	static const char *dir;
	static bool done;
	if (!done) {
		done = true;
		dir = xdg_dir("XDG_DATA_HOME", ".local/share");
	}
	return dir;
}

const char *self_dir(void)
{
	static const char *dir;
	static bool done;
	if (done)
		return dir;
	done = true;
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0)
		return NULL;
	exe[n] = 0;
	char *slash = strrchr(exe, '/');
	if (!slash)
		return NULL;
	return dir = xstrndup(exe, slash == exe ? 1 : (size_t)(slash - exe));
}

const char *installed_data_dir(const char *sub)
{
	/* BINDIR/../share/tapc first: the tree installed with this binary,
	 * wherever it went ("make install prefix=..." included). */
	if (self_dir()) {
		const char *rel = xsprintf("%s/../share/tapc/%s", self_dir(), sub);
		if (is_dir(rel))
			return rel;
	}
	return xsprintf("%s/%s", PKGDATADIR, sub);
}

const char *runtime_source_dir(void)
{
	static const char *dir;
	if (dir)
		return dir;
	if (sess.runtime_dir && *sess.runtime_dir)
		return dir = sess.runtime_dir;
	const char *env = getenv("SYSTEMTAP_RUNTIME");
	if (env && *env)
		return dir = env;
	const char *beside = self_dir() ? xsprintf("%s/runtime", self_dir()) : NULL;
	if (beside && is_dir(beside))
		return dir = beside;
	return dir = installed_data_dir("runtime");
}

/* ---- temporary folders ---- */

/* At most a few at a time: pass 3's folder, a build and a feature-probe
 * folder.  Plain stores, read by the handler. */
static const char *volatile temp_dirs[8];

void temp_dir_add(const char *dir)
{
	for (size_t i = 0; i < sizeof temp_dirs / sizeof temp_dirs[0]; i++)
		if (!temp_dirs[i]) {
			temp_dirs[i] = dir;
			return;
		}
}

void temp_dir_forget(const char *dir)
{
	for (size_t i = 0; i < sizeof temp_dirs / sizeof temp_dirs[0]; i++)
		if (temp_dirs[i] == dir)
			temp_dirs[i] = NULL;
}

const char *make_temp_dir(const char *stem)
{
	const char *t = getenv("TMPDIR");
	if (!t || !*t)
		t = "/tmp";
	char *d = xsprintf("%s/%sXXXXXX", t, stem);
	if (!mkdtemp(d)) {
		error_plain(_("cannot make a build folder in %s: %s"), t, strerror(errno));
		return NULL;
	}
	temp_dir_add(d);
	return d;
}

static void on_fatal_signal(int sig)
{
	if (!sess.keep_tmpdir)
		for (size_t i = 0; i < sizeof temp_dirs / sizeof temp_dirs[0]; i++)
			if (temp_dirs[i])
				remove_tree(temp_dirs[i]);
	signal(sig, SIG_DFL);
	raise(sig);
}

void temp_dirs_on_signals(void)
{
	signal(SIGINT, on_fatal_signal);
	signal(SIGTERM, on_fatal_signal);
	signal(SIGHUP, on_fatal_signal);
}

int run_program(const char *const argv[], StrBuf *log, bool echo)
{
	int pfd[2];
	if (pipe(pfd) != 0)
		return -1;
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);
		if (null >= 0)
			dup2(null, 0);
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		close(pfd[0]);
		close(pfd[1]);
		/* An outer make (a test suite) must not leak its jobserver or
		 * flags into kbuild; messages stay in one language so they
		 * can be filtered. */
		unsetenv("MAKEFLAGS");
		unsetenv("MFLAGS");
		unsetenv("MAKELEVEL");
		unsetenv("MAKEOVERRIDES");
		unsetenv("GNUMAKEFLAGS");
		setenv("LC_ALL", "C", 1);
		execvp(argv[0], (char *const *)argv);
		fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	char buf[8192];
	ssize_t n;
	while ((n = read(pfd[0], buf, sizeof buf)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		sb_putn(log, buf, n);
		if (echo)
			fwrite(buf, 1, n, stderr);
	}
	close(pfd[0]);
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (WIFEXITED(status))
		return WEXITSTATUS(status) == 127 ? -1 : WEXITSTATUS(status);
	return -1;
}

bool is_exec_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

const char *find_on_path(const char *name)
{
	if (strchr(name, '/'))
		return is_exec_file(name) ? name : NULL;
	const char *path = getenv("PATH");
	for (const char *s = path ? path : "/usr/bin:/bin"; *s;) {
		size_t n = strcspn(s, ":");
		if (n) {
			const char *c = xsprintf("%.*s/%s", (int)n, s, name);
			if (is_exec_file(c))
				return c;
		}
		s += n + (s[n] == ':');
	}
	return NULL;
}

bool program_on_path(const char *name)
{
	return find_on_path(name) != NULL;
}
