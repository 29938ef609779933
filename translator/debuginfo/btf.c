/* btf.c - the kernel's and its modules' BTF, through libbpf, for when no
 * DWARF is installed: functions with their parameters and return types,
 * and every struct, union, enum and typedef.
 *
 * Where it comes from:
 *   the running kernel   /sys/kernel/btf/vmlinux, /sys/kernel/btf/MODULE
 *                        (split on vmlinux; a module that is not loaded
 *                        is read from its file, as for another release)
 *   another release      the .BTF section of the vmlinux packed in
 *                        /boot/vmlinuz-RELEASE, or of BUILDDIR/vmlinux
 *                        with -r BUILDDIR; each module's .BTF from its .ko
 *                        under /lib/modules/RELEASE/, split on the
 *                        kernel's.  kimages.c finds, unpacks and caches
 *                        them.
 *
 * Types are converted to DiType on demand, once per type id: BTF types
 * are cyclic through pointers, so a DiType is memoized before its parts
 * are converted.  A module's split BTF refers to the kernel's types by
 * their ids, which map to the kernel's DiTypes, so a type has one DiType
 * whichever module names it.
 */
#include "kimages.h"
#include "arch/arch.h"

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* ================= BTF sets: the kernel's and each module's ================= */

typedef struct BtfSet {
	const char *module;     /* interned, '_' form; NULL: the kernel */
	struct btf *btf;        /* NULL when there is none */
	const char *path;       /* where it was read from */
	const char *why;        /* when btf is NULL */
	uint32_t first_id;      /* the first id of its own (split: past the base) */
	uint32_t end_id;        /* one past the last */
	DiType **types;         /* converted, indexed by id - first_id */
	DiFunction **funcs;     /* likewise, for BTF_KIND_FUNC ids */
	bool *busy;             /* being converted (an alias loop guard) */
	uint32_t *index;        /* its named types' ids, by name (find_named) */
	uint32_t index_mask;
	int lookups;            /* by name, before the index was built */
	uint32_t *func_ids;     /* its BTF_KIND_FUNC ids (btf_functions) */
	const char **func_names; /* and their names (libbpf's strings) */
	uint32_t nfuncs;
} BtfSet;

static BtfSet kernel_set;
static bool kernel_tried;
static Vec module_sets;         /* BtfSet * */

static const char *sys_btf(const char *name)
{
	return xsprintf("/sys/kernel/btf/%s", name);
}

static int libbpf_say(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	char buf[512];
	vsnprintf(buf, sizeof buf, fmt, ap);
	verbose(2, "libbpf: %s", buf);
	return 0;
}

static void set_ready(BtfSet *s, struct btf *b)
{
	s->btf = b;
	const struct btf *base = btf__base_btf(b);
	s->first_id = base ? btf__type_cnt(base) : 1;
	s->end_id = btf__type_cnt(b);
	size_t n = s->end_id > s->first_id ? s->end_id - s->first_id : 1;
	s->types = xrealloc_heap(NULL, n * sizeof *s->types);
	s->funcs = xrealloc_heap(NULL, n * sizeof *s->funcs);
	s->busy = xrealloc_heap(NULL, n * sizeof *s->busy);
	memset(s->types, 0, n * sizeof *s->types);
	memset(s->funcs, 0, n * sizeof *s->funcs);
	memset(s->busy, 0, n * sizeof *s->busy);
}

/* Split BTF from bytes.  Debian's libbpf 1.1 does not export
 * btf__new_split, so the bytes go through a memory file (else a
 * temporary one) to btf__parse_raw_split. */
static struct btf *split_of_bytes(const Bytes *b, struct btf *base)
{
	int fd = memfd_create("tapc-btf", MFD_CLOEXEC);
	const char *tmp = NULL;
	if (fd < 0) {
		const char *dir = getenv("TMPDIR");
		char *t = xsprintf("%s/tapc-btf.XXXXXX", dir && *dir ? dir : "/tmp");
		fd = mkstemp(t);
		tmp = t;
	}
	if (fd < 0)
		return NULL;
	struct btf *r = NULL;
	size_t done = 0;
	while (done < b->len) {
		ssize_t n = write(fd, b->data + done, b->len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		done += n;
	}
	if (done == b->len)
		r = btf__parse_raw_split(tmp ? tmp : xsprintf("/proc/self/fd/%d", fd), base);
	int e = errno;
	close(fd);
	if (tmp)
		unlink(tmp);
	errno = e;
	return r;
}

static struct btf *btf_of_bytes(const Bytes *b, struct btf *base, const char **why,
				const char *path)
{
	struct btf *r = base ? split_of_bytes(b, base) : btf__new(b->data, b->len);
	if (!r)
		*why = xsprintf(_("%s: its .BTF does not parse (%s)"), path,
				strerror(errno));
	return r;
}

static BtfSet *kernel_btf(void)
{
	if (kernel_tried)
		return &kernel_set;
	kernel_tried = true;
	libbpf_set_print(libbpf_say);
	const char *why = NULL;
	StrBuf looked = { 0 };
	if (target_is_running_kernel()) {
		const char *p = sys_btf("vmlinux");
		struct btf *b = btf__parse_raw(p);
		if (b) {
			kernel_set.path = p;
			set_ready(&kernel_set, b);
			return &kernel_set;
		}
		looked_add(&looked, xsprintf("%s: %s", p, strerror(errno)));
	}
	Image *im = target_image();
	if (im->btf.data) {
		struct btf *b = btf_of_bytes(&im->btf, NULL, &why, im->path);
		bytes_free(&im->btf);           /* libbpf has its copy */
		if (b) {
			kernel_set.path = im->path;
			set_ready(&kernel_set, b);
			return &kernel_set;
		}
		looked_add(&looked, why);
	} else {
		looked_add(&looked, im->why);
	}
	kernel_set.why = xsprintf(_("no BTF for kernel %s (%s)"),
				  target_release(), sb_cstr(&looked));
	sb_free(&looked);
	return &kernel_set;
}

static BtfSet *module_btf(const char *module)
{
	const char *name = norm_module(module);
	for (int i = 0; i < module_sets.len; i++) {
		BtfSet *s = module_sets.data[i];
		if (s->module == name)
			return s;
	}
	BtfSet *s = NEW(BtfSet);
	s->module = name;
	vec_push(&module_sets, s);
	BtfSet *k = kernel_btf();
	if (!k->btf) {
		s->why = xsprintf(_("no BTF for module %s: %s"), module, k->why);
		return s;
	}
	StrBuf looked = { 0 };
	if (target_is_running_kernel()) {
		const char *p = sys_btf(name);
		struct btf *b = btf__parse_raw_split(p, k->btf);
		if (b) {
			s->path = p;
			set_ready(s, b);
			return s;
		}
		looked_add(&looked, xsprintf("%s: %s", p, strerror(errno)));
	}
	const char *file = kernel_module_file(name), *why = NULL;
	ElfBtf eb;
	if (!file) {
		looked_add(&looked, xsprintf(_("/lib/modules/%s: no file of it"),
					     target_release()));
	} else if (!module_btf_of_file(file, &eb, &why)) {
		looked_add(&looked, why);
	} else if (module_id_note(name, eb.build_id), !eb.btf.data) {
		looked_add(&looked, xsprintf(_("%s: no .BTF section"), file));
	} else {
		struct btf *b = btf_of_bytes(&eb.btf, k->btf, &why, file);
		bytes_free(&eb.btf);
		if (b) {
			s->path = file;
			set_ready(s, b);
			sb_free(&looked);
			return s;
		}
		looked_add(&looked, why);
	}
	s->why = xsprintf(_("no BTF for module %s (%s)"), module, sb_cstr(&looked));
	sb_free(&looked);
	return s;
}

static BtfSet *set_of(const DiModule *m)
{
	if (!m || m->kind == DI_KERNEL)
		return kernel_btf();
	return module_btf(m->name);
}

bool btf_open(const char *module, DiModule *m, const char **why)
{
	BtfSet *s = module ? module_btf(module) : kernel_btf();
	if (!s->btf) {
		*why = s->why;
		return false;
	}
	memset(m, 0, sizeof *m);
	m->kind = module ? DI_KMODULE : DI_KERNEL;
	m->name = module ? s->module : intern("kernel");
	m->debug_path = s->path;
	if (module) {
		m->path = kernel_module_file(module);
		m->build_id = kernel_module_build_id(module);
	} else {
		m->path = target_is_running_kernel() ? NULL : target_image()->path;
		m->build_id = kernel_image_build_id();
	}
	return true;
}

/* ================= types ================= */

static const char *btf_name(const BtfSet *s, uint32_t off)
{
	const char *n = btf__name_by_offset(s->btf, off);
	return n && *n ? intern(n) : NULL;
}

static const DiType *convert(BtfSet *s, uint32_t id);

static DiTypeKind kind_of(const struct btf_type *t)
{
	switch (btf_kind(t)) {
	case BTF_KIND_INT: return DI_TYPE_INT;
	case BTF_KIND_FLOAT: return DI_TYPE_FLOAT;
	case BTF_KIND_ENUM: case BTF_KIND_ENUM64: return DI_TYPE_ENUM;
	case BTF_KIND_PTR: return DI_TYPE_POINTER;
	case BTF_KIND_ARRAY: return DI_TYPE_ARRAY;
	case BTF_KIND_STRUCT: return DI_TYPE_STRUCT;
	case BTF_KIND_UNION: return DI_TYPE_UNION;
	case BTF_KIND_TYPEDEF: return DI_TYPE_TYPEDEF;
	case BTF_KIND_CONST: return DI_TYPE_CONST;
	case BTF_KIND_VOLATILE: return DI_TYPE_VOLATILE;
	case BTF_KIND_RESTRICT: return DI_TYPE_RESTRICT;
	case BTF_KIND_FUNC_PROTO: return DI_TYPE_FUNC;
	case BTF_KIND_FWD: return DI_TYPE_FWD;
	default: return DI_TYPE_VOID;
	}
}

/* void, where a pointer, typedef or qualifier has it as its target (as
 * dwarf.c has it: a target is never NULL but for a function's return). */
static const DiType *void_type(void)
{
	static DiType v;
	if (!v.name) {
		v.kind = DI_TYPE_VOID;
		v.name = intern("void");
		v.count = -1;
	}
	return &v;
}

/* The target of a pointer, typedef or qualifier. */
static const DiType *target_of(BtfSet *s, uint32_t id)
{
	const DiType *t = convert(s, id);
	return t ? t : void_type();
}

/* Room for n items at once, so a 200-member struct does not grow its
 * Vec six times through the arena. */
static void vec_reserve(Vec *v, int n)
{
	if (n > v->cap) {
		void **nd = xalloc(sizeof(void *) * n);
		if (v->len)
			memcpy(nd, v->data, sizeof(void *) * v->len);
		v->data = nd;
		v->cap = n;
	}
}

/* The parts of t: members, enumerators, parameters, targets. */
static void fill_type(BtfSet *s, DiType *d, const struct btf_type *t)
{
	int vlen = btf_vlen(t);
	if (btf_is_composite(t) || btf_is_func_proto(t))
		vec_reserve(&d->members, vlen);
	else if (btf_is_any_enum(t))
		vec_reserve(&d->enumerators, vlen);
	switch (btf_kind(t)) {
	case BTF_KIND_INT:
		d->is_signed = btf_int_encoding(t) & BTF_INT_SIGNED;
		break;
	case BTF_KIND_ENUM: {
		const struct btf_enum *e = btf_enum(t);
		/* kflag: signed values (BTF of 6.0 and later); before it,
		 * an enum with a negative value was signed */
		bool sign = btf_kflag(t);
		for (int i = 0; i < vlen; i++)
			sign |= e[i].val < 0;
		d->is_signed = sign;
		for (int i = 0; i < vlen; i++) {
			DiEnumerator *en = NEW(DiEnumerator);
			en->name = btf_name(s, e[i].name_off);
			en->value = sign ? (int64_t)e[i].val : (int64_t)(uint32_t)e[i].val;
			vec_push(&d->enumerators, en);
		}
		break;
	}
	case BTF_KIND_ENUM64: {
		const struct btf_enum64 *e = btf_enum64(t);
		d->is_signed = btf_kflag(t);
		for (int i = 0; i < vlen; i++) {
			DiEnumerator *en = NEW(DiEnumerator);
			en->name = btf_name(s, e[i].name_off);
			en->value = (int64_t)btf_enum64_value(&e[i]);
			vec_push(&d->enumerators, en);
		}
		break;
	}
	case BTF_KIND_PTR:
		d->size = btf__pointer_size(s->btf) ? btf__pointer_size(s->btf) : 8;
		d->target = target_of(s, t->type);
		break;
	case BTF_KIND_ARRAY: {
		const struct btf_array *a = btf_array(t);
		d->target = convert(s, a->type);
		/* BTF writes both [] and [0] as 0 elements: flexible
		 * (a struct's other members make it [0], below) */
		d->count = a->nelems ? (int64_t)a->nelems : -1;
		break;
	}
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION: {
		const struct btf_member *mb = btf_members(t);
		for (int i = 0; i < vlen; i++) {
			DiMember *m = NEW(DiMember);
			m->name = btf_name(s, mb[i].name_off);
			m->type = convert(s, mb[i].type);
			/* BTF writes [0] and [] alike; only the last member
			 * can be a flexible array, so another one is [0] */
			if (m->type && m->type->kind == DI_TYPE_ARRAY && m->type->count < 0 &&
			    i < vlen - 1 && btf_is_struct(t)) {
				DiType *zero = NEW(DiType);
				*zero = *m->type;
				zero->count = 0;
				m->type = zero;
			}
			m->bit_offset = btf_member_bit_offset(t, i);
			m->bit_size = btf_member_bitfield_size(t, i);
			/* Without kflag a bitfield is an int whose encoding
			 * has fewer bits than its size. */
			const struct btf_type *mt = btf__type_by_id(s->btf, mb[i].type);
			if (!btf_kflag(t) && mt && btf_is_int(mt) &&
			    btf_int_bits(mt) != mt->size * 8) {
				m->bit_size = btf_int_bits(mt);
				m->bit_offset += btf_int_offset(mt);
			}
			vec_push(&d->members, m);
		}
		break;
	}
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_CONST:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT:
		d->target = target_of(s, t->type);
		break;
	case BTF_KIND_FUNC_PROTO: {
		d->target = convert(s, t->type);
		const struct btf_param *p = btf_params(t);
		for (int i = 0; i < vlen; i++)
			if (p[i].type)          /* 0: the "..." of a varargs function */
				vec_push(&d->members, (void *)convert(s, p[i].type));
		break;
	}
	default:
		break;
	}
}

/* The DiType of id; NULL for void and for what is not a type (a
 * function, a variable, a section). */
static const DiType *convert(BtfSet *s, uint32_t id)
{
	if (id == 0)
		return NULL;
	if (id < s->first_id && s->module)
		return convert(kernel_btf(), id);
	if (id < s->first_id || id >= s->end_id)
		return NULL;
	uint32_t i = id - s->first_id;
	if (s->types[i] || s->busy[i])
		return s->types[i];
	const struct btf_type *t = btf__type_by_id(s->btf, id);
	if (!t)
		return NULL;
	switch (btf_kind(t)) {
	case BTF_KIND_TYPE_TAG:
		/* an attribute (__user, __rcu): the type it tags.  busy
		 * stops a loop of tags, which only bad BTF has */
		s->busy[i] = true;
		s->types[i] = (DiType *)convert(s, t->type);
		s->busy[i] = false;
		return s->types[i];
	case BTF_KIND_FUNC:
		return convert(s, t->type);
	case BTF_KIND_VAR: case BTF_KIND_DATASEC: case BTF_KIND_DECL_TAG:
		return NULL;
	default:
		break;
	}
	DiType *d = NEW(DiType);
	d->kind = kind_of(t);
	d->name = btf_name(s, t->name_off);
	d->count = -1;
	s->types[i] = d;        /* before its parts: a pointer may lead back */
	fill_type(s, d, t);
	if (d->kind != DI_TYPE_POINTER && d->kind != DI_TYPE_FUNC &&
	    d->kind != DI_TYPE_FWD) {
		int64_t sz = btf__resolve_size(s->btf, id);
		d->size = sz > 0 ? (uint64_t)sz : 0;
	}
	return d;
}

/* The names of a set's own types, hashed (FNV-1a, open addressing), so
 * a lookup by name does not walk the ~130000 types of a kernel: built on
 * the first lookup (a few ms), 0 marks a free slot. */
static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static void build_name_index(BtfSet *s)
{
	uint32_t n = 0;
	for (uint32_t id = s->first_id; id < s->end_id; id++)
		n += btf__type_by_id(s->btf, id)->name_off != 0;
	uint32_t size = 1024;
	while (size < 2 * n)
		size *= 2;
	s->index = xrealloc_heap(NULL, size * sizeof *s->index);
	memset(s->index, 0, size * sizeof *s->index);
	s->index_mask = size - 1;
	for (uint32_t id = s->first_id; id < s->end_id; id++) {
		const struct btf_type *t = btf__type_by_id(s->btf, id);
		if (!t->name_off)
			continue;
		uint32_t h = name_hash(btf__name_by_offset(s->btf, t->name_off));
		while (s->index[h & s->index_mask])
			h++;
		s->index[h & s->index_mask] = id;
	}
}

/* What a lookup by name is after, and the best it found so far. */
typedef struct NameQuery {
	const char *name;
	const int *kinds;       /* in order of preference */
	int nkinds;
	int fwd_kflag;          /* a FWD of this kflag will do, or -1 */
	uint32_t best, fwd;     /* the lowest id of the best kind; a FWD */
	int rank;
} NameQuery;

static void consider(const BtfSet *s, uint32_t id, NameQuery *q)
{
	const struct btf_type *t = btf__type_by_id(s->btf, id);
	int k = btf_kind(t), rank = q->nkinds;
	bool fwd = q->fwd_kflag >= 0 && k == BTF_KIND_FWD && btf_kflag(t) == q->fwd_kflag;
	for (int j = 0; j < q->nkinds && !fwd; j++)
		if (q->kinds[j] == k)
			rank = j;
	if (!fwd && (rank > q->rank || (rank == q->rank && (rank == q->nkinds || id > q->best))))
		return;
	if (!t->name_off || strcmp(btf__name_by_offset(s->btf, t->name_off), q->name))
		return;
	if (fwd) {
		if (!q->fwd || id < q->fwd)
			q->fwd = id;
	} else {
		q->best = id;
		q->rank = rank;
	}
}

/* The id among s's own types of the type named name whose kind comes
 * first in kinds (the lowest id of those); 0 when none.  With fwd_kflag
 * 0 (struct) or 1 (union), a declaration (FWD) of that kind does when no
 * definition is there.  The first few lookups walk the types (~1 ms);
 * after them the names are hashed (~6 ms once, then ~µs a lookup). */
static uint32_t find_named(BtfSet *s, const char *name, const int *kinds, int nkinds,
			   int fwd_kflag)
{
	NameQuery q = { name, kinds, nkinds, fwd_kflag, 0, 0, nkinds };
	if (!s->index && ++s->lookups > 4)
		build_name_index(s);
	if (!s->index) {
		for (uint32_t id = s->first_id; id < s->end_id; id++)
			consider(s, id, &q);
	} else {
		for (uint32_t h = name_hash(name);; h++) {
			uint32_t id = s->index[h & s->index_mask];
			if (!id)
				break;
			consider(s, id, &q);
		}
	}
	return q.best ? q.best : q.fwd;
}

const DiType *btf_find_type(const DiModule *m, const char *name)
{
	BtfSet *s = set_of(m);
	if (!s->btf || !name)
		return NULL;
	while (*name == ' ' || *name == '\t')
		name++;
	static const int struct_k[] = { BTF_KIND_STRUCT };
	static const int union_k[] = { BTF_KIND_UNION };
	static const int enum_k[] = { BTF_KIND_ENUM, BTF_KIND_ENUM64 };
	static const int bare_k[] = { BTF_KIND_TYPEDEF, BTF_KIND_INT, BTF_KIND_FLOAT,
				      BTF_KIND_STRUCT, BTF_KIND_UNION, BTF_KIND_ENUM,
				      BTF_KIND_ENUM64 };
	const int *kinds = bare_k;
	int nkinds = sizeof bare_k / sizeof bare_k[0], fwd = -1;
	if (!strncmp(name, "struct ", 7)) {
		kinds = struct_k, nkinds = 1, fwd = 0, name += 7;
	} else if (!strncmp(name, "union ", 6)) {
		kinds = union_k, nkinds = 1, fwd = 1, name += 6;
	} else if (!strncmp(name, "enum ", 5)) {
		kinds = enum_k, nkinds = 2, name += 5;
	}
	while (*name == ' ')
		name++;
	char *want = xstrdup(name);
	for (size_t n = strlen(want); n && want[n - 1] == ' '; n--)
		want[n - 1] = 0;
	if (!strcmp(want, "void"))
		return void_type();
	/* a module's own types first, then the kernel's it is split on */
	uint32_t id = find_named(s, want, kinds, nkinds, fwd);
	if (!id && s->module) {
		BtfSet *k = kernel_btf();
		id = find_named(k, want, kinds, nkinds, fwd);
		return id ? convert(k, id) : NULL;
	}
	return id ? convert(s, id) : NULL;
}

/* ================= functions ================= */

/* The type behind typedefs and qualifiers (a bounded walk). */
static const DiType *strip(const DiType *t)
{
	for (int n = 0; t && n < 64; n++) {
		if (t->kind != DI_TYPE_TYPEDEF && t->kind != DI_TYPE_CONST &&
		    t->kind != DI_TYPE_VOLATILE && t->kind != DI_TYPE_RESTRICT)
			return t;
		t = t->target;
	}
	return t;
}

/* How many general registers an argument of type t takes (0: it goes on
 * the stack or in SSE registers), and whether it is a scalar one
 * register holds whole, so that DI_LOC_REG says where it is.  Kernel
 * structs are all of the integer class: one of up to 16 bytes goes in
 * one or two registers, a bigger one on the stack. */
static int arg_regs_needed(const DiType *t, bool *in_one_reg)
{
	t = strip(t);
	*in_one_reg = false;
	if (!t)
		return 1;
	switch (t->kind) {
	case DI_TYPE_INT:
	case DI_TYPE_ENUM:
	case DI_TYPE_POINTER:
		*in_one_reg = t->size <= 8;
		return t->size > 8 ? 2 : 1;
	case DI_TYPE_STRUCT:
	case DI_TYPE_UNION:
		return t->size == 0 || t->size > 16 ? 0 : (int)((t->size + 7) / 8);
	default:
		return 0;               /* float: SSE */
	}
}

static DiFunction *make_function(BtfSet *s, const DiModule *m, uint32_t id,
				 const struct btf_type *t)
{
	DiFunction *f = NEW(DiFunction);
	f->name = btf_name(s, t->name_off);
	f->module = m;
	/* FUNC: vlen is the linkage, which pahole writes static for
	 * nearly every kernel function */
	f->external = btf_vlen(t) == BTF_FUNC_GLOBAL;
	const struct btf_type *proto = btf__type_by_id(s->btf, t->type);
	if (!proto || !btf_is_func_proto(proto))
		return f;
	f->ret = convert(s, proto->type);
	const struct btf_param *p = btf_params(proto);
	vec_reserve(&f->params, btf_vlen(proto));
	/* the integer arguments' registers of the target (arch/) */
	const Arch *arch = arch_target();
	int used = 0, nregs = arch->narg_regs;
	for (int i = 0; i < btf_vlen(proto); i++) {
		if (!p[i].type)
			break;          /* "..." */
		DiVariable *v = NEW(DiVariable);
		v->name = btf_name(s, p[i].name_off);
		v->type = convert(s, p[i].type);
		v->is_param = true;
		v->loc.kind = DI_LOC_NONE;
		bool one;
		int need = arg_regs_needed(v->type, &one);
		/* an argument that does not fit in what is left goes on the
		 * stack whole, and the registers stay for the next ones */
		if (need && used + need <= nregs) {
			if (one) {
				v->loc.kind = DI_LOC_REG;
				v->loc.reg = arch->arg_regs[used];
			}
			used += need;
		}
		/* An unnamed parameter cannot be named by a script; it still
		 * takes its register above. */
		if (v->name)
			vec_push(&f->params, v);
	}
	return f;
}

static bool has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

static int cmp_function_name(const void *a, const void *b)
{
	const DiFunction *x = *(const DiFunction *const *)a, *y = *(const DiFunction *const *)b;
	return strcmp(x->name, y->name);
}

Vec btf_functions(const DiModule *m, const char *func_glob)
{
	Vec out = { 0 };
	BtfSet *s = set_of(m);
	if (!s->btf || !func_glob)
		return out;
	/* A name: the name hash (a probe point each, scripts with many of
	 * them).  A glob: every function, by the list of their ids. */
	if (!has_glob(func_glob)) {
		static const int func_k[] = { BTF_KIND_FUNC };
		uint32_t id = find_named(s, func_glob, func_k, 1, -1);
		if (id) {
			uint32_t i = id - s->first_id;
			if (!s->funcs[i])
				s->funcs[i] = make_function(s, m, id, btf__type_by_id(s->btf, id));
			vec_push(&out, s->funcs[i]);
		}
		return out;
	}
	if (!s->func_ids) {
		size_t most = s->end_id - s->first_id + 1;
		s->func_ids = xrealloc_heap(NULL, sizeof *s->func_ids * most);
		s->func_names = xrealloc_heap(NULL, sizeof *s->func_names * most);
		for (uint32_t id = s->first_id; id < s->end_id; id++) {
			const struct btf_type *t = btf__type_by_id(s->btf, id);
			const char *n = btf_is_func(t) && t->name_off
				? btf__name_by_offset(s->btf, t->name_off) : NULL;
			if (n) {
				s->func_ids[s->nfuncs] = id;
				s->func_names[s->nfuncs++] = n;
			}
		}
	}
	/* the literal part before the first wildcard rules out most names
	 * without fnmatch */
	size_t lit = strcspn(func_glob, "*?[\\");
	for (uint32_t k = 0; k < s->nfuncs; k++) {
		const char *n = s->func_names[k];
		/* fnmatch with no flags: arg_glob_match's syntax */
		if (strncmp(n, func_glob, lit) || fnmatch(func_glob, n, 0) != 0)
			continue;
		uint32_t id = s->func_ids[k], i = id - s->first_id;
		if (!s->funcs[i])
			s->funcs[i] = make_function(s, m, id, btf__type_by_id(s->btf, id));
		vec_push(&out, s->funcs[i]);
	}
	vec_sort(&out, cmp_function_name);
	/* a name BTF has twice (two static functions) is one probe point:
	 * without addresses they cannot be told apart */
	int n = 0;
	for (int i = 0; i < out.len; i++) {
		const DiFunction *f = out.data[i];
		if (n == 0 || ((DiFunction *)out.data[n - 1])->name != f->name)
			out.data[n++] = out.data[i];
	}
	out.len = n;
	return out;
}

/* ================= for the unit tests ================= */

bool btf_load_raw(const char *module, const void *data, size_t len, const char **why)
{
	libbpf_set_print(libbpf_say);
	BtfSet *s;
	struct btf *base = NULL;
	if (module) {
		BtfSet *k = kernel_btf();
		if (!k->btf) {
			*why = k->why;
			return false;
		}
		base = k->btf;
		s = NEW(BtfSet);
		s->module = norm_module(module);
		vec_push(&module_sets, s);
	} else {
		kernel_tried = true;
		s = &kernel_set;
	}
	Bytes b = { .data = (unsigned char *)data, .len = len };
	struct btf *r = btf_of_bytes(&b, base, why, "(raw)");
	if (!r)
		return false;
	s->path = "(raw)";
	set_ready(s, r);
	return true;
}
