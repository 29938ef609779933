/* ast.c - placeholder until the printer lands. */
#include "ast.h"
void print_stapfile(FILE *out, Stapfile *f) { }
