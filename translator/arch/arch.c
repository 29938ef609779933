/* arch.c - the table of architectures tapc builds for, the target's, and
 * the few helpers every architecture's file shares. */
#include "tapc.h"
#include "arch/arch.h"

#include <string.h>
#include <sys/utsname.h>

/* Adding an architecture: its file, and a line here. */
static const Arch *const arches[] = {
	&arch_x86_64,
};
#define NARCHES (sizeof arches / sizeof arches[0])

static const Arch *target;

const Arch *arch_by_name(const char *name)
{
	for (size_t i = 0; i < NARCHES; i++)
		for (const char *const *s = arches[i]->spellings; *s; s++)
			if (!strcmp(*s, name))
				return arches[i];
	return NULL;
}

const Arch *arch_by_elf_machine(int machine)
{
	for (size_t i = 0; i < NARCHES; i++)
		if (arches[i]->elf_machine == machine ||
		    (arches[i]->elf_machine_compat && arches[i]->elf_machine_compat == machine))
			return arches[i];
	return NULL;
}

const char *arch_names(void)
{
	StrBuf sb = { 0 };
	for (size_t i = 0; i < NARCHES; i++)
		sb_printf(&sb, "%s%s", i ? ", " : "", arches[i]->name);
	const char *r = xstrdup(sb_cstr(&sb));
	sb_free(&sb);
	return r;
}

void arch_set_target(const Arch *a)
{
	target = a;
}

const Arch *arch_target(void)
{
	if (!target) {
		struct utsname u;
		if (uname(&u) == 0)
			target = arch_by_name(u.machine);
		if (!target)
			BUG("the host's architecture is not one tapc knows");
	}
	return target;
}

const char *arch_reg(int reg)
{
	const Arch *a = arch_target();
	return reg >= 0 && reg < a->nregs ? a->regs[reg] : NULL;
}

const char *arch_multiarch_path(const char *path)
{
	const char *m = strstr(path, "MULTIARCH");
	if (!m)
		return path;
	return xsprintf("%.*s%s%s", (int)(m - path), path, arch_target()->multiarch,
			m + strlen("MULTIARCH"));
}

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
