/* test_btf.c - unit tests for translator/debuginfo/btf.c: BTF written with
 * libbpf's btf__add_* calls (a kernel and a module split on it) converted
 * to DiType and DiFunction, checked field by field; images packed with
 * xz, zstd and gzip in a made-up bzImage, through the cache (a corrupt
 * cache file is rewritten); and, when this machine has them, the running
 * kernel's /sys/kernel/btf/vmlinux and each /boot/vmlinuz-*.  Each part
 * runs in its own process, since btf.c reads a kernel once per run.
 */
#include "tapc.h"
#include "passes.h"
#include "debuginfo/kreaders.h"

#include <bpf/btf.h>
#include <dirent.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "check.h"

#define SKIP 77

static const DiMember *member(const DiType *t, const char *name)
{
	for (int i = 0; t && i < t->members.len; i++) {
		const DiMember *m = t->members.data[i];
		if (m->name && !strcmp(m->name, name))
			return m;
	}
	return NULL;
}

static const DiVariable *param(const DiFunction *f, int i)
{
	return i < f->params.len ? f->params.data[i] : NULL;
}

static bool named(const DiType *t, DiTypeKind kind, const char *name)
{
	return t && t->kind == kind && t->name && !strcmp(t->name, name);
}

/* ---- a small kernel and a module, written with btf__add_* ---- */



static void *raw(struct btf *b, size_t *len)
{
	uint32_t n;
	const void *d = btf__raw_data(b, &n);
	*len = n;
	return (void *)d;
}

static struct btf *make_kernel(void)
{
	struct btf *b = btf__new_empty();
	int t_int = btf__add_int(b, "int", 4, BTF_INT_SIGNED);             /* 1 */
	int t_uint = btf__add_int(b, "unsigned int", 4, 0);                /* 2 */
	int t_char = btf__add_int(b, "char", 1, BTF_INT_SIGNED);           /* 3 */
	int t_u32 = btf__add_typedef(b, "u32", t_uint);                    /* 4 */
	int t_ll = btf__add_int(b, "long long int", 8, BTF_INT_SIGNED);    /* 5 */
	int t_i128 = btf__add_int(b, "__int128", 16, BTF_INT_SIGNED);      /* 6 */
	int t_color = btf__add_enum(b, "color", 4);                        /* 7 */
	btf__add_enum_value(b, "RED", 0);
	btf__add_enum_value(b, "GREEN", 1);
	btf__add_enum_value(b, "DARK", -1);
	int t_big = btf__add_enum64(b, "huge", 8, false);                  /* 8 */
	btf__add_enum64_value(b, "ALL", 0xffffffffffffffffULL);
	int t_fwd = btf__add_fwd(b, "file", BTF_FWD_STRUCT);               /* 9 */
	int t_pfile = btf__add_ptr(b, t_fwd);                              /* 10 */
	int t_cchar = btf__add_const(b, t_char);                           /* 11 */
	int t_pcchar = btf__add_ptr(b, t_cchar);                           /* 12 */
	int t_arr = btf__add_array(b, t_int, t_char, 16);                  /* 13 */
	int t_flex = btf__add_array(b, t_int, t_int, 0);                   /* 14 */
	int t_tag = btf__add_type_tag(b, "user", t_char);                  /* 15 */
	int t_puser = btf__add_ptr(b, t_tag);                              /* 16 */
	int t_vint = btf__add_volatile(b, t_int);                          /* 17 */
	int t_rptr = btf__add_restrict(b, t_puser);                        /* 18 */
	int t_file = btf__add_struct(b, "file", 48);                       /* 19 */
	btf__add_field(b, "f_flags", t_uint, 0, 0);
	btf__add_field(b, "mode", t_int, 32, 3);
	btf__add_field(b, "bits", t_u32, 35, 5);
	btf__add_field(b, "next", t_pfile, 64, 0);
	btf__add_field(b, "name", t_arr, 128, 0);
	btf__add_field(b, "color", t_color, 256, 0);
	btf__add_field(b, NULL, 20, 320, 0);     /* the union below */
	int t_anon = btf__add_union(b, NULL, 8);                           /* 20 */
	btf__add_field(b, "a", t_int, 0, 0);
	btf__add_field(b, "b", t_ll, 0, 0);
	int t_pair = btf__add_struct(b, "pair", 16);                       /* 21 */
	btf__add_field(b, "x", t_ll, 0, 0);
	btf__add_field(b, "y", t_ll, 64, 0);
	int t_blob = btf__add_struct(b, "blob", 24);                       /* 22 */
	btf__add_field(b, "bytes", btf__add_array(b, t_int, t_char, 24), 0, 0); /* 23 */
	int t_loff = btf__add_typedef(b, "loff_t", t_ll);                  /* 24 */
	int t_ploff = btf__add_ptr(b, t_loff);                             /* 25 */
	int t_pvoid = btf__add_ptr(b, 0);                                  /* 26 */
	btf__add_typedef(b, "vp", t_pvoid);                                /* 27 */
	btf__add_struct(b, "flexy", 4);                                    /* 28 */
	btf__add_field(b, "marker", t_flex, 0, 0);
	btf__add_field(b, "n", t_int, 0, 0);
	btf__add_field(b, "data", t_flex, 32, 0);
	(void)t_big; (void)t_vint; (void)t_rptr;

	/* long long vfs_read(struct file *file, char *buf, u32 count,
	 *                    loff_t *pos) */
	int p1 = btf__add_func_proto(b, t_ll);
	btf__add_func_param(b, "file", t_pfile);
	btf__add_func_param(b, "buf", t_puser);
	btf__add_func_param(b, "count", t_u32);
	btf__add_func_param(b, "pos", t_ploff);
	btf__add_func(b, "vfs_read", BTF_FUNC_GLOBAL, p1);
	/* static int vfs_mix(struct file *f, struct pair p, __int128 q,
	 *                    int e, int g, const char *s) */
	int p2 = btf__add_func_proto(b, t_int);
	btf__add_func_param(b, "f", t_pfile);
	btf__add_func_param(b, "p", t_pair);
	btf__add_func_param(b, "q", t_i128);
	btf__add_func_param(b, "e", t_int);
	btf__add_func_param(b, "g", t_int);
	btf__add_func_param(b, "s", t_pcchar);
	btf__add_func(b, "vfs_mix", BTF_FUNC_STATIC, p2);
	/* void other(struct blob b, int x, ...) */
	int p3 = btf__add_func_proto(b, 0);
	btf__add_func_param(b, "b", t_blob);
	btf__add_func_param(b, "x", t_int);
	btf__add_func_param(b, NULL, 0);
	btf__add_func(b, "other", BTF_FUNC_GLOBAL, p3);
	/* the same static name twice: one point */
	btf__add_func(b, "vfs_mix", BTF_FUNC_STATIC, p2);
	(void)t_anon; (void)t_file;
	return b;
}

static struct btf *make_module(struct btf *kernel)
{
	struct btf *b = btf__new_empty_split(kernel);
	int first = btf__type_cnt(kernel);
	int t_thing = btf__add_struct(b, "modthing", 16);                 /* first */
	btf__add_field(b, "f", 10 /* struct file * */, 0, 0);
	btf__add_field(b, "n", 1 /* int */, 64, 0);
	int t_p = btf__add_ptr(b, t_thing);
	int p = btf__add_func_proto(b, 1);
	btf__add_func_param(b, "m", t_p);
	btf__add_func(b, "mod_fn", BTF_FUNC_GLOBAL, p);
	CHECK(t_thing == first);
	return b;
}

static void test_written(void)
{
	sess.arch = "x86_64";   /* the calling convention's registers */
	target_init();
	struct btf *k = make_kernel();
	size_t klen;
	void *kraw = raw(k, &klen);
	const char *why = NULL;
	CHECK(btf_load_raw(NULL, kraw, klen, &why));
	DiModule km = { .kind = DI_KERNEL, .name = "kernel" };

	/* types */
	const DiType *u32 = btf_find_type(&km, "u32");
	CHECK(named(u32, DI_TYPE_TYPEDEF, "u32"));
	CHECK(u32 && u32->size == 4);
	CHECK(u32 && named(u32->target, DI_TYPE_INT, "unsigned int"));
	CHECK(u32 && u32->target && !u32->target->is_signed && u32->target->size == 4);
	const DiType *i = btf_find_type(&km, " int ");
	CHECK(named(i, DI_TYPE_INT, "int") && i->is_signed && i->size == 4);

	const DiType *file = btf_find_type(&km, "struct file");
	CHECK(named(file, DI_TYPE_STRUCT, "file"));
	CHECK(btf_find_type(&km, "file") == file);
	CHECK(btf_find_type(&km, "union file") == NULL);
	CHECK(btf_find_type(&km, "struct nosuch") == NULL);
	CHECK(btf_find_type(&km, "nosuch") == NULL);
	if (file) {
		CHECK(file->size == 48);
		CHECK(file->members.len == 7);
		const DiMember *m = member(file, "f_flags");
		CHECK(m && m->bit_offset == 0 && m->bit_size == 0 &&
		      named(m->type, DI_TYPE_INT, "unsigned int"));
		m = member(file, "mode");
		CHECK(m && m->bit_offset == 32 && m->bit_size == 3);
		m = member(file, "bits");
		CHECK(m && m->bit_offset == 35 && m->bit_size == 5 && m->type == u32);
		m = member(file, "next");
		/* the pointer goes to the declaration (a FWD), as written */
		CHECK(m && m->bit_offset == 64 && m->type->kind == DI_TYPE_POINTER &&
		      m->type->size == 8 && named(m->type->target, DI_TYPE_FWD, "file"));
		m = member(file, "name");
		CHECK(m && m->bit_offset == 128 && m->type->kind == DI_TYPE_ARRAY &&
		      m->type->count == 16 && m->type->size == 16 &&
		      named(m->type->target, DI_TYPE_INT, "char"));
		m = member(file, "color");
		CHECK(m && m->bit_offset == 256 && named(m->type, DI_TYPE_ENUM, "color"));
		if (m && m->type) {
			const DiType *e = m->type;
			CHECK(e->size == 4 && e->is_signed && e->enumerators.len == 3);
			if (e->enumerators.len == 3) {
				const DiEnumerator *r = e->enumerators.data[0],
						   *g = e->enumerators.data[1],
						   *d = e->enumerators.data[2];
				CHECK(!strcmp(r->name, "RED") && r->value == 0);
				CHECK(!strcmp(g->name, "GREEN") && g->value == 1);
				CHECK(!strcmp(d->name, "DARK") && d->value == -1);
			}
		}
		m = file->members.len == 7 ? file->members.data[6] : NULL;
		CHECK(m && m->name == NULL && m->bit_offset == 320 && m->type &&
		      m->type->kind == DI_TYPE_UNION && m->type->name == NULL &&
		      m->type->size == 8 && member(m->type, "b") &&
		      member(m->type, "b")->bit_offset == 0);
	}
	const DiType *color = btf_find_type(&km, "enum color");
	CHECK(color && member(file, "color") && color == member(file, "color")->type);
	const DiType *huge = btf_find_type(&km, "enum huge");
	CHECK(named(huge, DI_TYPE_ENUM, "huge") && huge->size == 8 && !huge->is_signed);
	if (huge && huge->enumerators.len == 1) {
		const DiEnumerator *a = huge->enumerators.data[0];
		CHECK(!strcmp(a->name, "ALL") && (uint64_t)a->value == 0xffffffffffffffffULL);
	} else {
		CHECK(!"enum huge has one enumerator");
	}
	const DiType *pair = btf_find_type(&km, "pair");
	CHECK(named(pair, DI_TYPE_STRUCT, "pair") && pair->size == 16 &&
	      pair->members.len == 2);
	const DiType *v = btf_find_type(&km, "void");
	CHECK(v && v->kind == DI_TYPE_VOID);
	/* a zero-length array is [0] but as the last member ([]) */
	const DiType *flexy = btf_find_type(&km, "struct flexy");
	CHECK(flexy && member(flexy, "marker") && member(flexy, "data"));
	if (flexy && member(flexy, "marker") && member(flexy, "data")) {
		const DiType *a = member(flexy, "marker")->type, *z = member(flexy, "data")->type;
		CHECK(a->kind == DI_TYPE_ARRAY && a->count == 0 && a->size == 0 && a->target == i);
		CHECK(z->kind == DI_TYPE_ARRAY && z->count == -1 && z->size == 0 && z->target == i);
	}
	/* void * points to void, as dwarf.c has it */
	const DiType *vp = btf_find_type(&km, "vp");
	CHECK(named(vp, DI_TYPE_TYPEDEF, "vp") && vp->size == 8 && vp->target &&
	      vp->target->kind == DI_TYPE_POINTER && vp->target->target == v);

	/* functions */
	Vec fs = btf_functions(&km, "vfs_*");
	CHECK(fs.len == 2);
	const DiFunction *mix = fs.len > 0 ? fs.data[0] : NULL;
	const DiFunction *rd = fs.len > 1 ? fs.data[1] : NULL;
	CHECK(rd && !strcmp(rd->name, "vfs_read") && rd->external && !rd->inlined);
	CHECK(rd && rd->module == &km && rd->entry_pc == 0 && rd->decl.file == NULL);
	CHECK(rd && named(rd->ret, DI_TYPE_INT, "long long int"));
	if (rd && rd->params.len == 4) {
		static const char *names[] = { "file", "buf", "count", "pos" };
		static const int regs[] = { 5, 4, 1, 2 };
		for (int j = 0; j < 4; j++) {
			const DiVariable *p = param(rd, j);
			CHECK(!strcmp(p->name, names[j]) && p->is_param);
			CHECK(p->loc.kind == DI_LOC_REG && p->loc.reg == regs[j]);
		}
		/* the __user tag is left out: char * */
		const DiType *buf = param(rd, 1)->type;
		CHECK(buf && buf->kind == DI_TYPE_POINTER &&
		      named(buf->target, DI_TYPE_INT, "char"));
		CHECK(param(rd, 2)->type == u32);
		const DiType *pos = param(rd, 3)->type;
		CHECK(pos && pos->kind == DI_TYPE_POINTER &&
		      named(pos->target, DI_TYPE_TYPEDEF, "loff_t"));
	} else {
		CHECK(!"vfs_read has 4 parameters");
	}
	/* f: rdi; p (16 bytes): rsi+rdx, not one register; q (__int128):
	 * rcx+r8; e: r9; g and s: the stack */
	if (mix && mix->params.len == 6) {
		CHECK(!strcmp(mix->name, "vfs_mix") && !mix->external);
		const DiVariable *p;
		p = param(mix, 0); CHECK(p->loc.kind == DI_LOC_REG && p->loc.reg == 5);
		p = param(mix, 1); CHECK(!strcmp(p->name, "p") && p->loc.kind == DI_LOC_NONE && p->type == pair);
		p = param(mix, 2); CHECK(!strcmp(p->name, "q") && p->loc.kind == DI_LOC_NONE);
		p = param(mix, 3); CHECK(!strcmp(p->name, "e") && p->loc.kind == DI_LOC_REG && p->loc.reg == 9);
		p = param(mix, 4); CHECK(!strcmp(p->name, "g") && p->loc.kind == DI_LOC_NONE);
		p = param(mix, 5); CHECK(!strcmp(p->name, "s") && p->loc.kind == DI_LOC_NONE);
		const DiType *s = p->type;
		CHECK(s && s->kind == DI_TYPE_POINTER && s->target &&
		      s->target->kind == DI_TYPE_CONST &&
		      named(s->target->target, DI_TYPE_INT, "char"));
	} else {
		CHECK(!"vfs_mix has 6 parameters");
	}
	/* the same DiFunction for the same function, every time */
	Vec again = btf_functions(&km, "vfs_read");
	CHECK(again.len == 1 && again.len && again.data[0] == rd);
	Vec other = btf_functions(&km, "other");
	CHECK(other.len == 1);
	if (other.len == 1) {
		const DiFunction *o = other.data[0];
		/* a 24-byte struct goes on the stack and leaves rdi to x;
		 * "..." is no parameter; void returns NULL */
		CHECK(o->ret == NULL && o->params.len == 2);
		CHECK(o->params.len == 2 && param(o, 0)->loc.kind == DI_LOC_NONE &&
		      param(o, 1)->loc.kind == DI_LOC_REG && param(o, 1)->loc.reg == 5);
	}
	Vec none = btf_functions(&km, "nosuch*");
	CHECK(none.len == 0);
	Vec all = btf_functions(&km, "*");
	CHECK(all.len == 3);

	/* a module split on it */
	struct btf *mb = make_module(btf__new(kraw, klen));
	size_t mlen;
	void *mraw = raw(mb, &mlen);
	CHECK(btf_load_raw("my-mod", mraw, mlen, &why));
	DiModule mm = { .kind = DI_KMODULE, .name = "my_mod" };
	Vec mf = btf_functions(&mm, "*");
	CHECK(mf.len == 1);
	if (mf.len == 1) {
		const DiFunction *f = mf.data[0];
		CHECK(!strcmp(f->name, "mod_fn") && f->module == &mm && f->ret == i);
		const DiVariable *p = param(f, 0);
		CHECK(p && !strcmp(p->name, "m") && p->loc.kind == DI_LOC_REG && p->loc.reg == 5);
		const DiType *thing = p ? p->type->target : NULL;
		CHECK(named(thing, DI_TYPE_STRUCT, "modthing"));
		/* the kernel's types are the kernel's DiTypes */
		CHECK(thing && member(thing, "n") && member(thing, "n")->type == i);
		CHECK(thing && member(thing, "f") &&
		      member(thing, "f")->type == member(file, "next")->type);
		CHECK(btf_find_type(&mm, "struct modthing") == thing);
	}
	CHECK(btf_find_type(&mm, "u32") == u32);
	CHECK(btf_find_type(&km, "modthing") == NULL);
	/* bad bytes are refused, with a reason */
	why = NULL;
	CHECK(!btf_load_raw("bad", "not btf", 7, &why) && why && strstr(why, "does not parse"));
}

/* ---- images: a made-up bzImage of an ELF with .BTF and a build-id ---- */

static const unsigned char build_id[20] = {
	0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16
};

/* An ELF executable with .data (pad bytes, starting with a copy of the
 * .BTF's header: a decoy, as the BPF objects the kernel embeds are), .BTF
 * (btf), .notes (the GNU build-id) and a PT_NOTE program header over the
 * notes, as a vmlinux has them.  *btf_off: where .BTF is in the file. */
static bool write_elf(const char *path, const void *btf, size_t btf_len, size_t pad,
		      uint64_t *btf_off)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_WRITE, NULL);
	GElf_Ehdr eh;
	if (!gelf_newehdr(e, ELFCLASS64) || !gelf_newphdr(e, 1))
		return false;
	gelf_getehdr(e, &eh);
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_type = ET_EXEC;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;

	/* names at 1, 11, 16, 23 */
	static const char shstr[] = "\0.shstrtab\0.BTF\0.notes\0.data";
	static unsigned char note[16 + 20];
	uint32_t hdr[3] = { 4, 20, NT_GNU_BUILD_ID };
	memcpy(note, hdr, 12);
	memcpy(note + 12, "GNU", 4);
	memcpy(note + 16, build_id, 20);
	unsigned char *data = calloc(1, pad ? pad : 1);
	if (pad >= 24)
		memcpy(data, btf, 24);

	struct { int name, type; const void *d; size_t n; } secs[] = {
		{ 23, SHT_PROGBITS, data, pad },
		{ 11, SHT_PROGBITS, btf, btf_len },
		{ 16, SHT_NOTE, note, sizeof note },
		{ 1, SHT_STRTAB, shstr, sizeof shstr },
	};
	Elf_Scn *scn[4];
	for (int i = 0; i < 4; i++) {
		Elf_Scn *s = scn[i] = elf_newscn(e);
		Elf_Data *d = elf_newdata(s);
		d->d_buf = (void *)secs[i].d;
		d->d_size = secs[i].n;
		d->d_align = secs[i].type == SHT_NOTE ? 4 : 1;
		d->d_type = secs[i].type == SHT_NOTE ? ELF_T_NHDR : ELF_T_BYTE;
		GElf_Shdr sh;
		gelf_getshdr(s, &sh);
		sh.sh_name = secs[i].name;
		sh.sh_type = secs[i].type;
		sh.sh_addralign = d->d_align;
		gelf_update_shdr(s, &sh);
	}
	eh.e_shstrndx = elf_ndxscn(scn[3]);
	gelf_update_ehdr(e, &eh);
	bool ok = elf_update(e, ELF_C_NULL) > 0;    /* lay it out */
	GElf_Shdr notes, b;
	gelf_getshdr(scn[2], &notes);
	gelf_getshdr(scn[1], &b);
	*btf_off = b.sh_offset;
	GElf_Phdr ph = { .p_type = PT_NOTE, .p_offset = notes.sh_offset,
			 .p_filesz = notes.sh_size, .p_memsz = notes.sh_size, .p_align = 4 };
	ok = ok && gelf_update_phdr(e, 0, &ph) && elf_update(e, ELF_C_WRITE) > 0;
	elf_end(e);
	close(fd);
	free(data);
	return ok;
}

static bool read_all(const char *path, unsigned char **data, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	fseek(f, 0, SEEK_END);
	*len = ftell(f);
	fseek(f, 0, SEEK_SET);
	*data = malloc(*len ? *len : 1);
	bool ok = fread(*data, 1, *len, f) == *len;
	fclose(f);
	return ok;
}

/* pack: 'x' xz, 'z' zstd, 'g' gzip */
static size_t pack(char how, const unsigned char *in, size_t len, unsigned char *out, size_t cap)
{
	if (how == 'x') {
		size_t pos = 0;
		return lzma_easy_buffer_encode(6, LZMA_CHECK_CRC32, NULL, in, len, out,
					       &pos, cap) == LZMA_OK ? pos : 0;
	}
	if (how == 'z') {
		size_t n = ZSTD_compress(out, cap, in, len, 19);
		return ZSTD_isError(n) ? 0 : n;
	}
	z_stream s;
	memset(&s, 0, sizeof s);
	if (deflateInit2(&s, 9, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return 0;
	s.next_in = (unsigned char *)in;
	s.avail_in = len;
	s.next_out = out;
	s.avail_out = cap;
	int r = deflate(&s, Z_FINISH);
	size_t n = s.total_out;
	deflateEnd(&s);
	return r == Z_STREAM_END ? n : 0;
}

/* A bzImage as the x86 boot protocol lays it out: setup sectors with the
 * "HdrS" header, payload_offset/payload_length, the packed ELF and the
 * unpacked size after it. */
static bool write_bzimage(const char *path, char how, const unsigned char *elf, size_t len)
{
	size_t cap = len * 2 + 4096, setup = 3, pm = (setup + 1) * 512, poff = 0x100;
	unsigned char *img = calloc(1, pm + poff + cap + 4);
	size_t n = pack(how, elf, len, img + pm + poff, cap);
	if (!n)
		return false;
	uint32_t ulen = len;
	memcpy(img + pm + poff + n, &ulen, 4);
	n += 4;
	img[0x1f1] = setup;
	memcpy(img + 0x202, "HdrS", 4);
	img[0x206] = 0x0f;
	img[0x207] = 0x02;
	uint32_t o = poff, l = n;
	memcpy(img + 0x248, &o, 4);
	memcpy(img + 0x24c, &l, 4);
	FILE *f = fopen(path, "wb");
	bool ok = f && fwrite(img, 1, pm + poff + n, f) == pm + poff + n;
	if (f)
		fclose(f);
	free(img);
	return ok;
}

static const char *cache_file_of(const char *cache, const char *image)
{
	const char *d = xsprintf("%s/tapc/btf", cache);
	DIR *dir = opendir(d);
	const char *found = NULL;
	struct dirent *de;
	const char *base = strrchr(image, '/') + 1;
	while (dir && (de = readdir(dir)))
		if (!strncmp(de->d_name, base, strlen(base)) &&
		    de->d_name[strlen(base)] == '-')
			found = xsprintf("%s/%s", d, de->d_name);
	if (dir)
		closedir(dir);
	return found;
}

static void check_image(const char *path, const void *btf, size_t btf_len)
{
	void *got = NULL;
	size_t len = 0;
	const char *id = NULL, *why = NULL;
	bool ok = btf_image_read(path, &got, &len, &id, &why);
	if (!ok)
		fprintf(stderr, "%s: %s\n", path, why);
	CHECK(ok && len == btf_len && got && !memcmp(got, btf, btf_len));
	CHECK(ok && id && !strcmp(id, "deadbeef0102030405060708090a0b0c0d0e0f10"));
	free(got);
}

static void test_images(void)
{
	char tmpl[] = "/tmp/test_btf.XXXXXX";
	const char *dir = mkdtemp(tmpl);
	CHECK(dir != NULL);
	if (!dir)
		return;
	const char *cache = xsprintf("%s/cache", dir);
	setenv("XDG_CACHE_HOME", cache, 1);
	struct btf *k = make_kernel();
	size_t klen;
	void *kraw = raw(k, &klen);
	const char *elf = xsprintf("%s/vmlinux", dir);
	uint64_t btf_off;
	CHECK(write_elf(elf, kraw, klen, 4096, &btf_off));
	unsigned char *elfdata;
	size_t elflen;
	CHECK(read_all(elf, &elfdata, &elflen));
	check_image(elf, kraw, klen);       /* a plain ELF */
	/* xz and gzip unpack a MiB at a time, keeping only what they need:
	 * a .BTF header split across two of them is found all the same */
	for (size_t cut = 1; cut < 24; cut += 11) {
		const char *big = xsprintf("%s/vmlinux-%zu", dir, cut);
		CHECK(write_elf(big, kraw, klen, 0, &btf_off));  /* where .data is */
		CHECK(write_elf(big, kraw, klen, (1 << 20) - cut - btf_off, &btf_off));
		CHECK(btf_off == (1 << 20) - cut);
		unsigned char *bigdata;
		size_t biglen;
		CHECK(read_all(big, &bigdata, &biglen));
		for (const char *k = "xg"; *k; k++) {
			const char *img = xsprintf("%s/vmlinuz-%zu%c", dir, cut, *k);
			CHECK(write_bzimage(img, *k, bigdata, biglen));
			check_image(img, kraw, klen);
		}
		free(bigdata);
	}
	const char packs[] = "xzg";
	for (int i = 0; i < 3; i++) {
		const char *img = xsprintf("%s/vmlinuz-%c", dir, packs[i]);
		CHECK(write_bzimage(img, packs[i], elfdata, elflen));
		check_image(img, kraw, klen);   /* unpacked */
		const char *cf = cache_file_of(cache, img);
		CHECK(cf != NULL);
		if (!cf)
			continue;
		unsigned char *good;
		size_t glen;
		CHECK(read_all(cf, &good, &glen));
		check_image(img, kraw, klen);   /* from the cache */
		/* a corrupt cache file is ignored and written again */
		FILE *f = fopen(cf, "r+b");
		fseek(f, (long)glen - 10, SEEK_SET);
		fputc(good[glen - 10] ^ 0x55, f);
		fclose(f);
		check_image(img, kraw, klen);
		unsigned char *again;
		size_t alen;
		CHECK(read_all(cf, &again, &alen) && alen == glen && !memcmp(again, good, glen));
		/* a cut one too */
		CHECK(truncate(cf, glen / 2) == 0);
		check_image(img, kraw, klen);
		free(good);
		free(again);
		/* a new image (another time) has a new key; the old file goes */
		struct timespec times[2] = { { 1000000000, 0 }, { 1000000000, 0 } };
		CHECK(utimensat(AT_FDCWD, img, times, 0) == 0);
		check_image(img, kraw, klen);
		const char *cf2 = cache_file_of(cache, img);
		CHECK(cf2 && strcmp(cf2, cf) && access(cf, F_OK) != 0);
	}
	/* not an image */
	const char *junk = xsprintf("%s/vmlinuz-junk", dir);
	FILE *f = fopen(junk, "w");
	fputs("no kernel here\n", f);
	fclose(f);
	void *got;
	size_t len;
	const char *id, *why = NULL;
	CHECK(!btf_image_read(junk, &got, &len, &id, &why) && why &&
	      strstr(why, "no xz, zstd or gzip payload"));
	/* a bzImage whose payload is cut short */
	const char *cut = xsprintf("%s/vmlinuz-cut", dir);
	CHECK(write_bzimage(cut, 'x', elfdata, elflen));
	struct stat st;
	stat(cut, &st);
	CHECK(truncate(cut, st.st_size - 200) == 0);
	why = NULL;
	CHECK(!btf_image_read(cut, &got, &len, &id, &why) && why);
	free(elfdata);
	remove_tree(dir);
}

/* ---- what this machine has ---- */

static int test_running_kernel(void)
{
	if (access("/sys/kernel/btf/vmlinux", R_OK) != 0)
		return SKIP;
	target_init();
	DiModule m;
	const char *why = NULL;
	bool ok = btf_open(NULL, &m, &why);
	CHECK(ok);
	if (!ok) {
		fprintf(stderr, "%s\n", why);
		return 1;
	}
	CHECK(m.kind == DI_KERNEL && !strcmp(m.debug_path, "/sys/kernel/btf/vmlinux"));
	Vec fs = btf_functions(&m, "vfs_read");
	CHECK(fs.len == 1);
	if (fs.len == 1) {
		const DiFunction *f = fs.data[0];
		static const char *names[] = { "file", "buf", "count", "pos" };
		static const int regs[] = { 5, 4, 1, 2 };
		CHECK(f->params.len == 4);
		for (int i = 0; i < 4 && i < f->params.len; i++) {
			const DiVariable *p = f->params.data[i];
			CHECK(!strcmp(p->name, names[i]));
			CHECK(p->loc.kind == DI_LOC_REG && p->loc.reg == regs[i]);
		}
		const DiVariable *file = f->params.data[0];
		CHECK(file->type->kind == DI_TYPE_POINTER &&
		      named(file->type->target, DI_TYPE_STRUCT, "file"));
		CHECK(named(f->ret, DI_TYPE_TYPEDEF, "ssize_t"));
	}
	const DiType *t = btf_find_type(&m, "struct task_struct");
	CHECK(named(t, DI_TYPE_STRUCT, "task_struct") && member(t, "pid"));
	CHECK(btf_find_type(&m, "task_struct") == t);
	Vec many = btf_functions(&m, "vfs_*");
	CHECK(many.len > 10);
	return 0;
}

/* The build-id of an ELF file's notes, in hex, or NULL. */
static const char *elf_build_id(const char *path)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return NULL;
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	const char *r = NULL;
	for (Elf_Scn *s = NULL; e && !r && (s = elf_nextscn(e, s));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(s, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		Elf_Data *d = elf_getdata(s, NULL);
		GElf_Nhdr nh;
		size_t off = 0, no, dof;
		while (d && !r && (off = gelf_getnote(d, off, &nh, &no, &dof)) > 0)
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((char *)d->d_buf + no, "GNU", 4)) {
				StrBuf sb = { 0 };
				for (size_t i = 0; i < nh.n_descsz; i++)
					sb_printf(&sb, "%02x", ((unsigned char *)d->d_buf)[dof + i]);
				r = xstrdup(sb_cstr(&sb));
				sb_free(&sb);
			}
	}
	if (e)
		elf_end(e);
	close(fd);
	return r;
}

/* Whether /boot/config-RELEASE says the kernel was built with BTF. */
static bool has_btf(const char *rel)
{
	FILE *f = fopen(xsprintf("/boot/config-%s", rel), "r");
	char line[256];
	bool yes = false;
	while (f && fgets(line, sizeof line, f))
		yes |= !strcmp(line, "CONFIG_DEBUG_INFO_BTF=y\n");
	if (f)
		fclose(f);
	return yes;
}

static int test_boot_images(void)
{
	DIR *d = opendir("/boot");
	int seen = 0;
	struct dirent *de;
	char tmpl[] = "/tmp/test_btf.XXXXXX";
	const char *dir = mkdtemp(tmpl);
	setenv("XDG_CACHE_HOME", dir, 1);
	while (d && (de = readdir(d))) {
		if (strncmp(de->d_name, "vmlinuz-", 8))
			continue;
		const char *path = xsprintf("/boot/%s", de->d_name);
		void *btf;
		size_t len;
		const char *id, *why;
		if (!btf_image_read(path, &btf, &len, &id, &why)) {
			fprintf(stderr, "%s\n", why);
			/* lz4, lzo, bzip2 kernels (not Debian's) are not read */
			CHECK(strstr(why, "no xz, zstd or gzip payload"));
			continue;
		}
		seen++;
		CHECK(id && strlen(id) == 40);
		if (!btf && !has_btf(de->d_name + 8)) {
			free(btf);
			continue;
		}
		CHECK(btf && len > 1000000);
		struct btf *b = btf ? btf__new(btf, len) : NULL;
		CHECK(b && btf__find_by_name_kind(b, "vfs_read", BTF_KIND_FUNC) > 0);
		btf__free(b);
		free(btf);
		const char *dbg = xsprintf("/usr/lib/debug/boot/vmlinux-%s", de->d_name + 8);
		if (id && access(dbg, R_OK) == 0) {
			const char *want = elf_build_id(dbg);
			CHECK(want && !strcmp(want, id));
		}
	}
	if (d)
		closedir(d);
	if (dir)
		remove_tree(dir);
	return seen ? 0 : SKIP;
}

/* -r RELEASE as tapc reads it: the kernel from /boot/vmlinuz-RELEASE, and
 * ext4 from its module file (split on the kernel's). */
static const char *release;

static int release_in(const char *cache)
{
	sess.release = release;
	sess.arch = "x86_64";
	setenv("XDG_CACHE_HOME", cache ? cache : "/nonexistent", 1);
	target_init();
	if (target_is_running_kernel() || !has_btf(release))
		return SKIP;    /* the running one: /sys/kernel/btf above */
	DiModule k, m;
	const char *why = NULL;
	bool ok = btf_open(NULL, &k, &why);
	CHECK(ok);
	if (!ok) {
		fprintf(stderr, "%s: %s\n", release, why);
		return 1;
	}
	CHECK(k.kind == DI_KERNEL && !strcmp(k.path, xsprintf("/boot/vmlinuz-%s", release)));
	CHECK(k.build_id && strlen(k.build_id) == 40);
	const char *ko = kernel_module_file("ext4");
	if (!ko)
		return 0;
	ok = btf_open("ext4", &m, &why);
	CHECK(ok);
	if (!ok) {
		fprintf(stderr, "%s: %s\n", release, why);
		return 1;
	}
	CHECK(m.kind == DI_KMODULE && !strcmp(m.name, "ext4") && !strcmp(m.path, ko));
	/* a packed module's .BTF is cached, a plain one is not */
	const char *cf = cache ? cache_file_of(cache, ko) : NULL;
	size_t n = strlen(ko);
	CHECK(n > 3 && strcmp(ko + n - 3, ".ko") ? cf != NULL : cf == NULL);
	Vec fs = btf_functions(&m, "ext4_file_read_iter");
	CHECK(fs.len == 1);
	if (fs.len == 1) {
		const DiFunction *f = fs.data[0];
		CHECK(f->module == &m && f->params.len == 2);
		const DiVariable *iocb = param(f, 0), *to = param(f, 1);
		CHECK(iocb && !strcmp(iocb->name, "iocb") && iocb->loc.reg == 5 &&
		      named(iocb->type->target, DI_TYPE_STRUCT, "kiocb"));
		CHECK(to && !strcmp(to->name, "to") && to->loc.reg == 4);
		/* a kernel type through the module is the kernel's */
		CHECK(iocb && iocb->type->target == btf_find_type(&k, "struct kiocb"));
	}
	const DiType *ei = btf_find_type(&m, "struct ext4_inode_info");
	CHECK(named(ei, DI_TYPE_STRUCT, "ext4_inode_info") && member(ei, "vfs_inode"));
	CHECK(btf_find_type(&k, "struct ext4_inode_info") == NULL);
	const char *dbg = xsprintf("/usr/lib/debug/lib/modules/%s/kernel/fs/ext4/ext4.ko", release);
	if (access(dbg, R_OK) == 0) {
		const char *want = elf_build_id(dbg), *got = kernel_module_build_id("ext4");
		CHECK(want && got && !strcmp(want, got));
		CHECK(m.build_id && got && !strcmp(m.build_id, got));
	}
	return 0;
}

static int test_release(void)
{
	char tmpl[] = "/tmp/test_btf.XXXXXX";
	const char *cache = mkdtemp(tmpl);
	CHECK(cache != NULL);
	int r = release_in(cache);
	if (cache)
		remove_tree(cache);
	return r;
}

/* Run part in a child: btf.c reads one kernel per process. */
static int run(const char *name, int (*part)(void))
{
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid == 0) {
		int r = part();
		_exit(r ? r : failures ? 1 : 0);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	int r = WIFEXITED(st) ? WEXITSTATUS(st) : 1;
	printf("%s: %s\n", name, r == 0 ? "ok" : r == SKIP ? "skipped" : "FAILED");
	return r;
}

static int written(void) { test_written(); return 0; }
static int images(void) { test_images(); return 0; }

int main(void)
{
	int bad = 0;
	bad |= run("written BTF", written) == 1;
	bad |= run("packed images and the cache", images) == 1;
	bad |= run("/sys/kernel/btf/vmlinux", test_running_kernel) == 1;
	bad |= run("/boot/vmlinuz-*", test_boot_images) == 1;
	DIR *d = opendir("/boot");
	struct dirent *de;
	while (d && (de = readdir(d))) {
		if (strncmp(de->d_name, "vmlinuz-", 8))
			continue;
		release = xstrdup(de->d_name + 8);
		bad |= run(xsprintf("-r %s", release), test_release) == 1;
	}
	if (d)
		closedir(d);
	return bad ? 1 : 0;
}
