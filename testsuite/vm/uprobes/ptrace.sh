# uptest-stripped traced by uptrace (PTRACE_TRACEME, as a debugger runs
# a program): the uprobes fire in it all the same, and the tracer sees
# only the exec's stop.
. ./caselib
up_start ptrace || exit 0
in-host "$B/uptrace" "$B/uptest-stripped" 3
up_stop
