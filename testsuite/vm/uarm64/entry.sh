. ./caselib
up_start entry || exit 0
"$B/uptest-stripped" 3
up_stop
