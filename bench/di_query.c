/* di_query.c - ask the kernel debug-information readers (debuginfo.h)
 * one question from the command line, as bench/debuginfo does to time
 * them alone, and as a person does to see what tapc reads:
 *
 *   bench/di_query [-r RELEASE|DIR] [-m MODULE] [-i] [-P] FUNC_GLOB [FILE_GLOB]
 *   bench/di_query [-r RELEASE|DIR] [-m MODULE] -t 'struct NAME'
 *
 * It prints where the debug information came from, then each function
 * (name@file:line, entry and probe address, parameters and locals at the
 * probe with their types and locations), or the type's members.  With
 * -q only the counts.  Timings go to stderr.  Built with `make
 * bench/di_query` (not installed).
 */
#include "tapc.h"
#include "passes.h"
#include "debuginfo/debuginfo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static const char *loc_text(const DiLocation *l)
{
	switch (l->kind) {
	case DI_LOC_NONE:
		return "optimized out";
	case DI_LOC_REG:
		return xsprintf("reg %d", l->reg);
	case DI_LOC_MEM_REG:
		return xsprintf("[reg %d %+lld]", l->reg, (long long)l->offset);
	case DI_LOC_ADDR:
		return xsprintf("[%#llx]", (unsigned long long)l->addr);
	case DI_LOC_CONST:
		return xsprintf("= %lld", (long long)l->value);
	case DI_LOC_EXPR: {
		StrBuf sb = { 0 };
		sb_puts(&sb, "expr");
		for (size_t i = 0; i < l->expr_len; i++)
			sb_printf(&sb, " %#x(%llu,%llu)", l->expr[i].op,
				  (unsigned long long)l->expr[i].n1,
				  (unsigned long long)l->expr[i].n2);
		return sb_cstr(&sb);
	}
	}
	return "?";
}

static const char *source_name(DiSource s)
{
	return s == DI_SRC_DWARF ? "DWARF" : s == DI_SRC_BTF ? "BTF" : "none";
}

int main(int argc, char **argv)
{
	const char *module = NULL, *type = NULL;
	bool inl = false, quiet = false;
	int c;
	while ((c = getopt(argc, argv, "r:m:t:iPq")) != -1) {
		switch (c) {
		case 'r':
			if (strchr(optarg, '/'))
				sess.kernel_build_dir = optarg;
			else
				sess.release = optarg;
			break;
		case 'm':
			module = optarg;
			break;
		case 't':
			type = optarg;
			break;
		case 'i':
			inl = true;
			break;
		case 'P':
			sess.prologue_searching = true;
			break;
		case 'q':
			quiet = true;
			break;
		default:
			fprintf(stderr, "usage: di_query [-r RELEASE] [-m MODULE] [-i] [-P] [-q] "
				"FUNC_GLOB [FILE_GLOB] | -t TYPE\n");
			return 2;
		}
	}
	if (!type && optind >= argc) {
		fprintf(stderr, "di_query: no function pattern\n");
		return 2;
	}
	if (!target_init())
		return 1;
	double t0 = now();
	DiSource src = di_source(module);
	const DiModule *m = di_module(module);
	double t1 = now();
	printf("%s: %s", module ? module : "kernel", source_name(src));
	if (m)
		printf(" from %s (build-id %s)", m->debug_path ? m->debug_path : m->path,
		       m->build_id ? m->build_id : "none");
	printf("\n");
	if (src != DI_SRC_DWARF && di_why_no_dwarf(module))
		printf("  no DWARF: %s\n", di_why_no_dwarf(module));
	if (src == DI_SRC_NONE)
		return 1;
	if (type) {
		const DiType *t = di_find_type(module, type);
		double t2 = now();
		fprintf(stderr, "di_query: found in %.1f ms, type in %.1f ms\n",
			(t1 - t0) * 1e3, (t2 - t1) * 1e3);
		if (!t) {
			printf("no type %s\n", type);
			return 1;
		}
		const DiType *s = di_type_strip(t);
		printf("%s (%llu bytes)\n", di_type_text(t), (unsigned long long)s->size);
		for (int i = 0; i < s->members.len && s->kind != DI_TYPE_FUNC; i++) {
			const DiMember *mb = vec_get(&s->members, i);
			printf("  %s %s: bit %llu", di_type_text(mb->type),
			       mb->name ? mb->name : "(anonymous)",
			       (unsigned long long)mb->bit_offset);
			if (mb->bit_size)
				printf(" width %d", mb->bit_size);
			printf("\n");
		}
		for (int i = 0; i < s->enumerators.len; i++) {
			const DiEnumerator *e = vec_get(&s->enumerators, i);
			printf("  %s = %lld\n", e->name, (long long)e->value);
		}
		return 0;
	}
	Vec fs = di_functions(module, argv[optind], optind + 1 < argc ? argv[optind + 1] : NULL,
			      inl);
	double t2 = now();
	int nvars = 0;
	for (int i = 0; i < fs.len; i++) {
		const DiFunction *f = vec_get(&fs, i);
		uint64_t pc = di_probe_pc(f);
		Vec vars = di_variables_at(f, pc);
		nvars += vars.len;
		if (quiet)
			continue;
		printf("%s@%s:%d%s entry %#llx probe %#llx\n", f->name,
		       f->decl.file ? f->decl.file : "?", f->decl.line,
		       f->inlined ? " (inlined)" : "", (unsigned long long)f->entry_pc,
		       (unsigned long long)pc);
		for (int j = 0; j < vars.len; j++) {
			const DiVariable *v = vec_get(&vars, j);
			printf("  $%s:%s%s %s\n", v->name ? v->name : "?", di_type_text(v->type),
			       v->is_param ? "" : " (local)", loc_text(&v->loc));
		}
	}
	double t3 = now();
	printf("%d functions, %d variables\n", fs.len, nvars);
	fprintf(stderr, "di_query: found in %.1f ms, functions in %.1f ms, "
		"variables in %.1f ms\n", (t1 - t0) * 1e3, (t2 - t1) * 1e3, (t3 - t2) * 1e3);
	return 0;
}
