/* process_sdt.c - the process family's pass 3, for SDT marks: the C
 * expression of one marker operand (SdtArg, parsed from the note by
 * debuginfo/elf.c) in the glue process.c writes.  The registers are the
 * target architecture's (arch/).
 */
#include "process.h"
#include "arch/arch.h"

static const char *reg_of(const char *regs, int dwarf)
{
	const char *r = arch_reg(dwarf);
	if (!r)
		BUG("SDT operand with DWARF register %d", dwarf);
	return xsprintf("(%s)->%s", regs, r);
}

/* The C integer type of `size` bytes, signed or not. */
static const char *int_type(int size, bool is_signed)
{
	switch (size) {
	case 1: return is_signed ? "int8_t" : "uint8_t";
	case 2: return is_signed ? "int16_t" : "uint16_t";
	case 4: return is_signed ? "int32_t" : "uint32_t";
	case 8: return is_signed ? "int64_t" : "uint64_t";
	}
	BUG("SDT operand of %d bytes", size);
}

/* x as the operand's size and sign make it, widened to int64_t. */
static const char *extend(const char *x, const SdtArg *a)
{
	if (a->size == 8)
		return xsprintf("((int64_t)%s)", x);
	return xsprintf("((int64_t)(%s)%s)", int_type(a->size, a->is_signed), x);
}

static const char *num(int64_t v)
{
	if (v == INT64_MIN)
		return "(-0x7fffffffffffffffLL - 1)";
	return v < 0 ? xsprintf("-0x%llxLL", (unsigned long long)-v)
		     : xsprintf("0x%llxLL", (unsigned long long)v);
}

/* The operand's address (memory) as an unsigned long expression. */
static const char *address(const SdtArg *a, const char *regs)
{
	StrBuf b = { 0 };
	sb_puts(&b, "(unsigned long)(");
	bool any = false;
	if (a->reg >= 0) {
		sb_puts(&b, reg_of(regs, a->reg));
		any = true;
	}
	if (a->index >= 0) {
		sb_printf(&b, "%s%s", any ? " + " : "", reg_of(regs, a->index));
		if (a->scale != 1)
			sb_printf(&b, " * %d", a->scale);
		any = true;
	}
	if (a->value || !any)
		sb_printf(&b, "%s%s", any ? " + " : "", num(a->value));
	sb_puts(&b, ")");
	return sb_cstr(&b);
}

const char *process_sdt_arg_expr(const SdtArg *a, const char *regs)
{
	switch (a->kind) {
	case SDT_ARG_REG: {
		const char *r = reg_of(regs, a->reg);
		if (a->reg_shift)
			r = xsprintf("(%s >> %d)", r, a->reg_shift);
		return extend(r, a);
	}
	case SDT_ARG_CONST:
		/* a symbol's address is relative to the marker (elf.c) */
		if (a->reg == arch_target()->pc_reg)
			return extend(xsprintf("(%s + %s)", reg_of(regs, a->reg), num(a->value)),
				      a);
		return extend(num(a->value), a);
	case SDT_ARG_MEM:
		/* a fault reads 0 and sets the context's error, as the other
		 * user reads do; the bytes land in the low end (little endian) */
		return xsprintf("({ uint64_t __tap_sdt_v = 0; unsigned long __tap_sdt_a = %s; "
				"if (tap_read_user(&__tap_sdt_v, (const void __user *)__tap_sdt_a, %d)) { "
				"__tap_sdt_v = 0; "
				"tap_error(c, \"user read fault at 0x%%lx\", __tap_sdt_a); } "
				"%s; })",
				address(a, regs), a->size, extend("__tap_sdt_v", a));
	}
	BUG("SDT operand of kind %d", (int)a->kind);
}
