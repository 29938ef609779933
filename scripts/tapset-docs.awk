# tapset-docs.awk - the tapsets' doc comments, read in one pass over every
# tapset file (format: HACKING.md, "Tapset doc comments and manual pages").
#
#   awk -f scripts/tapset-docs.awk -v mode=man -v outdir=DIR [-v version=V]
#       [-v tapsetdir=INSTALLED-TAPSET-FOLDER] FILE...
#       writes one man(7) page per doc comment, DIR/function::NAME.3stap,
#       DIR/probe::NAME.3stap, DIR/macro::NAME.3stap (and probe::NAME.return
#       for an alias whose .return form has no comment of its own), then
#       DIR/pages.list, their names one a line.  A malformed comment is a
#       warning (file:line) and gets no page.
#   awk -f scripts/tapset-docs.awk -v mode=check FILE...
#       prints "FILE:LINE: KIND NAME has no doc comment" for every public
#       function, probe alias and macro without one, and every malformed
#       comment or comment naming nothing defined, then
#       "N public definitions, N documented"; exits 1 when anything is wrong.
#   awk -f scripts/tapset-docs.awk -v mode=list FILE...
#       prints "KIND NAME FILE:LINE" for every public definition, and
#       "guru" after a function with a /* guru */ embedded-C body.
#
# Public means not starting with _, dw_, nd1_, nd2_ or tp_ (stap's
# internal names) and, for functions, not declared private.  Works with
# any POSIX awk (mawk included).

function internal(name) {
	return name ~ /^(_|dw_|nd1_|nd2_|tp_)/
}

function where() {
	f = FILENAME
	sub(/^.*\/tapsets\//, "tapsets/", f)
	return f ":" FNR
}

function trim(s) {
	sub(/^[ \t]+/, "", s)
	sub(/[ \t]+$/, "", s)
	return s
}

# The architecture folder of a place ("tapsets/arm64/registers.stp:5":
# arm64), "" outside one.  Each architecture's folder defines and
# documents the same names: one page each, from the reference
# architecture's folder (refarch, x86_64 unless given); the others'
# comments are checked but make no second page.
function arch_of(loc) {
	if (!match(loc, /^tapsets\/[^\/:]+\//))
		return ""
	return substr(loc, 9, RLENGTH - 9)
}
function other_arches(a, b) {
	return arch_of(a) != "" && arch_of(b) != "" && arch_of(a) != arch_of(b)
}
function takes_over(new, old) {
	if (refarch == "")
		refarch = "x86_64"
	return other_arches(new, old) && arch_of(new) == refarch
}

# A public definition seen at where(): kind, name, the text of its synopsis.
function define(kind, name, synopsis,    key) {
	if (internal(name))
		return
	key = kind " " name
	if (!(key in def_at)) {
		def_at[key] = where()
		def_order[++ndefs] = key
	} else if (takes_over(where(), def_at[key])) {
		def_at[key] = where()
	}
	if (synopsis != "" && index(SUBSEP syn[key] SUBSEP, SUBSEP synopsis SUBSEP) == 0)
		syn[key] = (syn[key] == "" ? synopsis : syn[key] SUBSEP synopsis)
}

# The end of a doc comment: check its first line, keep it under its name.
function close_comment(    first, kind, name, key, n, i, line, m) {
	in_comment = 0
	first = trim(cbody[1])
	if (!match(first, /^(function|probe|macro)[ \t]+@?[A-Za-z_][A-Za-z0-9_.]*[ \t]+-[ \t]+[^ \t]/)) {
		bad[++nbad] = cstart ": a doc comment must start \"function|probe|macro NAME - SUMMARY\": " first
		return
	}
	kind = first
	sub(/[ \t].*/, "", kind)
	name = substr(first, length(kind) + 1)
	name = trim(name)
	sub(/[ \t].*/, "", name)
	sub(/^@/, "", name)
	# an internal name may be documented for its readers; it gets no page
	if (internal(name))
		return
	key = kind " " name
	if (key in doc_at && !takes_over(cstart, doc_at[key])) {
		if (!other_arches(cstart, doc_at[key]))
			bad[++nbad] = cstart ": a second doc comment for " kind " " name " (the first: " doc_at[key] ")"
		return
	}
	# the page's place in the lists is where the reference's comment is
	if (key in doc_at)
		for (i = 1; i <= ndocs; i++)
			if (doc_order[i] == key)
				doc_order[i] = ""
	doc_order[++ndocs] = key
	doc_at[key] = cstart
	m = first
	sub(/^[^-]*-[ \t]+/, "", m)
	summary[key] = m
	# @NAME: TEXT lines (a line indented more continues the one above),
	# then the description
	nparams[key] = 0
	desc[key] = ""
	n = ncbody
	for (i = 2; i <= n; i++) {
		line = cbody[i]
		if (desc[key] == "" && match(line, /^@[A-Za-z_][A-Za-z0-9_]*:/)) {
			nparams[key]++
			pname[key, nparams[key]] = substr(line, 2, RLENGTH - 2)
			ptext[key, nparams[key]] = trim(substr(line, RLENGTH + 1))
		} else if (desc[key] == "" && nparams[key] > 0 && line ~ /^[ \t]+[^ \t]/) {
			ptext[key, nparams[key]] = ptext[key, nparams[key]] " " trim(line)
		} else if (desc[key] == "" && trim(line) == "") {
			continue
		} else {
			desc[key] = desc[key] line "\n"
		}
	}
}

# man(7) text: a backslash doubled, a line-leading . or ' escaped.
function roff(s) {
	gsub(/\\/, "\\e", s)
	gsub(/-/, "\\-", s)
	return s
}
function roff_line(s) {
	s = roff(s)
	if (s ~ /^[.']/)
		s = "\\&" s
	return s
}

function page(key, pagename, shown,    kind, name, file, n, i, s, lines, section, para, title) {
	kind = key
	sub(/ .*/, "", kind)
	name = key
	sub(/^[^ ]* /, "", name)
	file = outdir "/" kind "::" pagename ".3stap"
	title = toupper(kind "::" pagename)
	print ".TH \"" roff(title) "\" 3stap \"\" \"tapc " version "\" \"\"" > file
	print ".SH NAME" > file
	print roff(kind "::" pagename) " \\- " roff(summary[key]) > file
	print ".SH SYNOPSIS" > file
	print ".nf" > file
	if (kind == "probe") {
		print roff_line(shown) > file
	} else if (syn[key] != "") {
		n = split(syn[key], lines, SUBSEP)
		for (i = 1; i <= n; i++)
			print roff_line(lines[i]) > file
	} else {
		print roff_line((kind == "macro" ? "@" : "") name) > file
	}
	print ".fi" > file
	section = (kind == "probe" ? "VALUES" : "ARGUMENTS")
	print ".SH " section > file
	if (nparams[key] == 0)
		print "None." > file
	for (i = 1; i <= nparams[key]; i++) {
		print ".TP" > file
		print ".I " roff(pname[key, i]) > file
		print roff_line(ptext[key, i]) > file
	}
	if (desc[key] != "") {
		print ".SH DESCRIPTION" > file
		n = split(desc[key], lines, "\n")
		para = 0
		for (i = 1; i <= n; i++) {
			s = trim(lines[i])
			if (s == "") {
				para = 1
				continue
			}
			if (para)
				print ".PP" > file
			para = 0
			print roff_line(s) > file
		}
	}
	if (pagename != name) {
		print ".PP" > file
		print "The same as " roff(kind "::" name) "(3stap), at the return of the probed call." > file
	}
	print ".SH FILES" > file
	s = def_at[kind " " pagename]
	if (s == "")
		s = def_at[key]
	sub(/:[0-9]*$/, "", s)
	if (tapsetdir != "") {
		sub(/^tapsets\//, "", s)
		s = tapsetdir "/" s
	}
	print roff_line(s) > file
	print ".SH SEE ALSO" > file
	print ".BR tapc (1)" > file
	close(file)
	print kind "::" pagename ".3stap" > list
}

BEGIN {
	if (mode == "")
		mode = "check"
	if (version == "")
		version = ""
}

FNR == 1 {
	if (in_comment)
		bad[++nbad] = cstart ": doc comment never closed"
	in_comment = 0
	in_embedded = 0
}

# %{ ... %} embedded C: nothing in it defines a tapset name
in_embedded {
	if ($0 ~ /%}/)
		in_embedded = 0
	next
}

in_comment {
	line = $0
	if (line ~ /\*\//) {
		sub(/[ \t]*\*\/.*/, "", line)
		sub(/^[ \t]*\*[ ]?/, "", line)
		if (trim(line) != "")
			cbody[++ncbody] = line
		close_comment()
		next
	}
	if (line !~ /^[ \t]*\*/) {
		bad[++nbad] = where() ": a doc comment line must start with \" *\""
	}
	sub(/^[ \t]*\*[ ]?/, "", line)
	cbody[++ncbody] = line
	next
}

/^[ \t]*\/\*\*([ \t]|$)/ {
	in_comment = 1
	cstart = where()
	ncbody = 0
	line = $0
	sub(/^[ \t]*\/\*\*[ \t]*/, "", line)
	if (line ~ /\*\//) {
		sub(/[ \t]*\*\/.*/, "", line)
		cbody[++ncbody] = line
		close_comment()
		next
	}
	if (trim(line) != "")
		cbody[++ncbody] = line
	next
}

/^[ \t]*%\{/ {
	if ($0 !~ /%}/)
		in_embedded = 1
	next
}

/^[ \t]*function[ \t]/ {
	s = $0
	sub(/^[ \t]*/, "", s)
	name = substr(s, 9)
	name = trim(name)
	sub(/[^A-Za-z0-9_].*/, "", name)
	# the synopsis: up to the closing parenthesis of the parameters
	sig = s
	sub(/[ \t]*(%\{|\{).*$/, "", sig)
	if (index(sig, ")") == 0) {
		while ((getline more) > 0) {
			sig = sig " " trim(more)
			if (index(more, ")"))
				break
		}
		sub(/[ \t]*(%\{|\{).*$/, "", sig)
		if (more ~ /%\{/ && more !~ /%}/)
			in_embedded = 1
	} else if (s ~ /%\{/ && s !~ /%}/) {
		in_embedded = 1
	}
	sub(/\).*/, ")", sig)
	gsub(/[ \t]+/, " ", sig)
	define("function", name, sig)
	if (s ~ /\/\* *guru *\*\//)
		guru["function " name] = 1
	next
}

/^[ \t]*probe[ \t]/ {
	s = $0
	sub(/^[ \t]*probe[ \t]+/, "", s)
	# an alias: NAME [, NAME...] = or +=
	# (mawk mishandles a starred group here: the text before the = instead)
	if (index(s, "=") == 0)
		next
	s = substr(s, 1, index(s, "=") - 1)
	sub(/[ \t]*[+]?$/, "", s)
	if (s !~ /^[A-Za-z_][A-Za-z0-9_.]*$/ && s !~ /^[A-Za-z_][A-Za-z0-9_., \t]*[A-Za-z0-9_]$/)
		next
	n = split(s, names, /[ \t]*,[ \t]*/)
	for (i = 1; i <= n; i++)
		define("probe", names[i], "")
	next
}

/^[ \t]*@define[ \t]/ {
	s = $0
	sub(/^[ \t]*@define[ \t]+/, "", s)
	name = s
	sub(/[^A-Za-z0-9_].*/, "", name)
	sig = s
	if (match(sig, /^[A-Za-z0-9_]+[ \t]*\([^)]*\)/))
		sig = substr(sig, 1, RLENGTH)
	else
		sig = name
	gsub(/[ \t]+/, " ", sig)
	define("macro", name, "@" sig)
	next
}

END {
	if (in_comment)
		bad[++nbad] = cstart ": doc comment never closed"
	if (mode == "list") {
		for (i = 1; i <= ndefs; i++)
			print def_order[i], def_at[def_order[i]] (def_order[i] in guru ? " guru" : "")
		exit 0
	}
	if (mode == "man") {
		for (i = 1; i <= nbad; i++)
			print "tapset-docs: warning: " bad[i] > "/dev/stderr"
		list = outdir "/pages.list.tmp"
		printf "" > list
		for (i = 1; i <= ndocs; i++) {
			if ((key = doc_order[i]) == "")
				continue
			name = key
			sub(/^[^ ]* /, "", name)
			page(key, name, name)
			# an alias's .return form shares its comment unless it has one
			if (key ~ /^probe / && ("probe " name ".return") in def_at &&
			    !(("probe " name ".return") in doc_at))
				page(key, name ".return", name ".return")
		}
		close(list)
		if (system("mv '" outdir "/pages.list.tmp' '" outdir "/pages.list'") != 0)
			exit 1
		exit 0
	}
	# check
	wrong = 0
	documented = 0
	for (i = 1; i <= ndefs; i++) {
		key = def_order[i]
		if (key in doc_at) {
			documented++
			continue
		}
		if (key ~ /^probe .*\.return$/) {
			base = key
			sub(/\.return$/, "", base)
			if (base in doc_at) {
				documented++
				continue
			}
		}
		print def_at[key] ": " key " has no doc comment"
		wrong++
	}
	for (i = 1; i <= nbad; i++) {
		print bad[i]
		wrong++
	}
	for (i = 1; i <= ndocs; i++) {
		if ((key = doc_order[i]) == "")
			continue
		if (!(key in def_at)) {
			print doc_at[key] ": the doc comment names " key ", which no tapset defines"
			wrong++
		}
	}
	print ndefs " public definitions, " documented " documented"
	exit wrong > 0
}
