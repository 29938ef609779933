/* elf.c - what a user-space object's ELF file holds (debuginfo.h), read
 * with libelf once per path: the symbol table says which functions exist,
 * the PLT relocations list the .plt entries, and .note.stapsdt lists the
 * SDT markers.  A stripped file's full symbol table is read from its
 * separate debug file when one is installed (found by build ID or
 * .gnu_debuglink); without one its .dynsym is all there is to list, as
 * for stap.
 */
#include "debuginfo.h"
#include "arch/arch.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The defined functions' names into funcs and, with syms, every defined
 * function and data object (ObjSym *) into syms. */
static void read_symbols(Elf *elf, Elf_Scn *scn, GElf_Shdr *sh, Vec *funcs,
			 Vec *syms)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	if (!data || !sh->sh_entsize)
		return;
	size_t n = sh->sh_size / sh->sh_entsize;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(data, i, &sym))
			break;
		int t = GELF_ST_TYPE(sym.st_info);
		bool func = t == STT_FUNC || t == STT_GNU_IFUNC;
		if ((!func && t != STT_OBJECT) || sym.st_shndx == SHN_UNDEF ||
		    sym.st_shndx == SHN_ABS)
			continue;
		const char *name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		name = intern(name);
		if (func)
			vec_push(funcs, (void *)name);
		if (!syms)
			continue;
		ObjSym *o = NEW(ObjSym);
		o->name = name;
		o->addr = sym.st_value;
		o->size = sym.st_size;
		o->func = func;
		int b = GELF_ST_BIND(sym.st_info);
		o->global = b == STB_GLOBAL || b == STB_WEAK;
		vec_push(syms, o);
	}
}

static int sym_cmp(const void *a, const void *b)
{
	const ObjSym *x = *(ObjSym *const *)a, *y = *(ObjSym *const *)b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->func != y->func)
		return x->func ? -1 : 1;
	if (x->global != y->global)
		return x->global ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Sort syms by address and drop exact repeats (.symtab and .dynsym both
 * list exported symbols). */
static void finish_syms(Vec *syms)
{
	if (!syms->len)
		return;
	qsort(syms->data, syms->len, sizeof(void *), sym_cmp);
	int k = 0;
	for (int i = 0; i < syms->len; i++) {
		ObjSym *o = syms->data[i];
		ObjSym *p = k ? syms->data[k - 1] : NULL;
		if (p && p->addr == o->addr && p->name == o->name)
			continue;
		syms->data[k++] = o;
	}
	syms->len = k;
}

/* Symbol names of the PLT relocations (.rela.plt / .rel.plt), into plt;
 * and into slots, one per relocation in order, the name or NULL (the
 * n-th relocation is the n-th PLT entry). */
static void read_plt(Elf *elf, Elf_Scn *scn, GElf_Shdr *sh, Vec *plt,
		     Vec *slots)
{
	Elf_Scn *symscn = elf_getscn(elf, sh->sh_link);
	GElf_Shdr symsh;
	if (!symscn || !gelf_getshdr(symscn, &symsh))
		return;
	Elf_Data *data = elf_getdata(scn, NULL), *syms = elf_getdata(symscn, NULL);
	if (!data || !syms || !sh->sh_entsize)
		return;
	size_t n = sh->sh_size / sh->sh_entsize;
	for (size_t i = 0; i < n; i++) {
		size_t symi;
		if (sh->sh_type == SHT_RELA) {
			GElf_Rela r;
			if (!gelf_getrela(data, i, &r))
				break;
			symi = GELF_R_SYM(r.r_info);
		} else {
			GElf_Rel r;
			if (!gelf_getrel(data, i, &r))
				break;
			symi = GELF_R_SYM(r.r_info);
		}
		GElf_Sym sym;
		const char *name = NULL;
		if (symi && gelf_getsym(syms, symi, &sym))
			name = elf_strptr(elf, symsh.sh_link, sym.st_name);
		name = name && *name ? intern(name) : NULL;
		if (name)
			vec_push(plt, (void *)name);
		vec_push(slots, (void *)name);
	}
}

/* Where each PLT entry is: with .plt.sec (x86's IBT) entry n is the n-th
 * stub of .plt.sec; without, the n-th of .plt after its header (the
 * resolver's stub).  The sizes are the architecture's (arch/); machines
 * tapc does not know get none. */
static void place_plt(ObjectFacts *f, int machine, const Vec *slots,
		      const GElf_Shdr *plt, const GElf_Shdr *plt_sec)
{
	const Arch *arch = arch_by_elf_machine(machine);
	if (!arch || !arch->plt_entry)
		return;
	uint64_t base, first, size = arch->plt_entry;
	const GElf_Shdr *sec = plt_sec && plt_sec->sh_size ? plt_sec : plt;
	if (!sec || !sec->sh_size)
		return;
	base = sec->sh_addr;
	first = sec == plt ? arch->plt_header : 0;
	for (int i = 0; i < slots->len; i++) {
		const char *name = slots->data[i];
		uint64_t at = first + size * (uint64_t)i;
		if (!name || at + size > sec->sh_size)
			continue;
		ObjSym *o = NEW(ObjSym);
		o->name = name;
		o->addr = base + at;
		o->size = size;
		o->func = true;
		vec_push(&f->plt_entries, o);
	}
}

/* An address of `size` bytes in the file's byte order. */
static uint64_t note_address(Elf *elf, const char *p, size_t size)
{
	const unsigned char *b = (const unsigned char *)p;
	bool big = elf_getident(elf, NULL)[EI_DATA] == ELFDATA2MSB;
	uint64_t v = 0;
	for (size_t i = 0; i < size; i++)
		v |= (uint64_t)b[big ? size - 1 - i : i] << (8 * i);
	return v;
}

/* ---- SDT operands: "[N@]OPERAND", the operand in the syntax of the
 * object's architecture (arch/) ---- */

/* One operand: NULL when it parsed, else why not. */
static const char *parse_sdt_arg(const Arch *arch, const char *text, SdtArg *a)
{
	const char *s = text;
	memset(a, 0, sizeof *a);
	a->text = text;
	a->size = 8;
	a->reg = a->index = -1;
	const char *at = strchr(s, '@');
	if (at) {
		int64_t n;
		const char *q = s;
		/* "8f@": a floating-point value, whose bits are read as an
		 * unsigned number of that size */
		bool fp = at > s && at[-1] == 'f';
		if (!arch_sdt_number_at(&q, &n) || q != at - fp)
			return _("its size is not a number");
		if (fp && n < 0)
			return _("a floating-point size cannot be negative");
		if (n != 1 && n != 2 && n != 4 && n != 8 && n != -1 && n != -2 &&
		    n != -4 && n != -8)
			return _("its size is not 1, 2, 4 or 8 (negative: signed)");
		a->size = (int)(n < 0 ? -n : n);
		a->is_signed = n < 0;
		s = at + 1;
	}
	return arch->sdt_parse_operand(s, a);
}

/* Operands naming a symbol ("counter+8(%rip)", "$table", "counter" as an
 * absolute address) become relative to the marker's address, where the
 * probe stops at run time: reg the pc's (%rip) and value the distance
 * from the marker's pc.  That holds wherever the object is loaded.  A
 * bare "N(%rip)" without a symbol says nothing about where it points. */
static const char *sdt_place(const Arch *arch, const ObjectFacts *f, const SdtNote *s,
			     SdtArg *a)
{
	if (!a->symbol) {
		if (a->kind == SDT_ARG_MEM && a->reg == arch->pc_reg)
			return xsprintf(_("a %s-relative operand without a symbol"),
					arch->sdt_pc_operand);
		if (a->kind == SDT_ARG_MEM && a->reg < 0 && a->index < 0 && f->pie)
			return _("an absolute address in a position-independent object");
		return NULL;
	}
	if (a->kind == SDT_ARG_MEM && a->reg >= 0 && a->reg != arch->pc_reg)
		return _("a symbol displacement on a register base");
	if (a->index >= 0)
		return _("a symbol displacement with an index");
	const ObjSym *sym = NULL;
	for (int i = 0; i < f->syms.len && !sym; i++) {
		const ObjSym *o = f->syms.data[i];
		if (o->name == a->symbol)
			sym = o;
	}
	if (!sym)
		return xsprintf(_("its symbol '%s' is not in the file's symbol table"), a->symbol);
	a->value = (int64_t)(sym->addr + (uint64_t)a->value - s->pc);
	a->reg = arch->pc_reg;
	return NULL;
}

/* A file moved after linking (prelink) has its .stapsdt.base elsewhere
 * than its notes say: their pc and semaphore moved as far. */
static void move_sdt(ObjectFacts *f, uint64_t base)
{
	for (int i = 0; i < f->sdt.len; i++) {
		SdtNote *s = f->sdt.data[i];
		if (!s->base || s->base == base)
			continue;
		uint64_t by = base - s->base;
		s->pc += by;
		if (s->semaphore)
			s->semaphore += by;
		s->base = base;
	}
}

/* Every operand of every marker of f, once the symbols are known; arch:
 * the architecture of f's code, NULL when tapc reads no operands of it. */
static void parse_sdt_args(ObjectFacts *f, const Arch *arch)
{
	for (int i = 0; i < f->sdt.len; i++) {
		SdtNote *s = f->sdt.data[i];
		if (!s->nargs)
			continue;
		if (!arch) {
			s->args_error = xsprintf(_("tapc reads SDT operands of %s objects only"),
						 arch_names());
			continue;
		}
		Vec argv = { 0 };
		const char *p = s->args;
		while (*p && !s->args_error) {
			while (*p == ' ')
				p++;
			/* operands are separated by blanks, but arm64's memory
			 * operands hold one ("[sp, 12]") */
			size_t n = 0;
			for (int depth = 0; p[n] && (depth || p[n] != ' '); n++)
				depth += p[n] == '[' ? 1 : p[n] == ']' && depth ? -1 : 0;
			if (!n)
				break;
			SdtArg *a = NEW(SdtArg);
			const char *why = parse_sdt_arg(arch, intern_n(p, n), a);
			if (!why)
				why = sdt_place(arch, f, s, a);
			if (why)
				s->args_error = xsprintf(_("operand %d '%s': %s"), argv.len + 1,
							 a->text, why);
			vec_push(&argv, a);
			p += n;
		}
		if (!s->args_error)
			s->argv = argv;
	}
}

/* .note.stapsdt: three addresses, then provider, name and the argument
 * descriptions ("8@%rdi -4@%esi"), one per argument. */
static void read_sdt(Elf *elf, Elf_Scn *scn, Vec *sdt)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	if (!data)
		return;
	size_t addr = gelf_getclass(elf) == ELFCLASS32 ? 4 : 8;
	GElf_Nhdr nh;
	size_t off = 0, name_off, desc_off;
	while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type != 3 || nh.n_namesz != sizeof "stapsdt" ||
		    memcmp((char *)data->d_buf + name_off, "stapsdt", 7) ||
		    nh.n_descsz <= 3 * addr)
			continue;
		const char *desc = (char *)data->d_buf + desc_off;
		const char *d = desc + 3 * addr;
		const char *end = desc + nh.n_descsz;
		const char *prov = d, *name = prov + strnlen(prov, end - prov) + 1;
		if (name >= end)
			continue;
		const char *args = name + strnlen(name, end - name) + 1;
		SdtNote *s = NEW(SdtNote);
		s->provider = intern_n(prov, strnlen(prov, end - prov));
		s->name = intern_n(name, strnlen(name, end - name));
		s->pc = note_address(elf, desc, addr);
		s->base = note_address(elf, desc + addr, addr);
		s->semaphore = note_address(elf, desc + 2 * addr, addr);
		s->args = "";
		if (args < end) {
			size_t len = strnlen(args, end - args);
			s->args = intern_n(args, len);
			bool in_word = false;
			for (size_t i = 0; i < len; i++) {
				bool blank = args[i] == ' ';
				if (!blank && !in_word)
					s->nargs++;
				in_word = !blank;
			}
		}
		vec_push(sdt, s);
	}
}

/* The build ID note's bytes as hex ("15dfff32..."), or NULL. */
static const char *read_build_id(Elf_Scn *scn)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	GElf_Nhdr nh;
	size_t name_off, desc_off;
	if (!data || gelf_getnote(data, 0, &nh, &name_off, &desc_off) == 0 ||
	    nh.n_type != NT_GNU_BUILD_ID || nh.n_descsz == 0 || nh.n_descsz > 64)
		return NULL;
	const unsigned char *b = (const unsigned char *)data->d_buf + desc_off;
	char hex[129];
	for (size_t i = 0; i < nh.n_descsz; i++)
		snprintf(hex + 2 * i, 3, "%02x", b[i]);
	return intern(hex);
}

static bool is_regular(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* The separate debug file of a stripped file, where GDB looks for it:
 * by build ID, then by debuglink name beside the file, in its .debug
 * folder and under /usr/lib/debug.  NULL when none is installed. */
static const char *debug_file_of(const ObjectFacts *f)
{
	if (f->build_id && strlen(f->build_id) > 2) {
		const char *p = xsprintf("/usr/lib/debug/.build-id/%.2s/%s.debug",
					 f->build_id, f->build_id + 2);
		if (is_regular(p))
			return p;
	}
	if (!f->debuglink)
		return NULL;
	const char *slash = strrchr(f->path, '/');
	const char *dir = slash ? xstrndup(f->path, slash - f->path) : ".";
	const char *cand[] = {
		xsprintf("%s/%s", dir, f->debuglink),
		xsprintf("%s/.debug/%s", dir, f->debuglink),
		xsprintf("/usr/lib/debug%s/%s", dir, f->debuglink),
	};
	for (size_t i = 0; i < sizeof cand / sizeof cand[0]; i++)
		if (strcmp(cand[i], f->path) && is_regular(cand[i]))
			return cand[i];
	return NULL;
}

const ObjectFacts *object_facts(const char *path)
{
	static Vec cache;
	path = intern(path);
	for (int i = 0; i < cache.len; i++) {
		ObjectFacts *f = cache.data[i];
		if (f->path == path)
			return f;
	}
	ObjectFacts *f = NEW(ObjectFacts);
	f->path = path;
	vec_push(&cache, f);
	if (elf_version(EV_CURRENT) == EV_NONE)
		return f;
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return f;
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF) {
		f->readable = true;
		Vec funcs = { 0 }, plt = { 0 }, symtab = { 0 }, dynsym = { 0 };
		Vec plt_slots = { 0 };
		GElf_Shdr plt_sh = { 0 }, plt_sec_sh = { 0 };
		GElf_Ehdr eh = { 0 };
		int machine = EM_NONE;
		uint64_t sdt_base = 0;
		bool have_sdt_base = false;
		if (gelf_getehdr(elf, &eh)) {
			f->pie = eh.e_type == ET_DYN;
			machine = eh.e_machine;
		}
		size_t nph = 0;
		if (elf_getphdrnum(elf, &nph) != 0)
			nph = 0;
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
				continue;
			ObjSegment *sg = NEW(ObjSegment);
			sg->vaddr = ph.p_vaddr;
			sg->memsz = ph.p_memsz;
			sg->offset = ph.p_offset;
			sg->filesz = ph.p_filesz;
			sg->exec = ph.p_flags & PF_X;
			vec_push(&f->segments, sg);
		}
		size_t shstrndx;
		if (elf_getshdrstrndx(elf, &shstrndx) != 0)
			shstrndx = 0;
		for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
			GElf_Shdr sh;
			if (!gelf_getshdr(scn, &sh))
				continue;
			const char *sname = elf_strptr(elf, shstrndx, sh.sh_name);
			if (!sname)
				sname = "";
			if (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM) {
				f->has_symtab |= sh.sh_type == SHT_SYMTAB;
				read_symbols(elf, scn, &sh, &funcs,
					     sh.sh_type == SHT_SYMTAB ? &symtab : &dynsym);
			} else if ((sh.sh_type == SHT_RELA || sh.sh_type == SHT_REL) &&
				   (!strcmp(sname, ".rela.plt") || !strcmp(sname, ".rel.plt"))) {
				read_plt(elf, scn, &sh, &plt, &plt_slots);
			} else if (sh.sh_type == SHT_PROGBITS && !strcmp(sname, ".plt")) {
				plt_sh = sh;
			} else if (sh.sh_type == SHT_PROGBITS && !strcmp(sname, ".plt.sec")) {
				plt_sec_sh = sh;
			} else if (!strcmp(sname, ".debug_info") && sh.sh_type != SHT_NOBITS) {
				f->debug_info = true;
			} else if (sh.sh_type == SHT_NOTE && !strcmp(sname, ".note.stapsdt")) {
				read_sdt(elf, scn, &f->sdt);
			} else if (!strcmp(sname, ".stapsdt.base")) {
				sdt_base = sh.sh_addr;
				have_sdt_base = true;
			} else if (sh.sh_type == SHT_NOTE && !strcmp(sname, ".note.gnu.build-id")) {
				f->build_id = read_build_id(scn);
			} else if (!strcmp(sname, ".gnu_debuglink")) {
				Elf_Data *d = elf_getdata(scn, NULL);
				if (d && d->d_size && memchr(d->d_buf, 0, d->d_size))
					f->debuglink = intern(d->d_buf);
			}
		}
		f->complete = f->has_symtab;
		const char *dbg = f->has_symtab ? NULL : debug_file_of(f);
		const ObjectFacts *df = dbg ? object_facts(dbg) : NULL;
		if (df && df->has_symtab) {
			for (int i = 0; i < df->funcs.len; i++)
				vec_push(&funcs, (void *)df->funcs.names[i]);
			f->complete = true;
			f->debug_file = df->path;
			f->debug_info |= df->debug_info;
			for (int i = 0; i < df->syms.len; i++)
				vec_push(&f->syms, df->syms.data[i]);
		} else if (!f->has_symtab) {
			f->dynamic_only = true;
		}
		/* the full table, else what the dynamic one has */
		Vec *from = f->has_symtab ? &symtab : f->syms.len ? NULL : &dynsym;
		for (int i = 0; from && i < from->len; i++)
			vec_push(&f->syms, from->data[i]);
		finish_syms(&f->syms);
		if (have_sdt_base)
			move_sdt(f, sdt_base);
		const Arch *arch = arch_by_elf_machine(machine);
		parse_sdt_args(f, arch && machine == arch->elf_machine &&
				  gelf_getclass(elf) == ELFCLASS64 ? arch : NULL);
		namelist_finish(&f->funcs, &funcs);
		namelist_finish(&f->plt, &plt);
		place_plt(f, machine, &plt_slots, &plt_sh, &plt_sec_sh);
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return f;
}

bool object_file_offset(const ObjectFacts *f, uint64_t vaddr, uint64_t *off)
{
	for (int i = 0; i < f->segments.len; i++) {
		const ObjSegment *sg = f->segments.data[i];
		if (vaddr >= sg->vaddr && vaddr - sg->vaddr < sg->filesz) {
			*off = vaddr - sg->vaddr + sg->offset;
			return true;
		}
	}
	return false;
}

const ObjSym *object_symbol(const ObjectFacts *f, const char *name)
{
	const ObjSym *best = NULL;
	for (int i = 0; i < f->syms.len; i++) {
		const ObjSym *o = f->syms.data[i];
		if (o->func && !strcmp(o->name, name) && (!best || (o->global && !best->global)))
			best = o;
	}
	return best;
}

const ObjSym *object_symbol_at(const ObjectFacts *f, uint64_t addr)
{
	/* the last symbol starting at or before addr, then back over those
	 * at the same place and the ones that still span it */
	int lo = 0, hi = f->syms.len;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (((const ObjSym *)f->syms.data[mid])->addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	const ObjSym *obj = NULL;
	for (int i = lo - 1; i >= 0; i--) {
		const ObjSym *o = f->syms.data[i];
		bool holds = addr < o->addr + (o->size ? o->size : 1);
		if (holds && o->func)
			return o;
		if (holds && !obj)
			obj = o;
		if (addr - o->addr > (1u << 24))
			break;          /* nothing spans that far */
	}
	return obj;
}
