# The module is loaded first, then uptest-stripped runs twice.
. ./caselib
up_start before_start || exit 0
"$B/uptest-stripped" 4
"$B/uptest-stripped" 2
up_stop
