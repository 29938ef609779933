/* arch.c - the table of architectures tapc builds for, the target's, and
 * the lookups the rest of the translator makes in it. */
#include "tapc.h"
#include "arch/arch.h"

#include <string.h>
#include <sys/utsname.h>

/* Adding an architecture: its file, and a line here. */
static const Arch *const arches[] = {
	&arch_x86_64,
	&arch_arm64,
	NULL
};
#define NARCHES (sizeof arches / sizeof arches[0] - 1)

static const Arch *target;

const Arch *arch_by_name(const char *name)
{
	for (size_t i = 0; i < NARCHES; i++)
		for (const char *const *s = arches[i]->spellings; *s; s++)
			if (!strcmp(*s, name))
				return arches[i];
	return NULL;
}

bool arch_has_script_reg(const Arch *arch, const char *name)
{
	for (const char *const *r = arch->script_regs; r && *r; r++)
		if (!strcmp(*r, name))
			return true;
	return false;
}

const Arch *arch_other_with_script_reg(const Arch *arch, const char *name)
{
	for (size_t i = 0; i < NARCHES; i++)
		if (arches[i] != arch && arch_has_script_reg(arches[i], name))
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

const Arch *const *arch_all(void)
{
	return arches;
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
