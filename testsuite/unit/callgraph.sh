#!/usr/bin/env bash
# callgraph.sh - the code's file-to-file call graph has no circles, and no
# general translator file names a probe family (issue 17).
#
#   callgraph.sh [--allow FILE] [--no-runtime]
#	the built tree (run from the build folder, as "make check" does):
#	circles among translator/ (libtapc.a's objects and tapc's own),
#	among taprun/'s objects and among runtime/'s files, then the
#	families check over translator/.
#   callgraph.sh --circles [--allow FILE] [--name GROUP] OBJ...
#	circles among just these objects.
#   callgraph.sh --families [--allow FILE] [--src DIR] OBJ...
#	the families check over just these objects (paths like
#	translator/NAME.o, sources at DIR/translator/NAME.c).
#   callgraph.sh --ci [--allow FILE] [--name GROUP] DIR/NAME.ci
#	circles among the runtime/ files of one -fcallgraph-info graph
#	(functions defined in DIR/runtime/... or runtime/...).
#
# The graph: an edge A -> B when object A uses (nm: U) a symbol that
# object B defines; a circle is a strongly connected component of more
# than one file.  The runtime is #included into one translation unit, so
# its graph comes from the compiler instead: tapc builds (-p4 -k) one
# module that uses every runtime part and family, with gcc's
# -fcallgraph-info (a .ci file, VCG: one node per function with the
# file:line it is defined at, one edge per call) and -fno-inline and
# -fkeep-static-functions, so every runtime function is there with its
# own calls; functions map to the runtime file they are defined in.
# Without the kernel headers for that build the runtime part is skipped.
#
# The allow file (default: testsuite/callgraph.allow beside this
# folder), one entry a line, "#" starts a comment:
#   FILE FILE...          these files count as one: their mutual calls
#                         are allowed (say why in the comment)
#   interface FILE...     files under translator/families/ that are the
#                         family interface (registry, helpers), not a
#                         family: general files may use them
#
# Exit 0 when clean, 1 naming every circle and offence, 77 (skipped)
# never: a missing part is said and the rest still runs.
set -u
export LC_ALL=C

here=$(cd "$(dirname "$0")" && pwd)
top_src=$(cd "${srcdir:-$here/../..}" && pwd)
allow=$top_src/testsuite/callgraph.allow
mode=tree name= src=. runtime=1
while [ $# -gt 0 ]; do
	case $1 in
	--allow) allow=$2; shift 2 ;;
	--circles) mode=circles; shift ;;
	--families) mode=families; shift ;;
	--ci) mode=ci; shift ;;
	--name) name=$2; shift 2 ;;
	--src) src=$2; shift 2 ;;
	--no-runtime) runtime=0; shift ;;
	-h|--help) sed -n '2,40p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	--) shift; break ;;
	-*) echo "callgraph.sh: unknown option '$1'" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ -f "$allow" ] || { echo "callgraph.sh: no allow file $allow" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0

# The allow file without comments and blank lines.
allow_lines() { sed -e 's/#.*//' -e 's/[[:space:]]\+/ /g' -e 's/^ //' -e 's/ $//' "$allow" | grep -v '^$'; }

# edges_from_objects OUT NAME=OBJ...: "A B SYM" for every symbol object
# A uses that object B defines (A != B), files named by NAME.
edges_from_objects() {
	local out=$1 pair
	shift
	: >"$tmp/nm"
	for pair in "$@"; do
		nm -P "${pair#*=}" 2>/dev/null | sed "s|^|${pair%%=*} |" >>"$tmp/nm" || return 1
	done
	awk '
		$3 ~ /^[TDBRCVWGS]$/ { def[$2] = $1; next }
		$3 ~ /^[Uwv]$/ { use[++n] = $1 " " $2 }
		END {
			for (i = 1; i <= n; i++) {
				split(use[i], u, " ")
				if ((u[2] in def) && def[u[2]] != u[1])
					print u[1], def[u[2]], u[2]
			}
		}' "$tmp/nm" | sort -u >"$out"
}

# edges_from_ci OUT CIFILE DIR: "A B FUNCTION" for every call between two
# functions defined in different files under DIR/runtime/ (the build
# folder's link to the runtime), files named runtime/...
edges_from_ci() {
	awk -v pre="$3/" '
		function field(s, key,   i, r) {
			i = index(s, key " \"")
			if (!i)
				return ""
			r = substr(s, i + length(key) + 2)
			return substr(r, 1, index(r, "\"") - 1)
		}
		/^node:/ {
			t = field($0, "title:")
			l = field($0, "label:")
			i = index(l, "\\n")
			if (!i)
				next
			fn = substr(l, 1, i - 1)
			sub(/\..*/, "", fn)
			loc = substr(l, i + 2)
			sub(/:[0-9]+:[0-9]+$/, "", loc)
			if (substr(loc, 1, length(pre)) == pre)
				loc = substr(loc, length(pre) + 1)
			if (loc !~ /^runtime\//)
				next
			file[t] = loc
			func_[t] = fn
			next
		}
		# an edge may come before the node of its target
		/^edge:/ {
			src[++ne] = field($0, "sourcename:")
			dst[ne] = field($0, "targetname:")
		}
		END {
			for (i = 1; i <= ne; i++) {
				s = src[i]; d = dst[i]
				if ((s in file) && (d in file) && file[s] != file[d])
					print file[s], file[d], func_[d]
			}
		}' "$2" | sort -u >"$1"
}

# circles GROUP EDGES: print each circle of more than one file (after
# merging the allow file's groups) with the symbols of its edges;
# false when there is one.
circles() {
	{
		allow_lines | grep -v '^interface ' | sed 's/^/G /'
		sed 's/^/E /' "$2"
	} | awk -v group="$1" '
		function find(x) {
			while ((x in parent) && parent[x] != x)
				x = parent[x]
			return x
		}
		function node(x) {
			if (!(x in parent))
				parent[x] = x
			if (!(x in known)) {
				known[x] = 1
				nodes[++nn] = x
			}
		}
		# sort a[1..n] (insertion sort: the lists are short)
		function isort(a, n,   i, j, v) {
			for (i = 2; i <= n; i++) {
				v = a[i]
				for (j = i - 1; j >= 1 && a[j] > v; j--)
					a[j + 1] = a[j]
				a[j + 1] = v
			}
		}
		function strongconnect(v,   w, k) {
			idx[v] = low[v] = ++counter
			stack[++sp] = v
			onstack[v] = 1
			for (k = 1; k <= nout[v]; k++) {
				w = out[v, k]
				if (!(w in idx)) {
					strongconnect(w)
					if (low[w] < low[v])
						low[v] = low[w]
				} else if (onstack[w] && idx[w] < low[v])
					low[v] = idx[w]
			}
			if (low[v] == idx[v]) {
				ncomp++
				do {
					w = stack[sp--]
					onstack[w] = 0
					comp[w] = ncomp
					csize[ncomp]++
				} while (w != v)
			}
		}
		$1 == "G" {
			for (i = 3; i <= NF; i++) {
				node($2); node($i)
				parent[find($i)] = find($2)
			}
			next
		}
		$1 == "E" {
			node($2); node($3); used[$2] = used[$3] = 1
			key = $2 SUBSEP $3
			if (!(key in nsym))
				edges[++ne] = key
			syms[key, ++nsym[key]] = $4
		}
		END {
			for (e = 1; e <= ne; e++) {
				split(edges[e], ab, SUBSEP)
				a = find(ab[1]); b = find(ab[2])
				if (a == b || ((a, b) in seen))
					continue
				seen[a, b] = 1
				out[a, ++nout[a]] = b
			}
			for (i = 1; i <= nn; i++) {
				r = find(nodes[i])
				if (!(r in idx))
					strongconnect(r)
			}
			# each circle: its files sorted, "FILES<tab>COMPONENT";
			# the circles sorted by their files
			nc = 0
			for (c = 1; c <= ncomp; c++) {
				if (csize[c] < 2)
					continue
				n = 0
				for (i = 1; i <= nn; i++)
					if (comp[find(nodes[i])] == c && (nodes[i] in used))
						m[++n] = nodes[i]
				isort(m, n)
				line = ""
				for (i = 1; i <= n; i++)
					line = line (i > 1 ? " " : "") m[i]
				circ[++nc] = line "\t" c
			}
			isort(circ, nc)
			for (c = 1; c <= nc; c++) {
				split(circ[c], fc, "\t")
				n = split(fc[1], m, " ")
				printf "circle in %s (%d files): %s\n", group, n, fc[1]
				k = 0
				for (e = 1; e <= ne; e++) {
					split(edges[e], ab, SUBSEP)
					a = find(ab[1]); b = find(ab[2])
					if (comp[a] == fc[2] && comp[b] == fc[2])
						lines[++k] = ab[1] " -> " ab[2] SUBSEP edges[e] SUBSEP (a == b)
				}
				isort(lines, k)
				for (i = 1; i <= k; i++) {
					split(lines[i], le, SUBSEP)
					key = le[2] SUBSEP le[3]
					cnt = nsym[key]
					for (j = 1; j <= cnt; j++)
						s[j] = syms[key, j]
					isort(s, cnt)
					txt = ""
					for (j = 1; j <= cnt && j <= 4; j++)
						txt = txt " " s[j]
					if (cnt > 4)
						txt = txt sprintf(" (+%d more)", cnt - 4)
					printf "    %s:%s%s\n", le[1], txt, le[4] ? " (allowed)" : ""
				}
			}
			exit nc > 0
		}'
}

# families SRC NAME=OBJ...: no general translator file (one not under
# translator/families/) uses a symbol a family's own file defines,
# #includes a family's own header, or compares with a family's name.
# Files under translator/families/ that the allow file lists as
# "interface" are not families.  Prints FILE:LINE: for each offence;
# false when there is one.
families() {
	local src=$1 pair f n inc c bad=0
	shift
	local iface=" $(allow_lines | sed -n 's/^interface //p' | tr '\n' ' ') "
	: >"$tmp/general"
	: >"$tmp/family"
	for pair in "$@"; do
		f=${pair%%=*}
		case $f in
		translator/families/*)
			case $iface in *" $f "*) ;; *) echo "$f" >>"$tmp/family" ;; esac ;;
		translator/*) echo "$f" >>"$tmp/general" ;;
		esac
	done
	edges_from_objects "$tmp/fam-edges" "$@" || return 1

	# 1. symbols of a family's own file
	awk 'FILENAME == ARGV[1] { fam[$1] = 1; next }
	     FILENAME == ARGV[2] { gen[$1] = 1; next }
	     ($1 in gen) && ($2 in fam)' "$tmp/family" "$tmp/general" "$tmp/fam-edges" |
	while read -r a b sym; do
		n=$(grep -n -w -- "$sym" "$src/$a" 2>/dev/null | cut -d: -f1 | head -n 3 | tr '\n' ',' | sed 's/,$//')
		echo "$a:${n:-?}: uses $sym, which the family file $b defines"
	done >"$tmp/off"

	# the general sources: the general objects' .c, and every header of
	# translator/ outside families/
	{
		cat "$tmp/general"
		(cd "$src" && find translator -name '*.h' ! -path 'translator/families/*' 2>/dev/null)
	} | sort -u >"$tmp/gensrc"
	(cd "$src" && find translator/families -name '*.h' 2>/dev/null) | while read -r f; do
		case $iface in *" $f "*) ;; *) echo "$f" ;; esac
	done >"$tmp/famhdr"

	# 2. #include of a family's own header (as the compiler finds it:
	# beside the file, else under translator/)
	while read -r f; do
		[ -f "$src/$f" ] || continue
		grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$src/$f" |
		while IFS= read -r line; do
			n=${line%%:*}
			inc=${line#*\"}
			inc=${inc%%\"*}
			for c in "$(dirname "$f")/$inc" "translator/$inc"; do
				[ -f "$src/$c" ] || continue
				c=$(realpath -m --relative-to="$src" "$src/$c")
				if grep -qxF "$c" "$tmp/famhdr"; then
					echo "$f:$n: includes $c, a family's own header"
				fi
				break
			done
		done
	done <"$tmp/gensrc" >>"$tmp/off"

	# 3. a comparison with a family's name ("kernel.function")
	while read -r f; do
		sed -n 's/^[^"]*\.name[[:space:]]*=[[:space:]]*"\([^"]*\)".*/\1/p' "$src/$f.c" "$src/${f%.c}.c" 2>/dev/null
	done <"$tmp/family" | sort -u >"$tmp/famnames"
	while read -r f; do
		[ -f "$src/$f" ] || continue
		awk -v file="$f" 'FILENAME == ARGV[1] { name["\"" $0 "\""] = 1; next }
			/str(n)?(case)?cmp|streq|==|!=/ && /name|famil|comp/ {
				for (q in name)
					if (index($0, q))
						printf "%s:%d: compares with the family name %s\n", file, FNR, q
			}' "$tmp/famnames" "$src/$f"
	done <"$tmp/gensrc" >>"$tmp/off"

	if [ -s "$tmp/off" ]; then
		echo "general translator files that name a family:"
		sort -t: -k1,1 -k2,2n -u "$tmp/off" | sed 's/^/    /'
		return 1
	fi
	return 0
}

# The objects of a make variable of the build folder's Makefile.
make_objects() {
	awk -v var="$1" '
		$1 == var && $2 == "=" { on = 1; $1 = $2 = "" }
		on { c = sub(/\\$/, ""); print; if (!c) exit }' Makefile |
		tr ' \t' '\n\n' | sed -n 's/\$(OBJEXT)$/o/p'
}

case $mode in
circles)
	[ $# -gt 0 ] || { echo "callgraph.sh: no objects" >&2; exit 2; }
	pairs=()
	for o in "$@"; do pairs+=("${o%.o}.c=$o"); done
	edges_from_objects "$tmp/edges" "${pairs[@]}" || exit 2
	circles "${name:-objects}" "$tmp/edges"
	exit
	;;
ci)
	[ $# -eq 1 ] || { echo "callgraph.sh: --ci takes one .ci file" >&2; exit 2; }
	edges_from_ci "$tmp/edges" "$1" "$(cd "$(dirname "$1")" && pwd)"
	circles "${name:-runtime}" "$tmp/edges"
	exit
	;;
families)
	[ $# -gt 0 ] || { echo "callgraph.sh: no objects" >&2; exit 2; }
	pairs=()
	for o in "$@"; do pairs+=("${o%.o}.c=$o"); done
	families "$src" "${pairs[@]}"
	exit
	;;
esac

# ---- the built tree ----
if [ ! -f Makefile ]; then
	echo "callgraph.sh: run from the build folder (no Makefile here)" >&2
	exit 2
fi
tr_pairs=() tp_pairs=() missing=
for o in $(make_objects am_libtapc_a_OBJECTS) $(make_objects am_tapc_OBJECTS); do
	[ -f "$o" ] || missing="$missing $o"
	tr_pairs+=("${o%.o}.c=$o")
done
for o in $(make_objects am_taprun_taprun_OBJECTS); do
	[ -f "$o" ] || missing="$missing $o"
	f=${o%.o}.c
	tp_pairs+=("${f/\/taprun-//}=$o")
done
if [ -n "$missing" ] || [ ${#tr_pairs[@]} -eq 0 ] || [ ${#tp_pairs[@]} -eq 0 ]; then
	echo "callgraph.sh: objects not built (make first):$missing" >&2
	exit 2
fi

edges_from_objects "$tmp/tr" "${tr_pairs[@]}" || exit 2
circles translator "$tmp/tr" || status=1
edges_from_objects "$tmp/tp" "${tp_pairs[@]}" || exit 2
circles taprun "$tmp/tp" || status=1

# The runtime: one module with every family and runtime part, built by
# tapc for the kernel whose headers the test machines have.
release=${CALLGRAPH_RELEASE:-6.1.0-56-amd64}
if [ $runtime = 0 ]; then
	echo "runtime: not checked (--no-runtime)"
elif [ ! -d "/lib/modules/$release/build" ]; then
	echo "SKIP runtime: no kernel headers for $release (/lib/modules/$release/build)"
elif [ ! -x ./tapc ]; then
	echo "callgraph.sh: ./tapc not built" >&2
	status=1
else
	mkdir "$tmp/t"
	cat >"$tmp/all.stp" <<'STP'
global n
probe begin { println(usymname(0)) }
probe end { println(symline(0)) }
probe error { n++ }
probe timer.ms(100) { exit() }
probe kprobe.function("vfs_read") { println(backtrace()) }
probe kprobe.function("vfs_read").return { n++ }
probe kernel.trace("sched:sched_switch") { n++ }
probe kernel.data("panic_timeout").write { n++ }
probe netfilter.hook("NF_INET_LOCAL_OUT").pf("NFPROTO_IPV4") { n++ }
probe perf.sw.cpu_clock { n++ }
probe procfs("status").read { $value = "x" }
probe process("/bin/true").begin { println(ubacktrace()) }
probe process("/bin/true").statement(0x2000).absolute { n++ }
STP
	# -fkeep-static-functions keeps kernel headers' inline functions too,
	# which modpost then refuses: the compile has written the .ci
	# by then, and -k keeps it.
	TMPDIR=$tmp/t ./tapc -R "$top_src/runtime" -p4 -k -r "$release" -m cgall \
		-B "KCFLAGS=-fcallgraph-info -fno-inline -fkeep-static-functions" \
		"$tmp/all.stp" >"$tmp/tapc.log" 2>&1
	ci=$(ls "$tmp"/t/tapc[!-]*/cgall.ci 2>/dev/null | head -n 1)
	if [ -z "$ci" ] || ! grep -q 'runtime/tapset_support.c' "$ci"; then
		echo "callgraph.sh: the runtime's module did not compile:"
		sed 's/^/    /' "$tmp/tapc.log" | tail -n 30
		status=1
	else
		edges_from_ci "$tmp/rt" "$ci" "$(dirname "$ci")"
		circles runtime "$tmp/rt" || status=1
	fi
fi

families "$top_src" "${tr_pairs[@]}" || status=1
[ $status = 0 ] && echo "no circles, no family named in a general file"
exit $status
