/* options.c - the options of the run, which the command line (taprun.c)
 * fills in and every part of taprun reads.  Kept apart from the parser so
 * that the messages (msg.c), which read -v and -w, sit below it.
 */
#include "config.h"

#include "taprun.h"

struct options opt = { .remote_id = -1 };
