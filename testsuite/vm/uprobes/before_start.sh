# The module is loaded first, then uptest-stripped runs twice.
. ./caselib
up_start before_start || exit 0
in-host "$B/uptest-stripped" 4
in-host "$B/uptest-stripped" 2
up_stop
