/* driver.h - what the tapc command's files (main.c, options.c, run.c)
 * share.  Not part of libtapc. */
#ifndef TAPC_DRIVER_H
#define TAPC_DRIVER_H

#include "passes.h"
#include "build.h"
#include "sign.h"
#include "emit/emit.h"

/* ---- options.c ---- */

/* Read the command line into sess; exits on --help, --version and errors. */
void parse_options(int argc, char **argv);

/* ---- run.c: pass 5 ---- */

/* $TAPC_TAPRUN: a stand-in loader (tests), which any kernel can "run". */
const char *stand_in_taprun(void);
const char *target_taprun(const char *arch);
/* Why pass 5 cannot load a module here, or NULL when it can. */
const char *cannot_load_modules(void);
void explain_no_run(const char *why);
/* Pass 5: taprun with the module and the options that belong to it. */
int run_module(const char *ko);
/* taprun found for this machine (a stand-in, beside tapc, on PATH), or NULL. */
const char *find_taprun(void);
/* taprun's options from the session, -o FILE, -b and -S only when
 * WITH_OUTPUT; and the -G globals that follow the module. */
void push_taprun_options(Vec *argv, bool with_output);
void push_taprun_globals(Vec *argv);

/* ---- remote.c: --remote ---- */

/* --remote URL (exits 1 naming what is wrong with it). */
void remote_add(const char *url);
void remote_set_prefix(void);
int remote_count(void);
/* Passes 1-5 (or the listing) for every --remote target; the exit status. */
int remote_main(int argc, char **argv);

#endif
