#!/usr/bin/env bash
# callgraph-selftest.sh - callgraph.sh fails when it should: tiny C files
# that gcc builds here into objects, with and without a circle, with an
# allowed pair, and a general file that names a family.  Exit 0 when
# every case passes, 1 otherwise ("make check" runs it).
set -u
export LC_ALL=C
here=$(cd "$(dirname "$0")" && pwd)
check=$here/callgraph.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
checks=0

# expect NAME WANT_STATUS WANT_OUTPUT ARGS...: run callgraph.sh in $tmp.
expect() {
	local name=$1 want=$2 want_out=$3 rc
	shift 3
	checks=$((checks + 1))
	(cd "$tmp" && bash "$check" "$@" >out 2>&1)
	rc=$?
	if [ $rc -ne "$want" ] || [ "$(cat "$tmp/out")" != "$want_out" ]; then
		failures=$((failures + 1))
		echo "FAIL: $name: exit $rc (want $want)"
		echo "--- got:"
		cat "$tmp/out"
		echo "--- want:"
		printf '%s\n' "$want_out"
	fi
}

# obj FILE.c TEXT: write FILE.c and compile it to FILE.o.
obj() {
	mkdir -p "$tmp/$(dirname "$1")"
	printf '%s\n' "$2" >"$tmp/$1"
	gcc -c -O0 -I "$tmp/translator" -o "$tmp/${1%.c}.o" "$tmp/$1" || exit 1
}

: >"$tmp/empty.allow"
printf 'a.c b.c  # a test pair\n' >"$tmp/pair.allow"

# a -> b -> c -> a: one circle, each edge with its symbol
obj a.c 'int b_f(void); int a_h(void) { return 1; } int a_main(void) { return b_f(); }'
obj b.c 'int c_g(void); int b_f(void) { return c_g(); }'
obj c.c 'int a_h(void); int c_g(void) { return a_h(); }'
expect "three-file circle" 1 "circle in objects (3 files): a.c b.c c.c
    a.c -> b.c: b_f
    b.c -> c.c: c_g
    c.c -> a.c: a_h" --circles --allow empty.allow a.o b.o c.o

# a -> b -> c and a -> c: no circle
obj c.c 'int c_g(void) { return 2; } int c_x;'
obj a.c 'int b_f(void); extern int c_x; int a_main(void) { return b_f() + c_x; }'
expect "no circle" 0 "" --circles --allow empty.allow a.o b.o c.o

# a <-> b is allowed; a circle through them and c is not
obj a.c 'int b_f(void); int a_h(void) { return 1; } int a_main(void) { return b_f(); }'
obj b.c 'int a_h(void); int b_f(void) { return a_h(); }'
expect "allowed pair" 0 "" --circles --allow pair.allow a.o b.o c.o
expect "pair not allowed" 1 "circle in core (2 files): a.c b.c
    a.c -> b.c: b_f
    b.c -> a.c: a_h" --circles --name core --allow empty.allow a.o b.o c.o
obj c.c 'int a_main(void); int c_g(void) { return a_main(); }'
obj b.c 'int a_h(void); int c_g(void); int b_f(void) { return a_h() + c_g(); }'
expect "circle through an allowed pair" 1 "circle in objects (3 files): a.c b.c c.c
    a.c -> b.c: b_f (allowed)
    b.c -> a.c: a_h (allowed)
    b.c -> c.c: c_g
    c.c -> a.c: a_main" --circles --allow pair.allow a.o b.o c.o

# the runtime: one translation unit #including its files, the graph from
# gcc -fcallgraph-info; x.c and y.c call each other through static
# functions, z.c only calls down
mkdir -p "$tmp/runtime"
printf 'static int y_up(int);\nstatic int z_low(int);\nstatic int x_fn(int n) { return n ? y_up(n - 1) + z_low(n) : 0; }\n' >"$tmp/runtime/x.c"
printf 'static int y_up(int n) { return x_fn(n); }\n' >"$tmp/runtime/y.c"
printf 'static int z_low(int n) { return n * 2; }\n' >"$tmp/runtime/z.c"
printf '#include "runtime/x.c"\n#include "runtime/y.c"\n#include "runtime/z.c"\nint rt_entry(int n) { return x_fn(n); }\n' >"$tmp/rt.c"
(cd "$tmp" && gcc -c -O2 -fcallgraph-info -fno-inline -o rt.o rt.c) || exit 1
expect "runtime circle" 1 "circle in runtime (2 files): runtime/x.c runtime/y.c
    runtime/x.c -> runtime/y.c: y_up
    runtime/y.c -> runtime/x.c: x_fn" --ci --allow empty.allow rt.ci

# families: registry.c and family.h are the interface, fam.c/fam.h a
# family; gen.c is general
printf 'interface translator/families/registry.c translator/families/family.h\n' >"$tmp/fam.allow"
mkdir -p "$tmp/translator/families"
printf 'struct fam { const char *name; };\nint registry_lookup(const char *);\n' >"$tmp/translator/families/family.h"
printf 'int fam_helper(void);\n' >"$tmp/translator/families/fam.h"
obj translator/families/registry.c '#include "family.h"
int registry_lookup(const char *s) { return !!s; }'
obj translator/families/fam.c '#include "family.h"
const struct fam family_fam = {
	.name = "fam.point",
};
int fam_helper(void) { return registry_lookup("x"); }'
obj translator/gen.c '#include <string.h>
#include "families/family.h"
int gen(const char *s) { return registry_lookup(s); }'
expect "general file through the interface" 0 "" --families --allow fam.allow \
	translator/gen.o translator/families/registry.o translator/families/fam.o
obj translator/gen.c '#include <string.h>
#include "families/family.h"
#include "families/fam.h"
extern const struct fam family_fam;
int gen(const struct fam *f)
{
	if (f == &family_fam)
		return fam_helper();
	return !strcmp(f->name, "fam.point");
}'
expect "general file names a family" 1 "general translator files that name a family:
    translator/gen.c:3: includes translator/families/fam.h, a family's own header
    translator/gen.c:4,7: uses family_fam, which the family file translator/families/fam.c defines
    translator/gen.c:8: uses fam_helper, which the family file translator/families/fam.c defines
    translator/gen.c:9: compares with the family name \"fam.point\"" \
	--families --allow fam.allow \
	translator/gen.o translator/families/registry.o translator/families/fam.o

echo "callgraph-selftest: $((checks - failures)) passed, $failures failed"
[ $failures -eq 0 ]
