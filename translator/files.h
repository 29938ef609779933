/* files.h - files and folders (files.c): whole files, folders, where tapc
 * keeps its cache and finds its installed data, temporary folders.
 * tapc.h includes it: every pass uses some of it. */
#ifndef TAPC_FILES_H
#define TAPC_FILES_H

#include "tapc.h"

/* Source files (the text diagnostics show), read whole or from memory. */
SrcFile *srcfile_new(const char *name, const char *text, size_t len);
SrcFile *srcfile_read(const char *path, const char *shown_name);  /* NULL + errno */
/* A whole file ("-" is stdin) into the arena, NUL-terminated; NULL with
 * errno set.  len may be NULL. */
char *read_whole_file(const char *path, size_t *len);
/* Copy a whole file through write_file_atomic(); false with errno set. */
bool copy_file(const char *from, const char *to);
/* Write through a temporary file and a rename, so a reader never sees
 * half a file.  false with errno set. */
bool write_file_atomic(const char *path, const char *data, size_t len);
/* mkdir -p; false with errno set. */
bool make_dirs(const char *path);
/* $XDG_CACHE_HOME/tapc or ~/.cache/tapc (not created), NULL without a
 * home folder. */
const char *user_cache_dir(void);
/* $XDG_DATA_HOME/tapc or ~/.local/share/tapc (not created), NULL without
 * a home folder: what tapc keeps for the user, such as the module
 * signing key. */
const char *user_data_dir(void);
/* The folder holding the running tapc binary (from /proc/self/exe), NULL
 * when it cannot be told: an uninstalled build finds tapsets/, runtime/
 * and taprun/ beside it. */
const char *self_dir(void);
/* SUB (tapsets, runtime) of the installed tree: beside the binary as
 * BINDIR/../share/tapc/SUB when that is a folder, else the configured
 * PKGDATADIR/SUB. */
const char *installed_data_dir(const char *sub);
/* The runtime sources: -R DIR, else $SYSTEMTAP_RUNTIME, else a runtime/
 * folder beside the tapc binary (an uninstalled build), else
 * PKGDATADIR/runtime.  Never NULL; the folder may not exist. */
const char *runtime_source_dir(void);
/* Run ARGV[0] (searched on PATH) with stdin from /dev/null and stdout and
 * stderr collected in LOG (also copied to our stderr as they come when
 * ECHO), in the C locale and without an outer make's jobserver or flags.
 * Returns its exit status, or -1 when it could not run (127: not found)
 * or died of a signal. */
int run_program(const char *const argv[], StrBuf *log, bool echo);
/* PATH is a regular file we may run. */
bool is_exec_file(const char *path);
/* Where $PATH has the program NAME (a regular, executable file), or NULL;
 * a NAME holding a '/' is that file. */
const char *find_on_path(const char *name);
/* find_on_path(NAME) is not NULL. */
bool program_on_path(const char *name);
/* PATH is a folder (symbolic links followed). */
bool is_dir(const char *path);
/* PATH is a regular file (symbolic links followed). */
bool is_file(const char *path);
/* Names in DIR that start with PREFIX and end with SUFFIX, sorted
 * (none when DIR cannot be read); dot files are left out. */
Vec list_dir(const char *dir, const char *prefix, const char *suffix);
/* rm -rf PATH (symbolic links are removed, not followed). */
void remove_tree(const char *path);
/* A new folder $TMPDIR/STEMXXXXXX (mode 0700), added to the temporary
 * folders below; NULL after an error message. */
const char *make_temp_dir(const char *stem);
/* Temporary folders a signal (^C, TERM, HUP) must not leave behind: the
 * handler temp_dirs_on_signals() installs removes those added and not
 * forgotten (unless -k), then dies of the signal. */
void temp_dir_add(const char *dir);
void temp_dir_forget(const char *dir);
void temp_dirs_on_signals(void);

#endif
