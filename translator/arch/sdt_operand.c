/* sdt_operand.c - what the SDT operand parsers of every architecture
 * share (arch.h): numbers and symbol names as assemblers write them.
 * Apart from arch.c, so that the table there and the architectures' files
 * call one way. */
#include "tapc.h"
#include "arch/arch.h"

bool arch_sdt_number_at(const char **p, int64_t *v)
{
	const char *s = *p;
	bool neg = *s == '-';
	if (*s == '-' || *s == '+')
		s++;
	if (*s < '0' || *s > '9')
		return false;
	uint64_t u = 0;
	int base = 10;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	const char *digits = s;
	for (;; s++) {
		int d = *s >= '0' && *s <= '9' ? *s - '0'
			: base == 16 && *s >= 'a' && *s <= 'f' ? *s - 'a' + 10
			: base == 16 && *s >= 'A' && *s <= 'F' ? *s - 'A' + 10 : -1;
		if (d < 0)
			break;
		if (u > (UINT64_MAX - d) / base)
			return false;
		u = u * base + d;
	}
	if (s == digits)
		return false;
	*v = neg ? (int64_t)(0 - u) : (int64_t)u;
	*p = s;
	return true;
}

/* As the assembler writes one: letters, digits, '_', '.', '$', not
 * starting with a digit. */
const char *arch_sdt_symbol_at(const char **p)
{
	const char *s = *p;
	size_t n = 0;
	while ((s[n] >= 'a' && s[n] <= 'z') || (s[n] >= 'A' && s[n] <= 'Z') ||
	       s[n] == '_' || s[n] == '.' || (n && s[n] == '$') ||
	       (n && s[n] >= '0' && s[n] <= '9'))
		n++;
	if (!n)
		return NULL;
	*p = s + n;
	return intern_n(s, n);
}
