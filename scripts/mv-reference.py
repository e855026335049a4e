#!/usr/bin/env python3
"""Write one M&V meter dataset with a known cut and print the reference's figures as JSON.

The reference toolkit (camber-toolkit 0.110.0) ships no M&V data generator, so the meter is
generated here with numpy (seeded): two years of hourly outdoor air (a seasonal swing, a daily
swing, weather noise) and an hourly energy rate whose daily total follows a 5P change-point
signature with AR(1) day-to-day noise; from the reporting period's first day the load is cut by
CUT. The CSV has the columns ts, meter, energy_rate, oat (naive local time, hourly).

The reference's figures come from the same calls its config path (camber.config._mv_findings)
makes for a trended meter: daily_energy_vs_temp at min_coverage 0.9, best_model, fit_stats at the
daily CV(RMSE) tier with the day index (for rho), support_of, and forecast_savings with the G14
and the exact kernels.

Usage: mv-reference.py OUT.csv   (run with the reference's Python, e.g.
/work/cargo-target/camber-pyenv/bin/python scripts/mv-reference.py /tmp/mv-meter.csv)
"""

import json
import sys

import numpy as np
import pandas as pd

from camber.mandv.coverage import ExtrapolationPolicy, support_of
from camber.mandv.intervalfit import daily_energy_vs_temp
from camber.mandv.methods import forecast_savings
from camber.mandv.models import N_PARAMS, best_model
from camber.mandv.stats import cv_rmse_max_for, fit_stats

METER = "CHW-METER-1"
BASELINE = ("2022-01-01", "2022-12-31")
REPORTING = ("2023-01-01", "2023-12-31")
CUT = 0.12
SEED = 20240516


def generate() -> pd.DataFrame:
    rng = np.random.default_rng(SEED)
    idx = pd.date_range("2022-01-01", "2023-12-31 23:00", freq="h")
    days = pd.date_range("2022-01-01", "2023-12-31", freq="D")
    doy = np.arange(len(days))
    weather = np.zeros(len(days))
    for i in range(1, len(days)):  # weather fronts persist a few days
        weather[i] = 0.7 * weather[i - 1] + rng.normal(0, 4.0)
    day_oat = 56.0 - 24.0 * np.cos(2 * np.pi * (doy + 12) / 365.0) + weather
    hour = idx.hour.to_numpy()
    oat = np.repeat(day_oat, 24) + 7.0 * np.sin(2 * np.pi * (hour - 9) / 24.0) + rng.normal(0, 0.8, len(idx))
    noise = np.zeros(len(days))
    for i in range(1, len(days)):
        noise[i] = 0.45 * noise[i - 1] + rng.normal(0, 55.0)
    daily = 2400.0 + 38.0 * np.maximum(0.0, 47.0 - day_oat) + 61.0 * np.maximum(0.0, day_oat - 66.0) + noise
    daily = np.where(days >= pd.Timestamp(REPORTING[0]), daily * (1.0 - CUT), daily)
    shape = 1.0 + 0.35 * np.sin(2 * np.pi * (hour - 8) / 24.0)
    rate = np.repeat(daily / 24.0, 24) * shape / shape[:24].mean()
    return pd.DataFrame({"ts": idx, "meter": METER, "energy_rate": rate, "oat": oat})


def reference(df: pd.DataFrame) -> dict:
    s = df.set_index("ts")
    b = s.loc[BASELINE[0] : BASELINE[1]]
    r = s.loc[REPORTING[0] : REPORTING[1]]
    daily = daily_energy_vs_temp(b["energy_rate"], b["oat"], min_coverage=0.9)
    daily_r = daily_energy_vs_temp(r["energy_rate"], r["oat"], min_coverage=0.9)
    model = best_model(daily["oat"].values, daily["energy"].values, time_index=daily.index)
    p = N_PARAMS[model.kind]
    st = fit_stats(
        daily["energy"].values,
        model.predict(daily["oat"].values),
        p,
        cv_rmse_max=cv_rmse_max_for("daily"),
        time_index=daily.index,
    )
    sup = support_of(daily["oat"].values, quantile=ExtrapolationPolicy().support_quantile)
    out = {
        "meter": METER,
        "cut": CUT,
        "period": list(BASELINE),
        "reporting_period": list(REPORTING),
        "mv_baseline": {
            "model": model.kind,
            "change_points": [float(c) for c in model.change_points],
            "coefficients": {k: float(v) for k, v in model.coeffs.items()},
            "n_days": st.n,
            "r2": st.r2,
            "cv_rmse": st.cv_rmse,
            "nmbe": st.nmbe,
            "rho": st.rho_lag1,
            "accept": st.accept,
            "oat_support_lo": sup["support_lo"],
            "oat_support_hi": sup["support_hi"],
        },
    }
    for kernel in ("g14", "exact"):
        res = forecast_savings(
            model,
            daily_r["oat"].values,
            daily_r["energy"].values,
            cv_rmse=st.cv_rmse,
            n_baseline=st.n,
            p_baseline=p,
            rho=st.rho_lag1,
            kernel=kernel,
        )
        out[f"mv_savings_{kernel}"] = {
            "avoided_energy": res.savings,
            "baseline_projected": res.projected,
            "reporting_actual": res.measured,
            "savings_pct": res.savings_pct,
            "fsu": res.fractional_uncertainty,
            "abs_uncertainty": res.abs_uncertainty,
            "coverage_tier": (res.coverage or {}).get("tier"),
            "n_report_days": int(len(daily_r)),
            "kernel": kernel,
            "method": res.method,
        }
    return out


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-3], file=sys.stderr)
        return 2
    df = generate()
    df.to_csv(sys.argv[1], index=False, date_format="%Y-%m-%dT%H:%M:%S")
    print(json.dumps(reference(df), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
