/* test_pretty.c - unit tests for pretty-printing in emit/target_expr.c:
 * made-up types in, stap's format (the printer's table) and reads out,
 * exactly: one level with '$', every level with '$$', strings for char
 * pointers and arrays, '%#c' for a char, %p for pointers below the top,
 * bitfields as numbers, anonymous unions as <union>.
 */
#include "tapc.h"
#include "emit/emit_priv.h"

#include <string.h>

#include "check.h"

static DiType *type(DiTypeKind kind, const char *name, uint64_t size, bool is_signed,
		    const DiType *target)
{
	DiType *t = NEW(DiType);
	t->kind = kind;
	t->name = name;
	t->size = size;
	t->is_signed = is_signed;
	t->target = target;
	return t;
}

static void member(DiType *s, const char *name, const DiType *t, uint64_t bit_offset,
		   int bit_size)
{
	DiMember *m = NEW(DiMember);
	m->name = name;
	m->type = t;
	m->bit_offset = bit_offset;
	m->bit_size = bit_size;
	vec_push(&s->members, m);
}

/* The format table the printer of t uses, as one string of its lines. */
static const char *table_of(const char *decls, const char *fn)
{
	const char *start = strstr(decls, "static const struct tap_fmt_spec");
	const char *def = strstr(decls, xsprintf("static noinline int %s(", fn));
	if (!start || !def)
		return "";
	/* the last table before the function is its own */
	for (const char *p = start; p && p < def; p = strstr(p + 1, "static const struct tap_fmt_spec"))
		start = p;
	const char *end = strstr(start, "};\n");
	return xstrndup(start, end ? (size_t)(end - start + 3) : strlen(start));
}

static void expect_table(const char *got, const char *want)
{
	CHECK(!strcmp(got, want));
	if (strcmp(got, want))
		fprintf(stderr, "  got:\n%s  want:\n%s", got, want);
}

int main(void)
{
	const DiType *i32 = type(DI_TYPE_INT, "int", 4, true, NULL);
	const DiType *u32 = type(DI_TYPE_INT, "unsigned int", 4, false, NULL);
	const DiType *ch = type(DI_TYPE_INT, "char", 1, true, NULL);
	(void)i32;
	const DiType *vd = type(DI_TYPE_VOID, NULL, 0, false, NULL);

	DiType *inner = type(DI_TYPE_STRUCT, "inner", 8, false, NULL);
	member(inner, "a", i32, 0, 0);
	member(inner, "c", ch, 32, 0);

	DiType *un = type(DI_TYPE_UNION, NULL, 8, false, NULL);
	member(un, "u1", u32, 0, 0);

	DiType *arr = type(DI_TYPE_ARRAY, NULL, 8, false, ch);
	arr->count = 8;
	DiType *outer = type(DI_TYPE_STRUCT, "outer", 64, false, NULL);
	member(outer, "x", u32, 0, 0);
	member(outer, "in", inner, 64, 0);
	member(outer, "name", type(DI_TYPE_POINTER, NULL, 8, false, ch), 128, 0);
	member(outer, "buf", arr, 192, 0);
	member(outer, "p", type(DI_TYPE_POINTER, NULL, 8, false, vd), 256, 0);
	member(outer, "bits", i32, 320 + 5, 3);
	member(outer, NULL, un, 384, 0);

	Emitter e = { 0 };
	const char *one = tx_pretty_printer(&e, type(DI_TYPE_POINTER, NULL, 8, false, outer), false,
					 false, false);
	expect_table(table_of(sb_cstr(&e.decls), one),
		"static const struct tap_fmt_spec tap_fmt_1[] = {\n"
		"\tTAP_FMT_LIT(\"{.x=\"),\n"
		"\t{ .conv = TAP_CONV_UNSIGNED, .flags = 0x0, .width = -1, .prec = -1 },\n"
		"\tTAP_FMT_LIT(\", .in={...}, .name=\\\"\"),\n"
		"\t{ .conv = TAP_CONV_STRING, .flags = 0x0, .width = -1, .prec = -1 },\n"
		"\tTAP_FMT_LIT(\"\\\", .buf=[...], .p=\"),\n"
		"\t{ .conv = TAP_CONV_POINTER, .flags = 0x0, .width = -1, .prec = -1 },\n"
		"\tTAP_FMT_LIT(\", .bits=\"),\n"
		"\t{ .conv = TAP_CONV_SIGNED, .flags = 0x0, .width = -1, .prec = -1 },\n"
		"\tTAP_FMT_LIT(\", <union>={...}}\"),\n"
		"};\n");
	/* the same type again is the same printer; another depth is not */
	const DiType *pout = type(DI_TYPE_POINTER, NULL, 8, false, outer);
	const char *a = tx_pretty_printer(&e, pout, false, false, false);
	CHECK(!strcmp(a, tx_pretty_printer(&e, pout, false, false, false)));
	CHECK(strcmp(a, tx_pretty_printer(&e, pout, true, false, false)) != 0);

	Emitter e2 = { 0 };
	const char *full = tx_pretty_printer(&e2, outer, true, false, true);
	expect_table(table_of(sb_cstr(&e2.decls), full),
		"static const struct tap_fmt_spec tap_fmt_1[] = {\n"
		"\tTAP_FMT_LIT(\"{.x=\"),\n"
		"\t{ .conv = TAP_CONV_UNSIGNED, .flags = 0x0, .width = -1, .prec = -1 },\n"
		"\tTAP_FMT_LIT(\", .in={.a=\"),\n"
		"\t{ .conv = TAP_CONV_SIGNED, .flags = 0x0, .width = -1, .prec = -1 },\n"
		"\tTAP_FMT_LIT(\", .c='\"),\n"
		"\t{ .conv = TAP_CONV_CHAR, .flags = 0x8, .width = -1, .prec = -1 },\n"
		"\tTAP_FMT_LIT(\"'}, .name=\\\"\"),\n"
		"\t{ .conv = TAP_CONV_STRING, .flags = 0x0, .width = -1, .prec = -1 },\n"
		"\tTAP_FMT_LIT(\"\\\", .buf=\\\"\"),\n"
		"\t{ .conv = TAP_CONV_STRING, .flags = 0x0, .width = -1, .prec = -1 },\n"
		"\tTAP_FMT_LIT(\"\\\", .p=\"),\n"
		"\t{ .conv = TAP_CONV_POINTER, .flags = 0x0, .width = -1, .prec = -1 },\n"
		"\tTAP_FMT_LIT(\", .bits=\"),\n"
		"\t{ .conv = TAP_CONV_SIGNED, .flags = 0x0, .width = -1, .prec = -1 },\n"
		"\tTAP_FMT_LIT(\", <union>={.u1=\"),\n"
		"\t{ .conv = TAP_CONV_UNSIGNED, .flags = 0x0, .width = -1, .prec = -1 },\n"
		"\tTAP_FMT_LIT(\"}}\"),\n"
		"};\n");
	/* the reads: the bitfield's byte, shifted, sign-extended from 3 bits;
	 * the char array's string at most 8 bytes (+ NUL) */
	const char *d = sb_cstr(&e2.decls);
	CHECK(strstr(d, "TAP_LOAD(tap_read_kernel, \"kernel\", n[") != NULL);
	CHECK(strstr(d, "(unsigned long)(addr + 24UL), 9, 0);") != NULL);
	CHECK(strstr(d, ">> 5);") && strstr(d, "TAP_SEXT(n["));
	CHECK(strstr(d, ", 3);") != NULL);
	return failures ? 1 : 0;
}
