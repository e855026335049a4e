#!/usr/bin/env python3
"""Compare a faulted run with its fault-free twin: mean of selected columns during occupied,
fan-on rows (AHU-1 occupancy = 1), before and after the fault start.
    python compare.py CLEAN_DIR FAULT_DIR [substring ...]"""
import csv, json, os, sys

def load(d):
    return list(csv.DictReader(open(os.path.join(d, "trends.csv"))))

clean, fault = load(sys.argv[1]), load(sys.argv[2])
start = json.load(open(os.path.join(sys.argv[2], "truth.json")))["fault"].get("start", "01-01")
cut = clean[0]["Time"][:5] + start.replace("-", "-")
want = sys.argv[3:]
cols = [c for c in clean[0] if c != "Time" and (not want or any(w in c for w in want))]
occ = [i for i, r in enumerate(clean) if r.get("AHU-1 occupancy") == "1.000" and r["Time"] >= cut]
mean = lambda rows, c: sum(float(rows[i][c]) for i in occ if rows[i][c]) / max(1, len(occ))
print(f"{len(occ)} occupied rows from {cut}")
print(f"{'column':42s} {'clean':>9s} {'faulted':>9s} {'delta':>8s}")
for c in cols:
    a, b = mean(clean, c), mean(fault, c)
    if abs(b - a) > 1e-6 or len(cols) < 20:
        print(f"{c:42s} {a:9.2f} {b:9.2f} {b - a:8.2f}")
