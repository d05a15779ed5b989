#!/usr/bin/env python3
"""etshape: the spec of a large Chakra trace of one shape, for etgen.py.

    etshape.py SHAPE N | etgen.py PREFIX

SHAPE is one of
  chain  a compute on the first of N METADATA nodes, each depending on
         the next (skipped nodes, resolved through);
  recv   rank 0 sends N messages to rank 1, which receives each after the
         one before, then a compute depends on the last receive;
  fan    N computes, and one more depending on all of them.
"""
import json
import sys


def send(k):
    return {"id": k, "name": "s", "type": 5,
            "attr": {"comm_size": ["int64", 64], "comm_dst": ["int32", 1],
                     "comm_tag": ["int32", k]}}


def recv(k):
    n = {"id": k, "name": "r", "type": 6,
         "attr": {"comm_size": ["int64", 64], "comm_src": ["int32", 0],
                  "comm_tag": ["int32", k]}}
    if k > 0:
        n["data_deps"] = [k - 1]
    return n


def main():
    shape, n = sys.argv[1], int(sys.argv[2])
    if shape == "chain":
        r = [{"id": 0, "name": "c", "type": 4, "dur": 1, "data_deps": [1]}]
        r += [{"id": k, "name": "m", "type": 1, "data_deps": [k + 1]}
              for k in range(1, n)]
        r.append({"id": n, "name": "m", "type": 1})
        ranks = [r]
    elif shape == "recv":
        r = [recv(k) for k in range(n)]
        r.append({"id": n, "name": "c", "type": 4, "dur": 1,
                  "data_deps": [n - 1]})
        ranks = [[send(k) for k in range(n)], r]
    elif shape == "fan":
        r = [{"id": k, "name": "c", "type": 4, "dur": 1} for k in range(n)]
        r.append({"id": n, "name": "j", "type": 4, "dur": 1,
                  "data_deps": list(range(n))})
        ranks = [r]
    else:
        sys.exit("etshape: %s: not chain, recv or fan" % shape)
    sys.stdout.write(json.dumps({"meta": "0.0.4", "ranks": ranks}))


main()
