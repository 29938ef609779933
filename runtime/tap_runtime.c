/*
 * tap_runtime.c - the runtime's code, #included at the end of the
 * generated module (after the frame types, so TAP_FRAME_SIZE is known):
 * the module is one translation unit and exports nothing.
 */
#include "tap.h"
#include "alloc.c"
#include "context.c"
#include "string.c"
#include "stat.c"
#include "map.c"
#include "printf.c"
#include "regex.c"
#ifndef TAP_USER_TEST
#include "transport.c"
#include "memory.c"
#include "task.c"
#include "tapset_support.c"
#endif
