"""How much slower is an algorithm written in Python than the same algorithm in Rust?

Runs the dumbbell preset (1 Gb/s, 20 ms, one flow) with the built-in `newreno` and with
`mmcc.cca.PyNewReno` (the same algorithm in Python; results are identical), best of 3, and
prints the ratio of wall times.

    .venv/bin/python benches/python_cca.py [--duration 10s]
"""

import argparse
import time

import mmcc
from mmcc.cca import PyNewReno


def best(fn, n=3):
    out = float("inf")
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        out = min(out, time.perf_counter() - t0)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--duration", default="10s")
    a = ap.parse_args()
    rust = best(lambda: mmcc.run("dumbbell", duration=a.duration))
    py = best(lambda: mmcc.run("dumbbell", duration=a.duration, cca=PyNewReno))
    r = mmcc.run("dumbbell", duration=a.duration, cca=PyNewReno)
    acks = r.flows.column("acks_received")[0].as_py()
    print(f"dumbbell {a.duration}: Rust newreno {rust:.3} s, Python PyNewReno {py:.3} s, "
          f"ratio {py / rust:.1f}x; {acks:,.0f} ACKs -> {(py - rust) / acks * 1e9:.0f} ns extra per ACK")


if __name__ == "__main__":
    main()
