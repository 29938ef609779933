# lib.sh - shared by the testsuite scripts: where things are, and counting.
#
# A group script sources this, calls pass/fail/skip once per case, and ends
# with `summary GROUP`, which prints "GROUP: N passed, N failed, N skipped"
# as its last line (run-all reads that line) and sets the exit status.

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TAPC=${TAPC:-$top/tapc}
case $TAPC in
*/*) [ "${TAPC#/}" != "$TAPC" ] || TAPC=$(pwd)/$TAPC ;;  # tests cd elsewhere
*) TAPC=$(command -v "$TAPC" || echo "$TAPC") ;;
esac
out=$top/testsuite/out
mkdir -p "$out"

# The shared conformance cases live beside the checkout (CI clones the
# repository with shared/ next to it): $CONFORMANCE_DIR when set, else
# ../shared/conformance.  conformance_where names the place looked at, for
# the error when the cases are missing.
conformance_where() {
	echo "${CONFORMANCE_DIR:-$(dirname "$top")/shared/conformance}"
}
find_conformance() {
	local d
	d=$(conformance_where)
	if [ -x "$d/run" ]; then
		echo "$d"
		return 0
	fi
	return 1
}

n_pass=0
n_fail=0
n_skip=0

pass() { n_pass=$((n_pass + 1)); [ -z "${VERBOSE:-}" ] || echo "  PASS $*"; }
fail() { n_fail=$((n_fail + 1)); echo "  FAIL $*"; }
skip() { n_skip=$((n_skip + 1)); [ -z "${VERBOSE:-}" ] || echo "  SKIP $*"; }

summary() {
	echo "$1: $n_pass passed, $n_fail failed, $n_skip skipped"
	[ "$n_fail" -eq 0 ]
}

need_tapc() {
	if [ ! -x "$TAPC" ]; then
		echo "  FAIL no tapc at $TAPC (build first)"
		n_fail=$((n_fail + 1))
		summary "$1"
		exit 1
	fi
}
