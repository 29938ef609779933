/* location.c - a variable's location (debuginfo.h's DiLocation) as C:
 * the registers of struct pt_regs (arch/), memory read through the
 * fault-safe copies, DWARF expressions evaluated at translation time into
 * C expressions over those.
 *
 * Pass 2 calls loc_compile() to decide whether tapc can read a variable
 * (an operation it does not support is a pass-2 error at the $var); pass 3
 * calls it again for the text.  It is a pure function of its arguments.
 * It sits with pass 2, below emit/, so that pass 2 never calls up into
 * pass 3.
 */
#include "tapc.h"
#include "tpath.h"
#include "arch/arch.h"

#include <dwarf.h>
#include <string.h>

const char *tp_dwarf_reg_name(int reg)
{
	return reg < arch_target()->ngprs ? arch_reg(reg) : NULL;
}

/* The C expression of register reg's value (u64), or NULL. */
static const char *reg_value(const LocEnv *env, int reg)
{
	const char *r = tp_dwarf_reg_name(reg);
	if (!r)
		return NULL;
	if (reg == arch_target()->sp_reg)
		return xsprintf("((u64)kernel_stack_pointer(%s))", env->regs);
	return xsprintf("((u64)(%s)->%s)", env->regs, r);
}

static const char *bad_reg_why(void)
{
	return xsprintf(_("it is in a register tapc cannot read (not one of the "
			  "%d general-purpose registers of %s)"),
			arch_target()->ngprs, arch_target()->name);
}

typedef struct LocState {
	const LocEnv *env;
	StrBuf stmts;
	int ntmp;
	const char *stack[64];
	bool value[64];         /* the entry is a value, not an address */
	int sp;
	const char *why;
} LocState;

static bool push(LocState *s, const char *x, bool is_value)
{
	if (s->sp >= 64) {
		s->why = _("its DWARF expression is too deep");
		return false;
	}
	s->value[s->sp] = is_value;
	s->stack[s->sp++] = x;
	return true;
}

static const char *pop(LocState *s)
{
	if (s->sp <= 0) {
		s->why = _("its DWARF expression is malformed (stack underflow)");
		return NULL;
	}
	return s->stack[--s->sp];
}

/* A fault-safe read of n bytes at address x into a new temporary,
 * zero-extended to u64. */
static const char *load(LocState *s, const char *x, int n)
{
	const LocEnv *env = s->env;
	const char *t = xsprintf("%s%d", env->tmp, s->ntmp++);
	const char *rd = env->user ? "tap_read_user" : "tap_read_kernel";
	sb_printf(&s->stmts, "u64 %s = 0;\n", t);
	sb_printf(&s->stmts, "if (%s(&%s, (void *)(unsigned long)(%s), %d)) {\n", rd, t, x, n);
	sb_printf(&s->stmts, "\ttap_error(c, \"%s read fault at 0x%%lx\", "
		  "(unsigned long)(%s));\n", env->user ? "user" : "kernel", x);
	sb_printf(&s->stmts, "\tgoto %s;\n}\n", env->err);
	return t;
}

static const char *mask_bytes(const char *x, uint64_t n)
{
	if (n >= 8)
		return x;
	return xsprintf("((%s) & 0x%llxULL)", x, (unsigned long long)((1ULL << (8 * n)) - 1));
}

static bool binary(LocState *s, const char *fmt)
{
	const char *b = pop(s), *a = b ? pop(s) : NULL;
	if (!a)
		return false;
	return push(s, xsprintf(fmt, a, b), false);
}

static const char *hexnum(uint64_t v)
{
	return xsprintf("0x%llxULL", (unsigned long long)v);
}

static bool compile_ops(LocState *s, const DiOp *ops, size_t n, bool *pieces_done,
			const char **pieces_value);

/* DW_OP_entry_value(sub): the value sub had at the function's entry.  At
 * the entry itself that is sub's value now; tapc reads no more than a
 * register that way. */
static bool entry_value(LocState *s, const DiOp *sub, size_t n)
{
	if (!s->env->at_entry) {
		s->why = _("its value is the one it had at the function's entry "
			   "(DW_OP_entry_value), which tapc can only read in a probe on "
			   "the function's entry");
		return false;
	}
	int reg = -1;
	if (n == 1 && sub[0].op >= DW_OP_reg0 && sub[0].op <= DW_OP_reg31)
		reg = sub[0].op - DW_OP_reg0;
	else if (n == 1 && sub[0].op == DW_OP_regx)
		reg = (int)sub[0].n1;
	const char *r = reg >= 0 ? reg_value(s->env, reg) : NULL;
	if (!r) {
		s->why = _("its value is the one an expression had at the function's "
			   "entry (DW_OP_entry_value of more than a register), which "
			   "tapc does not read");
		return false;
	}
	return push(s, r, false);
}

static bool compile_ops(LocState *s, const DiOp *ops, size_t n, bool *pieces_done,
			const char **pieces_value)
{
	unsigned piece_bits = 0;
	const char *acc = NULL;
	for (size_t i = 0; i < n; i++) {
		const DiOp *o = &ops[i];
		uint8_t op = o->op;
		const char *a, *b;
		if (op >= DW_OP_lit0 && op <= DW_OP_lit31) {
			if (!push(s, hexnum(op - DW_OP_lit0), false))
				return false;
			continue;
		}
		if (op >= DW_OP_reg0 && op <= DW_OP_reg31) {
			const char *r = reg_value(s->env, op - DW_OP_reg0);
			if (!r || !push(s, r, true))
				goto badreg;
			continue;
		}
		if (op >= DW_OP_breg0 && op <= DW_OP_breg31) {
			const char *r = reg_value(s->env, op - DW_OP_breg0);
			if (!r || !push(s, xsprintf("(%s + %s)", r, hexnum(o->n1)), false))
				goto badreg;
			continue;
		}
		switch (op) {
		case DW_OP_regx:
			a = reg_value(s->env, (int)o->n1);
			if (!a || !push(s, a, true))
				goto badreg;
			break;
		case DW_OP_bregx:
			a = reg_value(s->env, (int)o->n1);
			if (!a || !push(s, xsprintf("(%s + %s)", a, hexnum(o->n2)), false))
				goto badreg;
			break;
		case DW_OP_addr:
			if (!push(s, s->env->reloc ? xsprintf("(%s + (u64)(%s))", hexnum(o->n1),
							      s->env->reloc)
					       : hexnum(o->n1), false))
				return false;
			break;
		case DW_OP_const1u: case DW_OP_const2u: case DW_OP_const4u:
		case DW_OP_const8u: case DW_OP_constu:
		case DW_OP_const1s: case DW_OP_const2s: case DW_OP_const4s:
		case DW_OP_const8s: case DW_OP_consts:
			if (!push(s, hexnum(o->n1), false))
				return false;
			break;
		case DW_OP_dup:
			if (!s->sp)
				return pop(s) != NULL;
			if (!push(s, s->stack[s->sp - 1], false))
				return false;
			break;
		case DW_OP_over:
			if (s->sp < 2) {
				s->why = _("its DWARF expression is malformed (stack underflow)");
				return false;
			}
			if (!push(s, s->stack[s->sp - 2], false))
				return false;
			break;
		case DW_OP_pick:
			if ((int)o->n1 >= s->sp) {
				s->why = _("its DWARF expression is malformed (stack underflow)");
				return false;
			}
			if (!push(s, s->stack[s->sp - 1 - (int)o->n1], false))
				return false;
			break;
		case DW_OP_drop:
			if (!pop(s))
				return false;
			break;
		case DW_OP_swap:
			if (!(b = pop(s)) || !(a = pop(s)))
				return false;
			push(s, b, false);
			push(s, a, false);
			break;
		case DW_OP_rot: {
			const char *c3;
			if (!(c3 = pop(s)) || !(b = pop(s)) || !(a = pop(s)))
				return false;
			push(s, c3, false);
			push(s, a, false);
			push(s, b, false);
			break;
		}
		case DW_OP_deref:
			if (!(a = pop(s)) || !push(s, load(s, a, 8), false))
				return false;
			break;
		case DW_OP_deref_size:
			if (o->n1 < 1 || o->n1 > 8) {
				s->why = _("its DWARF expression reads a size tapc does not "
					   "support (DW_OP_deref_size)");
				return false;
			}
			if (!(a = pop(s)) || !push(s, load(s, a, (int)o->n1), false))
				return false;
			break;
		case DW_OP_plus:
			if (!binary(s, "(%s + %s)"))
				return false;
			break;
		case DW_OP_plus_uconst:
			if (!(a = pop(s)) || !push(s, xsprintf("(%s + %s)", a, hexnum(o->n1)), false))
				return false;
			break;
		case DW_OP_minus:
			if (!binary(s, "(%s - %s)"))
				return false;
			break;
		case DW_OP_mul:
			if (!binary(s, "(%s * %s)"))
				return false;
			break;
		case DW_OP_and:
			if (!binary(s, "(%s & %s)"))
				return false;
			break;
		case DW_OP_or:
			if (!binary(s, "(%s | %s)"))
				return false;
			break;
		case DW_OP_xor:
			if (!binary(s, "(%s ^ %s)"))
				return false;
			break;
		case DW_OP_shl:
			if (!binary(s, "(%s << (%s & 63))"))
				return false;
			break;
		case DW_OP_shr:
			if (!binary(s, "(%s >> (%s & 63))"))
				return false;
			break;
		case DW_OP_shra:
			if (!binary(s, "((u64)((s64)%s >> (%s & 63)))"))
				return false;
			break;
		case DW_OP_neg:
			if (!(a = pop(s)) || !push(s, xsprintf("(-%s)", a), false))
				return false;
			break;
		case DW_OP_not:
			if (!(a = pop(s)) || !push(s, xsprintf("(~%s)", a), false))
				return false;
			break;
		case DW_OP_eq: case DW_OP_ne: case DW_OP_lt:
		case DW_OP_gt: case DW_OP_le: case DW_OP_ge: {
			static const char *const cmp[] = { "==", "!=", "<", ">", "<=", ">=" };
			int k = op == DW_OP_eq ? 0 : op == DW_OP_ne ? 1 : op == DW_OP_lt ? 2
				: op == DW_OP_gt ? 3 : op == DW_OP_le ? 4 : 5;
			if (!binary(s, xsprintf("((u64)((s64)%%s %s (s64)%%s))", cmp[k])))
				return false;
			break;
		}
		case DW_OP_nop:
			break;
		case DW_OP_stack_value:
			if (!s->sp)
				return pop(s) != NULL;
			s->value[s->sp - 1] = true;
			break;
		case DW_OP_entry_value:
		case DW_OP_GNU_entry_value:
			if (o->n1 > n - i - 1) {
				s->why = _("its DWARF expression is malformed");
				return false;
			}
			if (!entry_value(s, o + 1, (size_t)o->n1))
				return false;
			i += (size_t)o->n1;
			break;
		case DW_OP_piece: {
			uint64_t bytes = o->n1;
			if (!s->sp) {
				s->why = _("part of it is optimised out there");
				return false;
			}
			if (piece_bits + 8 * bytes > 64) {
				s->why = _("it is split into pieces larger than 8 bytes in all, "
					   "which tapc does not read");
				return false;
			}
			bool isval = s->value[s->sp - 1];
			a = pop(s);
			const char *v = isval ? mask_bytes(a, bytes) : load(s, a, (int)bytes);
			acc = acc ? xsprintf("(%s | (%s << %u))", acc, v, piece_bits) : v;
			piece_bits += 8 * bytes;
			s->sp = 0;
			break;
		}
		case DW_OP_fbreg:
			s->why = _("its frame base is not known at this point");
			return false;
		case DW_OP_call_frame_cfa:
			s->why = _("its frame address (DW_OP_call_frame_cfa) is not known "
				   "at this point");
			return false;
		default:
			s->why = xsprintf(_("its DWARF expression uses operation 0x%x, which "
					    "tapc does not support"), op);
			return false;
		}
	}
	*pieces_done = acc != NULL;
	*pieces_value = acc;
	return true;
badreg:
	s->why = bad_reg_why();
	return false;
}

bool loc_compile(const DiLocation *loc, const LocEnv *env, LocCode *out,
		 const char **why)
{
	*out = (LocCode){ "", NULL, false };
	switch (loc->kind) {
	case DI_LOC_NONE:
		*why = _("it is optimised out there");
		return false;
	case DI_LOC_REG: {
		const char *r = reg_value(env, loc->reg);
		if (!r) {
			*why = bad_reg_why();
			return false;
		}
		out->expr = r;
		return true;
	}
	case DI_LOC_MEM_REG: {
		const char *r = reg_value(env, loc->reg);
		if (!r) {
			*why = bad_reg_why();
			return false;
		}
		out->expr = loc->offset ? xsprintf("(%s + %s)", r, hexnum((uint64_t)loc->offset))
					: r;
		out->is_addr = true;
		return true;
	}
	case DI_LOC_ADDR:
		out->expr = env->reloc ? xsprintf("(%s + (u64)(%s))", hexnum(loc->addr), env->reloc)
				       : hexnum(loc->addr);
		out->is_addr = true;
		return true;
	case DI_LOC_CONST:
		out->expr = hexnum((uint64_t)loc->value);
		return true;
	case DI_LOC_EXPR:
		break;
	}
	LocState s = { .env = env };
	bool pieces = false;
	const char *pv = NULL;
	if (!compile_ops(&s, loc->expr, loc->expr_len, &pieces, &pv)) {
		*why = s.why;
		return false;
	}
	if (pieces) {
		out->expr = pv;
	} else if (s.sp == 0) {
		*why = _("it is optimised out there");
		return false;
	} else {
		out->expr = s.stack[s.sp - 1];
		out->is_addr = !s.value[s.sp - 1];
	}
	out->stmts = xstrdup(sb_cstr(&s.stmts));
	sb_free(&s.stmts);
	return true;
}
