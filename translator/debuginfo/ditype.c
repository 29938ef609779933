/* ditype.c - what every reader and caller does with a DiType: strip its
 * typedefs and qualifiers, and write it as text.  It reads no debug
 * information, so dwarf.c and btf.c use it as well as kdebug.c's callers. */
#include "debuginfo.h"

#include <string.h>

const DiType *di_type_strip(const DiType *t)
{
	/* bounded: a damaged file could make a typedef its own target */
	for (int i = 0; i < 256 && t && (t->kind == DI_TYPE_TYPEDEF ||
					  t->kind == DI_TYPE_CONST ||
					  t->kind == DI_TYPE_VOLATILE ||
					  t->kind == DI_TYPE_RESTRICT); i++)
		t = t->target;
	return t;
}

/* t's text with `suffix` (what is built around it: "*", " const*",
 * "[3]") where a declarator would go. */
static void type_text(StrBuf *sb, const DiType *t, const char *suffix, int depth)
{
	if (!t || depth > 64) {
		sb_printf(sb, "void%s", suffix);
		return;
	}
	const char *name = t->name ? t->name : NULL;
	switch (t->kind) {
	case DI_TYPE_VOID:
		sb_printf(sb, "void%s", suffix);
		return;
	case DI_TYPE_INT:
	case DI_TYPE_FLOAT:
	case DI_TYPE_TYPEDEF:
		sb_printf(sb, "%s%s", name ? name : "?", suffix);
		return;
	case DI_TYPE_STRUCT:
	case DI_TYPE_FWD:
		sb_printf(sb, "struct %s%s", name ? name : "{...}", suffix);
		return;
	case DI_TYPE_UNION:
		sb_printf(sb, "union %s%s", name ? name : "{...}", suffix);
		return;
	case DI_TYPE_ENUM:
		sb_printf(sb, "enum %s%s", name ? name : "{...}", suffix);
		return;
	case DI_TYPE_POINTER:
		/* a va_list parameter is a pointer to gcc's __va_list_tag in
		 * DWARF; stap shows it as the va_list it was declared */
		if (t->target && t->target->kind == DI_TYPE_STRUCT && t->target->name &&
		    !strcmp(t->target->name, "__va_list_tag")) {
			sb_printf(sb, "va_list%s", suffix);
			return;
		}
		if (t->target && t->target->kind == DI_TYPE_FUNC) {
			type_text(sb, t->target, xsprintf("(*%s)", suffix), depth + 1);
			return;
		}
		type_text(sb, t->target, xsprintf("*%s", suffix), depth + 1);
		return;
	case DI_TYPE_CONST:
		type_text(sb, t->target, xsprintf(" const%s", suffix), depth + 1);
		return;
	case DI_TYPE_VOLATILE:
		type_text(sb, t->target, xsprintf(" volatile%s", suffix), depth + 1);
		return;
	case DI_TYPE_RESTRICT:
		type_text(sb, t->target, suffix, depth + 1);
		return;
	case DI_TYPE_ARRAY:
		/* stap's -L shows no element count: "struct iovec[]" */
		type_text(sb, t->target, xsprintf("[]%s", suffix), depth + 1);
		return;
	case DI_TYPE_FUNC: {
		StrBuf params = { 0 };
		for (int i = 0; i < t->members.len; i++) {
			if (i)
				sb_puts(&params, ", ");
			type_text(&params, vec_get(&t->members, i), "", depth + 1);
		}
		/* stap's spacing: "int (*) (struct dentry*, void*)" */
		type_text(sb, t->target, xsprintf(" %s%s(%s)", suffix, *suffix ? " " : "",
						  sb_cstr(&params)), depth + 1);
		sb_free(&params);
		return;
	}
	}
	sb_printf(sb, "?%s", suffix);
}

const char *di_type_text(const DiType *t)
{
	StrBuf sb = { 0 };
	type_text(&sb, t, "", 0);
	const char *s = intern(sb_cstr(&sb));
	sb_free(&sb);
	return s;
}
