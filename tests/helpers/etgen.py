#!/usr/bin/env python3
"""etgen: write a small Chakra execution trace for the tests of chakra(1).

    etgen.py PREFIX < spec.json

spec: {"meta": "0.0.4" (GlobalMetadata's version; null: no GlobalMetadata),
       "ranks": [[node, ...], ...]}, one list of nodes a rank, written to
PREFIX.<rank>.et.  node: {"id", "name", "type", "data_deps", "ctrl_deps",
"dur", "attr": {name: [kind, value]}} with kind one of int32, int64,
uint64, sint64, bool, string; a missing key is left out of the message.
"""
import json
import sys

KINDS = {"int32": 7, "int64": 9, "uint64": 13, "sint64": 17, "bool": 27,
         "string": 29}


def varint(v):
    if v < 0:
        v += 1 << 64
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def key(num, wt):
    return varint(num << 3 | wt)


def vfield(num, v):
    return key(num, 0) + varint(v)


def lfield(num, data):
    return key(num, 2) + varint(len(data)) + data


def attr(name, kind, value):
    num = KINDS[kind]
    msg = lfield(1, name.encode())
    if kind == "string":
        msg += lfield(num, value.encode())
    elif kind == "sint64":
        msg += vfield(num, (value << 1) ^ (value >> 63))
    else:
        msg += vfield(num, int(value))
    return msg


def node(n):
    msg = b""
    if "id" in n:
        msg += vfield(1, n["id"])
    if "name" in n:
        msg += lfield(2, n["name"].encode())
    if "type" in n:
        msg += vfield(3, n["type"])
    for num, k in ((4, "ctrl_deps"), (5, "data_deps")):
        if n.get(k):
            msg += lfield(num, b"".join(varint(d) for d in n[k]))
    if "dur" in n:
        msg += vfield(7, n["dur"])
    for name, (kind, value) in n.get("attr", {}).items():
        msg += lfield(10, attr(name, kind, value))
    return msg


def main():
    prefix = sys.argv[1]
    spec = json.load(sys.stdin)
    for r, nodes in enumerate(spec["ranks"]):
        with open("%s.%d.et" % (prefix, r), "wb") as f:
            frames = []
            if spec.get("meta") is not None:
                frames.append(lfield(1, spec["meta"].encode()))
            frames += [node(n) for n in nodes]
            for m in frames:
                f.write(varint(len(m)) + m)


main()
