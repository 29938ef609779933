. ./caselib
up_start statement || exit 0
in-host "$B/uptest-stripped" 3
up_stop
