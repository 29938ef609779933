/* uobjects.c - what the module carries of a user-space object besides its
 * symbols (debuginfo.h): the shared libraries it needs (for --ldd, as the
 * dynamic loader would find them) and its unwind table, the rows of its
 * .eh_frame reduced to what a return-address walk needs: a CFA from the
 * stack or frame pointer (arch/), or the PLT's rule, which is x86-64's
 * (is_plt_cfa).
 */
#include "debuginfo.h"
#include "arch/arch.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static Elf *open_elf(const char *path, int *fd)
{
	if (elf_version(EV_CURRENT) == EV_NONE)
		return NULL;
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return NULL;
	Elf *elf = elf_begin(*fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		close(*fd);
		return NULL;
	}
	return elf;
}

/* The folders the loader searches after an object's own run path
 * (ld.so.conf's entries on Debian, then the defaults; MULTIARCH: the
 * target's triplet, arch/). */
static const char *const loader_dirs[] = {
	"/usr/local/lib/MULTIARCH", "/lib/MULTIARCH",
	"/usr/lib/MULTIARCH", "/usr/local/lib", "/lib64", "/usr/lib64",
	"/lib", "/usr/lib",
};

/* Where the loader would find the library NAME needed by the object at
 * path, whose DT_RUNPATH/DT_RPATH is runpath (or NULL). */
static const char *find_needed(const char *name, const char *runpath,
			       const char *path)
{
	if (strchr(name, '/'))
		return regular_file(name);
	if (runpath) {
		char *copy = xstrdup(runpath), *save = NULL;
		for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
			const char *dir = d;
			if (!strncmp(d, "$ORIGIN", 7) || !strncmp(d, "${ORIGIN}", 9)) {
				const char *slash = strrchr(path, '/');
				const char *rest = d + (d[1] == '{' ? 9 : 7);
				dir = xsprintf("%.*s%s", (int)(slash - path), path, rest);
			}
			const char *r = regular_file(xsprintf("%s/%s", dir, name));
			if (r)
				return r;
		}
	}
	for (size_t i = 0; i < sizeof loader_dirs / sizeof loader_dirs[0]; i++) {
		const char *r = regular_file(xsprintf("%s/%s", arch_multiarch_path(loader_dirs[i]),
						      name));
		if (r)
			return r;
	}
	return NULL;
}

/* The DT_NEEDED names of one object and its interpreter into names
 * (resolved paths), NULL-free. */
static void needed_of(const char *path, Vec *out)
{
	int fd;
	Elf *elf = open_elf(path, &fd);
	if (!elf)
		return;
	size_t nph = 0;
	elf_getphdrnum(elf, &nph);
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_INTERP)
			continue;
		size_t len = 0;
		char *img = elf_rawfile(elf, &len);
		if (img && ph.p_offset < len && ph.p_filesz <= len - ph.p_offset &&
		    ph.p_filesz > 1) {
			const char *r = regular_file(xstrndup(img + ph.p_offset, ph.p_filesz - 1));
			if (r)
				vec_push(out, (void *)r);
		}
	}
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || !sh.sh_entsize)
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		size_t n = sh.sh_size / sh.sh_entsize;
		const char *runpath = NULL;
		Vec names = { 0 };
		for (size_t j = 0; j < n; j++) {
			GElf_Dyn dyn;
			if (!gelf_getdyn(data, j, &dyn))
				break;
			const char *s = NULL;
			if (dyn.d_tag == DT_NEEDED || dyn.d_tag == DT_RUNPATH ||
			    (dyn.d_tag == DT_RPATH && !runpath))
				s = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val);
			if (!s)
				continue;
			if (dyn.d_tag == DT_NEEDED)
				vec_push(&names, (void *)intern(s));
			else
				runpath = intern(s);
		}
		for (int j = 0; j < names.len; j++) {
			const char *r = find_needed(names.data[j], runpath, path);
			if (r)
				vec_push(out, (void *)r);
		}
	}
	elf_end(elf);
	close(fd);
}

Vec object_needed(const char *path)
{
	Vec out = { 0 };
	const char *self = regular_file(path);
	if (!self)
		return out;
	Vec todo = { 0 };
	vec_push(&todo, (void *)self);
	for (int i = 0; i < todo.len; i++) {
		Vec found = { 0 };
		needed_of(todo.data[i], &found);
		for (int j = 0; j < found.len; j++) {
			const char *r = found.data[j];
			bool dup = r == self;
			for (int k = 0; k < out.len && !dup; k++)
				dup = out.data[k] == r;
			if (dup)
				continue;
			vec_push(&out, (void *)r);
			vec_push(&todo, (void *)r);
		}
	}
	return out;
}

/* ---- unwind rows ---- */

/* The classic PLT's CFA: rsp + 8, plus 8 more past the push in each
 * 16-byte entry (DW_OP_breg7 8; DW_OP_breg16 0; lit15; and; lit11; ge;
 * lit3; shl; plus). */
static bool is_plt_cfa(const Dwarf_Op *ops, size_t n)
{
	static const uint8_t shape[] = {
		DW_OP_breg7, DW_OP_breg16, DW_OP_lit15, DW_OP_and, DW_OP_lit11,
		DW_OP_ge, DW_OP_lit3, DW_OP_shl, DW_OP_plus,
	};
	if (n != sizeof shape)
		return false;
	for (size_t i = 0; i < n; i++)
		if (ops[i].atom != shape[i])
			return false;
	return ops[0].number == 8 && ops[1].number == 0;
}

/* Where a register's caller value is saved: true with *off (from the
 * CFA) for the offset(N) rule. */
static bool saved_at(const Dwarf_Op *ops, size_t n, int64_t *off)
{
	if (n == 1 && ops[0].atom == DW_OP_call_frame_cfa) {
		*off = 0;
		return true;
	}
	if (n == 2 && ops[0].atom == DW_OP_call_frame_cfa &&
	    ops[1].atom == DW_OP_plus_uconst) {
		*off = (int64_t)ops[1].number;
		return true;
	}
	return false;
}

/* One row of the frame state at a pc: what the runtime can follow. */
static void classify(Dwarf_Frame *fr, int ra_reg, UnwindRow *row)
{
	Dwarf_Op *ops, mem[3];
	size_t n;
	int64_t off;

	row->kind = UNW_NONE;
	if (dwarf_frame_register(fr, ra_reg, mem, &ops, &n) == 0 && n == 0 &&
	    ops == mem) {
		row->kind = UNW_OUTERMOST;      /* the return address is undefined */
		return;
	}
	if (dwarf_frame_register(fr, ra_reg, mem, &ops, &n) != 0)
		return;
	if (n == 0 && !ops) {
		/* "same value": the return address is still in its
		 * register, arm64's link register x30 at a function's entry
		 * and all through a leaf (ra_off 0 says so; no rule saves
		 * it at the CFA itself) */
		row->ra_off = 0;
	} else if (!saved_at(ops, n, &off) || off == 0 || off < -128 || off > 127) {
		return;
	} else {
		row->ra_off = (int8_t)off;
	}
	const Arch *arch = arch_target();
	if (dwarf_frame_register(fr, arch->fp_reg, mem, &ops, &n) != 0)
		return;
	row->fp_off = 0;
	if (n) {
		if (!saved_at(ops, n, &off) || off == 0 || off < -32768 || off > 32767)
			return;
		row->fp_off = (int16_t)off;
	}
	if (dwarf_frame_cfa(fr, &ops, &n) != 0)
		return;
	if (n == 1 && ops[0].atom == DW_OP_bregx &&
	    (ops[0].number == (Dwarf_Word)arch->sp_reg || ops[0].number == (Dwarf_Word)arch->fp_reg) &&
	    (int64_t)ops[0].number2 >= INT32_MIN && (int64_t)ops[0].number2 <= INT32_MAX) {
		row->kind = ops[0].number == (Dwarf_Word)arch->sp_reg ? UNW_SP : UNW_BP;
		row->cfa_off = (int32_t)ops[0].number2;
	} else if (is_plt_cfa(ops, n)) {
		row->kind = UNW_PLT;
		row->cfa_off = 8;
	}
}

static bool same_rule(const UnwindRow *a, const UnwindRow *b)
{
	return a->kind == b->kind && a->cfa_off == b->cfa_off &&
	       a->fp_off == b->fp_off && a->ra_off == b->ra_off;
}

static void push_row(Vec *rows, const UnwindRow *r)
{
	if (rows->len) {
		UnwindRow *last = rows->data[rows->len - 1];
		if (last->pc == r->pc) {
			*last = *r;
			return;
		}
		if (same_rule(last, r))
			return;
	} else if (r->kind == UNW_NONE) {
		return;
	}
	UnwindRow *n = NEW(UnwindRow);
	*n = *r;
	vec_push(rows, n);
}

/* A pointer-encoded value of .eh_frame_hdr's table (DW_EH_PE_*): its size,
 * 0 for an encoding this reader does not take. */
static size_t enc_size(int enc)
{
	switch (enc & 0x0f) {
	case 0x02: case 0x0a: return 2;
	case 0x03: case 0x0b: return 4;
	case 0x04: case 0x0c: return 8;
	default: return 0;
	}
}

static int64_t read_enc(const uint8_t *p, int enc)
{
	switch (enc & 0x0f) {
	case 0x02: { uint16_t v; memcpy(&v, p, 2); return v; }
	case 0x0a: { int16_t v; memcpy(&v, p, 2); return v; }
	case 0x03: { uint32_t v; memcpy(&v, p, 4); return v; }
	case 0x0b: { int32_t v; memcpy(&v, p, 4); return v; }
	default: { int64_t v; memcpy(&v, p, 8); return v; }
	}
}

/* The start of every FDE, sorted, from .eh_frame_hdr's search table. */
static Vec fde_starts(Elf *elf)
{
	Vec out = { 0 };
	size_t shstrndx;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return out;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(name = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    strcmp(name, ".eh_frame_hdr"))
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!d || d->d_size < 4)
			return out;
		const uint8_t *p = d->d_buf, *end = p + d->d_size;
		int ptr_enc = p[1], count_enc = p[2], table_enc = p[3];
		size_t ps = enc_size(ptr_enc), cs = enc_size(count_enc),
		       ts = enc_size(table_enc);
		/* the table's entries are relative to the section (datarel) */
		if (p[0] != 1 || !ps || !cs || !ts || (table_enc & 0x70) != 0x30 ||
		    (count_enc & 0x70) != 0 || (size_t)(end - p) < 4 + ps + cs)
			return out;
		p += 4 + ps;
		int64_t count = read_enc(p, count_enc);
		p += cs;
		for (int64_t i = 0; i < count && (size_t)(end - p) >= 2 * ts; i++, p += 2 * ts) {
			uint64_t *a = NEW(uint64_t);
			*a = sh.sh_addr + (uint64_t)read_enc(p, table_enc);
			vec_push(&out, a);
		}
		return out;
	}
	return out;
}

Vec object_unwind_rows(const char *path)
{
	Vec rows = { 0 };
	int fd;
	Elf *elf = open_elf(path, &fd);
	if (!elf)
		return rows;
	Dwarf_CFI *cfi = dwarf_getcfi_elf(elf);
	Vec starts = cfi ? fde_starts(elf) : (Vec){ 0 };
	for (int i = 0; i < starts.len; i++) {
		uint64_t pc = *(uint64_t *)starts.data[i];
		uint64_t limit = i + 1 < starts.len ? *(uint64_t *)starts.data[i + 1] : UINT64_MAX;
		if (rows.len && ((UnwindRow *)rows.data[rows.len - 1])->pc > pc)
			continue;       /* overlapping FDEs: keep the first */
		while (pc < limit) {
			Dwarf_Frame *fr;
			if (dwarf_cfi_addrframe(cfi, pc, &fr) != 0)
				break;
			Dwarf_Addr s, e;
			int ra = dwarf_frame_info(fr, &s, &e, NULL);
			UnwindRow r = { .pc = pc };
			if (ra >= 0)
				classify(fr, ra, &r);
			free(fr);
			push_row(&rows, &r);
			if (e <= pc)
				break;
			pc = e;
		}
		if (pc < limit) {
			UnwindRow gap = { .pc = pc, .kind = UNW_NONE };
			push_row(&rows, &gap);
		}
	}
	if (cfi)
		dwarf_cfi_end(cfi);
	elf_end(elf);
	close(fd);
	return rows;
}
