/* dump_types.c - --dump-probe-types: every concrete shape of every
 * family, one per line, sorted, with the ones pass 3 cannot translate
 * marked.
 */
#include "shapes.h"

#include <stdlib.h>
#include <string.h>

static void shape_text(StrBuf *sb, const Shape *sh)
{
	for (int i = 0; i < sh->n; i++) {
		if (i)
			sb_putc(sb, '.');
		sb_puts(sb, sh->comp[i].name);
		if (sh->comp[i].arg == ARG_NUM)
			sb_puts(sb, "(number)");
		else if (sh->comp[i].arg == ARG_STR)
			sb_puts(sb, "(string)");
	}
}

/* After a shape of a family pass 3 cannot translate (documented in
 * tapc.1). */
#define UNTRANSLATABLE_MARK "  [not translatable]"

typedef struct TypeLine {
	const char *text;
	bool translatable;
} TypeLine;

static int cmp_type_line(const void *a, const void *b)
{
	return strcmp(((const TypeLine *)a)->text, ((const TypeLine *)b)->text);
}

void dump_probe_types(FILE *out)
{
	const Vec *shapes = family_shapes();
	TypeLine *lines = xalloc(shapes->len * sizeof *lines);
	for (int i = 0; i < shapes->len; i++) {
		StrBuf sb = { 0 };
		const Shape *sh = shapes->data[i];
		shape_text(&sb, sh);
		lines[i].text = xstrdup(sb_cstr(&sb));
		lines[i].translatable = sh->translatable;
		sb_free(&sb);
	}
	qsort(lines, shapes->len, sizeof *lines, cmp_type_line);
	for (int i = 0; i < shapes->len; i++)
		if (i == 0 || strcmp(lines[i].text, lines[i - 1].text))
			fprintf(out, "%s%s\n", lines[i].text,
				lines[i].translatable ? "" : UNTRANSLATABLE_MARK);
}
