#!/usr/bin/env bats
# Regressions of the header records (lib/records/header), found by an adversarial
# test of the suite (issue 12).

load helpers

@test "header: regression: a string minor turned the end-record check off" {
	# no end record: a stream cut short, whose header hides its minor
	echo '{"type":"header","format":"fluxocs","version":1,"minor":"1","tool":"test","args":[]}
{"type":"op","id":0,"rank":0,"kind":"compute","name":"c","deps":[],"duration_ps":5}' | jsonpack > cut.mp
	for t in dagbuild "ocssim -f ideal" "report --dump"; do
		run bash -c "$t < cut.mp > /dev/null"
		[ "$status" -eq 1 ] || fail "$t exited $status"
		assert_output "${t%% *}: stdin: byte 0: header record: key \"minor\": expected unsigned integer, got string"
	done
	# a later header's minor is checked too
	{ hdr; echo '{"type":"header","format":"fluxocs","version":1,"minor":1.5,"tool":"t2","args":[]}'; } | mk two.mp
	run bash -c "dagbuild < two.mp > /dev/null"
	assert_failure 1
	assert_output 'dagbuild: stdin: byte 60: header record: key "minor": expected unsigned integer, got float'
}
