#!/usr/bin/env python3
"""Large generated JSON profiles, to measure flametui's memory and time on them.

    scripts/gen-json-profiles.py speedscope SAMPLES > big.speedscope.json
    scripts/gen-json-profiles.py cpuprofile SAMPLES > big.cpuprofile

speedscope: py-spy's shape, 8 sampled profiles (threads) in seconds over 400 frames
(name, file, line), stacks of 8 to 40 frames drawn from 5,000 distinct ones.
cpuprofile: node's shape, a call tree of the same 5,000 stacks as nodes, then SAMPLES
samples of their leaves with time deltas of 900 to 1,150 us. Deterministic (fixed seed).
"""
import json
import random
import sys


def stacks(rng, n=5000, names=400):
    out = []
    for _ in range(n):
        depth = rng.randint(8, 40)
        out.append([rng.randrange(names) for _ in range(depth)])
    return out


def speedscope(samples, rng, w):
    frames = [{"name": f"func_{i}", "file": f"pkg{i % 37}/mod{i}.py", "line": 10 + i % 300}
              for i in range(400)]
    st = stacks(rng)
    w.write('{"$schema":"https://www.speedscope.app/file-format-schema.json",')
    w.write('"shared":{"frames":' + json.dumps(frames) + '},"profiles":[')
    per = samples // 8
    for t in range(8):
        if t:
            w.write(",")
        w.write(f'{{"type":"sampled","name":"Thread {1000 + t}","unit":"seconds",'
                f'"startValue":0,"endValue":{per / 97},"samples":[')
        for i in range(per):
            if i:
                w.write(",")
            w.write(json.dumps(st[rng.randrange(len(st))], separators=(",", ":")))
        w.write('],"weights":[' + ",".join(["0.010309278350515464"] * per) + "]}")
    w.write('],"exporter":"gen-json-profiles.py"}')


def cpuprofile(samples, rng, w):
    nodes = [{"id": 1, "callFrame": {"functionName": "(root)", "url": "", "lineNumber": -1},
              "children": []}]
    child = {}
    leaves = []
    for s in stacks(rng):
        at = 0
        for f in s:
            key = (at, f)
            if key not in child:
                nodes.append({"id": len(nodes) + 1,
                              "callFrame": {"functionName": f"func_{f}",
                                            "url": f"file:///app/lib{f % 37}.js",
                                            "lineNumber": f % 300, "columnNumber": 4},
                              "children": []})
                child[key] = len(nodes) - 1
                nodes[at]["children"].append(len(nodes))
            at = child[key]
        leaves.append(at + 1)
    w.write('{"nodes":' + json.dumps(nodes, separators=(",", ":")))
    w.write(',"startTime":1000000,"endTime":' + str(1000000 + samples * 1200) + ',"samples":[')
    w.write(",".join(str(leaves[rng.randrange(len(leaves))]) for _ in range(samples)))
    w.write('],"timeDeltas":[')
    w.write(",".join(str(rng.randint(900, 1150)) for _ in range(samples)))
    w.write("]}")


def main():
    kind, samples = sys.argv[1], int(sys.argv[2])
    rng = random.Random(7)
    {"speedscope": speedscope, "cpuprofile": cpuprofile}[kind](samples, rng, sys.stdout)


main()
