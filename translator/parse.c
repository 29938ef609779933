/* parse.c - placeholder until the parser lands. */
#include "passes.h"
Stapfile *parse_file(SrcFile *src, bool is_tapset)
{
	error_plain("parser not written yet (%s)", src->name);
	return NULL;
}
