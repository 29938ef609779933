. ./caselib
up_start insn || exit 0
in-host "$B/upinsn" 3
up_stop
