. ./caselib
up_start plt || exit 0
"$B/uptest-stripped" 4
up_stop
