# upinsn runs (and waits) before the probes are placed, so that the
# kernel looks at each instruction then and refuses the int3; its path
# is left out of the output; its end is told by its output.
. ./caselib
rm -f /host/tmp/insn-go /host/tmp/insn-ready /host/tmp/insn.out
in-host sh -c "UPINSN_GO=/tmp/insn-go UPINSN_READY=/tmp/insn-ready $B/upinsn 3 >/tmp/insn.out.new; mv /tmp/insn.out.new /tmp/insn.out" &
# placed once it runs (a probe placed before it maps upinsn is refused
# silently, at the mapping, and the warning the case expects never comes)
i=0
while [ ! -f /host/tmp/insn-ready ] && [ $i -lt 200 ]; do
	i=$((i + 1))
	sleep 0.1
done
up_start insn || exit 0
in-host touch /tmp/insn-go
i=0
while [ ! -f /host/tmp/insn.out ] && [ $i -lt 200 ]; do
	i=$((i + 1))
	sleep 0.1
done
cat /host/tmp/insn.out
# (not in a pipeline: a subshell cannot wait for taprun)
up_stop >stop.out
sed "s|$B/||g" stop.out
