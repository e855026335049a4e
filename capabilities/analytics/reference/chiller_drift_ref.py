"""The frames the chiller drift tests compare with camber-toolkit 0.110.0.

Run with the reference's Python (its camber package importable):
    python capabilities/analytics/reference/chiller_drift_ref.py
Each printed line is one case: the reference detector's severity, summary and scalar metrics on the
frames built here (its analyze_periods on a fresh in-memory BaselineStore, so the baseline is fitted
on the first window). src/drift/chiller/tests.rs rebuilds the same frames sample for sample and
asserts these figures. The last lines run the reference's own condenser and evaporator simulators
and its roll-ups, for the roll-up tests.
"""

import json

import pandas as pd
from camber.model.roles import Role
from camber.store.modelstore import BaselineStore
from camber.rules.chiller_drift_rule import ChillerApproachDrift
from camber.rules.chiller_cw_range_rule import ChillerCwRangeDrift
from camber.rules.chiller_head_pressure_rule import ChillerHeadPressureDrift
from camber.rules.chiller_subcooling_rule import ChillerSubcoolingDrift
from camber.rules.chiller_superheat_rule import ChillerSuperheatDrift
from camber.rules.chiller_suction_pressure_rule import ChillerSuctionPressureDrift

H = pd.Timedelta(hours=1)
T0 = pd.Timestamp("2024-01-01 00:00")


def noise(i):
    return ((i * 7919 + 13) % 101) / 101.0 - 0.5


def frame(n, start, cols):
    idx = pd.DatetimeIndex([T0 + (start + i) * H for i in range(n)])
    return pd.DataFrame({Role(k): [f(start + i) for i in range(n)] for k, f in cols.items()}, index=idx)


def show(name, f):
    m = {k: v for k, v in f.metrics.items() if isinstance(v, (int, float, bool)) or v is None}
    print(json.dumps({"case": name, "severity": f.severity, "summary": f.summary, "metrics": m,
                      "caveats": f.caveats}, default=str))


def run(cls, name, base, cur, **kw):
    r = cls(BaselineStore(), **kw)
    show(name, r.analyze_periods("E", base, cur))


# the chilled-water side: 600 gpm, a 2-10 degF dT swept over the window: 50-250 tons
def dt(i): return 2.0 + 8.0 * ((i * 31) % 89) / 89.0
def tons(i): return 25.0 * dt(i)
def chw(chws=lambda i: 44.0):
    return {"chw_flow": lambda i: 600.0, "chw_supply_temp": chws, "chw_return_temp": lambda i: chws(i) + dt(i)}


def approach_cols(cond, evap):
    c = chw()
    c["cond_approach_temp"] = lambda i: 2.0 + 0.02 * tons(i) + cond + 0.4 * noise(i)
    c["evap_approach_temp"] = lambda i: 1.5 + 0.01 * tons(i) + evap + 0.3 * noise(i + 7)
    return c
run(ChillerApproachDrift, "approach_ok", frame(300, 0, approach_cols(0, 0)), frame(150, 300, approach_cols(0, 0)))
run(ChillerApproachDrift, "approach_cond_warn", frame(300, 0, approach_cols(0, 0)), frame(150, 300, approach_cols(1.5, 0)))
run(ChillerApproachDrift, "approach_cond_fault", frame(300, 0, approach_cols(0, 0)), frame(150, 300, approach_cols(3.0, 0)))
run(ChillerApproachDrift, "approach_evap_fault", frame(300, 0, approach_cols(0, 0)), frame(150, 300, approach_cols(0, 2.5)))
run(ChillerApproachDrift, "approach_narrowed", frame(300, 0, approach_cols(0, 0)), frame(150, 300, approach_cols(-3.0, 0)))


def range_cols(shift):
    c = chw()
    c["cw_supply_temp"] = lambda i: 80.0 + 0.5 * noise(i + 3)
    c["cw_return_temp"] = lambda i: 80.0 + 0.5 * noise(i + 3) + 2.0 + 0.04 * tons(i) + shift + 0.5 * noise(i + 11)
    return c
run(ChillerCwRangeDrift, "cw_range_warn", frame(300, 0, range_cols(0)), frame(150, 300, range_cols(1.5)))
run(ChillerCwRangeDrift, "cw_range_fault_narrow", frame(300, 0, range_cols(0)), frame(150, 300, range_cols(-2.5)))


# head pressure: 150 psig + 0.1 psi/ton + 3 psi per degF of entering condenser water
def cws(i): return 75.0 + 10.0 * ((i * 17) % 43) / 43.0
def head_cols(shift, warmer=0.0):
    c = chw()
    c["cw_supply_temp"] = lambda i: cws(i) + warmer
    c["discharge_pressure"] = lambda i: 150.0 + 0.1 * tons(i) + 3.0 * (cws(i) + warmer - 80.0) + shift + noise(i)
    return c
run(ChillerHeadPressureDrift, "head_warn", frame(300, 0, head_cols(0)), frame(150, 300, head_cols(3.0)))
run(ChillerHeadPressureDrift, "head_fault", frame(300, 0, head_cols(0)), frame(150, 300, head_cols(5.0)))
run(ChillerHeadPressureDrift, "head_warmer_water_ok", frame(300, 0, head_cols(0)), frame(150, 300, head_cols(0, 3.0)))
run(ChillerHeadPressureDrift, "head_load_only", frame(300, 0, head_cols(0)), frame(150, 300, head_cols(0, 3.0)),
    normalize_on_condition=False)


def sc_cols(shift):
    c = chw()
    c["subcooling_temp"] = lambda i: 8.0 + 0.01 * tons(i) + shift + 0.4 * noise(i)
    return c
run(ChillerSubcoolingDrift, "subcooling_warn", frame(300, 0, sc_cols(0)), frame(150, 300, sc_cols(-1.5)))
run(ChillerSubcoolingDrift, "subcooling_fault", frame(300, 0, sc_cols(0)), frame(150, 300, sc_cols(-3.0)))


def sh_cols(shift):
    c = chw()
    c["superheat_temp"] = lambda i: 10.0 + 0.01 * tons(i) + shift + 0.8 * noise(i)
    return c
run(ChillerSuperheatDrift, "superheat_warn", frame(300, 0, sh_cols(0)), frame(150, 300, sh_cols(3.0)))
run(ChillerSuperheatDrift, "superheat_fault", frame(300, 0, sh_cols(0)), frame(150, 300, sh_cols(-5.0)))


# suction pressure: follows the leaving chilled water, which a reset moves 42-48 degF
def chws_reset(i): return 42.0 + 6.0 * ((i * 13) % 37) / 37.0
def sp_cols(shift, reset=0.0):
    c = chw(lambda i: chws_reset(i) + reset)
    c["suction_pressure"] = lambda i: 60.0 - 0.02 * tons(i) + 1.5 * (chws_reset(i) + reset - 44.0) + shift + 0.6 * noise(i)
    return c
run(ChillerSuctionPressureDrift, "suction_warn", frame(300, 0, sp_cols(0)), frame(150, 300, sp_cols(-3.0)))
run(ChillerSuctionPressureDrift, "suction_fault", frame(300, 0, sp_cols(0)), frame(150, 300, sp_cols(-5.0)))
run(ChillerSuctionPressureDrift, "suction_reset_ok", frame(300, 0, sp_cols(0)), frame(150, 300, sp_cols(0, 2.0)))

# ---- the reference's simulators and roll-ups (the locus / cause each fault should give)
from camber import condensersim, evaporatorsim
from camber.chillerdiag import diagnose_chiller_drift
for mod in (condensersim, evaporatorsim):
    for name in [None] + list(mod.FAULTS):
        case = mod.simulate_case(name, severity=2, seed=7) if name else mod.simulate_case(None, seed=7)
        store = BaselineStore()
        fs = []
        for rule in (ChillerApproachDrift, ChillerCwRangeDrift, ChillerHeadPressureDrift, ChillerSubcoolingDrift,
                     ChillerSuperheatDrift, ChillerSuctionPressureDrift):
            r = rule(store)
            fs.append(r.analyze_periods("E", case.baseline, case.current))
        d = diagnose_chiller_drift(fs, equip="E")
        print(json.dumps({"sim": mod.__name__.split(".")[-1], "fault": name, "locus": d.locus, "severity": d.severity,
                          "findings": {f.rule: [f.severity, f.summary] for f in fs}}, default=str))
