# Shared by the suites of ocssim's replays (-R, -S, -O): load it after
# helpers with `load replay`.

# 4 GPUs, 2 switches, 1 MB in 10 us on a circuit, tau 10 us, port model
NET='{"type":"net","gpus":4,"switches":2,"bandwidth_bps":800000000000,"reconfig_ps":10000000,"reconfig_model":"port","latency_ps":0}'

# result FILE KEY: one key of the result record
result() {
	field "$1" result "$2"
}

# runs FILE: [start, end] of every task run
runs() {
	field "$1" taskrun start_ps end_ps | sed 's/^\(.*\) \(.*\)$/[\1,\2]/'
}
