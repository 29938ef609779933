/* taprun.h - the loader: load a tapc module, run it, unload it.
 *
 * Internally functions return 0 or a negative errno (libbpf style) and
 * print a message naming the object at the place the failure is known:
 * "module 'x': trace buffer 3: ...".
 */
#ifndef TAPRUN_H
#define TAPRUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "i18n.h"
#define _(s) gettext(s)
#define N_(s) (s)

#define PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))

struct options {
	const char *module_path;
	char **params;		/* NAME=VALUE for the module */
	int nparams;
	const char *outfile;	/* -o */
	const char *command;	/* -c */
	pid_t target_pid;	/* -x */
	double timeout;		/* -T seconds, 0: none */
	bool bulk;		/* -b */
	unsigned int size_mb;	/* -S SIZE: MiB per output file, 0: no -S */
	unsigned int size_files; /* -S SIZE,N: files kept, 0: all */
	unsigned int buffer_mb;	/* -s, 0: the module's default */
	int verbose;		/* -v */
	bool no_warnings;	/* -w */
	bool color;		/* -C */
	const char *debugfs;	/* -D: where debugfs is (mounted) */
	int remote_id;		/* -r N:URI */
	const char *remote_uri;
	const char *delete_name; /* -d */
};

extern struct options opt;	/* options.c */

/* msg.c: messages on stderr */
/* "always", "never" or "auto" (stderr is a terminal, TERM is not dumb). */
void msg_set_color(const char *when);
void msg_error(const char *fmt, ...) PRINTF(1, 2);
void msg_warning(const char *fmt, ...) PRINTF(1, 2);
void msg_verbose(int level, const char *fmt, ...) PRINTF(2, 3);
/* ERROR/WARNING text that came from the module (not NUL-terminated). */
void msg_from_module(bool error, const char *text, size_t len);
/* Output and stderr share a terminal: each message flushes out first
 * (standard output while it is the output, NULL: none). */
void msg_set_output(FILE *out);
void msg_flush_output(void);

/* module.c */
struct modinfo {
	char name[64];		/* the kernel's name for it */
	char release[65];	/* the kernel it was built for (vermagic) */
	char **params;		/* its parameters (parmtype= entries) */
	int nparams;
};
int module_info(const char *path, struct modinfo *mi);
void modinfo_free(struct modinfo *mi);
bool module_has_param(const struct modinfo *mi, const char *name,
		      size_t len);
int module_load(const char *path, const char *name, const char *params);

/* modsig.c: a refusal for the module's signature explained.
 * sig_watch_start() just before loading: the kernel log from there on
 * (an fd, or -1).  sig_explain() after the load failed with ERR (an
 * errno): when the signature is why, says so and what to do and returns
 * true; closes the fd either way. */
int sig_watch_start(void);
bool sig_explain(int kmsg_fd, const char *path, const char *name, int err);
/* whether the kernel is locked down (integrity or confidentiality) */
bool locked_down(void);
int module_unload(const char *name, int wait_ms, bool missing_ok);

/* session.c */
int run_session(void);

#endif
