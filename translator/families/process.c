/* process.c - process(...) probes: process lifetime and system-call events,
 * and uprobes on a program's functions, statements, PLT entries and
 * static (SDT) markers.
 *
 * The program must exist (an optional point that names a missing one
 * resolves to nothing).  Its ELF file is read with libelf, once per path:
 * the symbol table says which functions exist (only when the file has a
 * full .symtab: a stripped file's .dynsym is not the whole list), the
 * PLT relocations list the .plt entries, and .note.stapsdt lists the SDT
 * markers with their argument counts ($arg1..$argN).
 */
#include "family.h"

#include <fcntl.h>
#include <gelf.h>
#include <glob.h>
#include <libelf.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ResolvedPoint.data for process probes. */
typedef struct ProcessData {
	const char *path;       /* the program (NULL: every process) */
	int64_t pid;            /* process(PID), else 0 */
	const char *library;    /* .library("..."): the object probed, or NULL */
	const char *name;       /* function, PLT entry or mark name */
	const char *provider;   /* SDT provider */
	int64_t address;        /* statement(N) */
	int sdt_args;           /* SDT marker argument count */
} ProcessData;

/* ---- finding programs ---- */

static bool is_regular(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static const char *canonical(const char *p)
{
	char *r = realpath(p, NULL);
	if (!r)
		return NULL;
	const char *s = intern(r);
	free(r);
	return s;
}

/* A "#!" script stands for its interpreter. */
static const char *through_interpreter(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return path;
	char line[PATH_MAX + 3];
	const char *r = path;
	if (fgets(line, sizeof line, f) && line[0] == '#' && line[1] == '!') {
		char *p = line + 2;
		while (*p == ' ' || *p == '\t')
			p++;
		p[strcspn(p, " \t\n")] = 0;
		if (*p && is_regular(p))
			r = canonical(p) ? canonical(p) : path;
	}
	fclose(f);
	return r;
}

static const char *search_path(const char *name)
{
	if (strchr(name, '/'))
		return is_regular(name) ? canonical(name) : NULL;
	const char *env = getenv("PATH");
	if (!env || !*env)
		env = "/usr/local/bin:/usr/bin:/bin";
	for (const char *p = env;;) {
		const char *colon = strchr(p, ':');
		size_t n = colon ? (size_t)(colon - p) : strlen(p);
		const char *cand = n ? xsprintf("%.*s/%s", (int)n, p, name)
				     : xsprintf("./%s", name);
		if (is_regular(cand) && access(cand, X_OK) == 0)
			return canonical(cand);
		if (!colon)
			return NULL;
		p = colon + 1;
	}
}

const char *program_path(const char *name)
{
	if (!name) {
		if (sess.target_cmd) {
			const char *c = sess.target_cmd;
			while (*c == ' ' || *c == '\t')
				c++;
			name = xstrndup(c, strcspn(c, " \t"));
		} else if (sess.target_pid > 0) {
			return canonical(xsprintf("/proc/%ld/exe", sess.target_pid));
		} else {
			return NULL;
		}
	}
	if (!*name)
		return NULL;
	const char *p = search_path(name);
	return p ? through_interpreter(p) : NULL;
}

/* ---- what an ELF file holds ---- */

typedef struct SdtNote {
	const char *provider, *name;
	int nargs;
} SdtNote;

typedef struct ElfFacts {
	const char *path;
	bool readable;          /* an ELF file we could read */
	bool has_symtab;        /* full symbol table (not stripped) */
	NameList funcs;         /* defined function symbols */
	NameList plt;           /* names of PLT-called functions */
	Vec sdt;                /* SdtNote * */
} ElfFacts;

static void read_symbols(Elf *elf, Elf_Scn *scn, GElf_Shdr *sh, Vec *funcs)
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
		if ((t != STT_FUNC && t != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF)
			continue;
		const char *name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (name && *name)
			vec_push(funcs, (void *)intern(name));
	}
}

/* Symbol names of the PLT relocations (.rela.plt / .rel.plt). */
static void read_plt(Elf *elf, Elf_Scn *scn, GElf_Shdr *sh, Vec *plt)
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
		if (!symi || !gelf_getsym(syms, symi, &sym))
			continue;
		const char *name = elf_strptr(elf, symsh.sh_link, sym.st_name);
		if (name && *name)
			vec_push(plt, (void *)intern(name));
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
		const char *d = (char *)data->d_buf + desc_off + 3 * addr;
		const char *end = (char *)data->d_buf + desc_off + nh.n_descsz;
		const char *prov = d, *name = prov + strnlen(prov, end - prov) + 1;
		if (name >= end)
			continue;
		const char *args = name + strnlen(name, end - name) + 1;
		SdtNote *s = NEW(SdtNote);
		s->provider = intern_n(prov, strnlen(prov, end - prov));
		s->name = intern_n(name, strnlen(name, end - name));
		if (args < end) {
			size_t len = strnlen(args, end - args);
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

static ElfFacts *elf_facts(const char *path)
{
	static Vec cache;
	path = intern(path);
	for (int i = 0; i < cache.len; i++) {
		ElfFacts *f = cache.data[i];
		if (f->path == path)
			return f;
	}
	ElfFacts *f = NEW(ElfFacts);
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
		Vec funcs = { 0 }, plt = { 0 };
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
				read_symbols(elf, scn, &sh, &funcs);
			} else if ((sh.sh_type == SHT_RELA || sh.sh_type == SHT_REL) &&
				   (!strcmp(sname, ".rela.plt") || !strcmp(sname, ".rel.plt"))) {
				read_plt(elf, scn, &sh, &plt);
			} else if (sh.sh_type == SHT_NOTE && !strcmp(sname, ".note.stapsdt")) {
				read_sdt(elf, scn, &f->sdt);
			}
		}
		namelist_finish(&f->funcs, &funcs);
		namelist_finish(&f->plt, &plt);
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return f;
}

/* ---- libraries ---- */

static const char *const lib_dirs[] = {
	"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64",
	"/usr/lib64", "/lib", "/usr/lib", "/usr/local/lib",
};

/* Paths the .library("...") argument stands for. */
static Vec find_libraries(const char *pat)
{
	Vec out = { 0 };
	if (strchr(pat, '/')) {
		glob_t g;
		if (glob(pat, 0, NULL, &g) == 0) {
			for (size_t i = 0; i < g.gl_pathc; i++)
				if (is_regular(g.gl_pathv[i]))
					vec_push(&out, (void *)canonical(g.gl_pathv[i]));
			globfree(&g);
		}
		return out;
	}
	for (size_t i = 0; i < sizeof lib_dirs / sizeof lib_dirs[0]; i++) {
		glob_t g;
		if (glob(xsprintf("%s/%s", lib_dirs[i], pat), 0, NULL, &g) != 0)
			continue;
		for (size_t j = 0; j < g.gl_pathc; j++) {
			const char *c = is_regular(g.gl_pathv[j]) ? canonical(g.gl_pathv[j]) : NULL;
			bool dup = !c;
			for (int k = 0; k < out.len && !dup; k++)
				dup = out.data[k] == c;
			if (!dup)
				vec_push(&out, (void *)c);
		}
		globfree(&g);
		if (out.len)
			break;
	}
	return out;
}

/* ---- the family ---- */

static const char *const event_kinds[] = {
	"begin", "end", "thread", "syscall", "insn",
};

static bool is_event_point(ProbePoint *pp)
{
	ProbePointComp *c = vec_get(&pp->comps, 1);
	for (size_t i = 0; i < sizeof event_kinds / sizeof event_kinds[0]; i++)
		if (!strcmp(c->name, event_kinds[i]))
			return true;
	return false;
}

static ProcessData *new_data(const char *path, int64_t pid)
{
	ProcessData *d = NEW(ProcessData);
	d->path = path;
	d->pid = pid;
	return d;
}

static int resolve_event(const ProbeFamily *fam, ProbePoint *pp,
			 const char *path, int64_t pid, Vec *out)
{
	ResolvedPoint *rp = rp_push(out, fam, pp);
	rp->data = new_data(path, pid);
	ProbePointComp *c = vec_get(&pp->comps, 1);
	if (!strcmp(c->name, "syscall")) {
		rp_var(rp, "syscall", TY_LONG, NULL)->scalar = true;
		if (pp_has(pp, "return")) {
			rp_var(rp, "return", TY_LONG, NULL)->scalar = true;
		} else {
			for (int i = 1; i <= 6; i++)
				rp_var(rp, xsprintf("arg%d", i), TY_LONG, NULL)->scalar = true;
		}
	}
	return 1;
}

/* function("f"), statement("f@file:N"), plt("f"), mark("m") in one
 * object file (the program, or a library of it). */
static int resolve_in_object(const ProbeFamily *fam, ProbePoint *pp,
			     const char *object, ProcessData *proto, Vec *out)
{
	ElfFacts *ef = elf_facts(object);
	int ci = -1;
	const char *kind = NULL;
	for (int i = 1; i < pp->comps.len && !kind; i++) {
		const char *n = ((ProbePointComp *)pp->comps.data[i])->name;
		if (!strcmp(n, "function") || !strcmp(n, "statement") ||
		    !strcmp(n, "plt") || !strcmp(n, "mark")) {
			kind = n;
			ci = i;
		}
	}
	ProbePointComp *kc = pp->comps.data[ci];
	Vec names = { 0 };
	int total = 0;

	if (!strcmp(kind, "statement")) {
		ProcessData *d = NEW(ProcessData);
		*d = *proto;
		d->address = comp_is_str(kc) ? 0 : comp_num(kc);
		d->name = comp_is_str(kc) ? comp_str(kc) : NULL;
		ResolvedPoint *rp = rp_push(out, fam, pp);
		rp->data = d;
		rp->needs_debuginfo = !pp_has(pp, "absolute");
		return 1;
	}

	if (!strcmp(kind, "plt")) {
		const char *pat = kc->arg ? comp_str(kc) : "*";
		for (int i = 0; i < ef->plt.len; i++)
			if (arg_glob_match(pat, ef->plt.names[i]))
				vec_push(&names, (void *)ef->plt.names[i]);
		for (int i = 0; i < names.len; i++) {
			const char *f = names.data[i];
			ProbePoint *c = kc->arg && !strcmp(f, comp_str(kc)) ? pp
					: pp_with_str(pp, ci, f);
			ProcessData *d = NEW(ProcessData);
			*d = *proto;
			d->name = f;
			ResolvedPoint *rp = rp_push(out, fam, c);
			rp->data = d;
			/* $$name: the function the PLT entry leads to */
			rp_var(rp, "$name", TY_STRING, NULL)->scalar = true;
		}
		return names.len;
	}

	if (!strcmp(kind, "mark")) {
		ProbePointComp *pc = pp_comp(pp, "provider");
		const char *ppat = pc ? comp_str(pc) : "*";
		const char *mpat = comp_str(kc);
		for (int i = 0; i < ef->sdt.len; i++) {
			SdtNote *s = ef->sdt.data[i];
			if (!arg_glob_match(ppat, s->provider) || !arg_glob_match(mpat, s->name))
				continue;
			/* One probe per distinct provider:name (a marker may sit
			 * at several sites). */
			bool dup = false;
			for (int j = 0; j < i && !dup; j++) {
				SdtNote *o = ef->sdt.data[j];
				dup = o->provider == s->provider && o->name == s->name;
			}
			if (dup)
				continue;
			ProbePoint *c = strcmp(s->name, mpat) ? pp_with_str(pp, ci, s->name) : pp;
			if (pc && strcmp(s->provider, ppat)) {
				for (int j = 1; j < c->comps.len; j++)
					if (!strcmp(((ProbePointComp *)c->comps.data[j])->name, "provider"))
						c = pp_with_str(c, j, s->provider);
			}
			ProcessData *d = NEW(ProcessData);
			*d = *proto;
			d->name = s->name;
			d->provider = s->provider;
			d->sdt_args = s->nargs;
			ResolvedPoint *rp = rp_push(out, fam, c);
			rp->data = d;
			for (int a = 1; a <= s->nargs; a++)
				rp_var(rp, xsprintf("arg%d", a), TY_LONG, "long");
			/* $$name and $$provider: the parts of the marker's name */
			rp_var(rp, "$name", TY_STRING, NULL)->scalar = true;
			rp_var(rp, "$provider", TY_STRING, NULL)->scalar = true;
			total++;
		}
		return total;
	}

	/* function("pattern") */
	const char *text = comp_str(kc);
	if (!*text) {
		error_at(kc->loc, _("empty function pattern"));
		return -1;
	}
	const char *func = xstrndup(text, strcspn(text, "@:+"));
	bool plain = !strpbrk(text, "@:+") && !strstr(text, "::");
	if (!strcmp(func, "_start") && pp_has(pp, "return")) {
		error_at(kc->loc, _("cannot probe the return of '_start': it never returns"));
		return -1;
	}
	/* Only a full .symtab can say a function does not exist (inline
	 * instances and C++ names still need DWARF). */
	if (!ef->readable || !plain || pp_has(pp, "inline") ||
	    (!ef->has_symtab && (arg_has_glob(func) || !namelist_has(&ef->funcs, func)))) {
		if (ef->readable && !plain && !arg_has_glob(func) && *func &&
		    ef->has_symtab && !strstr(text, "::") && !namelist_has(&ef->funcs, func))
			return 0;
		ProcessData *d = NEW(ProcessData);
		*d = *proto;
		d->name = func;
		ResolvedPoint *rp = rp_push(out, fam, pp);
		rp->data = d;
		rp->needs_debuginfo = true;
		return 1;
	}
	if (arg_has_glob(func)) {
		for (int i = 0; i < ef->funcs.len; i++)
			if (arg_glob_match(func, ef->funcs.names[i]))
				vec_push(&names, (void *)ef->funcs.names[i]);
	} else if (namelist_has(&ef->funcs, func)) {
		vec_push(&names, (void *)func);
	}
	for (int i = 0; i < names.len; i++) {
		const char *f = names.data[i];
		if (!strcmp(f, "_start") && pp_has(pp, "return"))
			continue;
		ProbePoint *c = strcmp(f, text) ? pp_with_str(pp, ci, f) : pp;
		ProcessData *d = NEW(ProcessData);
		*d = *proto;
		d->name = f;
		ResolvedPoint *rp = rp_push(out, fam, c);
		rp->data = d;
		rp->needs_debuginfo = true;
		total++;
	}
	return total;
}

static int resolve_process(const ProbeFamily *fam, ProbePoint *pp, Vec *out)
{
	ProbePointComp *head = vec_get(&pp->comps, 0);
	bool event = is_event_point(pp);
	const char *what = pp_names_upto(pp, pp->comps.len - 1);
	int64_t pid = 0;
	Vec paths = { 0 };       /* the programs this point stands for */
	bool renamed = false;

	if (!head->arg) {
		if (event && !sess.target_cmd && sess.target_pid <= 0 && !sess.guru) {
			error_at(head->loc, _("%s needs a program path or PID (or -c CMD / -x PID)"),
				 what);
			return -1;
		}
		if (event) {
			vec_push(&paths, NULL);
		} else {
			const char *p = program_path(NULL);
			if (!p) {
				if (!sess.target_cmd && sess.target_pid <= 0) {
					error_at(head->loc, _("%s needs a program path or PID (or -c CMD / -x PID)"),
						 what);
					return -1;
				}
				if (pp_is_optional(pp))
					return 0;
				error_at(head->loc, _("cannot find the program of -c '%s'"),
					 sess.target_cmd ? sess.target_cmd : "");
				return -1;
			}
			vec_push(&paths, (void *)p);
		}
	} else if (!comp_is_str(head)) {
		pid = comp_num(head);
		if (pid <= 0) {
			error_at(head->loc, _("process(%lld): a PID must be positive"), (long long)pid);
			return -1;
		}
		const char *exe = event ? NULL : canonical(xsprintf("/proc/%lld/exe", (long long)pid));
		if (!event && !exe) {
			if (pp_is_optional(pp))
				return 0;
			error_at(head->loc, _("no running process with PID %lld"), (long long)pid);
			return -1;
		}
		vec_push(&paths, (void *)exe);
	} else {
		const char *name = comp_str(head);
		if (!*name) {
			error_at(head->loc, _("process needs a program path, not an empty string"));
			return -1;
		}
		if (arg_has_glob(name)) {
			glob_t g;
			if (glob(name, 0, NULL, &g) == 0) {
				for (size_t i = 0; i < g.gl_pathc; i++)
					if (is_regular(g.gl_pathv[i]))
						vec_push(&paths, (void *)canonical(g.gl_pathv[i]));
				globfree(&g);
			}
			if (!paths.len)
				return 0;
		} else {
			const char *p = program_path(name);
			if (!p) {
				if (pp_is_optional(pp))
					return 0;
				error_at(head->arg->loc, _("cannot find program '%s'%s"), name,
					 strchr(name, '/') ? "" : _(" in $PATH"));
				return -1;
			}
			vec_push(&paths, (void *)p);
		}
		renamed = true;
	}

	int total = 0;
	for (int i = 0; i < paths.len; i++) {
		const char *path = paths.data[i];
		ProbePoint *c = renamed && strcmp(path, comp_str(head)) ? pp_with_str(pp, 0, path) : pp;
		int r;
		if (event) {
			r = resolve_event(fam, c, path, pid, out);
		} else {
			ProcessData proto = { .path = path, .pid = pid };
			ProbePointComp *lc = pp_comp(c, "library");
			if (!lc) {
				r = resolve_in_object(fam, c, path, &proto, out);
			} else {
				Vec libs = find_libraries(comp_str(lc));
				int li = 1;
				r = 0;
				for (int j = 0; j < libs.len && r >= 0; j++) {
					const char *lib = libs.data[j];
					proto.library = lib;
					ProbePoint *lp = strcmp(lib, comp_str(lc)) ? pp_with_str(c, li, lib) : c;
					int k = resolve_in_object(fam, lp, lib, &proto, out);
					r = k < 0 ? -1 : r + k;
				}
			}
		}
		if (r < 0)
			return -1;
		total += r;
	}
	return total;
}

bool process_point_program(const ResolvedPoint *rp, const char **program)
{
	const ProcessData *d = rp && rp->family == &family_process ? rp->data : NULL;
	if (!d)
		return false;
	*program = d->path;     /* a library probe runs in the program */
	return true;
}

static const char *const process_shapes[] = {
	"process(s|n?).{begin|end|thread.begin|thread.end|syscall|syscall.return"
		"|insn|insn.block}",
	"process(s|n?)[.library(s)].function(s)[.call|.inline|.label(s)|.return"
		"|.callee(s)[.call|.return]|.callees(n?)]",
	"process(s|n?)[.library(s)].statement(s)[.nearest]",
	"process(s|n?).statement(n)[.absolute]",
	"process(s|n?)[.library(s)].plt(s?)[.return]",
	"process(s|n?)[.library(s)][.provider(s)].mark(s)",
	NULL
};

const ProbeFamily family_process = { "process", process_shapes, resolve_process };
