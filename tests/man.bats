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
		err=$(groff -mdoc -ww -z "$p" 2>&1 >/dev/null) || rc=$?
		[ "$rc" -eq 0 ] || bad+="${p#"$TOP"/}: groff exited $rc"$'\n'
		[ -z "$err" ] || bad+="${p#"$TOP"/}: $err"$'\n'
	done
	[ -z "$bad" ] || fail "$bad"
}

@test "man: every page is dated as Month D, YYYY" {
	local p bad=

	for p in $(pages); do
		grep -Eq '^\.Dd [A-Z][a-z]+ [0-9]{1,2}, [0-9]{4}$' "$p" ||
		    bad+="${p#"$TOP"/}: $(grep '^\.Dd' "$p" || echo 'no .Dd')"$'\n'
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
