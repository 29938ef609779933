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

# A test's environment for tapc: X.env beside X.stp holds VAR=VALUE lines
# (blank lines and "#" comments skipped), put in tapc's environment for
# every tapc run of the test, e.g. SYSTEMTAP_DEBUGINFO_PATH=/nonexistent
# for a run-test that must use BTF only.  case_env X.stp prints them one a
# line (for mapfile; nothing when there is no X.env) and fails naming the
# line that is not VAR=VALUE.
case_env() {
	local f=${1%.stp}.env line n=0
	[ -f "$f" ] || return 0
	while IFS= read -r line || [ -n "$line" ]; do
		n=$((n + 1))
		case $line in ''|'#'*) continue ;; esac
		if ! [[ $line =~ ^[A-Za-z_][A-Za-z0-9_]*= ]]; then
			echo "$f:$n: not VAR=VALUE: $line" >&2
			return 1
		fi
		printf '%s\n' "$line"
	done <"$f"
}

need_tapc() {
	if [ ! -x "$TAPC" ]; then
		echo "  FAIL no tapc at $TAPC (build first)"
		n_fail=$((n_fail + 1))
		summary "$1"
		exit 1
	fi
}
