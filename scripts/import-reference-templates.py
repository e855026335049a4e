#!/usr/bin/env python3
"""Regenerate host/registry/templates/reference-datasets.json from the run templates the reference
implementation (camber-toolkit 0.110.0) packages for its catalog datasets.

Kept per dataset: the time grid, the equipment classes, the rules with the template's tuned
parameters (a run leaves out those this server has not built, and its banner names them), and
the sections other capabilities read (topology, shared_oat, drift, mv, and the report options
rcx_report reads: references, loads, prices, cost parameters, top_n). Dropped: the prose (`_comment`, per-rule `basis` notes) and the store path.

Added (ADDITIONS): rules camber runs where the reference's template leaves a labelled fault to no
rule, with the topology they need. synthetic-chw-plant-multi's two over-staged chillers are found
by no rule of its template (the reference leaves chiller_staging_fleet out because it pools every
chiller of the facility on one clock); camber adds it with each scenario's two chillers grouped as
one plant (`CH1__<scenario>`, `CH2__<scenario>` -> `PLANT__<scenario>`, from the catalog's runs).

  python3 scripts/import-reference-templates.py PYTHON_WITH_CAMBER_TOOLKIT
"""

import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "host" / "registry" / "templates" / "reference-datasets.json"


def plants_of(catalog_dir, dataset_id):
    """Each chiller of a scenario dataset's catalog runs, grouped as its scenario's plant."""
    for path in pathlib.Path(catalog_dir).glob("*.json"):
        entry = json.loads(path.read_text())
        if entry.get("id") != dataset_id:
            continue
        runs = (entry.get("ingest") or {}).get("runs") or []
        return {r["id"]: "PLANT__" + r["id"].split("__", 1)[1] for r in runs
                if r.get("class") == "CHILLER" and "__" in r["id"]}
    raise SystemExit(f"no catalog entry for {dataset_id}")


def additions(catalog_dir):
    """camber's own additions to a reference template (see the module doc)."""
    return {
        "synthetic-chw-plant-multi": {
            "rules": ["chiller_staging_fleet"],
            "topology": {"parents": plants_of(catalog_dir, "synthetic-chw-plant-multi"), "match": "exact"},
        },
    }


def main():
    python = sys.argv[1]
    where = subprocess.run(
        [python, "-c", "import camber.datasets, pathlib; print(pathlib.Path(camber.datasets.__file__).parent / 'configs')"],
        check=True, capture_output=True, text=True).stdout.strip()
    added = additions(pathlib.Path(where).parent / "catalog.d")
    out = {}
    for path in sorted(pathlib.Path(where).glob("*.json")):
        t = json.loads(path.read_text())
        entry = {}
        if t.get("resample"):
            entry["resample"] = t["resample"]
        entry["equipment"] = [{k: v for k, v in e.items() if k in ("class", "equips", "marker_role")} for e in t.get("equipment", [])]
        rules = []
        for r in t.get("rules", []):
            name = r if isinstance(r, str) else r["name"]
            if isinstance(r, str) or not r.get("params"):
                rules.append(name)
            else:
                rules.append({"name": name, "params": r["params"]})
        entry["rules"] = rules
        for key in ("topology", "shared_oat", "drift", "mv"):
            if key in t:
                entry[key] = t[key]
        # the report options rcx_report reads, as the template writes them (under report.rcx, or
        # the older report level for loads, prices and cost parameters)
        report = t.get("report") or {}
        rcx = report.get("rcx") or {}
        kept = {k: rcx[k] for k in ("references", "loads", "price", "cost_params", "top_n") if k in rcx}
        top = {k: report[k] for k in ("loads", "price", "cost_params") if k in report and k not in kept}
        if kept or top:
            entry["report"] = {**top, **({"rcx": kept} if kept else {})}
        extra = added.get(path.stem, {})
        entry["rules"] += [r for r in extra.get("rules", []) if r not in entry["rules"]]
        if "topology" in extra and "topology" not in entry:
            entry["topology"] = extra["topology"]
        out[path.stem] = entry
    OUT.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    print(f"{len(out)} templates -> {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
