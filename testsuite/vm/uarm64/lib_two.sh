# libuplib.so's uplib_twice called by two programs, started after the
# module: the library probe sees both, the .library one only uplib_a.
. ./caselib
up_start lib_two || exit 0
"$B/uplib_a" 3
"$B/uplib_b" 2
up_stop
