/* session.c - the session: everything the command line decided, read by
 * every pass.  options.c fills it in; it is defined here, below the
 * passes, so that no pass (and no unit test, fuzzer or benchmark that
 * fills it itself) needs the command's code to link. */
#include "tapc.h"

Session sess;
