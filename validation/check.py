#!/usr/bin/env python3
"""Summarise a trends.csv: rows, time span, and min/mean/max per column (optionally filtered).
    python check.py OUT/large_jul_clean [substring ...]"""
import csv, math, os, sys

d = sys.argv[1]
want = sys.argv[2:]
with open(os.path.join(d, "trends.csv"), newline="") as fh:
    r = csv.reader(fh)
    head = next(r)
    rows = list(r)
print(f"{len(rows)} rows, {rows[0][0]} .. {rows[-1][0]}, {len(head) - 1} columns")
print(f"{'column':45s} {'min':>9s} {'mean':>9s} {'max':>9s} {'empty':>6s}")
for i, h in enumerate(head[1:], 1):
    if want and not any(w in h for w in want):
        continue
    v = [float(x[i]) for x in rows if x[i] != ""]
    if not v:
        print(f"{h:45s} all empty")
        continue
    print(f"{h:45s} {min(v):9.2f} {sum(v) / len(v):9.2f} {max(v):9.2f} {len(rows) - len(v):6d}")
