/* table.c - the list of probe-point families: the only file that names
 * every one.  Adding a family is its file (families/NAME.c and
 * runtime/families/NAME.c), a line here and Makefile.am.
 *
 * The order is the order of the shapes (shapes.c), so of
 * --dump-probe-types before sorting, of the first names "did you mean"
 * offers, and of the families a wildcard point tries.
 */
#include "shapes.h"

/* family_NAME is defined in NAME.c (begin, end, error and never in
 * begin_end.c). */
extern const ProbeFamily family_begin, family_end, family_error,
	family_never, family_timer, family_kernel_function, family_hwbreak,
	family_kprobe, family_tracepoint, family_process, family_process_events,
	family_procfs, family_netfilter, family_perf, family_mark, family_java,
	family_python;

const ProbeFamily *const probe_families[] = {
	&family_begin, &family_end, &family_error, &family_never,
	&family_timer,
	&family_kernel_function, &family_hwbreak, &family_kprobe,
	&family_tracepoint, &family_mark,
	&family_process, &family_process_events,
	&family_procfs, &family_netfilter, &family_perf,
	&family_java, &family_python,
	NULL
};
