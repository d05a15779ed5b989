#!/usr/bin/env bats
# Regressions of option parsing shared by every tool (issue 12).

load helpers

@test "getopt: regression: getopt's messages named the binary's path, not the tool" {
	for t in tracegen dagbuild fluxsolve rotorsched ocssim report; do
		for bin in "$BIN/$t" "$FLUXOCS_RELBIN/$t"; do
			run "$bin" -z < /dev/null
			assert_failure 2
			assert_line --index 0 "$t: invalid option -- 'z'"
			assert_line --index 1 --partial "usage: $t"
			run "$bin" --no-such-option < /dev/null
			assert_failure 2
			assert_line --index 0 "$t: unrecognized option '--no-such-option'"
		done
	done
	run "$BIN/ocssim" -T < /dev/null
	assert_failure 2
	assert_line --index 0 "ocssim: option requires an argument -- 'T'"
}
