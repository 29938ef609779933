/* registry.c - placeholder until the probe families land. */
#include "passes.h"
void dump_probe_types(FILE *out) { }
