/* process_insn.c - instruction-level points of the process family:
 * process(...).function("f").offset(N), a uprobe on the instruction at
 * byte offset N of f, and process(...).function("f").offset, one on
 * every instruction of f (the offsets DTrace's pid provider names
 * "f:N").  Pass 2 resolves the function as function("f") does
 * (process.c, process_dwarf.c), then reads its bytes from the file and
 * finds where its instructions begin with the capstone disassembler: an
 * offset must be one of those, as a uprobe in the middle of an
 * instruction would corrupt it.
 *
 * Each point made is a copy of the function's, with pc at the
 * instruction: pass 3 places it like a statement(ADDR) point.
 */
#include "process.h"

#include <capstone/capstone.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/* Where one function's instructions begin. */
typedef struct InsnMap {
	uint64_t start;         /* the function's entry (file address) */
	uint64_t size;          /* its bytes from there */
	Vec offs;               /* offsets from start, increasing */
	uint64_t decoded;       /* bytes decoded: size, or where the first
				 * byte capstone cannot decode is */
} InsnMap;

/* The function of point d: where it begins and how long it is (DWARF's
 * range holding the entry, else the symbol's size); false, with *why,
 * when that is not known. */
static bool insn_range(const ProcessData *d, uint64_t *start, uint64_t *size,
		       const char **why)
{
	if (d->difunc) {
		*start = d->difunc->entry_pc;
		if (d->difunc->high_pc > *start) {
			*size = d->difunc->high_pc - *start;
			return true;
		}
	} else if (d->sym) {
		*start = d->sym->addr;
		if (d->sym->size) {
			*size = d->sym->size;
			return true;
		}
	}
	*why = _("the size of the function is not known");
	return false;
}

/* The capstone architecture and mode of an ELF e_machine. */
static bool insn_arch(unsigned machine, cs_arch *arch, cs_mode *mode)
{
	switch (machine) {
	case EM_X86_64:
		*arch = CS_ARCH_X86;
		*mode = CS_MODE_64;
		return true;
	case EM_AARCH64:
		*arch = CS_ARCH_ARM64;
		*mode = CS_MODE_ARM;
		return true;
	}
	return false;
}

/* Read the function's bytes from object and decode them into m; NULL, or
 * why not. */
static const char *insn_decode(const ObjectFacts *ef, const char *object,
			       InsnMap *m)
{
	uint64_t off, last;
	if (!object_file_offset(ef, m->start, &off) ||
	    !object_file_offset(ef, m->start + m->size - 1, &last) ||
	    last - off != m->size - 1)
		return _("its bytes are not in the file");
	int fd = open(object, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return xsprintf(_("cannot open it: %s"), strerror(errno));
	unsigned char ehdr[EI_NIDENT + 4];
	uint8_t *code = xalloc(m->size);	/* the arena's: not freed */
	bool ok = pread(fd, ehdr, sizeof ehdr, 0) == (ssize_t)sizeof ehdr &&
		  pread(fd, code, m->size, (off_t)off) == (ssize_t)m->size;
	close(fd);
	if (!ok) {
		return _("cannot read its bytes");
	}
	/* e_machine follows e_type, both in the file's byte order */
	unsigned machine = ehdr[EI_DATA] == ELFDATA2MSB
			   ? (unsigned)ehdr[EI_NIDENT + 2] << 8 | ehdr[EI_NIDENT + 3]
			   : (unsigned)ehdr[EI_NIDENT + 3] << 8 | ehdr[EI_NIDENT + 2];
	cs_arch arch;
	cs_mode mode;
	csh h;
	if (!insn_arch(machine, &arch, &mode)) {
		return xsprintf(_("tapc cannot decode the instructions of ELF "
				  "machine %u"), machine);
	}
	if (cs_open(arch, mode, &h) != CS_ERR_OK) {
		return _("the capstone disassembler cannot be opened");
	}
	cs_insn *insn = cs_malloc(h);
	const uint8_t *p = code;
	size_t left = m->size;
	uint64_t addr = m->start;
	uint64_t at = 0;
	for (;;) {
		uint64_t here = addr - m->start;
		if (!left || !cs_disasm_iter(h, &p, &left, &addr, insn))
			break;
		vec_push(&m->offs, (void *)(uintptr_t)here);
		at = addr - m->start;
	}
	m->decoded = at;
	cs_free(insn, 1);
	cs_close(&h);
	return NULL;
}

static bool insn_has(const InsnMap *m, uint64_t o)
{
	for (int i = 0; i < m->offs.len; i++)
		if ((uint64_t)(uintptr_t)m->offs.data[i] == o)
			return true;
	return false;
}

/* The point of one instruction: a copy of the function's, at start+o. */
static void insn_push(const ResolvedPoint *frp, ProbePoint *point, uint64_t pc, Vec *out)
{
	ProcessData *d = NEW(ProcessData);
	*d = *(const ProcessData *)frp->data;
	d->pc = pc;
	ResolvedPoint *rp = NEW(ResolvedPoint);
	*rp = *frp;
	rp->point = point;
	rp->data = d;
	/* the function's $variables (DWARF: read at this pc; symbols: the
	 * argument registers, meaningful at offset 0), in vectors of its
	 * own */
	memset(&rp->ctx_vars, 0, sizeof rp->ctx_vars);
	memset(&rp->list_vars, 0, sizeof rp->list_vars);
	for (int i = 0; i < frp->ctx_vars.len; i++)
		vec_push(&rp->ctx_vars, frp->ctx_vars.data[i]);
	for (int i = 0; i < frp->list_vars.len; i++)
		vec_push(&rp->list_vars, frp->list_vars.data[i]);
	vec_push(out, rp);
}

/* A function of a wildcard, or any function of an optional point, that
 * cannot have the point is left out (with a warning for the wildcard);
 * else the caller reports the error. */
static bool insn_drop(ProbePoint *user, const ResolvedPoint *frp, Loc loc,
		      const char *message)
{
	if (pp_is_optional(user))
		return true;
	if (frp->point == user)
		return false;
	warning_at(loc, _("'%s' left out: %s"), pp_text(frp->point), message);
	return true;
}

int process_insn_expand(ProbePoint *pp, Vec *out, int first)
{
	int oi = -1;
	for (int i = 1; i < pp->comps.len && oi < 0; i++)
		if (!strcmp(((ProbePointComp *)pp->comps.data[i])->name, "offset"))
			oi = i;
	ProbePointComp *oc = pp->comps.data[oi];
	bool one = oc->arg != NULL;
	int64_t want = one ? comp_num(oc) : 0;
	Loc loc = one ? oc->arg->loc : oc->loc;

	if (one && want < 0) {
		error_at(loc, _("offset(%lld): an instruction offset cannot be "
				"negative"), (long long)want);
		return -1;
	}
	/* the function points resolve_process made, replaced by their
	 * instructions' */
	Vec funcs = { 0 };
	while (out->len > first)
		vec_push(&funcs, vec_pop(out));
	int total = 0;
	for (int k = funcs.len - 1; k >= 0; k--) {
		const ResolvedPoint *frp = funcs.data[k];
		const ProcessData *d = frp->data;
		/* an inlined copy has no instructions of its own to count
		 * from: the out-of-line function is the one probed */
		if (d->difunc && d->difunc->inlined)
			continue;
		InsnMap m = { 0 };
		const char *why = NULL;
		if (insn_range(d, &m.start, &m.size, &why))
			why = insn_decode(object_facts(d->object), d->object, &m);
		if (why) {
			const char *msg = xsprintf(_("cannot find the instructions of "
						     "'%s' in %s: %s"),
						   d->name, d->object, why);
			if (insn_drop(pp, frp, loc, msg))
				continue;
			error_at(loc, "%s", msg);
			return -1;
		}
		if (m.decoded < m.size && !one)
			warning_at(loc, _("the instructions of '%s' in %s could not be "
					  "decoded from offset %llu on (of %llu bytes)"),
				   d->name, d->object, (unsigned long long)m.decoded,
				   (unsigned long long)m.size);
		if (!one) {
			for (int i = 0; i < m.offs.len; i++) {
				uint64_t o = (uint64_t)(uintptr_t)m.offs.data[i];
				insn_push(frp, pp_with_num(frp->point, oi, (int64_t)o),
					  m.start + o, out);
				total++;
			}
			continue;
		}
		if (insn_has(&m, (uint64_t)want)) {
			insn_push(frp, frp->point, m.start + (uint64_t)want, out);
			total++;
			continue;
		}
		const char *msg;
		if ((uint64_t)want >= m.size) {
			msg = xsprintf(_("offset %lld is past the end of '%s' in %s "
					 "(%llu bytes)"), (long long)want, d->name,
				       d->object, (unsigned long long)m.size);
		} else if ((uint64_t)want >= m.decoded) {
			msg = xsprintf(_("the instructions of '%s' in %s could not be "
					 "decoded from offset %llu on, so offset %lld "
					 "cannot be checked"), d->name, d->object,
				       (unsigned long long)m.decoded, (long long)want);
		} else {
			/* the instruction it falls in */
			uint64_t before = 0, after = m.decoded;
			for (int i = 0; i < m.offs.len; i++) {
				uint64_t o = (uint64_t)(uintptr_t)m.offs.data[i];
				if (o < (uint64_t)want)
					before = o;
				else if (after == m.size)
					after = o;
			}
			msg = xsprintf(_("offset %lld of '%s' in %s is not the start "
					 "of an instruction (the one at offset %llu "
					 "ends at %llu)"), (long long)want, d->name,
				       d->object, (unsigned long long)before,
				       (unsigned long long)after);
		}
		if (insn_drop(pp, frp, loc, msg))
			continue;
		error_at(loc, "%s", msg);
		return -1;
	}
	return total;
}
