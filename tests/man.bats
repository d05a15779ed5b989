#!/usr/bin/env bats
# The manual pages: groff lints them clean, every command of their
# EXAMPLES sections runs and exits 0, and every tool's SYNOPSIS is its
# usage message.  Each test covers all pages and names every failure.

load helpers

# The pages under test, one a line.
pages() {
	ls "$TOP"/man/man1/*.1 "$TOP"/man/man5/*.5 "$TOP"/man/man7/*.7 \
	    2>/dev/null
}

# examples PAGE: the .Dl lines of the EXAMPLES section as shell commands,
# one a line, with the mdoc escapes an example may use undone.
examples() {
	sed -n '/^\.Sh EXAMPLES/,/^\.Sh /p' "$1" | sed -n 's/^\.Dl //p' |
	    sed -e 's/\\(ba/|/g' -e 's/\\(dq/"/g' -e "s/\\\\(aq/'/g" \
	    -e 's/\\-/-/g' -e 's/\\&//g' -e 's/\\e/\\/g'
}

# groff_lint PAGE: groff's warnings on PAGE, one a line; none when clean.
# It catches a text line that begins with a period or an apostrophe and
# so is taken for an unknown request, and lost.
groff_lint() {
	groff -mdoc -ww -z "$1" 2>&1 >/dev/null
}

# dd_lint PAGE: a line when its .Dd is not "Month D, YYYY", an English
# month, a day without a leading zero, a date that exists.
dd_lint() {
	local d

	d=$(sed -n 's/^\.Dd //p' "$1")
	if ! printf '%s\n' "$d" | grep -Eqx '(January|February|March|April|May|June|July|August|September|October|November|December) ([1-9]|[12][0-9]|3[01]), [0-9]{4}' ||
	    [ "$(LC_ALL=C date -d "$d" '+%B %-d, %Y' 2>/dev/null)" != "$d" ]; then
		echo "${1##*/}: .Dd \"$d\" is not a date as Month D, YYYY"
	fi
}

# render PAGE: the page as a reader sees it, as plain UTF-8 text with no
# overstriking, with \(dq (what .Qq and \(dq print) drawn as U+2033
# (″): a straight " left in the text then comes from a raw " of the
# source, never from a quoting macro.
render() {
	printf '.char \\[dq] \\[u2033]\n' |
	    groff -mdoc -Tutf8 -P-cbou - "$1" 2>/dev/null
}

# render_lint PAGE: the remnants of broken macros and escapes in the
# rendered PAGE, a line each as "PAGE: line N: what: text"; none when
# clean.  Rules, each one that only a broken page breaks:
#   quote    a straight " in the text: a raw " in the source, where
#            .Dq, .Qq or \(dq was meant (see render);
#   nested   curly quotes (.Dq, .Do/.Dc) that do not alternate open,
#            close over the page: .Dq inside .Dq, as in ".Pq Dq a , Dq
#            b", whose first .Dq takes the rest of the line; or one left
#            open at the end;
#   nestedq  .Qq/\(dq quotes (″) that close twice in a row (a″″) or
#            are odd in number over the page: ".Pq Qq a , Qq b";
#   escape   a backslash escape left visible, \(xx, \[, \f, \e, \&, \*:
#            an escape escaped (\e(dq), or written in a .Dl that
#            undid it;
#   request  a period and a macro name (.Li, .Xr, .%T) starting a
#            word, or an apostrophe and one starting a line: a macro
#            line escaped with \& or run into text;
#   macro    an mdoc macro name standing alone as a word: a text line
#            that holds macros (8/ Ns Ar ep).  Names that are English
#            words or names here (An At Do Em Ex In It Li Ms No Op Re So
#            St) count only mid-sentence, after a lowercase word or a
#            comma and before one.
render_lint() {
	render "$1" | LC_ALL=C sed -e 's/\xe2\x80\x9c/\x01/g' \
	    -e 's/\xe2\x80\x9d/\x02/g' -e 's/\xe2\x80\xb3/\x03/g' |
	    LC_ALL=C awk -v page="${1##*/}" '
	function bad(what,	t) {
		t = $0
		gsub(/\001/, "“", t); gsub(/\002/, "”", t)
		gsub(/\003/, "″", t)
		printf "%s: line %d: %s: %s\n", page, NR, what, t
	}
	BEGIN {
		m = "Ad|Ap|Aq|Ar|Bc|Bd|Bf|Bk|Bl|Bo|Bq|Brc|Bro|Brq|Bsx|Bx|" \
		    "Cd|Cm|Db|Dc|Dd|Dl|Dq|Dt|Dv|Dx|Ec|Ed|Ef|Ek|El|Eo|Er|Es|" \
		    "Ev|Fa|Fc|Fd|Fl|Fn|Fo|Fr|Ft|Fx|Hf|Ic|Lb|Lk|Lp|Mt|Nd|Nm|" \
		    "Ns|Nx|Oc|Oo|Os|Ot|Ox|Pa|Pc|Pf|Po|Pp|Pq|Qc|Ql|Qo|Qq|Rs|" \
		    "Rv|Sc|Sh|Sm|Sq|Ss|Sx|Sy|Ta|Tn|Ux|Va|Vt|Xc|Xo|Xr"
		# a word ends at a byte that is no letter, digit, _ or
		# part of a UTF-8 character (a hyphen, ‐, that breaks it)
		w = "[^[:alnum:]_\200-\377]"
		strict = "(^|" w ")(" m ")(" w "|$)"
		mid = "[a-z0-9,;] (An|At|Do|Em|Ex|In|It|Li|Ms|No|Op|Re|So|" \
		    "St) [a-z]"
		req = "(^|[[:space:](])\\.(%[A-Z]|[A-Z][a-z][a-z]?)([[:space:]]|$)"
		apos = "^[[:space:]]*'\''(%[A-Z]|[A-Z][a-z][a-z]?)([[:space:]]|$)"
		esc = "\\\\(\\(..|\\[|f|e|&|\\*)"
	}
	{
		if (index($0, "\""))
			bad("quote: a raw \" where .Dq, .Qq or \\(dq was meant")
		nest = ""
		for (i = 1; i <= length($0); i++) {
			c = substr($0, i, 1)
			if (c == "\001") {
				if (open)
					nest = "a quote opened inside a quote"
				open = 1
			} else if (c == "\002") {
				if (!open)
					nest = "a quote closed that was not open"
				open = 0
			} else if (c == "\003")
				nq++
		}
		if (nest != "")
			bad("nested: " nest)
		if ($0 ~ /[[:alnum:]]\003\003/)
			bad("nestedq: a quote closed twice")
		if ($0 ~ esc)
			bad("escape: an escape left visible")
		if ($0 ~ req || $0 ~ apos)
			bad("request: a macro name after a period or apostrophe")
		if ($0 ~ strict || $0 ~ mid)
			bad("macro: an mdoc macro name in the text")
	}
	END {
		if (open)
			printf "%s: a quote left open at the end\n", page
		if (nq % 2)
			printf "%s: an odd number (%d) of ″ quotes\n", page, nq
	}'
}

# run_example DIR CMD: run CMD with bash -o pipefail in DIR.  Standard
# output is a terminal when script(1) is there, so that an example that
# would write a binary stream to a terminal fails as it would for a
# reader who types it.
run_example() {
	local q

	q=$(printf '%q' "$2")
	if command -v script >/dev/null; then
		(cd "$1" && script -qec "bash -o pipefail -c $q" /dev/null \
		    </dev/null 2>&1)
	else
		(cd "$1" && bash -o pipefail -c "$2" </dev/null 2>&1)
	fi
}

# usage_of TOOL: its usage message on one line, without "usage: ".
usage_of() {
	local out rc=0

	out=$("$1" --no-such-option 2>&1 >/dev/null) || rc=$?
	[ "$rc" -eq 2 ] || { echo "exit $rc"; return; }
	printf '%s\n' "$out" | sed -n '/^usage: /,$p' | sed 's/^usage: //' |
	    tr -s ' \n' '  ' | sed 's/^ //; s/ $//'
}

# synopsis_of PAGE: its SYNOPSIS as rendered, on one line.
synopsis_of() {
	groff -mdoc -Tascii -P-c -P-b -P-u -rLL=1000n "$1" 2>/dev/null |
	    sed -n '/^SYNOPSIS/,/^DESCRIPTION/p' | sed '1d;$d' |
	    tr -s ' \n' '  ' | sed 's/^ //; s/ $//'
}

@test "man: there are pages for every tool, the stream format and the suite" {
	local f

	for f in man1/tracegen.1 man1/dagbuild.1 man1/fluxsolve.1 \
	    man1/rotorsched.1 man1/ocssim.1 man1/report.1 man5/fluxocs.5 \
	    man7/fluxocs.7; do
		[ -f "$TOP/man/$f" ] || fail "man/$f is missing"
	done
}

@test "man: groff -mdoc -ww lints every page with no warning" {
	local p err rc bad=

	for p in $(pages); do
		rc=0
		err=$(groff_lint "$p") || rc=$?
		[ "$rc" -eq 0 ] || bad+="${p#"$TOP"/}: groff exited $rc"$'\n'
		[ -z "$err" ] || bad+="${p#"$TOP"/}: $err"$'\n'
	done
	[ -z "$bad" ] || fail "$bad"
}

@test "man: every page is dated as Month D, YYYY" {
	local p bad=

	for p in $(pages); do
		bad+=$(dd_lint "$p")
	done
	[ -z "$bad" ] || fail "$bad"
}

@test "man: every page renders with no macro, escape or raw quote left" {
	local p bad=

	for p in $(pages); do
		bad+=$(render_lint "$p")
	done
	[ -z "$bad" ] || fail "$bad"
}

# page NAME: standard input as the DESCRIPTION of a page $T/NAME.1,
# dated $DATE (by default a good date).
page() {
	{
		printf '.Dd %s\n.Dt %s 1\n.Os\n.Sh NAME\n.Nm %s\n' \
		    "${DATE:-December 2, 2026}" "$1" "$1"
		printf '.Nd a page for the lints\n.Sh DESCRIPTION\n'
		cat
	} > "$T/$1.1"
}

# caught LINT NAME: when LINT finds no fault in $T/NAME.1, a line that
# says so added to the caller's $bad.
caught() {
	[ -n "$("$1" "$T/$2.1")" ] || bad+="$2.1: $1 let it pass"$'\n'
}

@test "man: the lints catch each broken construct the pages have had" {
	local d out bad=

	# A clean page of every construct the broken ones misuse.
	page clean <<-'EOF'
	Text with
	.Dq quotes ,
	.Qq code
	and \(dqquotes\(dq, a
	.Li literal ,
	an
	.Ar arg
	and
	.Xr report 1 .
	Several
	.Po
	.Dq a ,
	.Dq b
	.Pc ,
	.No 8/ Ns Ar ep ,
	.Pf ( Ar N Ns \-1 ) Ns ! No placements,
	an empty \(dq\(dq, Conglong Li, and more.
	No more.
	.Dl report -d x | jq -c 'select(.type == \(dqsolve\(dq) | .gap'
	EOF
	out=$(groff_lint "$T/clean.1"; render_lint "$T/clean.1"
	    dd_lint "$T/clean.1")
	[ -z "$out" ] || bad+="clean.1 fails: $out"$'\n'

	# Each .Dq, .Qq takes the rest of its line: a second one nests.
	page nesteddq <<-'EOF'
	.Pq Dq rotor/direct , Dq rotor/vlb , Dq bvn/direct
	EOF
	caught render_lint nesteddq
	page nestedqq <<-'EOF'
	.Pq Qq whole dag , Qq tail 32 , Qq exact ,
	EOF
	caught render_lint nestedqq
	page openlq <<-'EOF'
	A quote \(lqopened and never closed.
	EOF
	caught render_lint openlq
	# An open .Do swallows the rest of the page: groff warns.
	page opendo <<-'EOF'
	.Do open
	and never closed.
	EOF
	caught groff_lint opendo
	# Macros on a text line are words.
	page textmacro <<-'EOF'
	Each rank's experts,
	8/ Ns Ar ep
	\(mu 176160768 parameters.
	EOF
	caught render_lint textmacro
	page escdot <<-'EOF'
	A macro
	\&.Li escaped
	shows.
	EOF
	caught render_lint escdot
	page escdq <<-'EOF'
	An escape \e(dq escaped shows.
	EOF
	caught render_lint escdq
	page escfont <<-'EOF'
	A font \efBescaped\efR shows.
	EOF
	caught render_lint escfont
	page rawquote <<-'EOF'
	The key "deps" in raw quotes.
	EOF
	caught render_lint rawquote
	# A text line that begins with an apostrophe or a period is taken
	# for a request and lost: groff warns of an unknown macro.
	page apostrophe <<-'EOF'
	A line
	'tis lost.
	EOF
	caught groff_lint apostrophe
	page period <<-'EOF'
	A line
	.5 ms lost.
	EOF
	caught groff_lint period
	for d in '2 December 2026' 'December 02, 2026' 'Dec 2, 2026' \
	    'February 30, 2026' 'December 2 2026' '$Mdocdate$'; do
		DATE=$d page baddate </dev/null
		[ -n "$(dd_lint "$T/baddate.1")" ] ||
		    bad+="dd_lint let .Dd $d pass"$'\n'
	done
	[ -z "$bad" ] || fail "$bad"
}

@test "man: every command in EXAMPLES runs and exits 0" {
	local p dir cmd out rc n bad=

	for p in $(pages); do
		# Examples of one page run in order in one directory: later
		# ones may use the files that earlier ones made.
		dir=$T/$(basename "$p")
		mkdir "$dir" && ln -s "$TOP/traces" "$dir/traces" ||
		    fail "cannot set up $dir"
		n=0
		while IFS= read -r cmd; do
			n=$((n + 1))
			rc=0
			# a time limit of the page's is cut to 1 s: it ends
			# the same way, whatever the seconds
			cmd=$(printf '%s\n' "$cmd" | sed -E 's/ -T [0-9]+( |$)/ -T 1\1/g')
			out=$(run_example "$dir" "$cmd") || rc=$?
			[ "$rc" -eq 0 ] || bad+="${p#"$TOP"/}: \`$cmd\` exited $rc: $(printf '%s' "$out" | tail -n 3)"$'\n'
		done < <(examples "$p")
		[ "$n" -gt 0 ] || bad+="${p#"$TOP"/}: no .Dl line in EXAMPLES"$'\n'
	done
	[ -z "$bad" ] || fail "$bad"
}

@test "man: every tool's SYNOPSIS is its usage message" {
	local p tool u s bad=

	for p in "$TOP"/man/man1/*.1; do
		tool=$(basename "$p" .1)
		if ! command -v "$tool" >/dev/null; then
			bad+="${p#"$TOP"/}: no tool $tool to compare with"$'\n'
			continue
		fi
		u=$(usage_of "$tool")
		s=$(synopsis_of "$p")
		[ "$u" = "$s" ] ||
		    bad+="${p#"$TOP"/}: SYNOPSIS \"$s\" but usage \"$u\""$'\n'
	done
	[ -z "$bad" ] || fail "$bad"
}

@test "man: every option letter of a tool's usage is in its option list" {
	local p tool u letters c bad=

	for p in "$TOP"/man/man1/*.1; do
		tool=$(basename "$p" .1)
		command -v "$tool" >/dev/null || continue
		u=$(usage_of "$tool")
		# "[-EO]" gives E and O, "[-b micro-batch]" gives b.
		letters=$(printf '%s\n' "$u" | grep -o '\[-[A-Za-z]*' |
		    sed 's/^\[-//' | fold -w1)
		[ -n "$letters" ] || bad+="$tool: no option in \"$u\""$'\n'
		for c in $letters; do
			grep -Eq "^\.It Fl $c( |\$)" "$p" ||
			    bad+="${p#"$TOP"/}: option -$c is not in the list"$'\n'
		done
	done
	[ -z "$bad" ] || fail "$bad"
}
