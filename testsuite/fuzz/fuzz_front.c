/* fuzz_front.c - libFuzzer target for the front end: each input is a
 * script, run through pass 1 (parse_file) and, when it parses, pass 2
 * (elaborate).  Any crash, sanitizer report, internal error (abort) or
 * hang is a bug: bad input must only ever produce diagnostics.
 *
 * Build: make fuzz (after ./configure --enable-fuzz CC=clang), or
 * testsuite/fuzz/run, which also runs it for a bounded time. */
#include "passes.h"

#include <stdlib.h>
#include <string.h>

/* Pass 2 keeps tables across calls.  When its files offer a reset hook,
 * call it so each input starts from a clean state; until then every input
 * shares the same (growing) state, which is harmless for short runs. */
__attribute__((weak)) void elaborate_reset(void);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
#ifdef FUZZ_TAPSET_DIR
	/* The fuzzer binary does not live beside tapsets/ like tapc does. */
	setenv("SYSTEMTAP_TAPSET", FUZZ_TAPSET_DIR, 0);
#endif
	sess.last_pass = 2;
	sess.color = 0;
	target_init();
	/* Count diagnostics without printing them: they are expected. */
	diag_set_quiet(true);
	return 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	/* The arena is never freed; cap the input so a long run does not
	 * spend its memory on a few huge inputs. */
	if (size > 64 * 1024)
		return -1;
	error_count = 0;
	warning_count = 0;
	if (elaborate_reset)
		elaborate_reset();

	SrcFile *src = srcfile_new("<fuzz>", (const char *)data, size);
	Stapfile *f = parse_file(src, false);
	if (!f || error_count)
		return 0;

	Vec files = { 0 };
	vec_push(&files, f);
	elaborate(&files);
	return 0;
}
