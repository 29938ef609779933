/* test_location.c - unit tests for location.c: DWARF locations
 * (debuginfo.h's DiLocation) in, the C that reads them out, exactly; and
 * the locations it refuses, with why.
 */
#include "tapc.h"
#include "tpath.h"

#include <dwarf.h>
#include <string.h>

#include "check.h"

static const LocEnv env = { .regs = "R", .err = "E", .tmp = "t", .reloc = NULL };
static const LocEnv env_entry = { .regs = "R", .err = "E", .tmp = "t", .at_entry = true };
static const LocEnv env_kaslr = { .regs = "R", .err = "E", .tmp = "t", .reloc = "K" };

/* Compile loc in env and compare statements, expression and kind. */
static void expect(const DiLocation *loc, const LocEnv *e, const char *stmts,
		   const char *expr, bool is_addr)
{
	LocCode lc;
	const char *why = NULL;
	bool ok = loc_compile(loc, e, &lc, &why);
	CHECK(ok);
	if (!ok) {
		fprintf(stderr, "  refused: %s\n", why);
		return;
	}
	CHECK(!strcmp(lc.stmts, stmts));
	CHECK(!strcmp(lc.expr, expr));
	CHECK(lc.is_addr == is_addr);
	if (strcmp(lc.stmts, stmts) || strcmp(lc.expr, expr))
		fprintf(stderr, "  got stmts [%s] expr [%s]\n", lc.stmts, lc.expr);
}

static void refuse(const DiLocation *loc, const LocEnv *e, const char *why_part)
{
	LocCode lc;
	const char *why = NULL;
	CHECK(!loc_compile(loc, e, &lc, &why));
	CHECK(why && strstr(why, why_part));
	if (!why || !strstr(why, why_part))
		fprintf(stderr, "  why: %s\n", why ? why : "(none)");
}

static DiLocation expr(const DiOp *ops, size_t n)
{
	return (DiLocation){ .kind = DI_LOC_EXPR, .expr = ops, .expr_len = n };
}

int main(void)
{
	/* the simple kinds */
	expect(&(DiLocation){ .kind = DI_LOC_REG, .reg = 5 }, &env, "", "((u64)(R)->di)", false);
	expect(&(DiLocation){ .kind = DI_LOC_REG, .reg = 7 }, &env, "",
	       "((u64)kernel_stack_pointer(R))", false);
	expect(&(DiLocation){ .kind = DI_LOC_REG, .reg = 12 }, &env, "", "((u64)(R)->r12)", false);
	expect(&(DiLocation){ .kind = DI_LOC_MEM_REG, .reg = 6, .offset = -24 }, &env, "",
	       "(((u64)(R)->bp) + 0xffffffffffffffe8ULL)", true);
	expect(&(DiLocation){ .kind = DI_LOC_MEM_REG, .reg = 3 }, &env, "", "((u64)(R)->bx)", true);
	expect(&(DiLocation){ .kind = DI_LOC_ADDR, .addr = 0xffffffff82a0c000ULL }, &env, "",
	       "0xffffffff82a0c000ULL", true);
	expect(&(DiLocation){ .kind = DI_LOC_ADDR, .addr = 0xffffffff82a0c000ULL }, &env_kaslr, "",
	       "(0xffffffff82a0c000ULL + (u64)(K))", true);
	expect(&(DiLocation){ .kind = DI_LOC_CONST, .value = -1 }, &env, "",
	       "0xffffffffffffffffULL", false);

	/* breg + offset, deref: a read through the fault-safe copy */
	const DiOp deref[] = { { DW_OP_breg7, 8, 0 }, { DW_OP_deref, 0, 0 } };
	DiLocation l = expr(deref, 2);
	expect(&l, &env,
	       "u64 t0 = 0;\n"
	       "if (tap_read_kernel(&t0, (void *)(unsigned long)((((u64)kernel_stack_pointer(R)) + 0x8ULL)), 8)) {\n"
	       "\ttap_error(c, \"kernel read fault at 0x%lx\", (unsigned long)((((u64)kernel_stack_pointer(R)) + 0x8ULL)));\n"
	       "\tgoto E;\n}\n",
	       "t0", true);

	/* a computed value: reg + constant, stack_value */
	const DiOp sv[] = { { DW_OP_breg5, 0, 0 }, { DW_OP_lit4, 0, 0 }, { DW_OP_minus, 0, 0 },
			    { DW_OP_stack_value, 0, 0 } };
	l = expr(sv, 4);
	expect(&l, &env, "", "((((u64)(R)->di) + 0x0ULL) - 0x4ULL)", false);

	/* a frame base A resolved to bregx */
	const DiOp fb[] = { { DW_OP_bregx, 7, 16 }, { DW_OP_consts, (uint64_t)-32, 0 },
			    { DW_OP_plus, 0, 0 } };
	l = expr(fb, 3);
	expect(&l, &env, "", "((((u64)kernel_stack_pointer(R)) + 0x10ULL) + 0xffffffffffffffe0ULL)",
	       true);

	/* pieces: two 4-byte registers make one 8-byte value */
	const DiOp pieces[] = { { DW_OP_reg0, 0, 0 }, { DW_OP_piece, 4, 0 },
				{ DW_OP_reg1, 0, 0 }, { DW_OP_piece, 4, 0 } };
	l = expr(pieces, 4);
	expect(&l, &env, "", "(((((u64)(R)->ax)) & 0xffffffffULL) | (((((u64)(R)->dx)) & 0xffffffffULL) << 32))",
	       false);

	/* an entry value: at the entry it is the register itself */
	const DiOp ev[] = { { DW_OP_entry_value, 1, 0 }, { DW_OP_reg4, 0, 0 },
			    { DW_OP_stack_value, 0, 0 } };
	l = expr(ev, 3);
	expect(&l, &env_entry, "", "((u64)(R)->si)", false);
	refuse(&l, &env, "function's entry");

	/* DW_OP_addr is relocated */
	const DiOp addr[] = { { DW_OP_addr, 0xffffffff81000000ULL, 0 }, { DW_OP_plus_uconst, 16, 0 } };
	l = expr(addr, 2);
	expect(&l, &env_kaslr, "", "((0xffffffff81000000ULL + (u64)(K)) + 0x10ULL)", true);

	/* what tapc refuses, and why */
	refuse(&(DiLocation){ .kind = DI_LOC_NONE }, &env, "optimised out");
	refuse(&(DiLocation){ .kind = DI_LOC_REG, .reg = 17 }, &env, "register");
	const DiOp tls[] = { { DW_OP_const8u, 0x100, 0 }, { DW_OP_GNU_push_tls_address, 0, 0 } };
	l = expr(tls, 2);
	refuse(&l, &env, "operation 0xe0");
	const DiOp cfa[] = { { DW_OP_call_frame_cfa, 0, 0 } };
	l = expr(cfa, 1);
	refuse(&l, &env, "DW_OP_call_frame_cfa");
	const DiOp part[] = { { DW_OP_piece, 8, 0 } };
	l = expr(part, 1);
	refuse(&l, &env, "part of it is optimised out");
	refuse(&(DiLocation){ .kind = DI_LOC_EXPR, .expr = (DiOp[]){ { DW_OP_plus, 0, 0 } },
			      .expr_len = 1 }, &env, "malformed");

	/* register names */
	CHECK(!strcmp(tp_dwarf_reg_name(0), "ax"));
	CHECK(!strcmp(tp_dwarf_reg_name(15), "r15"));
	CHECK(tp_dwarf_reg_name(16) == NULL);
	return failures ? 1 : 0;
}
