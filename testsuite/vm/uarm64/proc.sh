. ./caselib
up_start proc || exit 0
"$B/uptest-stripped" 2
"$B/uptest-stripped" 1
up_stop
