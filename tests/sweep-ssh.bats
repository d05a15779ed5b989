#!/usr/bin/env bats
# The README's sweep across machines, for real: GNU parallel runs study
# runs over ssh on a second "machine" (an sshd of the test's own on
# 127.0.0.1, with its own port, host key and authorized key, and its own
# built checkout directory), brings each stream and its command back
# with --return, pipelines/study here takes them as they are, and the
# streams equal the runs made here.

load helpers

teardown() {
	if [ -f "$T/sshd.pid" ]; then
		kill "$(cat "$T/sshd.pid")" 2>/dev/null || true
	fi
	cd / && rm -rf "$T"
}

# sshd_start: an sshd for this test only, its port in $PORT and the ssh
# command that logs in to it in $SSH; a few ports are tried.
sshd_start() {
	local i

	ssh-keygen -q -t ed25519 -N '' -f "$T/hostkey"
	ssh-keygen -q -t ed25519 -N '' -f "$T/userkey"
	cp "$T/userkey.pub" "$T/authorized_keys"
	chmod 600 "$T/authorized_keys"
	[ "$(id -u)" -ne 0 ] || mkdir -p /run/sshd
	SSH="ssh -i $T/userkey -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o BatchMode=yes -o LogLevel=ERROR"
	for i in 1 2 3 4 5; do
		PORT=$((20000 + (RANDOM % 20000)))
		cat > "$T/sshd_config" <<EOF
Port $PORT
ListenAddress 127.0.0.1
HostKey $T/hostkey
AuthorizedKeysFile $T/authorized_keys
PidFile $T/sshd.pid
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PermitRootLogin prohibit-password
EOF
		rm -f "$T/sshd.pid"
		/usr/sbin/sshd -f "$T/sshd_config" -E "$T/sshd.log" || continue
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			[ -s "$T/sshd.pid" ] && break
			sleep 0.2
		done
		if $SSH -p "$PORT" "$(id -un)@127.0.0.1" true 2>/dev/null; then
			SSH="$SSH -p $PORT"
			return 0
		fi
		[ -s "$T/sshd.pid" ] && kill "$(cat "$T/sshd.pid")"
	done
	echo "no sshd could start: $(cat "$T/sshd.log")" >&2
	return 1
}

# checkout DIR: a built checkout of what the study needs
checkout() {
	mkdir -p "$1/build"
	cp -r "$TOP/pipelines" "$1/"
	cp -r "$FLUXOCS_RELBIN" "$1/build/bin"
}

# nosecs FILE: the stream as JSON lines without fluxsolve's wall-clock
# seconds, the one field of its output that is not reproducible
nosecs() {
	report --dump "$1" | jq -c 'if .type == "solve" then del(.seconds) | .models |= map(del(.seconds)) else . end'
}

# stamps: each stream and command of results/study with its inode and
# modification time, one a line.
stamps() {
	(cd results/study && stat -c '%n %i %.9Y' -- *.msgpack *.cmd)
}

@test "sweep-ssh: parallel runs study runs on a second login over ssh and returns streams equal to local runs, which the study here takes as they are" {
	export LAYERS=1 TAUS="10us 1ms" SCHEDULERS="ideal flux rotor-direct bvn" FLUXSOLVE_ARGS="-m greedy"
	sshd_start
	checkout "$T/remote/fluxocs"
	checkout "$T/here"
	checkout "$T/ref"
	cd "$T/here"
	make -s -f pipelines/study.mk list > runs.txt
	run wc -l < runs.txt
	assert_output 8
	parallel --will-cite --sshlogin "$SSH $(id -un)@127.0.0.1" \
	    --env LAYERS --env TAUS --env SCHEDULERS --env FLUXSOLVE_ARGS \
	    --workdir "$T/remote/fluxocs" --return {} --return {}.cmd \
	    make -s -f pipelines/study.mk {} :::: runs.txt 2> parallel.err
	# every run came back, and ran over there: only its stream and its
	# command are here, its DAG stayed with the remote checkout
	run ls results/study
	assert_output "$(sed 's|results/study/||; p; s/$/.cmd/' runs.txt | sort)"
	[ -s "$T/remote/fluxocs/results/study/l1-tau10us.dag.msgpack" ]
	run grep -c 'Accepted publickey' "$T/sshd.log"
	[ "$output" -ge 1 ]
	run cat results/study/l1-tau1ms-flux.msgpack.cmd
	assert_output 'build/bin/tracegen -l 1 -t 4 -d 2 | build/bin/dagbuild -r 1ms | build/bin/fluxsolve -m greedy | build/bin/ocssim -t'
	# the study here makes none of them again, nor their DAGs, and
	# prints their table
	stamps > before.txt
	"$T/here/pipelines/study" > study.out 2> study.err
	stamps > after.txt
	diff before.txt after.txt
	run grep -c -e '^study: \[' -e remade study.err
	assert_output 0
	[ ! -e results/study/l1-tau10us.dag.msgpack ]
	run grep -c '^llama3-8b 1L tp4 dp2 ' study.out
	assert_output 8
	run tail -n +2 results/study/table.txt
	assert_output --regexp '^llama3-8b 1L tp4 dp2 +2x800Gbps +ideal +10us '
	# the same runs made here
	(cd "$T/ref" && make -s -f pipelines/study.mk all 2> /dev/null)
	while read -r f; do
		case $f in
		*-flux.msgpack)
			[ "$(nosecs "$f")" = "$(nosecs "$T/ref/$f")" ] ||
			    fail "$f differs from the local run" ;;
		*)	cmp "$f" "$T/ref/$f" ;;
		esac
	done < runs.txt
	# a stream returned without its command (--return {} alone) counts
	# as made by unknown settings: made again here, it alone
	rm results/study/l1-tau1ms-bvn.msgpack.cmd
	stamps > before.txt
	make -s -f pipelines/study.mk all 2> make.err
	stamps > after.txt
	run bash -c "diff before.txt after.txt | grep '^>' | cut -d ' ' -f 2 | LC_ALL=C sort"
	assert_output 'l1-tau1ms-bvn.msgpack
l1-tau1ms-bvn.msgpack.cmd
l1-tau1ms.dag.msgpack
l1-tau1ms.dag.msgpack.cmd'
	run grep remade make.err
	assert_output 'study: results/study/l1-tau1ms-bvn.msgpack: made by unknown settings (no l1-tau1ms-bvn.msgpack.cmd): remade'
	cmp results/study/l1-tau1ms-bvn.msgpack "$T/ref/results/study/l1-tau1ms-bvn.msgpack"
	# stopped by its pid
	kill "$(cat "$T/sshd.pid")"
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		kill -0 "$(cat "$T/sshd.pid")" 2>/dev/null || break
		sleep 0.2
	done
	run kill -0 "$(cat "$T/sshd.pid")"
	assert_failure
	rm -f "$T/sshd.pid"
}
