/* dwarf.c - the kernel's and its modules' DWARF, read through elfutils'
 * libdwfl (offline reporting, so a module's relocations are applied) and
 * libdw.
 *
 * The first use of a debug file walks all of its compilation units once
 * and writes an index: every function (out-of-line definitions and
 * inlined instances, by name, with their DIE and compilation unit), every
 * named type and global variable, every compilation unit.  The index is
 * cached by build-id in tapc's cache folder, so a later run finds
 * "vfs_read" by a binary search and reads only the one compilation unit
 * it is in (dwarf_offdie).  A cached index is trusted only when its
 * header (magic, version, build-id, sizes) and every offset in it agree
 * with the file; otherwise it is built again.
 *
 * Addresses handed out are libdwfl's (the DWARF's plus the module bias),
 * which for vmlinux are the kernel's own. */
#include "tapc.h"
#include "cache.h"
#include "debuginfo/kreaders.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---------------------------------------------------------------------
 * A map from DIE offsets to what was made of them
 */

typedef struct OffMap {
	uint64_t *keys;         /* offset + 1; 0 is an empty slot */
	void **vals;
	size_t cap, len;
} OffMap;

static size_t off_hash(uint64_t k, size_t cap)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return (size_t)k & (cap - 1);
}

static void *offmap_get(const OffMap *m, uint64_t key)
{
	if (!m->cap)
		return NULL;
	for (size_t i = off_hash(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == 0)
			return NULL;
		if (m->keys[i] == key + 1)
			return m->vals[i];
	}
}

static void offmap_put(OffMap *m, uint64_t key, void *val)
{
	if ((m->len + 1) * 2 > m->cap) {
		OffMap n = { 0 };
		n.cap = m->cap ? m->cap * 2 : 256;
		n.keys = xalloc(n.cap * sizeof *n.keys);
		n.vals = xalloc(n.cap * sizeof *n.vals);
		for (size_t i = 0; i < m->cap; i++)
			if (m->keys[i])
				offmap_put(&n, m->keys[i] - 1, m->vals[i]);
		*m = n;
	}
	size_t i = off_hash(key, m->cap);
	while (m->keys[i] && m->keys[i] != key + 1)
		i = (i + 1) & (m->cap - 1);
	if (!m->keys[i])
		m->len++;
	m->keys[i] = key + 1;
	m->vals[i] = val;
}

/* ---------------------------------------------------------------------
 * The index: its records, as they are in memory and in the cache file
 */

enum { IX_INLINE = 1, IX_EXTERNAL = 2 };

typedef struct IxFunc {
	uint32_t name, file;    /* string table offsets; 0 is "" */
	uint32_t line, flags;
	uint64_t die, cu;       /* DIE offsets in .debug_info */
	uint64_t pc;            /* entry, as the DWARF has it (no bias) */
	uint64_t outer;         /* inlined: the out-of-line function's DIE */
} IxFunc;

/* A named type or a global variable. */
typedef struct IxName {
	uint32_t name, file;    /* file: the compilation unit's (globals) */
	uint32_t flags, pad;
	uint64_t die, cu;
} IxName;

typedef struct IxCu {
	uint32_t name, pad;
	uint64_t cu;
} IxCu;

/* A file a compilation unit has line-table rows for (its own and the
 * headers it includes), for source lines in headers. */
typedef struct IxCuFile {
	uint32_t file;          /* string table offset */
	uint32_t cu;            /* index into the units */
} IxCuFile;

#define IX_MAGIC "TAPCDWI\n"
#define IX_VERSION 2

typedef struct IxHeader {
	char magic[8];
	uint32_t version, header_size;
	char build_id[80];      /* hex, NUL-padded */
	uint64_t file_size;     /* of the index file itself */
	uint64_t debug_size;    /* of the debug file it indexes */
	uint64_t nfuncs, ntypes, nglobals, ncus, ncufiles, nstrs;
	uint64_t off_funcs, off_types, off_globals, off_cus, off_cufiles, off_strs;
} IxHeader;

typedef struct Index {
	const IxFunc *funcs;
	const IxName *types, *globals;
	const IxCu *cus;
	const IxCuFile *cufiles;
	const char *strs;
	size_t nfuncs, ntypes, nglobals, ncus, ncufiles, nstrs;
} Index;

static const char *ix_str(const Index *ix, uint32_t off)
{
	return off < ix->nstrs ? ix->strs + off : "";
}

/* ---------------------------------------------------------------------
 * Opened modules
 */

typedef struct DwMod {
	DiModule pub;           /* first: a DiModule * is a DwMod * */
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Dwarf *dw;
	Dwarf_Addr bias;        /* libdwfl address minus DWARF address */
	Elf *elf;
	bool is_rel;            /* ET_REL (.ko): relocated by libdwfl */
	bool small;             /* a .ko or a user object: read through dw
				 * alone, with no pages dropped (a user
				 * object's DWARF may be in its separate
				 * debug file, not in elf) */
	Index ix;
	bool ix_ready;
	/* the function symbols, by address (dwarf_symbol_start: libdwfl's
	 * dwfl_module_addrinfo walks the whole symbol table each call,
	 * too slow for a check at every probe place) */
	struct FuncSym *fsyms;
	size_t nfsyms;
	bool fsyms_ready;
	OffMap funcs;           /* DIE offset -> DwFunc * */
	OffMap types;           /* DIE offset -> DiType * */
	OffMap named;           /* interned type key -> DiType * */
} DwMod;

/* A DiFunction with what dwarf.c needs to find it again. */
typedef struct DwFunc {
	DiFunction f;           /* first */
	uint64_t die;           /* its DIE (subprogram or inlined_subroutine) */
	uint64_t outer;         /* inlined: the out-of-line function's DIE */
	int64_t decl_fidx;      /* its DW_AT_decl_file, -1 when none */
} DwFunc;

static Vec opened;              /* DwMod * */

bool dwarf_owns(const DiFunction *f)
{
	for (int i = 0; i < opened.len; i++)
		if ((const DiModule *)vec_get(&opened, i) == f->module)
			return true;
	return false;
}

static Dwarf *last_dw;          /* is_user_dwarf()'s last answer */
static bool last_user;

static bool is_user_dwarf(Dwarf *dw)
{
	if (dw && dw == last_dw)
		return last_user;
	for (int i = 0; i < opened.len; i++) {
		DwMod *dm = vec_get(&opened, i);
		if (dm->dw == dw) {
			last_dw = dw;
			last_user = dm->pub.kind == DI_USER;
			return last_user;
		}
	}
	return false;
}

static DwMod *dwmod(const DiModule *m)
{
	return (DwMod *)m;
}

/* ---------------------------------------------------------------------
 * Small DWARF helpers
 */

static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	return dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &a));
}

static bool die_flag(Dwarf_Die *die, int name)
{
	Dwarf_Attribute a;
	bool v = false;
	if (!dwarf_attr_integrate(die, name, &a))
		return false;
	return dwarf_formflag(&a, &v) == 0 && v;
}

static bool die_type(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute a;
	return dwarf_attr_integrate(die, DW_AT_type, &a) &&
	       dwarf_formref_die(&a, out) != NULL;
}

/* The address a function or inlined instance begins at. */
static bool die_entry(Dwarf_Die *die, Dwarf_Addr *pc)
{
	if (dwarf_entrypc(die, pc) == 0)
		return true;
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = dwarf_ranges(die, 0, &base, &lo, &hi);
	if (off > 0) {
		*pc = lo;
		return true;
	}
	return false;
}

/* The address range of a function or inlined instance: the one of its
 * ranges that holds its entry (a function split by gcc into a hot part
 * and a ".cold" one elsewhere is its hot part, the symbol's), else from
 * its lowest to its highest address. */
static bool die_span(Dwarf_Die *die, Dwarf_Addr entry, Dwarf_Addr *low,
		     Dwarf_Addr *high)
{
	Dwarf_Addr base, lo, hi;
	bool any = false;
	ptrdiff_t off = 0;
	*low = UINT64_MAX;
	*high = 0;
	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		if (lo <= entry && entry < hi) {
			*low = lo;
			*high = hi;
			return true;
		}
		if (lo < *low)
			*low = lo;
		if (hi > *high)
			*high = hi;
		any = true;
	}
	return any;
}

/* A file name as the kernel tree has it: without the compilation
 * directory and without "./". */
static const char *tree_path(const char *p, const char *comp_dir)
{
	if (!p)
		return NULL;
	if (comp_dir && comp_dir[0] == '+')     /* a user object's unit: */
		return p;       /* as libdw names it, as stap shows it */
	size_t n = comp_dir ? strlen(comp_dir) : 0;
	if (n && !strncmp(p, comp_dir, n) && p[n] == '/')
		p += n + 1;
	while (p[0] == '.' && p[1] == '/')
		p += 2;
	return p;
}

static bool is_user_dwarf(Dwarf *dw);

/* The compilation directory of a kernel unit, which its file names are
 * given without; a user object's unit is marked by a leading '+': its
 * files are named as libdw gives them, as stap names them (the
 * compilation directory joined to a name of its own folder:
 * "main@/home/me/prog.c:12", else "main@src/prog.c:12"). */
static const char *cu_comp_dir(Dwarf_Die *cu)
{
	Dwarf_Attribute a;
	const char *d = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &a));
	if (is_user_dwarf(dwarf_cu_getdwarf(cu->cu)))
		return xsprintf("+%s", d ? d : "");
	return d;
}

static const char *die_decl_file(Dwarf_Die *die, Dwarf_Die *cu)
{
	return tree_path(dwarf_decl_file(die), cu_comp_dir(cu));
}

/* Whether path's name matches glob as di_functions() matches files: the
 * whole path, or its last components ("read_write.c", "fs/r*.c"). */
static bool di_file_matches(const char *glob, const char *path)
{
	if (!path)
		return false;
	if (fnmatch(glob, path, 0) == 0)
		return true;
	for (const char *s = path; (s = strchr(s, '/')); s++)
		if (fnmatch(glob, s + 1, 0) == 0)
			return true;
	return false;
}

/* ---------------------------------------------------------------------
 * Building the index
 */

typedef struct IxBuild {
	IxFunc *funcs;
	IxName *types, *globals;
	IxCu *cus;
	IxCuFile *cufiles;
	size_t nfuncs, ntypes, nglobals, ncus, ncufiles;
	size_t cfuncs, ctypes, cglobals, ccus, ccufiles;
	StrBuf strs;
	uint32_t *slots;        /* string hash: offset + 1 */
	size_t nslots, nstr;
	unsigned char *type_seen; /* by string offset: a type of that name */
	size_t type_seen_len;
} IxBuild;

#define GROW(b, arr, n, c) \
	do { \
		if ((b)->n == (b)->c) { \
			(b)->c = (b)->c ? (b)->c * 2 : 1024; \
			(b)->arr = xrealloc_heap((b)->arr, (b)->c * sizeof *(b)->arr); \
		} \
	} while (0)

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static uint32_t ix_intern(IxBuild *b, const char *s)
{
	if (!s || !*s)
		return 0;
	if ((b->nstr + 1) * 2 > b->nslots) {
		size_t n = b->nslots ? b->nslots * 2 : 1 << 16;
		uint32_t *slots = xrealloc_heap(NULL, n * sizeof *slots);
		memset(slots, 0, n * sizeof *slots);
		for (size_t i = 0; i < b->nslots; i++) {
			if (!b->slots[i])
				continue;
			size_t j = str_hash(b->strs.data + b->slots[i] - 1) & (n - 1);
			while (slots[j])
				j = (j + 1) & (n - 1);
			slots[j] = b->slots[i];
		}
		free(b->slots);
		b->slots = slots;
		b->nslots = n;
	}
	size_t j = str_hash(s) & (b->nslots - 1);
	for (; b->slots[j]; j = (j + 1) & (b->nslots - 1))
		if (!strcmp(b->strs.data + b->slots[j] - 1, s))
			return b->slots[j] - 1;
	if (b->strs.len == 0)
		sb_putc(&b->strs, 0);    /* offset 0 is "" */
	uint32_t off = (uint32_t)b->strs.len;
	sb_putn(&b->strs, s, strlen(s) + 1);
	b->slots[j] = off + 1;
	b->nstr++;
	return off;
}

static void add_func(IxBuild *b, Dwarf_Die *die, Dwarf_Die *cu,
		     uint64_t outer, bool inlined)
{
	Dwarf_Addr pc;
	const char *name = die_name(die);
	if (!name || !die_entry(die, &pc))
		return;
	GROW(b, funcs, nfuncs, cfuncs);
	IxFunc *f = &b->funcs[b->nfuncs++];
	int line = 0;
	dwarf_decl_line(die, &line);
	*f = (IxFunc){
		.name = ix_intern(b, name),
		.file = ix_intern(b, die_decl_file(die, cu)),
		.line = line > 0 ? (uint32_t)line : 0,
		.flags = (inlined ? IX_INLINE : 0) |
			 (die_flag(die, DW_AT_external) ? IX_EXTERNAL : 0),
		.die = dwarf_dieoffset(die),
		.cu = dwarf_dieoffset(cu),
		.pc = pc,
		.outer = outer,
	};
}

static void add_type(IxBuild *b, Dwarf_Die *die, Dwarf_Die *cu, const char *prefix)
{
	const char *name = dwarf_diename(die);
	if (!name || die_flag(die, DW_AT_declaration))
		return;
	char buf[512];
	if (prefix) {
		if ((size_t)snprintf(buf, sizeof buf, "%s %s", prefix, name) >= sizeof buf)
			return;
		name = buf;
	}
	uint32_t off = ix_intern(b, name);
	if (off >= b->type_seen_len) {
		size_t n = b->type_seen_len ? b->type_seen_len : 1 << 20;
		while (n <= off)
			n *= 2;
		b->type_seen = xrealloc_heap(b->type_seen, n);
		memset(b->type_seen + b->type_seen_len, 0, n - b->type_seen_len);
		b->type_seen_len = n;
	}
	if (b->type_seen[off])
		return;
	b->type_seen[off] = 1;
	GROW(b, types, ntypes, ctypes);
	b->types[b->ntypes++] = (IxName){ .name = off, .die = dwarf_dieoffset(die),
					  .cu = dwarf_dieoffset(cu) };
}

static void add_global(IxBuild *b, Dwarf_Die *die, Dwarf_Die *cu, uint32_t cu_name)
{
	if (!dwarf_hasattr(die, DW_AT_location) && !dwarf_hasattr(die, DW_AT_const_value))
		return;
	const char *name = die_name(die);
	if (!name)
		return;
	GROW(b, globals, nglobals, cglobals);
	b->globals[b->nglobals++] = (IxName){
		.name = ix_intern(b, name), .file = cu_name,
		.flags = die_flag(die, DW_AT_external) ? IX_EXTERNAL : 0,
		.die = dwarf_dieoffset(die), .cu = dwarf_dieoffset(cu),
	};
}

/* The functions and inlined instances under die (a function's body). */
static void walk_body(IxBuild *b, Dwarf_Die *die, Dwarf_Die *cu, uint64_t outer)
{
	Dwarf_Die c;
	if (dwarf_child(die, &c) != 0)
		return;
	do {
		switch (dwarf_tag(&c)) {
		case DW_TAG_inlined_subroutine:
			add_func(b, &c, cu, outer, true);
			walk_body(b, &c, cu, outer);
			break;
		case DW_TAG_lexical_block:
			walk_body(b, &c, cu, outer);
			break;
		case DW_TAG_subprogram:     /* a nested function (GNU C) */
			if (die_flag(&c, DW_AT_declaration))
				break;
			add_func(b, &c, cu, 0, false);
			walk_body(b, &c, cu, dwarf_dieoffset(&c));
			break;
		default:
			break;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
}

/* The files of the unit's line table, each once. */
static void add_cu_files(IxBuild *b, Dwarf_Die *cu, uint32_t cu_index)
{
	Dwarf_Files *files;
	size_t n;
	if (dwarf_getsrcfiles(cu, &files, &n) != 0)
		return;
	const char *comp = cu_comp_dir(cu);
	size_t first = b->ncufiles;
	for (size_t i = 0; i < n; i++) {
		const char *f = tree_path(dwarf_filesrc(files, i, NULL, NULL), comp);
		uint32_t off = ix_intern(b, f);
		bool seen = off == 0;
		for (size_t j = first; j < b->ncufiles && !seen; j++)
			seen = b->cufiles[j].file == off;
		if (seen)
			continue;
		GROW(b, cufiles, ncufiles, ccufiles);
		b->cufiles[b->ncufiles++] = (IxCuFile){ .file = off, .cu = cu_index };
	}
}

static void walk_cu(IxBuild *b, Dwarf_Die *cu)
{
	const char *comp = cu_comp_dir(cu);
	const char *cname = tree_path(dwarf_diename(cu), comp);
	/* a user object's unit by its whole path, as libdw names the
	 * functions' files of the compilation directory */
	if (cname && cname[0] != '/' && comp && comp[0] == '+' && comp[1])
		cname = xsprintf("%s/%s", comp + 1, cname);
	uint32_t cu_name = ix_intern(b, cname);
	GROW(b, cus, ncus, ccus);
	b->cus[b->ncus++] = (IxCu){ .name = cu_name, .cu = dwarf_dieoffset(cu) };
	add_cu_files(b, cu, (uint32_t)(b->ncus - 1));
	Dwarf_Die c;
	if (dwarf_child(cu, &c) != 0)
		return;
	do {
		switch (dwarf_tag(&c)) {
		case DW_TAG_subprogram:
			if (die_flag(&c, DW_AT_declaration))
				break;
			add_func(b, &c, cu, 0, false);
			walk_body(b, &c, cu, dwarf_dieoffset(&c));
			break;
		case DW_TAG_structure_type:
			add_type(b, &c, cu, "struct");
			break;
		case DW_TAG_union_type:
			add_type(b, &c, cu, "union");
			break;
		case DW_TAG_enumeration_type:
			add_type(b, &c, cu, "enum");
			break;
		case DW_TAG_typedef:
		case DW_TAG_base_type:
			add_type(b, &c, cu, NULL);
			break;
		case DW_TAG_variable:
			add_global(b, &c, cu, cu_name);
			break;
		default:
			break;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
}

static const char *sort_strs;

static int cmp_func(const void *a, const void *b)
{
	const IxFunc *x = a, *y = b;
	int c = strcmp(sort_strs + x->name, sort_strs + y->name);
	if (c)
		return c;
	if (x->pc != y->pc)
		return x->pc < y->pc ? -1 : 1;
	if ((x->flags & IX_INLINE) != (y->flags & IX_INLINE))
		return (x->flags & IX_INLINE) ? 1 : -1;
	return x->die < y->die ? -1 : x->die > y->die;
}

static int cmp_name(const void *a, const void *b)
{
	const IxName *x = a, *y = b;
	int c = strcmp(sort_strs + x->name, sort_strs + y->name);
	if (c)
		return c;
	if ((x->flags & IX_EXTERNAL) != (y->flags & IX_EXTERNAL))
		return (x->flags & IX_EXTERNAL) ? -1 : 1;
	return x->die < y->die ? -1 : x->die > y->die;
}

/* Give back libdw's freed memory and the pages of the mapped file read so
 * far (clean pages of a read-only mapping: read again if touched). */
static void drop_pages(char *raw, size_t size)
{
	malloc_trim(0);
	if (raw) {
		uintptr_t a = (uintptr_t)raw & ~(uintptr_t)4095;
		madvise((void *)a, size + ((uintptr_t)raw - a), MADV_DONTNEED);
	}
}

/* Walk every compilation unit.  For a vmlinux (not relocated), the
 * file's pages read are dropped every 16 units and a fresh Dwarf is
 * opened every 128, so neither the mapped file nor libdw's per-unit
 * caches (line tables, abbreviations) stay in memory all at once. */
static bool ix_walk_all(DwMod *dm, IxBuild *b)
{
	Dwarf *dw = dm->small ? dm->dw : dwarf_begin_elf(dm->elf, DWARF_C_READ, NULL);
	if (!dw)
		return false;
	size_t raw_size = 0;
	char *raw = dm->small ? NULL : elf_rawfile(dm->elf, &raw_size);
	Dwarf_Off off = 0, next;
	size_t hsize;
	int n = 0;
	while (dwarf_next_unit(dw, off, &next, &hsize, NULL, NULL, NULL, NULL,
			       NULL, NULL) == 0) {
		Dwarf_Die cu;
		if (dwarf_offdie(dw, off + hsize, &cu) &&
		    dwarf_tag(&cu) == DW_TAG_compile_unit)
			walk_cu(b, &cu);
		off = next;
		if (dm->small || ++n % 16 != 0)
			continue;
		if (n % 128 == 0) {
			dwarf_end(dw);
			drop_pages(raw, raw_size);
			dw = dwarf_begin_elf(dm->elf, DWARF_C_READ, NULL);
			if (!dw)
				return false;
			/* a fresh Dwarf reads every unit's header up to the one
			 * asked for: let it, a stretch at a time */
			Dwarf_Die d;
			for (size_t k = 64; k < b->ncus; k += 64) {
				dwarf_offdie(dw, b->cus[k].cu, &d);
				drop_pages(raw, raw_size);
			}
		}
		drop_pages(raw, raw_size);
	}
	if (!dm->small) {
		dwarf_end(dw);
		drop_pages(raw, raw_size);
	}
	return true;
}

static size_t align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* Lay the index out as the cache file has it; returns the image (heap). */
static char *ix_image(IxBuild *b, const char *build_id, uint64_t debug_size,
		      size_t *len)
{
	IxHeader h = { .version = IX_VERSION, .header_size = sizeof h };
	memcpy(h.magic, IX_MAGIC, 8);
	snprintf(h.build_id, sizeof h.build_id, "%s", build_id ? build_id : "");
	h.debug_size = debug_size;
	h.nfuncs = b->nfuncs;
	h.ntypes = b->ntypes;
	h.nglobals = b->nglobals;
	h.ncus = b->ncus;
	h.ncufiles = b->ncufiles;
	h.nstrs = b->strs.len;
	size_t off = align8(sizeof h);
	h.off_funcs = off;
	off = align8(off + b->nfuncs * sizeof(IxFunc));
	h.off_types = off;
	off = align8(off + b->ntypes * sizeof(IxName));
	h.off_globals = off;
	off = align8(off + b->nglobals * sizeof(IxName));
	h.off_cus = off;
	off = align8(off + b->ncus * sizeof(IxCu));
	h.off_cufiles = off;
	off = align8(off + b->ncufiles * sizeof(IxCuFile));
	h.off_strs = off;
	off += b->strs.len;
	h.file_size = off;
	char *img = xrealloc_heap(NULL, off ? off : 1);
	memset(img, 0, off);
	memcpy(img, &h, sizeof h);
	if (b->nfuncs)
		memcpy(img + h.off_funcs, b->funcs, b->nfuncs * sizeof(IxFunc));
	if (b->ntypes)
		memcpy(img + h.off_types, b->types, b->ntypes * sizeof(IxName));
	if (b->nglobals)
		memcpy(img + h.off_globals, b->globals, b->nglobals * sizeof(IxName));
	if (b->ncus)
		memcpy(img + h.off_cus, b->cus, b->ncus * sizeof(IxCu));
	if (b->ncufiles)
		memcpy(img + h.off_cufiles, b->cufiles, b->ncufiles * sizeof(IxCuFile));
	if (b->strs.len)
		memcpy(img + h.off_strs, b->strs.data, b->strs.len);
	*len = off;
	return img;
}

/* Point ix into an index image after checking every part of it.  False
 * when anything disagrees: the image is then not used. */
static bool ix_attach(Index *ix, const char *img, size_t len,
		      const char *build_id, uint64_t debug_size)
{
	IxHeader h;
	if (len < sizeof h)
		return false;
	memcpy(&h, img, sizeof h);
	if (memcmp(h.magic, IX_MAGIC, 8) || h.version != IX_VERSION ||
	    h.header_size != sizeof h || h.file_size != len ||
	    h.debug_size != debug_size || h.build_id[sizeof h.build_id - 1] ||
	    strcmp(h.build_id, build_id ? build_id : ""))
		return false;
	struct { uint64_t off, n, size; } parts[] = {
		{ h.off_funcs, h.nfuncs, sizeof(IxFunc) },
		{ h.off_types, h.ntypes, sizeof(IxName) },
		{ h.off_globals, h.nglobals, sizeof(IxName) },
		{ h.off_cus, h.ncus, sizeof(IxCu) },
		{ h.off_cufiles, h.ncufiles, sizeof(IxCuFile) },
		{ h.off_strs, h.nstrs, 1 },
	};
	for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
		if (parts[i].off % 8 || parts[i].off < sizeof h || parts[i].off > len ||
		    parts[i].n > (len - parts[i].off) / parts[i].size)
			return false;
	}
	if (h.nstrs && img[h.off_strs + h.nstrs - 1] != 0)
		return false;
	ix->funcs = (const IxFunc *)(img + h.off_funcs);
	ix->types = (const IxName *)(img + h.off_types);
	ix->globals = (const IxName *)(img + h.off_globals);
	ix->cus = (const IxCu *)(img + h.off_cus);
	ix->cufiles = (const IxCuFile *)(img + h.off_cufiles);
	ix->strs = img + h.off_strs;
	ix->nfuncs = h.nfuncs;
	ix->ntypes = h.ntypes;
	ix->nglobals = h.nglobals;
	ix->ncus = h.ncus;
	ix->ncufiles = h.ncufiles;
	ix->nstrs = h.nstrs;
	return true;
}

static uint64_t file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

/* The cache file of an index, or NULL when it is not cached (no
 * build-id, or no cache folder). */
static const char *ix_cache_path(DwMod *dm)
{
	const char *dir;
	if (!dm->pub.build_id || !(dir = cache_subdir("debuginfo")))
		return NULL;
	return xsprintf("%s/%s.idx", dir, dm->pub.build_id);
}

static bool ix_load_cached(DwMod *dm, const char *path, uint64_t debug_size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	struct stat st;
	void *img = MAP_FAILED;
	if (fstat(fd, &st) == 0 && st.st_size > 0)
		img = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (img == MAP_FAILED)
		return false;
	if (ix_attach(&dm->ix, img, st.st_size, dm->pub.build_id, debug_size))
		return true;
	munmap(img, st.st_size);
	verbose(1, _("debuginfo index %s does not match %s; building it again\n"),
		path, dm->pub.debug_path);
	return false;
}

static void ix_build(DwMod *dm, const char *cache_path, uint64_t debug_size)
{
	IxBuild b = { 0 };
	verbose(1, _("indexing the DWARF of %s\n"), dm->pub.debug_path);
	ix_walk_all(dm, &b);
	sort_strs = b.strs.data ? b.strs.data : "";
	qsort(b.funcs, b.nfuncs, sizeof *b.funcs, cmp_func);
	qsort(b.types, b.ntypes, sizeof *b.types, cmp_name);
	qsort(b.globals, b.nglobals, sizeof *b.globals, cmp_name);
	size_t len;
	char *img = ix_image(&b, dm->pub.build_id, debug_size, &len);
	free(b.funcs);
	free(b.types);
	free(b.globals);
	free(b.cus);
	free(b.cufiles);
	free(b.slots);
	free(b.type_seen);
	sb_free(&b.strs);
	if (cache_path && !write_file_atomic(cache_path, img, len))
		verbose(1, _("cannot write the debuginfo index %s: %s\n"),
			cache_path, strerror(errno));
	if (!ix_attach(&dm->ix, img, len, dm->pub.build_id, debug_size))
		BUG("a fresh debuginfo index does not check");
}

static const Index *dm_index(DwMod *dm)
{
	if (dm->ix_ready)
		return &dm->ix;
	dm->ix_ready = true;
	uint64_t size = file_size(dm->pub.debug_path);
	const char *path = ix_cache_path(dm);
	if (!path || !ix_load_cached(dm, path, size))
		ix_build(dm, path, size);
	return &dm->ix;
}

/* ---------------------------------------------------------------------
 * Opening a module
 */

/* A user object's separate debug file, which kdebug.c found: the one
 * open_module() is opening, or NULL.  Nothing else is looked up: a
 * kernel candidate must hold its DWARF itself, and no separate debug
 * file is found by build-id or debuglink (nor debuginfod) past the
 * search path kdebug.c was given. */
static const char *user_debug_file;

static int given_debuginfo(Dwfl_Module *mod, void **userdata,
			   const char *modname, Dwarf_Addr base,
			   const char *file_name, const char *debuglink_file,
			   GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	(void)mod, (void)userdata, (void)modname, (void)base, (void)file_name;
	(void)debuglink_file, (void)debuglink_crc;
	*debuginfo_file_name = NULL;
	if (!user_debug_file)
		return -1;
	int fd = open(user_debug_file, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		*debuginfo_file_name = strdup(user_debug_file);
	return fd;
}

static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = given_debuginfo,
	.section_address = dwfl_offline_section_address,
};

static const DiModule *open_module(DiModuleKind kind, const char *module,
				   const char *path, const char *debug_path,
				   const char **why);

const DiModule *dwarf_open(const char *module, const char *path,
			   const char **why)
{
	return open_module(module ? DI_KMODULE : DI_KERNEL, module, path, path, why);
}

const DiModule *dwarf_open_user(const char *path, const char *debug_path,
				const char **why)
{
	return open_module(DI_USER, path, path, debug_path, why);
}

static const DiModule *open_module(DiModuleKind kind, const char *module,
				   const char *path, const char *debug_path,
				   const char **why)
{
	bool user = kind == DI_USER;
	Dwfl *dwfl = dwfl_begin(&offline_callbacks);
	if (!dwfl) {
		*why = xsprintf(_("%s: %s"), path, dwfl_errmsg(-1));
		return NULL;
	}
	/* a program or library at its file addresses (bias 0), whatever
	 * its type: what uprobes and the line tables count in.  vmlinux
	 * too: arm64's is ET_DYN (a relocatable kernel), and offline
	 * reporting would put it 0x10000 past its link addresses (libdwfl's
	 * first free offline address), so an address from System.map or a
	 * script's kernel.statement(ADDR) would not match.  Only a .ko
	 * (ET_REL) needs offline reporting, which places its sections. */
	Dwfl_Module *mod = user || kind == DI_KERNEL
		? dwfl_report_elf(dwfl, user ? path : "kernel", path, -1, 0, true)
		: dwfl_report_offline(dwfl, module, path, -1);
	dwfl_report_end(dwfl, NULL, NULL);
	user_debug_file = user && strcmp(debug_path, path) ? debug_path : NULL;
	Dwarf_Addr bias = 0;
	Dwarf *dw = mod ? dwfl_module_getdwarf(mod, &bias) : NULL;
	user_debug_file = NULL;
	if (!dw) {
		*why = xsprintf(_("%s: no DWARF (%s)"), debug_path, dwfl_errmsg(-1));
		dwfl_end(dwfl);
		return NULL;
	}
	DwMod *dm = NEW(DwMod);
	dm->dwfl = dwfl;
	dm->mod = mod;
	dm->dw = dw;
	dm->bias = bias;
	Dwarf_Addr ebias;
	dm->elf = dwfl_module_getelf(mod, &ebias);
	GElf_Ehdr eh;
	dm->is_rel = dm->elf && gelf_getehdr(dm->elf, &eh) && eh.e_type == ET_REL;
	dm->small = dm->is_rel || user;
	DiModule *m = &dm->pub;
	m->kind = kind;
	m->name = intern(module ? module : "kernel");
	m->path = path;
	m->debug_path = debug_path;
	const unsigned char *bits;
	GElf_Addr va;
	int n = dwfl_module_build_id(mod, &bits, &va);
	if (n > 0) {
		StrBuf sb = { 0 };
		for (int i = 0; i < n; i++)
			sb_printf(&sb, "%02x", bits[i]);
		m->build_id = intern(sb_cstr(&sb));
		sb_free(&sb);
	}
	Dwarf_Addr lo, hi;
	dwfl_module_info(mod, NULL, &lo, &hi, NULL, NULL, NULL, NULL);
	m->low = lo;
	m->high = hi;
	m->bias = 0;
	vec_push(&opened, dm);
	return m;
}

static DwMod *find_mod(const DiModule *m)
{
	for (int i = 0; i < opened.len; i++)
		if (&((DwMod *)vec_get(&opened, i))->pub == m)
			return vec_get(&opened, i);
	return NULL;
}

void dwarf_close(const DiModule *m)
{
	for (int i = 0; i < opened.len; i++) {
		DwMod *dm = vec_get(&opened, i);
		if (&dm->pub != m)
			continue;
		dwfl_end(dm->dwfl);
		dm->dwfl = NULL;
		last_dw = NULL;
		opened.data[i] = vec_last(&opened);
		opened.len--;
		return;
	}
}

/* ---------------------------------------------------------------------
 * Types
 */

static DiType void_type = { .kind = DI_TYPE_VOID, .name = "void" };

static const DiType *conv_type(DwMod *dm, Dwarf_Die *die);

static const DiType *conv_ref(DwMod *dm, Dwarf_Die *die)
{
	Dwarf_Die t;
	return die_type(die, &t) ? conv_type(dm, &t) : NULL;
}

static int64_t subrange_count(Dwarf_Die *sub)
{
	Dwarf_Attribute a;
	Dwarf_Word w;
	Dwarf_Sword s;
	if (dwarf_attr(sub, DW_AT_count, &a) && dwarf_formudata(&a, &w) == 0)
		return (int64_t)w;
	if (dwarf_attr(sub, DW_AT_upper_bound, &a)) {
		if (a.form == DW_FORM_sdata && dwarf_formsdata(&a, &s) == 0)
			return s + 1;
		if (dwarf_formudata(&a, &w) == 0)
			return (int64_t)w + 1;
	}
	return -1;
}

static void conv_members(DwMod *dm, Dwarf_Die *die, DiType *t)
{
	Dwarf_Die c;
	if (dwarf_child(die, &c) != 0)
		return;
	do {
		if (dwarf_tag(&c) != DW_TAG_member)
			continue;
		DiMember *mb = NEW(DiMember);
		const char *name = dwarf_diename(&c);
		mb->name = name ? intern(name) : NULL;
		mb->type = conv_ref(dm, &c);
		Dwarf_Attribute a;
		Dwarf_Word w = 0;
		uint64_t bits = 0;
		if (dwarf_attr(&c, DW_AT_data_member_location, &a)) {
			Dwarf_Op *ops;
			size_t nops;
			if (dwarf_formudata(&a, &w) == 0)
				bits = w * 8;
			else if (dwarf_getlocation(&a, &ops, &nops) == 0 && nops == 1 &&
				 ops[0].atom == DW_OP_plus_uconst)
				bits = ops[0].number * 8;   /* DWARF 2's form */
		}
		if (dwarf_attr(&c, DW_AT_bit_size, &a) && dwarf_formudata(&a, &w) == 0)
			mb->bit_size = (int)w;
		if (dwarf_attr(&c, DW_AT_data_bit_offset, &a) &&
		    dwarf_formudata(&a, &w) == 0) {
			bits = w;
		} else if (mb->bit_size && dwarf_attr(&c, DW_AT_bit_offset, &a) &&
			   dwarf_formudata(&a, &w) == 0) {
			/* DWARF 2-3: counted from the storage unit's high bit */
			int bytes = dwarf_bytesize(&c);
			if (bytes <= 0 && mb->type)
				bytes = (int)di_type_strip(mb->type)->size;
			bits += (uint64_t)bytes * 8 - w - mb->bit_size;
		}
		mb->bit_offset = bits;
		vec_push(&t->members, mb);
	} while (dwarf_siblingof(&c, &c) == 0);
}

static void conv_enum(Dwarf_Die *die, DiType *t)
{
	Dwarf_Die c;
	bool negative = false;
	if (dwarf_child(die, &c) == 0) {
		do {
			if (dwarf_tag(&c) != DW_TAG_enumerator)
				continue;
			DiEnumerator *e = NEW(DiEnumerator);
			e->name = intern(dwarf_diename(&c) ? dwarf_diename(&c) : "");
			Dwarf_Attribute a;
			Dwarf_Sword s = 0;
			Dwarf_Word w = 0;
			if (dwarf_attr(&c, DW_AT_const_value, &a)) {
				if (a.form == DW_FORM_sdata || a.form == DW_FORM_implicit_const) {
					dwarf_formsdata(&a, &s);
					e->value = s;
				} else {
					dwarf_formudata(&a, &w);
					e->value = (int64_t)w;
				}
			}
			if (e->value < 0)
				negative = true;
			vec_push(&t->enumerators, e);
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	t->is_signed = negative;
	Dwarf_Die base;
	if (die_type(die, &base)) {
		Dwarf_Attribute a;
		Dwarf_Word enc = 0;
		if (dwarf_attr(&base, DW_AT_encoding, &a) && dwarf_formudata(&a, &enc) == 0)
			t->is_signed = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
	}
}

static const DiType *conv_array(DwMod *dm, Dwarf_Die *die, DiType *t)
{
	/* int a[2][3]: an array of 2 arrays of 3 ints */
	const DiType *elem = conv_ref(dm, die);
	Vec counts = { 0 };
	Dwarf_Die c;
	if (dwarf_child(die, &c) == 0) {
		do {
			if (dwarf_tag(&c) == DW_TAG_subrange_type) {
				int64_t *n = NEW(int64_t);
				*n = subrange_count(&c);
				vec_push(&counts, n);
			}
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	if (counts.len == 0) {
		int64_t *n = NEW(int64_t);
		*n = -1;
		vec_push(&counts, n);
	}
	for (int i = counts.len - 1; i >= 0; i--) {
		DiType *a = i == 0 ? t : NEW(DiType);
		a->kind = DI_TYPE_ARRAY;
		a->target = elem;
		a->count = *(int64_t *)vec_get(&counts, i);
		uint64_t esize = elem ? di_type_strip(elem)->size : 0;
		a->size = a->count > 0 ? (uint64_t)a->count * esize : 0;
		elem = a;
	}
	return t;
}

/* The key under which a named type is the same in every unit (interned;
 * allocated only the first time), or NULL for one that has no name (made
 * with whatever holds it). */
static const char *named_key(Dwarf_Die *die)
{
	int tag = dwarf_tag(die);
	const char *name = dwarf_diename(die);
	if (!name)
		return NULL;
	char buf[768];
	int size = dwarf_bytesize(die), n = -1;
	Dwarf_Attribute a;
	Dwarf_Word enc = 0;
	switch (tag) {
	case DW_TAG_base_type:
		dwarf_formudata(dwarf_attr(die, DW_AT_encoding, &a), &enc);
		n = snprintf(buf, sizeof buf, "%d %s %d %llu", tag, name, size,
			     (unsigned long long)enc);
		break;
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_class_type:
	case DW_TAG_enumeration_type:
	case DW_TAG_typedef: {
		int line = 0;
		Dwarf_Die cu;
		const char *file;
		if (dwarf_decl_line(die, &line) != 0 || line <= 0 ||
		    !dwarf_diecu(die, &cu, NULL, NULL) || !(file = die_decl_file(die, &cu)))
			return NULL;
		n = snprintf(buf, sizeof buf, "%d %s %d %d %s %d", tag, name, size,
			     die_flag(die, DW_AT_declaration), file, line);
		break;
	}
	default:
		return NULL;
	}
	return n > 0 && (size_t)n < sizeof buf ? intern(buf) : NULL;
}

/* The size of t behind typedefs and qualifiers; 0 while the type it
 * names is still being converted (a struct whose member points back at
 * a typedef of it: libc has such). */
static uint64_t type_size(const DiType *t)
{
	const DiType *s = di_type_strip(t);
	return s ? s->size : 0;
}

static const DiType *conv_type(DwMod *dm, Dwarf_Die *die)
{
	uint64_t off = dwarf_dieoffset(die);
	DiType *t = offmap_get(&dm->types, off);
	if (t)
		return t;
	/* every unit has its own copy of the types it uses; a named one made
	 * from the same declaration (name, size, file and line) is the same
	 * type, made once for the whole module */
	const char *key = named_key(die);
	if (key && (t = offmap_get(&dm->named, (uint64_t)(uintptr_t)key)))
		return t;
	t = NEW(DiType);
	offmap_put(&dm->types, off, t);
	if (key)
		offmap_put(&dm->named, (uint64_t)(uintptr_t)key, t);
	const char *name = dwarf_diename(die);
	t->name = name ? intern(name) : NULL;
	int size = dwarf_bytesize(die);
	t->size = size > 0 ? (uint64_t)size : 0;
	t->count = -1;
	int line = 0;
	if (dwarf_decl_line(die, &line) == 0) {
		Dwarf_Die cu;
		if (dwarf_diecu(die, &cu, NULL, NULL))
			t->decl.file = intern(die_decl_file(die, &cu) ? die_decl_file(die, &cu) : "");
		t->decl.line = line;
	}
	Dwarf_Attribute a;
	Dwarf_Word enc = 0;
	switch (dwarf_tag(die)) {
	case DW_TAG_base_type:
		dwarf_formudata(dwarf_attr(die, DW_AT_encoding, &a), &enc);
		t->kind = enc == DW_ATE_float || enc == DW_ATE_complex_float
			? DI_TYPE_FLOAT : DI_TYPE_INT;
		t->is_signed = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
		break;
	case DW_TAG_unspecified_type:
		t->kind = DI_TYPE_VOID;
		break;
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
		t->kind = DI_TYPE_POINTER;
		t->target = conv_ref(dm, die);
		if (!t->target)
			t->target = &void_type;
		if (!t->size)
			t->size = 8;
		break;
	case DW_TAG_typedef:
		t->kind = DI_TYPE_TYPEDEF;
		t->target = conv_ref(dm, die);
		if (!t->target)
			t->target = &void_type;
		t->size = type_size(t->target);
		break;
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type:
	case DW_TAG_atomic_type: {
		int tag = dwarf_tag(die);
		t->kind = tag == DW_TAG_const_type ? DI_TYPE_CONST
			: tag == DW_TAG_restrict_type ? DI_TYPE_RESTRICT
			: DI_TYPE_VOLATILE;
		t->target = conv_ref(dm, die);
		if (!t->target)
			t->target = &void_type;
		t->size = type_size(t->target);
		break;
	}
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_class_type:
		t->kind = dwarf_tag(die) == DW_TAG_union_type ? DI_TYPE_UNION : DI_TYPE_STRUCT;
		if (die_flag(die, DW_AT_declaration))
			t->kind = DI_TYPE_FWD;
		else
			conv_members(dm, die, t);
		break;
	case DW_TAG_enumeration_type:
		t->kind = DI_TYPE_ENUM;
		conv_enum(die, t);
		break;
	case DW_TAG_array_type:
		conv_array(dm, die, t);
		break;
	case DW_TAG_subroutine_type: {
		t->kind = DI_TYPE_FUNC;
		t->target = conv_ref(dm, die);
		Dwarf_Die c;
		if (dwarf_child(die, &c) == 0) {
			do {
				if (dwarf_tag(&c) == DW_TAG_formal_parameter) {
					const DiType *p = conv_ref(dm, &c);
					vec_push(&t->members, (void *)(p ? p : &void_type));
				}
			} while (dwarf_siblingof(&c, &c) == 0);
		}
		break;
	}
	default:
		t->kind = DI_TYPE_VOID;
		break;
	}
	return t;
}

/* ---------------------------------------------------------------------
 * Locations
 */

typedef struct OpList {
	DiOp *ops;
	size_t len, cap;
} OpList;

static void op_push(OpList *l, uint8_t op, uint64_t n1, uint64_t n2)
{
	if (l->len == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 8;
		DiOp *n = xalloc(cap * sizeof *n);
		if (l->len)
			memcpy(n, l->ops, l->len * sizeof *n);
		l->ops = n;
		l->cap = cap;
	}
	l->ops[l->len++] = (DiOp){ .op = op, .n1 = n1, .n2 = n2 };
}

static void ops_append(DwMod *dm, OpList *l, Dwarf_Attribute *attr,
		       const Dwarf_Op *ops, size_t n, const OpList *frame_base);

/* The operations of a DW_OP_entry_value's operand. */
static void entry_value_ops(DwMod *dm, OpList *l, Dwarf_Attribute *attr,
			    const Dwarf_Op *op)
{
	Dwarf_Attribute sub;
	Dwarf_Op *ops;
	size_t n;
	size_t at = l->len;
	op_push(l, op->atom, 0, 0);
	if (dwarf_getlocation_attr(attr, op, &sub) == 0 &&
	    dwarf_getlocation(&sub, &ops, &n) == 0) {
		ops_append(dm, l, &sub, ops, n, NULL);
		l->ops[at].n1 = l->len - at - 1;
	}
}

static void ops_append(DwMod *dm, OpList *l, Dwarf_Attribute *attr,
		       const Dwarf_Op *ops, size_t n, const OpList *frame_base)
{
	for (size_t i = 0; i < n; i++) {
		const Dwarf_Op *op = &ops[i];
		switch (op->atom) {
		case DW_OP_entry_value:
		case DW_OP_GNU_entry_value:
			entry_value_ops(dm, l, attr, op);
			break;
		case DW_OP_addr:
			op_push(l, op->atom, op->number + dm->bias, 0);
			break;
		case DW_OP_fbreg:
			if (frame_base && frame_base->len) {
				for (size_t j = 0; j < frame_base->len; j++)
					op_push(l, frame_base->ops[j].op,
						frame_base->ops[j].n1, frame_base->ops[j].n2);
				op_push(l, DW_OP_consts, op->number, 0);
				op_push(l, DW_OP_plus, 0, 0);
			} else {
				op_push(l, op->atom, op->number, op->number2);
			}
			break;
		default:
			op_push(l, op->atom, op->number, op->number2);
			break;
		}
	}
}

static bool is_reg_op(uint8_t op, const Dwarf_Op *o, int *reg)
{
	if (op >= DW_OP_reg0 && op <= DW_OP_reg31) {
		*reg = op - DW_OP_reg0;
		return true;
	}
	if (op == DW_OP_regx) {
		*reg = (int)o->number;
		return true;
	}
	return false;
}

static bool is_breg_op(uint8_t op, const Dwarf_Op *o, int *reg, int64_t *off)
{
	if (op >= DW_OP_breg0 && op <= DW_OP_breg31) {
		*reg = op - DW_OP_breg0;
		*off = (int64_t)o->number;
		return true;
	}
	if (op == DW_OP_bregx) {
		*reg = (int)o->number;
		*off = (int64_t)o->number2;
		return true;
	}
	return false;
}

static bool cfa_at(DwMod *dm, uint64_t pc, DiLocation *out)
{
	Dwarf_Addr cbias = 0;
	Dwarf_CFI *cfi = dwfl_module_dwarf_cfi(dm->mod, &cbias);
	Dwarf_Frame *frame = NULL;
	if (!cfi || dwarf_cfi_addrframe(cfi, pc - cbias, &frame) != 0) {
		cfi = dwfl_module_eh_cfi(dm->mod, &cbias);
		if (!cfi || dwarf_cfi_addrframe(cfi, pc - cbias, &frame) != 0)
			return false;
	}
	Dwarf_Op *ops;
	size_t n;
	bool ok = false;
	int reg;
	int64_t off;
	if (dwarf_frame_cfa(frame, &ops, &n) == 0 && n == 1 &&
	    is_breg_op(ops[0].atom, &ops[0], &reg, &off)) {
		*out = (DiLocation){ .kind = DI_LOC_REG, .reg = reg, .offset = off };
		ok = true;
	}
	free(frame);
	return ok;
}

bool dwarf_cfa_at(const DiModule *m, uint64_t pc, DiLocation *out)
{
	DwMod *dm = find_mod(m);
	return dm && cfa_at(dm, pc, out);
}

/* The frame base of the out-of-line function fdie at pc, as operations
 * (a register plus an offset when the CFA is known there). */
static void frame_base_ops(DwMod *dm, Dwarf_Die *fdie, uint64_t pc, OpList *fb)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t n;
	if (!dwarf_attr(fdie, DW_AT_frame_base, &a) ||
	    dwarf_getlocation_addr(&a, pc - dm->bias, &ops, &n, 1) != 1)
		return;
	if (n == 1 && ops[0].atom == DW_OP_call_frame_cfa) {
		DiLocation cfa;
		if (cfa_at(dm, pc, &cfa)) {
			op_push(fb, DW_OP_bregx, (uint64_t)cfa.reg, (uint64_t)cfa.offset);
			return;
		}
	}
	ops_append(dm, fb, &a, ops, n, NULL);
}

static DiLocation conv_location(DwMod *dm, Dwarf_Die *var, Dwarf_Die *fdie,
				uint64_t pc)
{
	DiLocation loc = { .kind = DI_LOC_NONE };
	Dwarf_Attribute a;
	if (!dwarf_attr(var, DW_AT_location, &a)) {
		Dwarf_Sword s;
		Dwarf_Word w;
		if (dwarf_attr_integrate(var, DW_AT_const_value, &a)) {
			if (a.form == DW_FORM_sdata && dwarf_formsdata(&a, &s) == 0) {
				loc.kind = DI_LOC_CONST;
				loc.value = s;
			} else if (dwarf_formudata(&a, &w) == 0) {
				loc.kind = DI_LOC_CONST;
				loc.value = (int64_t)w;
			}
		}
		return loc;
	}
	Dwarf_Op *ops;
	size_t n;
	if (dwarf_getlocation_addr(&a, pc - dm->bias, &ops, &n, 1) != 1 || n == 0)
		return loc;
	int reg;
	int64_t off;
	if (n == 1 && is_reg_op(ops[0].atom, &ops[0], &reg)) {
		loc.kind = DI_LOC_REG;
		loc.reg = reg;
		return loc;
	}
	if (n == 1 && is_breg_op(ops[0].atom, &ops[0], &reg, &off)) {
		loc.kind = DI_LOC_MEM_REG;
		loc.reg = reg;
		loc.offset = off;
		return loc;
	}
	if (n == 1 && ops[0].atom == DW_OP_addr) {
		loc.kind = DI_LOC_ADDR;
		loc.addr = ops[0].number + dm->bias;
		return loc;
	}
	if (n == 2 && ops[1].atom == DW_OP_stack_value) {
		uint8_t op = ops[0].atom;
		if (op >= DW_OP_lit0 && op <= DW_OP_lit31) {
			loc.kind = DI_LOC_CONST;
			loc.value = op - DW_OP_lit0;
			return loc;
		}
		if (op == DW_OP_consts || op == DW_OP_const1s || op == DW_OP_const2s ||
		    op == DW_OP_const4s || op == DW_OP_const8s ||
		    op == DW_OP_constu || op == DW_OP_const1u || op == DW_OP_const2u ||
		    op == DW_OP_const4u || op == DW_OP_const8u) {
			loc.kind = DI_LOC_CONST;
			loc.value = (int64_t)ops[0].number;
			return loc;
		}
	}
	if (n == 1 && ops[0].atom == DW_OP_implicit_value && ops[0].number <= 8) {
		Dwarf_Block blk;
		if (dwarf_getlocation_implicit_value(&a, &ops[0], &blk) == 0) {
			uint64_t v = 0;
			for (size_t i = blk.length; i > 0; i--)
				v = v << 8 | blk.data[i - 1];
			loc.kind = DI_LOC_CONST;
			loc.value = (int64_t)v;
			return loc;
		}
	}
	OpList fb = { 0 };
	if (n == 1 && ops[0].atom == DW_OP_fbreg && fdie) {
		frame_base_ops(dm, fdie, pc, &fb);
		if (fb.len == 1 && is_breg_op(fb.ops[0].op,
					      &(Dwarf_Op){ .atom = fb.ops[0].op,
							   .number = fb.ops[0].n1,
							   .number2 = fb.ops[0].n2 },
					      &reg, &off)) {
			loc.kind = DI_LOC_MEM_REG;
			loc.reg = reg;
			loc.offset = off + (int64_t)ops[0].number;
			return loc;
		}
	} else if (fdie) {
		for (size_t i = 0; i < n; i++)
			if (ops[i].atom == DW_OP_fbreg) {
				frame_base_ops(dm, fdie, pc, &fb);
				break;
			}
	}
	OpList l = { 0 };
	ops_append(dm, &l, &a, ops, n, &fb);
	loc.kind = DI_LOC_EXPR;
	loc.expr = l.ops;
	loc.expr_len = l.len;
	return loc;
}

/* ---------------------------------------------------------------------
 * Functions
 */

static bool offdie(DwMod *dm, uint64_t off, Dwarf_Die *die)
{
	return off && dwarf_offdie(dm->dw, off, die) != NULL;
}

/* A DIE's DW_AT_decl_file number, -1 when it has none. */
static int64_t decl_file_index(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	Dwarf_Word w;
	if (!dwarf_attr_integrate(die, DW_AT_decl_file, &a) || dwarf_formudata(&a, &w) != 0)
		return -1;
	return (int64_t)w;
}

/* A variable of owner (NULL for a global).  Its declaration's file is
 * owner's when the file numbers agree (both of one unit's table), which
 * spares reading the unit's line table just for its name. */
static DiVariable *conv_var(DwMod *dm, Dwarf_Die *v, Dwarf_Die *cu,
			    Dwarf_Die *fdie, uint64_t pc, bool is_param,
			    const DwFunc *owner)
{
	DiVariable *var = NEW(DiVariable);
	const char *name = die_name(v);
	var->name = name ? intern(name) : NULL;
	var->type = conv_ref(dm, v);
	var->is_param = is_param;
	int line = 0;
	if (dwarf_decl_line(v, &line) == 0) {
		int64_t fidx = decl_file_index(v);
		const char *f = owner && fidx >= 0 && fidx == owner->decl_fidx
			? owner->f.decl.file : die_decl_file(v, cu);
		var->decl.file = f ? intern(f) : NULL;
		var->decl.line = line;
	}
	var->loc = conv_location(dm, v, fdie, pc);
	return var;
}

/* The parameters of a function or inlined instance, as its DIE lists
 * them (stap's order); a concrete instance (DW_AT_abstract_origin) that
 * leaves out some of the declaration's, optimised away, gets them after
 * its own, as DI_LOC_NONE. */
static Vec params_of(DwMod *dm, Dwarf_Die *die, Dwarf_Die *cu, Dwarf_Die *fbase,
		     uint64_t pc, const DwFunc *owner)
{
	Vec out = { 0 };
	Dwarf_Off seen[64];     /* the origins of the instance's own */
	size_t nseen = 0;
	Dwarf_Die c, origin, o;
	Dwarf_Attribute a;
	if (dwarf_child(die, &c) == 0) {
		do {
			if (dwarf_tag(&c) != DW_TAG_formal_parameter)
				continue;
			vec_push(&out, conv_var(dm, &c, cu, fbase, pc, true, owner));
			if (nseen < 64 && dwarf_attr(&c, DW_AT_abstract_origin, &a) &&
			    dwarf_formref_die(&a, &o))
				seen[nseen++] = dwarf_dieoffset(&o);
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	if (nseen == 64 || !dwarf_attr(die, DW_AT_abstract_origin, &a) ||
	    !dwarf_formref_die(&a, &origin) || dwarf_child(&origin, &c) != 0)
		return out;
	do {
		if (dwarf_tag(&c) != DW_TAG_formal_parameter)
			continue;
		Dwarf_Off d = dwarf_dieoffset(&c);
		size_t i = 0;
		while (i < nseen && seen[i] != d)
			i++;
		if (i == nseen)
			vec_push(&out, conv_var(dm, &c, cu, NULL, pc, true, owner));
	} while (dwarf_siblingof(&c, &c) == 0);
	return out;
}

/* The DiFunction of the DIE at off (a subprogram, or with outer an
 * inlined instance in the subprogram at outer), made once.  r, when not
 * NULL, is its index record, which has its entry and declaration. */
static DiFunction *make_func(DwMod *dm, uint64_t off, uint64_t outer,
			     const IxFunc *r)
{
	DwFunc *df = offmap_get(&dm->funcs, off);
	if (df)
		return &df->f;
	Dwarf_Die die, cu;
	if (!offdie(dm, off, &die) || !dwarf_diecu(&die, &cu, NULL, NULL))
		return NULL;
	df = NEW(DwFunc);
	df->die = off;
	df->outer = outer;
	df->decl_fidx = decl_file_index(&die);
	DiFunction *f = &df->f;
	const char *name = die_name(&die);
	f->name = intern(name ? name : "");
	f->module = &dm->pub;
	f->inlined = dwarf_tag(&die) == DW_TAG_inlined_subroutine;
	Dwarf_Addr pc = 0, lo = 0, hi = 0;
	if (r)
		pc = r->pc;
	else
		die_entry(&die, &pc);
	if (!die_span(&die, pc, &lo, &hi))
		lo = hi = pc;
	f->entry_pc = pc + dm->bias;
	f->low_pc = lo + dm->bias;
	f->high_pc = hi + dm->bias;
	if (r) {
		/* the index has the file's name: no line table to read */
		const char *file = ix_str(&dm->ix, r->file);
		f->decl.file = *file ? intern(file) : NULL;
		f->decl.line = (int)r->line;
	} else {
		const char *file = die_decl_file(&die, &cu);
		f->decl.file = file ? intern(file) : NULL;
		dwarf_decl_line(&die, &f->decl.line);
	}
	f->external = die_flag(&die, DW_AT_external);
	f->ret = conv_ref(dm, &die);
	if (f->ret && f->ret->kind == DI_TYPE_VOID)
		f->ret = NULL;
	Dwarf_Die fdie;
	Dwarf_Die *fbase = f->inlined ? (offdie(dm, outer, &fdie) ? &fdie : NULL) : &die;
	f->params = params_of(dm, &die, &cu, fbase, f->entry_pc, df);
	offmap_put(&dm->funcs, off, df);
	return f;
}

/* The first index record whose name is not below prefix. */
static size_t ix_lower(const Index *ix, const char *prefix, size_t plen)
{
	size_t lo = 0, hi = ix->nfuncs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strncmp(ix_str(ix, ix->funcs[mid].name), prefix, plen) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static size_t literal_prefix(const char *glob)
{
	return strcspn(glob, "*?[\\");
}

Vec dwarf_functions(const DiModule *m, const char *func_glob,
		    const char *file_glob, bool want_inline)
{
	Vec out = { 0 };
	DwMod *dm = find_mod(m);
	if (!dm)
		return out;
	const Index *ix = dm_index(dm);
	size_t plen = literal_prefix(func_glob);
	bool exact = func_glob[plen] == 0;
	const IxFunc *prev = NULL;
	for (size_t i = ix_lower(ix, func_glob, plen); i < ix->nfuncs; i++) {
		const IxFunc *r = &ix->funcs[i];
		const char *name = ix_str(ix, r->name);
		if (strncmp(name, func_glob, plen) != 0)
			break;
		if (exact ? strcmp(name, func_glob) != 0 : fnmatch(func_glob, name, 0) != 0)
			continue;
		if ((r->flags & IX_INLINE) && !want_inline)
			continue;
		if (file_glob && !di_file_matches(file_glob, ix_str(ix, r->file)))
			continue;
		if (prev && prev->name == r->name && prev->pc == r->pc)
			continue;
		DiFunction *f = make_func(dm, r->die, r->outer, r);
		if (!f)
			continue;
		prev = r;
		vec_push(&out, f);
		/* a long listing goes through most of the file: keep only the
		 * pages in use (a vmlinux's are clean, read again if needed) */
		if (!dm->small && out.len % 4096 == 0) {
			size_t size = 0;
			char *raw = elf_rawfile(dm->elf, &size);
			drop_pages(raw, size);
		}
	}
	return out;
}

/* The line table of the compilation unit of die. */
static bool cu_lines(Dwarf_Die *die, Dwarf_Lines **lines, size_t *n)
{
	Dwarf_Die cu;
	return dwarf_diecu(die, &cu, NULL, NULL) &&
	       dwarf_getsrclines(&cu, lines, n) == 0;
}

/* Whether die's compilation unit was compiled with optimisation, so its
 * variables have locations valid at every pc (location lists): a probe
 * then goes on the function's entry, as stap's "auto" prologue searching
 * decides; code built without it gets its probe after the prologue. */
static bool cu_optimized(Dwarf_Die *die)
{
	Dwarf_Die cu;
	Dwarf_Attribute a;
	const char *prod;
	if (!dwarf_diecu(die, &cu, NULL, NULL) ||
	    !(prod = dwarf_formstring(dwarf_attr(&cu, DW_AT_producer, &a))))
		return false;
	bool opt = false;
	for (const char *s = prod; (s = strstr(s, " -O")); s += 3)
		opt = s[3] != '0';      /* the last -O wins */
	return opt;
}

/* The probe address: the entry of optimised code and of an inlined
 * instance; else (or with -P) the address of the first line after the
 * entry's (or the line table's prologue_end mark). */
uint64_t dwarf_probe_pc(const DiFunction *f)
{
	const DwFunc *df = (const DwFunc *)f;
	DwMod *dm = dwmod(f->module);
	if (f->inlined)
		return f->entry_pc;
	Dwarf_Die die;
	Dwarf_Lines *lines;
	size_t n;
	if (!offdie(dm, df->die, &die))
		return f->entry_pc;
	if (!sess.prologue_searching && cu_optimized(&die))
		return f->entry_pc;
	if (!cu_lines(&die, &lines, &n))
		return f->entry_pc;
	Dwarf_Addr entry = f->entry_pc - dm->bias, hi = f->high_pc - dm->bias;
	/* lines are sorted by address */
	size_t lo = 0, up = n;
	while (lo < up) {
		size_t mid = lo + (up - lo) / 2;
		Dwarf_Addr a = 0;
		dwarf_lineaddr(dwarf_onesrcline(lines, mid), &a);
		if (a < entry)
			lo = mid + 1;
		else
			up = mid;
	}
	int first_line = -1;
	for (size_t i = lo; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr a = 0;
		int line = 0;
		bool stmt = false, pe = false, end = false;
		dwarf_lineaddr(l, &a);
		if (a >= hi)
			break;
		dwarf_lineno(l, &line);
		dwarf_linebeginstatement(l, &stmt);
		dwarf_lineprologueend(l, &pe);
		dwarf_lineendsequence(l, &end);
		if (end)
			break;
		if (a == entry && first_line < 0) {
			first_line = line;
			continue;
		}
		if (first_line < 0)
			break;          /* no line at the entry itself */
		if (pe || (stmt && line != first_line))
			return a + dm->bias;
	}
	return f->entry_pc;
}

Vec dwarf_variables_at(const DiFunction *f, uint64_t pc)
{
	Vec out = { 0 };
	const DwFunc *df = (const DwFunc *)f;
	DwMod *dm = dwmod(f->module);
	Dwarf_Die die, cu, outer;
	if (!offdie(dm, df->die, &die) || !dwarf_diecu(&die, &cu, NULL, NULL))
		return out;
	Dwarf_Die *fbase = f->inlined ? (offdie(dm, df->outer, &outer) ? &outer : NULL) : &die;
	Dwarf_Die c;
	out = params_of(dm, &die, &cu, fbase, pc, df);
	/* locals: the function's own, then each block that holds pc */
	Dwarf_Die scope = die;
	for (int block = 0;; block++) {
		Dwarf_Die next;
		bool deeper = false;
		if (dwarf_child(&scope, &c) != 0)
			break;
		do {
			int tag = dwarf_tag(&c);
			if (tag == DW_TAG_variable) {
				DiVariable *v = conv_var(dm, &c, &cu, fbase, pc, false, df);
				v->block = block;
				vec_push(&out, v);
			}
			else if (tag == DW_TAG_lexical_block && !deeper &&
				 dwarf_haspc(&c, pc - dm->bias) == 1) {
				next = c;
				deeper = true;
			}
		} while (dwarf_siblingof(&c, &c) == 0);
		if (!deeper)
			break;
		scope = next;
	}
	return out;
}

/* ---------------------------------------------------------------------
 * Lines
 */

static DiFunction *func_at(DwMod *dm, Dwarf_Die *cu, Dwarf_Addr a)
{
	Dwarf_Die c;
	if (dwarf_child(cu, &c) != 0)
		return NULL;
	do {
		if (dwarf_tag(&c) == DW_TAG_subprogram && dwarf_haspc(&c, a) == 1)
			return make_func(dm, dwarf_dieoffset(&c), 0, NULL);
	} while (dwarf_siblingof(&c, &c) == 0);
	return NULL;
}

const DiFunction *dwarf_function_at(const DiModule *m, uint64_t pc)
{
	DwMod *dm = find_mod(m);
	Dwarf_Addr bias = 0;
	Dwarf_Die *cu = dm ? dwfl_module_addrdie(dm->mod, pc, &bias) : NULL;
	if (!cu)
		return NULL;
	Dwarf_Die c;
	if (dwarf_child(cu, &c) != 0)
		return NULL;
	do {
		if (dwarf_tag(&c) != DW_TAG_subprogram || dwarf_haspc(&c, pc - bias) != 1)
			continue;
		/* a function split in two (".cold") holds pc in either part;
		 * only the part with its entry is its range */
		const DiFunction *f = make_func(dm, dwarf_dieoffset(&c), 0, NULL);
		return f && pc >= f->low_pc && pc < f->high_pc ? f : NULL;
	} while (dwarf_siblingof(&c, &c) == 0);
	return NULL;
}

typedef struct LineHit {
	const char *file;       /* interned, as the tree has it */
	int line;
	Dwarf_Addr addr;
} LineHit;

static int cmp_hit(const void *a, const void *b)
{
	const LineHit *x = *(LineHit *const *)a, *y = *(LineHit *const *)b;
	int c = x->file == y->file ? 0 : strcmp(x->file, y->file);
	if (c)
		return c;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* A CU's line rows one by one, those whose address (plus bias) is in
 * [lo, hi]: each row's address, line, end-of-sequence mark and file (its
 * tree path, interned, so two rows of one file have the same pointer;
 * NULL when it has none).  Paths are made only for rows in the range. */
typedef struct {
	Dwarf_Addr addr;
	int line;
	bool end;
	const char *file;
} CuRow;

static void cu_each_row(Dwarf_Die *cu, Dwarf_Addr bias, Dwarf_Addr lo,
			Dwarf_Addr hi, void (*fn)(const CuRow *row, void *arg),
			void *arg)
{
	Dwarf_Lines *lines;
	size_t n;
	if (dwarf_getsrclines(cu, &lines, &n) != 0)
		return;
	const char *comp = cu_comp_dir(cu);
	const char *last_src = NULL, *last_file = NULL;
	for (size_t i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		CuRow r = { 0 };
		dwarf_lineaddr(l, &r.addr);
		dwarf_lineendsequence(l, &r.end);
		dwarf_lineno(l, &r.line);
		r.addr += bias;
		if (r.addr < lo || r.addr > hi)
			continue;
		const char *src = dwarf_linesrc(l, NULL, NULL);
		if (src != last_src) {
			const char *p = tree_path(src, comp);
			last_src = src;
			last_file = p ? intern(p) : NULL;
		}
		r.file = last_file;
		fn(&r, arg);
	}
}

struct hits_walk {
	const char *file_glob, *exact_file;
	Dwarf_Addr lo_pc, hi_pc;
	const char *last_file;		/* the last file seen, and whether */
	bool last_match;		/* its name matched */
	Vec hits;
};

static void add_line_hit(const CuRow *r, void *arg)
{
	struct hits_walk *w = arg;
	if (r->end || r->addr < w->lo_pc || r->addr >= w->hi_pc || r->line <= 0 || !r->file)
		return;
	if (r->file != w->last_file) {
		w->last_file = r->file;
		w->last_match = w->exact_file ? !strcmp(r->file, w->exact_file)
					      : di_file_matches(w->file_glob, r->file);
	}
	if (!w->last_match)
		return;
	LineHit *h = NEW(LineHit);
	h->file = r->file;
	h->line = r->line;
	h->addr = r->addr;
	vec_push(&w->hits, h);
}

/* The line rows of the CU's files whose name matches (file_glob, or
 * exactly exact_file), optionally only within [lo_pc, hi_pc); sorted by
 * file, line and address.  Every row, is_stmt or not: stap offers a
 * line whose code gcc did not mark as a statement start too. */
static Vec cu_line_hits(Dwarf_Die *cu, const char *file_glob,
			const char *exact_file, Dwarf_Addr lo_pc, Dwarf_Addr hi_pc)
{
	struct hits_walk w = { .file_glob = file_glob, .exact_file = exact_file,
			       .lo_pc = lo_pc, .hi_pc = hi_pc };
	cu_each_row(cu, 0, lo_pc, hi_pc, add_line_hit, &w);
	vec_sort(&w.hits, cmp_hit);
	return w.hits;
}

/* One DiLine for each line of [lo, hi] with code (its lowest address),
 * file by file. */
static void push_lines(DwMod *dm, Dwarf_Die *cu, Vec *hits, int lo, int hi,
		       bool nearest, const DiFunction *only, Vec *out)
{
	const char *file = NULL;
	int last = -1;
	bool hi_has_code = false, done = false;
	for (int i = 0; i < hits->len; i++) {
		LineHit *h = vec_get(hits, i);
		if (h->file != file) {
			file = h->file;
			last = -1;
			hi_has_code = done = false;
		}
		if (done || h->line == last)
			continue;       /* the lowest address of each line */
		last = h->line;
		if (h->line < lo)
			continue;
		/* with nearest, the lines up to hi without code stand for the
		 * next line that has code */
		if (h->line > hi && (!nearest || hi_has_code)) {
			done = true;
			continue;
		}
		hi_has_code |= h->line == hi;
		DiLine *dl = NEW(DiLine);
		dl->src.file = file;
		dl->src.line = h->line;
		dl->pc = h->addr + dm->bias;
		dl->func = only ? only : func_at(dm, cu, h->addr);
		vec_push(out, dl);
		done = h->line > hi;
	}
}

Vec dwarf_function_lines(const DiFunction *f, int lo, int hi)
{
	Vec out = { 0 };
	const DwFunc *df = (const DwFunc *)f;
	DwMod *dm = dwmod(f->module);
	Dwarf_Die die, cu;
	if (!f->decl.file || !offdie(dm, df->die, &die) ||
	    !dwarf_diecu(&die, &cu, NULL, NULL))
		return out;
	Vec hits = cu_line_hits(&cu, NULL, f->decl.file, f->low_pc - dm->bias,
				f->high_pc - dm->bias);
	push_lines(dm, &cu, &hits, lo, hi, false, f, &out);
	return out;
}

Vec dwarf_source_lines(const DiModule *m, const char *file_glob, int lo,
		       int hi, bool nearest)
{
	Vec out = { 0 };
	DwMod *dm = find_mod(m);
	if (!dm)
		return out;
	const Index *ix = dm_index(dm);
	/* the units with rows for a matching file: the one a .c file is, or
	 * every one that includes a header */
	bool *want = xalloc(ix->ncus ? ix->ncus : 1);
	OffMap match = { 0 };   /* file offset -> 1 matches, 2 does not */
	for (size_t i = 0; i < ix->ncufiles; i++) {
		const IxCuFile *cf = &ix->cufiles[i];
		if (cf->cu >= ix->ncus || want[cf->cu])
			continue;
		uintptr_t r = (uintptr_t)offmap_get(&match, cf->file);
		if (!r) {
			r = di_file_matches(file_glob, ix_str(ix, cf->file)) ? 1 : 2;
			offmap_put(&match, cf->file, (void *)r);
		}
		want[cf->cu] = r == 1;
	}
	int n = 0;
	for (size_t i = 0; i < ix->ncus; i++) {
		Dwarf_Die cu;
		if (!want[i] || !offdie(dm, ix->cus[i].cu, &cu))
			continue;
		Vec hits = cu_line_hits(&cu, file_glob, NULL, 0, UINT64_MAX);
		push_lines(dm, &cu, &hits, lo, hi, nearest, NULL, &out);
		if (!dm->small && ++n % 64 == 0) {
			size_t size = 0;
			char *raw = elf_rawfile(dm->elf, &size);
			drop_pages(raw, size);
		}
	}
	return out;
}

/* ---------------------------------------------------------------------
 * Labels and call sites
 */

static void find_labels(DwMod *dm, Dwarf_Die *scope, Dwarf_Die *cu,
			const DiFunction *f, const char *glob, Vec *out)
{
	Dwarf_Die c;
	if (dwarf_child(scope, &c) != 0)
		return;
	do {
		int tag = dwarf_tag(&c);
		if (tag == DW_TAG_label) {
			const char *name = die_name(&c);
			Dwarf_Addr pc;
			if (!name || fnmatch(glob, name, 0) != 0 || dwarf_lowpc(&c, &pc) != 0)
				continue;
			DiLabel *l = NEW(DiLabel);
			l->name = intern(name);
			l->pc = pc + dm->bias;
			l->func = f;
			int line = 0;
			if (dwarf_decl_line(&c, &line) == 0) {
				const char *file = die_decl_file(&c, cu);
				l->src.file = file ? intern(file) : NULL;
				l->src.line = line;
			}
			vec_push(out, l);
		} else if (tag == DW_TAG_lexical_block) {
			find_labels(dm, &c, cu, f, glob, out);
		}
	} while (dwarf_siblingof(&c, &c) == 0);
}

Vec dwarf_function_labels(const DiFunction *f, const char *glob)
{
	Vec out = { 0 };
	const DwFunc *df = (const DwFunc *)f;
	DwMod *dm = dwmod(f->module);
	Dwarf_Die die, cu;
	if (offdie(dm, df->die, &die) && dwarf_diecu(&die, &cu, NULL, NULL))
		find_labels(dm, &die, &cu, f, glob, &out);
	return out;
}

/* The out-of-line definition of a function named name: the one in the
 * same compilation unit when there is one, else an external one. */
static const DiFunction *definition_of(DwMod *dm, const char *name, uint64_t cu)
{
	const Index *ix = dm_index(dm);
	size_t len = strlen(name);
	const IxFunc *best = NULL;
	for (size_t i = ix_lower(ix, name, len); i < ix->nfuncs; i++) {
		const IxFunc *r = &ix->funcs[i];
		if (strcmp(ix_str(ix, r->name), name) != 0)
			break;
		if (r->flags & IX_INLINE)
			continue;
		if (r->cu == cu) {
			best = r;
			break;
		}
		if (!best || ((r->flags & IX_EXTERNAL) && !(best->flags & IX_EXTERNAL)))
			best = r;
	}
	return best ? make_func(dm, best->die, 0, best) : NULL;
}

static void find_calls(DwMod *dm, Dwarf_Die *scope, uint64_t cuoff,
		       const DiFunction *caller, const char *glob, int depth,
		       Vec *out, OffMap *seen)
{
	Dwarf_Die c;
	if (dwarf_child(scope, &c) != 0)
		return;
	do {
		int tag = dwarf_tag(&c);
		if (tag == DW_TAG_lexical_block || tag == DW_TAG_inlined_subroutine) {
			find_calls(dm, &c, cuoff, caller, glob, depth, out, seen);
			continue;
		}
		if (tag != DW_TAG_call_site && tag != DW_TAG_GNU_call_site)
			continue;
		Dwarf_Attribute a;
		Dwarf_Die callee;
		if (!(dwarf_attr(&c, DW_AT_call_origin, &a) ||
		      dwarf_attr(&c, DW_AT_abstract_origin, &a)) ||
		    !dwarf_formref_die(&a, &callee))
			continue;
		const char *name = die_name(&callee);
		if (!name)
			continue;
		Dwarf_Addr ret = 0;
		if (dwarf_attr(&c, DW_AT_call_return_pc, &a))
			dwarf_formaddr(&a, &ret);
		else
			dwarf_lowpc(&c, &ret);
		const DiFunction *cf = definition_of(dm, name, cuoff);
		if (!cf) {
			DwFunc *stub = NEW(DwFunc);
			stub->f.name = intern(name);
			stub->f.module = &dm->pub;
			stub->f.external = die_flag(&callee, DW_AT_external);
			cf = &stub->f;
		}
		if (fnmatch(glob, name, 0) == 0) {
			DiCallSite *cs = NEW(DiCallSite);
			cs->caller = caller;
			cs->callee = cf;
			cs->pc = ret + dm->bias;
			vec_push(out, cs);
		}
		const DwFunc *cdf = (const DwFunc *)cf;
		Dwarf_Die cdie, ccu;
		if (depth > 1 && cdf->die && !offmap_get(seen, cdf->die) &&
		    offdie(dm, cdf->die, &cdie) && dwarf_diecu(&cdie, &ccu, NULL, NULL)) {
			offmap_put(seen, cdf->die, (void *)cf);
			find_calls(dm, &cdie, dwarf_dieoffset(&ccu), cf, glob, depth - 1,
				   out, seen);
		}
	} while (dwarf_siblingof(&c, &c) == 0);
}

Vec dwarf_function_callees(const DiFunction *f, const char *glob, int depth)
{
	Vec out = { 0 };
	const DwFunc *df = (const DwFunc *)f;
	DwMod *dm = dwmod(f->module);
	Dwarf_Die die, cu;
	OffMap seen = { 0 };
	if (depth < 1 || !offdie(dm, df->die, &die) || !dwarf_diecu(&die, &cu, NULL, NULL))
		return out;
	offmap_put(&seen, df->die, (void *)f);
	find_calls(dm, &die, dwarf_dieoffset(&cu), f, glob, depth, &out, &seen);
	return out;
}

/* ---------------------------------------------------------------------
 * Types and globals by name
 */

static const IxName *name_lookup(const Index *ix, const IxName *arr, size_t n,
				 const char *name)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(ix_str(ix, arr[mid].name), name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && !strcmp(ix_str(ix, arr[lo].name), name) ? &arr[lo] : NULL;
}

/* A type's name as the index and the lookups spell it: runs of blanks
 * made one space, none at the ends ("struct  x " -> "struct x";
 * interned). */
static const char *type_key(const char *name)
{
	StrBuf sb = { 0 };
	for (const char *s = name; *s;) {
		if (*s == ' ' || *s == '\t') {
			while (*s == ' ' || *s == '\t')
				s++;
			if (sb.len && *s)
				sb_putc(&sb, ' ');
			continue;
		}
		sb_putc(&sb, *s++);
	}
	const char *key = intern(sb_cstr(&sb));
	sb_free(&sb);
	return key;
}

const DiType *dwarf_find_type(const DiModule *m, const char *name)
{
	DwMod *dm = find_mod(m);
	if (!dm)
		return NULL;
	const char *key = type_key(name);
	const Index *ix = dm_index(dm);
	const IxName *r = name_lookup(ix, ix->types, ix->ntypes, key);
	Dwarf_Die die;
	if (!r || !offdie(dm, r->die, &die))
		return NULL;
	return conv_type(dm, &die);
}

const DiVariable *dwarf_find_global(const DiModule *m, const char *name,
				    const char *file_glob)
{
	DwMod *dm = find_mod(m);
	if (!dm)
		return NULL;
	const Index *ix = dm_index(dm);
	const IxName *r = name_lookup(ix, ix->globals, ix->nglobals, name);
	if (!r)
		return NULL;
	/* external ones sort first among equal names */
	for (; r < ix->globals + ix->nglobals && !strcmp(ix_str(ix, r->name), name); r++) {
		if (file_glob && !di_file_matches(file_glob, ix_str(ix, r->file)))
			continue;
		Dwarf_Die die, cu;
		if (!offdie(dm, r->die, &die) || !dwarf_diecu(&die, &cu, NULL, NULL))
			continue;
		return conv_var(dm, &die, &cu, NULL, 0, false, NULL);
	}
	return NULL;
}

static uint64_t symbol_addr_of(const DiModule *m, const char *name, bool func)
{
	DwMod *dm = find_mod(m);
	int n = dm ? dwfl_module_getsymtab(dm->mod) : -1;
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		const char *s = dwfl_module_getsym_info(dm->mod, i, &sym, &addr,
							NULL, NULL, NULL);
		if (s && (!func || GELF_ST_TYPE(sym.st_info) == STT_FUNC) &&
		    !strcmp(s, name))
			return addr;
	}
	return 0;
}

uint64_t dwarf_symbol_addr(const DiModule *m, const char *name)
{
	return symbol_addr_of(m, name, true);
}

uint64_t dwarf_any_symbol_addr(const DiModule *m, const char *name)
{
	return symbol_addr_of(m, name, false);
}

struct FuncSym {
	uint64_t addr, size;
};

static int cmp_funcsym(const void *a, const void *b)
{
	const struct FuncSym *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* the biggest of one address last, where the search lands */
	return x->size < y->size ? -1 : x->size > y->size;
}

static void load_funcsyms(DwMod *dm)
{
	dm->fsyms_ready = true;
	int n = dwfl_module_getsymtab(dm->mod);
	if (n <= 1)
		return;
	dm->fsyms = xalloc((size_t)n * sizeof *dm->fsyms);
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		if (dwfl_module_getsym_info(dm->mod, i, &sym, &addr, NULL, NULL,
					    NULL) &&
		    GELF_ST_TYPE(sym.st_info) == STT_FUNC)
			dm->fsyms[dm->nfsyms++] = (struct FuncSym){ addr, sym.st_size };
	}
	qsort(dm->fsyms, dm->nfsyms, sizeof *dm->fsyms, cmp_funcsym);
}

uint64_t dwarf_symbol_start(const DiModule *m, uint64_t pc)
{
	DwMod *dm = find_mod(m);
	if (!dm)
		return 0;
	if (!dm->fsyms_ready)
		load_funcsyms(dm);
	/* the last symbol at or below pc */
	size_t lo = 0, hi = dm->nfsyms;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (dm->fsyms[mid].addr <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return 0;
	const struct FuncSym *s = &dm->fsyms[lo - 1];
	/* a sized symbol holds [addr, addr + size); an unsized one up to
	 * the next symbol */
	return !s->size || pc < s->addr + s->size ? s->addr : 0;
}

bool dwarf_read_code(const DiModule *m, uint64_t addr, void *buf, size_t len)
{
	DwMod *dm = find_mod(m);
	Dwarf_Addr off = addr, bias = 0;
	Elf_Scn *scn = dm ? dwfl_module_address_section(dm->mod, &off, &bias) : NULL;
	GElf_Shdr sh;
	if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
	    off + len > sh.sh_size)
		return false;
	Elf_Data *data = elf_getdata(scn, NULL);
	if (!data || !data->d_buf || off + len > data->d_size)
		return false;
	memcpy(buf, (const char *)data->d_buf + off, len);
	return true;
}

const DiType *dwarf_object_type(const DiModule *m, const char *name)
{
	DwMod *dm = find_mod(m);
	if (!dm)
		return NULL;
	name = type_key(name);
	int want = DW_TAG_typedef;
	const char *bare = name;
	if (!strncmp(name, "struct ", 7))
		want = DW_TAG_structure_type, bare = name + 7;
	else if (!strncmp(name, "union ", 6))
		want = DW_TAG_union_type, bare = name + 6;
	else if (!strncmp(name, "enum ", 5))
		want = DW_TAG_enumeration_type, bare = name + 5;
	Dwarf_Off off = 0, next;
	size_t hsize;
	Dwarf_Die decl_only;
	bool have_decl = false;
	while (dwarf_nextcu(dm->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, c;
		if (dwarf_offdie(dm->dw, off + hsize, &cu) && dwarf_child(&cu, &c) == 0) {
			do {
				int tag = dwarf_tag(&c);
				const char *n = dwarf_diename(&c);
				if (!n || strcmp(n, bare))
					continue;
				if (tag != want && !(want == DW_TAG_typedef &&
						     tag == DW_TAG_base_type))
					continue;
				if (die_flag(&c, DW_AT_declaration)) {
					if (!have_decl)
						decl_only = c, have_decl = true;
					continue;
				}
				return conv_type(dm, &c);
			} while (dwarf_siblingof(&c, &c) == 0);
		}
		off = next;
	}
	return have_decl ? conv_type(dm, &decl_only) : NULL;
}

/* ---------------------------------------------------------------------
 * Line tables for symfile/symline (emit/lines.c)
 */

typedef struct RowAt {
	DiLineRow r;
	size_t seq;             /* order read, to keep ties stable */
} RowAt;

static int cmp_row_at(const void *a, const void *b)
{
	const RowAt *x = *(RowAt *const *)a, *y = *(RowAt *const *)b;
	if (x->r.addr != y->r.addr)
		return x->r.addr < y->r.addr ? -1 : 1;
	/* an end of sequence before a row starting at the same address */
	if ((x->r.line == 0) != (y->r.line == 0))
		return x->r.line == 0 ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

struct rows_walk {
	uint64_t lo, hi;
	Vec *out;
};

static void add_row_at(const CuRow *c, void *arg)
{
	struct rows_walk *w = arg;
	if (c->addr < w->lo || c->addr > w->hi || (c->addr == w->hi && !c->end))
		return;
	RowAt *r = NEW(RowAt);
	r->seq = w->out->len;
	r->r.addr = c->addr;
	if (!c->end && c->line > 0 && c->file) {
		r->r.file = c->file;
		r->r.line = c->line;
	}
	vec_push(w->out, r);
}

static void cu_rows(Dwarf_Die *cu, Dwarf_Addr bias, uint64_t lo, uint64_t hi,
		    Vec *out)
{
	struct rows_walk w = { lo, hi, out };
	cu_each_row(cu, bias, lo, hi, add_row_at, &w);
}

Vec dwarf_line_rows(const DiModule *m, uint64_t lo, uint64_t hi)
{
	Vec rows = { 0 }, out = { 0 };
	DwMod *dm = find_mod(m);
	if (!dm)
		return out;
	if (hi) {
		Dwarf_Addr bias = 0;
		Dwarf_Die *cu = dwfl_module_addrdie(dm->mod, lo, &bias);
		if (cu)
			cu_rows(cu, bias, lo, hi, &rows);
	} else {
		const Index *ix = dm_index(dm);
		for (size_t i = 0; i < ix->ncus; i++) {
			Dwarf_Die cu;
			if (offdie(dm, ix->cus[i].cu, &cu))
				cu_rows(&cu, dm->bias, 0, UINT64_MAX, &rows);
		}
	}
	vec_sort(&rows, cmp_row_at);
	/* one row per address (the last read there), and none that only
	 * repeats the row before it */
	for (int i = 0; i < rows.len; i++) {
		RowAt *r = rows.data[i];
		if (i + 1 < rows.len && ((RowAt *)rows.data[i + 1])->r.addr == r->r.addr)
			continue;
		if (out.len) {
			DiLineRow *p = vec_last(&out);
			if (p->file == r->r.file && p->line == r->r.line)
				continue;
		} else if (!r->r.line) {
			continue;
		}
		vec_push(&out, &r->r);
	}
	if (hi && out.len && ((DiLineRow *)vec_last(&out))->line) {
		DiLineRow *end = NEW(DiLineRow);
		end->addr = hi;
		vec_push(&out, end);
	}
	return out;
}
