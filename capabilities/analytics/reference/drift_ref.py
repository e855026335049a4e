"""The frames the drift tests compare with camber-toolkit 0.110.0.

Run with the reference's Python: ~/camber-ref/bin/python capabilities/analytics/reference/drift_ref.py
Each printed line is one case: the reference detector's severity, summary and scalar metrics on
the frames built here (its analyze_periods on a fresh in-memory BaselineStore, so the baseline is
fitted on the first window). src/drift/*/tests.rs rebuild the same frames sample for sample and
assert these figures.
"""

import json

import numpy as np, pandas as pd
from camber.model.roles import Role
from camber.store.modelstore import BaselineStore
from camber.rules.pump_flow_rule import PumpFlowDrift
from camber.rules.pump_head_rule import PumpHeadDrift
from camber.rules.pump_power_rule import PumpPowerDrift
from camber.rules.loop_dp_rule import LoopDPDrift
from camber.rules.loop_deltat_rule import LoopDeltaTDrift
from camber.rules.hw_pump_rules import HwLoopDeltaTDrift, HwPumpFlowDrift, HwLoopDPDrift, HwPumpPowerDrift, HwPumpHeadDrift
from camber.rules.coil_leak_rule import CoilLeakDrift

H = pd.Timedelta(hours=1)
T0 = pd.Timestamp("2024-01-01 00:00")

def noise(i):
    return ((i * 7919 + 13) % 101) / 101.0 - 0.5

def frame(n, start, cols):
    idx = pd.DatetimeIndex([T0 + (start + i) * H for i in range(n)])
    return pd.DataFrame({Role(k): [f(start + i) for i in range(n)] for k, f in cols.items()}, index=idx)

def speed(i): return 30.0 + 60.0 * ((i * 53) % 97) / 97.0
def on(i): return 0.0 if i % 10 == 0 else 1.0

def pump_cols(deficit, loop="chw"):
    f, s = f"{loop}_flow", f"{loop}_pump_speed"
    return {
        f: lambda i: (10.0 * speed(i) - deficit + 20.0 * noise(i)) if on(i) else 0.0,
        s: lambda i: speed(i) if on(i) else 0.0,
        "pump_status": on,
        f"{loop}_diff_press": lambda i: 12.0 + 0.5 * noise(i * 3),
    }

def show(name, f):
    m = {k: v for k, v in f.metrics.items() if isinstance(v, (int, float, bool)) or v is None}
    print(json.dumps({"case": name, "severity": f.severity, "summary": f.summary, "metrics": m}, default=str))

def run(cls, name, base, cur, **kw):
    r = cls(BaselineStore(), **kw)
    show(name, r.analyze_periods("E", base, cur))

# pump_flow (chw): 25 gpm deficit
run(PumpFlowDrift, "pump_flow_warn", frame(300, 0, pump_cols(0)), frame(150, 300, pump_cols(25)))
run(PumpFlowDrift, "pump_flow_fault", frame(300, 0, pump_cols(0)), frame(150, 300, pump_cols(45)))
run(PumpFlowDrift, "pump_flow_ok", frame(300, 0, pump_cols(0)), frame(150, 300, pump_cols(3)))
# hw pump flow
run(HwPumpFlowDrift, "hw_pump_flow_warn", frame(300, 0, pump_cols(0, "hw")), frame(150, 300, pump_cols(25, "hw")))

# loop deltat (hw): supply - return = 20 - 0.01*flow + noise ; collapse by 3F
def dt_cols(shift, loop="hw"):
    fl = lambda i: 100.0 + 300.0 * ((i * 31) % 89) / 89.0
    if loop == "hw":
        return {"hw_flow": fl, "hw_supply_temp": lambda i: 160.0 + noise(i), "hw_return_temp": lambda i: 160.0 - (25.0 - 0.02 * fl(i) - shift + 0.8 * noise(i + 5)), "pump_status": lambda i: 1.0}
    return {"chw_flow": fl, "chw_supply_temp": lambda i: 44.0 + 0.3 * noise(i), "chw_return_temp": lambda i: 44.0 + (14.0 - 0.01 * fl(i) - shift + 0.8 * noise(i + 5)), "pump_status": lambda i: 1.0}
run(HwLoopDeltaTDrift, "hw_loop_deltat_fault", frame(300, 0, dt_cols(0)), frame(150, 300, dt_cols(3.0)))
run(HwLoopDeltaTDrift, "hw_loop_deltat_ok", frame(300, 0, dt_cols(0)), frame(150, 300, dt_cols(0.3)))
run(LoopDeltaTDrift, "loop_deltat_warn", frame(300, 0, dt_cols(0, "chw")), frame(150, 300, dt_cols(-1.5, "chw")))

# loop dp (chw) with setpoint reset
def dp_cols(shift, sp_shift):
    fl = lambda i: 200.0 + 600.0 * ((i * 29) % 83) / 83.0
    return {"chw_flow": fl, "chw_diff_press": lambda i: 8.0 + 0.01 * fl(i) + shift + 0.6 * noise(i), "chw_diff_press_sp": lambda i: 10.0 + sp_shift}
run(LoopDPDrift, "loop_dp_fault", frame(300, 0, dp_cols(0, 0)), frame(150, 300, dp_cols(5.0, 0)))
run(LoopDPDrift, "loop_dp_reset", frame(300, 0, dp_cols(0, 0)), frame(150, 300, dp_cols(5.0, 5.0)))

# pump power (chw): 10 kW pump
def pw_cols(excess):
    fl = lambda i: 100.0 + 400.0 * ((i * 41) % 79) / 79.0
    return {"chw_flow": fl, "power": lambda i: 2.0 + 0.015 * fl(i) + excess + 0.3 * noise(i), "pump_status": lambda i: 1.0}
run(PumpPowerDrift, "pump_power_warn", frame(300, 0, pw_cols(0)), frame(150, 300, pw_cols(0.6)))

# pump head, status only (constant speed)
def hd_cols(deficit):
    return {"pump_head": lambda i: 40.0 - deficit + 1.0 * noise(i), "pump_status": on, "chw_flow": lambda i: 500.0 + 5 * noise(i + 1)}
run(PumpHeadDrift, "pump_head_status_only", frame(300, 0, hd_cols(0)), frame(150, 300, hd_cols(4.5)))

# coil leak (cooling) : MAT 50..80, rise = 1.2 + 0.02*(mat-65) + noise; leak drops rise
def cl_cols(leak):
    mat = lambda i: 50.0 + 30.0 * ((i * 17) % 61) / 61.0
    return {"mixed_air_temp": mat, "supply_air_temp": lambda i: mat(i) + 1.2 + 0.02 * (mat(i) - 65.0) - leak + 0.4 * noise(i),
            "cool_valve": lambda i: 0.0 if i % 4 else 40.0, "heat_valve": lambda i: 0.0, "supply_fan_status": lambda i: 0.0 if i % 7 == 0 else 1.0}
run(CoilLeakDrift, "coil_leak_cooling_fault", frame(300, 0, cl_cols(0)), frame(150, 300, cl_cols(1.8)), coil="cooling")
run(CoilLeakDrift, "coil_leak_cooling_warn", frame(300, 0, cl_cols(0)), frame(150, 300, cl_cols(0.7)), coil="cooling")
run(CoilLeakDrift, "coil_leak_heating_ok", frame(300, 0, cl_cols(0)), frame(150, 300, cl_cols(1.8)), coil="heating")

# ---- gates, flat levels and out-of-scope mixed air
# learned VFD floor: parked at 25 % every fifth hour
def vfd_cols(deficit):
    sp = lambda i: 25.0 if i % 5 == 0 else speed(i) + 10.0
    return {"chw_flow": lambda i: 8.0 * sp(i) - deficit + 5.0 * noise(i), "chw_pump_speed": sp}
run(PumpFlowDrift, "vfd_floor", frame(300, 0, vfd_cols(0)), frame(150, 300, vfd_cols(20)))
# constant-speed pump, flow deficit 40
def cs_cols(deficit, spd=None):
    return {"chw_flow": lambda i: 800.0 - deficit + 10.0 * noise(i), "chw_pump_speed": (lambda i: 80.0 + 0.2 * noise(i + 3)) if spd is None else (lambda i: spd)}
run(PumpFlowDrift, "constant_speed", frame(300, 0, cs_cols(0)), frame(150, 300, cs_cols(40)))
run(PumpFlowDrift, "constant_speed_other", frame(300, 0, cs_cols(0)), frame(150, 300, cs_cols(0, 60.0)))
# small pump power
def sm_cols(excess):
    fl = lambda i: 10.0 + 30.0 * ((i * 31) % 89) / 89.0
    return {"chw_flow": fl, "power": lambda i: 0.2 + 0.01 * fl(i) + excess + 0.01 * noise(i)}
run(PumpPowerDrift, "small_power", frame(300, 0, sm_cols(0)), frame(150, 300, sm_cols(0.05)))
# coil leak: cold mixed air a third of the time
def cold(i, _j): return 40.0 if (i - 300) % 3 == 0 else (50.0 + 30.0 * ((i * 17) % 61) / 61.0)
cur = {"mixed_air_temp": lambda i: cold(i, 0), "supply_air_temp": lambda i: cold(i, 0) + 1.2 - 1.8 + 0.4 * noise(i), "cool_valve": lambda i: 0.0, "supply_fan_status": lambda i: 1.0}
run(CoilLeakDrift, "coil_out_of_scope", frame(300, 0, cl_cols(0)), frame(150, 300, cur), coil="cooling")
# coil leak level baseline
def st(leak): return {"mixed_air_temp": lambda i: 60.0 + 2.0 * noise(i + 7), "supply_air_temp": lambda i: 60.0 + 2.0 * noise(i + 7) + 1.0 - leak + 0.3 * noise(i), "cool_valve": lambda i: 0.0}
run(CoilLeakDrift, "coil_level", frame(300, 0, st(0)), frame(150, 300, st(1.8)), coil="cooling")
