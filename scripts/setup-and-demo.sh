#!/usr/bin/env bash
# setup-and-demo.sh - on a fresh Debian 12 machine: install the build
# dependencies, build tapc in this checkout, and run a script through the
# passes that exist today (parse and elaborate; the kernel-module runtime
# comes later).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

bash scripts/install-deps.sh

echo "== building tapc"
autoreconf -fi >/dev/null 2>&1 || autoreconf -fi
./configure -q
make -j"$(nproc)" -s

demo() {
	echo
	echo "\$ $*"
	"$@"
}
set +e
demo ./tapc --version
demo ./tapc -p1 -e 'probe begin { printf("hello from %s\n", execname()) }'
demo ./tapc -p2 -e 'probe syscall.read { printf("%s %d\n", execname(), fd) }'
rc=$?
echo
echo "\$ ./tapc -l 'syscall.*' | head"
./tapc -l 'syscall.*' | head
echo
if [ $rc -eq 0 ]; then
	echo "tapc is built: ./tapc (try ./tapc --help, man ./man/tapc.1)"
else
	echo "tapc is built, but pass 2 of the demo script failed (exit $rc)"
fi
exit $rc
