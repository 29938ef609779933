/* kitprog.c - the probes/ kit's test program: SDT markers made with
 * dtrace -h / -G from kitprog.d and tapc's <sys/sdt.h>.
 *
 *   kitprog [N]     N requests (default 3), then one "sizes" and "done"
 *
 * Each request fires kitprog:request with its id (1000 + i), status (-i)
 * and path ("/a" or "/b"), read by the marker from memory through a
 * pointer; kitprog:guarded fires only while its semaphore is raised
 * (KITPROG_GUARDED_ENABLED()), with the text it builds then.  The last
 * line says how often the guarded code ran.
 */
#include "kitprog_probes.h"

#include <stdio.h>
#include <stdlib.h>

struct request {
	long id;
	int status;
	const char *path;
};

volatile int kit_level = 7;     /* a global the marker reads in memory */
static int guarded_runs;

/* Not inlined: the marker's operands are memory through rq. */
__attribute__((noinline)) static void serve(const struct request *rq, int i)
{
	/* tracers cannot fault pages in: touch the path's before */
	if (!rq->path[0])
		return;
	KITPROG_REQUEST(rq->id, rq->status, rq->path);
	if (KITPROG_GUARDED_ENABLED()) {
		char text[32];
		snprintf(text, sizeof text, "built-for-%d", i);
		guarded_runs++;
		KITPROG_GUARDED(i, text);
	}
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;
	static const char *const paths[] = { "/a", "/b" };
	for (int i = 1; i <= n; i++) {
		struct request rq = { 1000 + i, -i, paths[i % 2] };
		serve(&rq, i);
	}
	KITPROG_SIZES(kit_level, (short)-2, (unsigned char)(argc + 199),
		      (signed char)-3, -5000000000LL, 4000000000u);
	KITPROG_DONE();
	printf("kitprog: %d requests, guarded code ran %d times\n", n, guarded_runs);
	return 0;
}
