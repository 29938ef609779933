. ./caselib
up_start statement || exit 0
"$B/uptest-stripped" 3
up_stop
