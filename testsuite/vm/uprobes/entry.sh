. ./caselib
up_start entry || exit 0
in-host "$B/uptest-stripped" 3
up_stop
