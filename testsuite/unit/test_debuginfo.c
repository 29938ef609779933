/* test_debuginfo.c - unit tests for translator/debuginfo/ (debuginfo.h):
 * what an ELF object holds (its functions and its .note.stapsdt markers,
 * read from this test program itself), and program paths.
 */
#include "tapc.h"
#include "debuginfo/debuginfo.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

Session sess;  /* options.c is not linked here */

#include "check.h"

/* Two SDT markers as <sys/sdt.h> lays them out (pc, base, semaphore,
 * provider, name, arguments), with constant addresses so the test knows
 * them; the second has no arguments. */
__asm__(".pushsection .note.stapsdt,\"\",\"note\"\n"
	".balign 4\n"
	".4byte 2f-1f, 4f-3f, 3\n"
	"1: .asciz \"stapsdt\"\n"
	"2: .balign 4\n"
	"3: .8byte 0x401234, 0x402000, 0x404010\n"
	".asciz \"tapctest\"\n"
	".asciz \"two_args\"\n"
	".asciz \"8@%rdi -4@%esi\"\n"
	"4: .balign 4\n"
	".4byte 6f-5f, 8f-7f, 3\n"
	"5: .asciz \"stapsdt\"\n"
	"6: .balign 4\n"
	"7: .8byte 0x401300, 0x402000, 0\n"
	".asciz \"tapctest\"\n"
	".asciz \"no_args\"\n"
	".asciz \"\"\n"
	"8: .balign 4\n"
	".popsection\n");

/* A function the symbol table must list. */
int tapc_debuginfo_probe_me(int x);
int tapc_debuginfo_probe_me(int x)
{
	return x + 1;
}

static const SdtNote *find_note(const ObjectFacts *f, const char *name)
{
	for (int i = 0; i < f->sdt.len; i++) {
		const SdtNote *s = f->sdt.data[i];
		if (!strcmp(s->provider, "tapctest") && !strcmp(s->name, name))
			return s;
	}
	return NULL;
}

static void test_object(void)
{
	const char *self = process_program(getpid());
	CHECK(self != NULL);
	if (!self)
		return;
	const ObjectFacts *f = object_facts(self);
	CHECK(f->readable);
	CHECK(namelist_has(&f->funcs, "tapc_debuginfo_probe_me"));
	CHECK(namelist_has(&f->funcs, "main"));
	CHECK(!namelist_has(&f->funcs, "no_such_function_here"));
	CHECK(object_facts(self) == f);         /* read once */

	const SdtNote *two = find_note(f, "two_args");
	CHECK(two != NULL);
	if (two) {
		CHECK(two->pc == 0x401234);
		CHECK(two->base == 0x402000);
		CHECK(two->semaphore == 0x404010);
		CHECK(!strcmp(two->args, "8@%rdi -4@%esi"));
		CHECK(two->nargs == 2);
	}
	const SdtNote *none = find_note(f, "no_args");
	CHECK(none != NULL);
	if (none) {
		CHECK(none->pc == 0x401300);
		CHECK(none->semaphore == 0);
		CHECK(!strcmp(none->args, ""));
		CHECK(none->nargs == 0);
	}

	/* addresses: the function's symbol, the symbol holding an address
	 * inside it, and the file offset its code is at (the test program
	 * is a PIE, so the code is read back through the offset) */
	const ObjSym *sym = object_symbol(f, "tapc_debuginfo_probe_me");
	CHECK(sym != NULL);
	if (sym) {
		CHECK(sym->func && sym->global && sym->size > 0);
		CHECK(object_symbol_at(f, sym->addr) == sym);
		CHECK(object_symbol_at(f, sym->addr + sym->size - 1) == sym);
		uint64_t off = 0;
		CHECK(object_file_offset(f, sym->addr, &off));
		FILE *fp = fopen(self, "rb");
		unsigned char file_bytes[8] = { 0 };
		CHECK(fp && fseek(fp, (long)off, SEEK_SET) == 0 &&
		      fread(file_bytes, 1, sizeof file_bytes, fp) == sizeof file_bytes);
		if (fp)
			fclose(fp);
		uint64_t bias = (uint64_t)(uintptr_t)&tapc_debuginfo_probe_me - sym->addr;
		CHECK(!f->pie || bias != 0 || sym->addr != 0);
		CHECK(!memcmp(file_bytes, (void *)(uintptr_t)(sym->addr + bias),
			      sizeof file_bytes));
	}
	CHECK(object_symbol(f, "no_such_function_here") == NULL);
	CHECK(f->segments.len >= 2);
	uint64_t off;
	CHECK(!object_file_offset(f, 0xffffffffffff0000ull, &off));
	for (int i = 1; i < f->syms.len; i++)
		CHECK(((ObjSym *)f->syms.data[i - 1])->addr <=
		      ((ObjSym *)f->syms.data[i])->addr);

	/* the PLT entry of getppid, a libc function this program calls:
	 * its stub (at the entry's address plus the load bias) jumps
	 * through a GOT slot (ff 25 disp32, rip-relative, after an
	 * endbr64 and bnd prefix with IBT) that holds getppid's address
	 * once the call was made (its address is taken through dlsym: an
	 * &getppid here would make the linker call through the GOT) */
	CHECK(getppid() > 0);
	const ObjSym *plt = NULL;
	for (int i = 0; i < f->plt_entries.len; i++)
		if (!strcmp(((ObjSym *)f->plt_entries.data[i])->name, "getppid"))
			plt = f->plt_entries.data[i];
	CHECK(plt != NULL && sym != NULL);
	if (plt && sym) {
		uint64_t bias = (uint64_t)(uintptr_t)&tapc_debuginfo_probe_me - sym->addr;
		const unsigned char *stub = (const unsigned char *)(uintptr_t)(plt->addr + bias);
		int at = -1;
		for (int i = 0; i < 8 && at < 0; i++)
			if (stub[i] == 0xff && stub[i + 1] == 0x25)
				at = i;
		CHECK(at >= 0);
		if (at >= 0) {
			int32_t disp;
			memcpy(&disp, stub + at + 2, 4);
			void *const *slot = (void *const *)(stub + at + 6 + disp);
			CHECK(*slot == dlsym(RTLD_DEFAULT, "getppid"));
		}
	}

	/* not an ELF file */
	const ObjectFacts *t = object_facts("/proc/self/status");
	CHECK(!t->readable);
	CHECK(t->sdt.len == 0);
}

static void test_programs(void)
{
	const char *self = process_program(getpid());
	CHECK(self && self[0] == '/');
	CHECK(program_path(self) == self);
	CHECK(program_path("/no/such/program") == NULL);
	CHECK(program_path("") == NULL);
	Vec m = programs_matching(self);
	CHECK(m.len == 1 && m.data[0] == self);
	m = programs_matching("/no/such/dir/*");
	CHECK(m.len == 0);
	CHECK(process_program(-1) == NULL);
}

int main(void)
{
	sess.color = 0;
	test_object();
	test_programs();
	if (failures)
		fprintf(stderr, "test_debuginfo: %d failures\n", failures);
	return failures ? 1 : 0;
}
