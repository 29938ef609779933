# libuplib.so's uplib_twice called by two programs, started after the
# module: the library probe sees both, the .library one only uplib_a.
. ./caselib
up_start lib_two || exit 0
in-host "$B/uplib_a" 3
in-host "$B/uplib_b" 2
up_stop
