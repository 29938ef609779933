. ./caselib
up_start plt || exit 0
in-host "$B/uptest-stripped" 4
up_stop
