"""Helpers the interop tests run in the test virtual environment (pyarrow and the reference
implementation, camber-toolkit 0.110.0). Each subcommand prints one JSON document.

  summary STORE              per (facility, equip, role): rows, value sum, first and last ts,
                             read with pyarrow's hive dataset reader
  points STORE FID [ARGS]    the reference's `points` data for one facility
  facilities STORE FID...    the reference's `facilities` data
  write STORE DATADIR ID     the reference generates and ingests one of its synthetic datasets
  rule_run STORE FID ID [CONFIG]
                             the reference's rule_run on facility FID with dataset ID's template
                             (or the run config CONFIG): seconds, findings (rule, equip,
                             severity), labels, the config's rules
  score STORE ID             the reference's own `camber datasets score` of dataset ID
  rcx STORE FID ID           the reference's rcx_report on facility FID with dataset ID's
                             template: seconds, issues (rank, key, equip, rule, cost)
  drift STORE FID ID ARGS    the reference's drift on facility FID with ARGS (JSON), under
                             dataset ID's template: seconds, source, findings (id, rule,
                             equip, severity), diagnoses (family, equip, severity), labels
"""

import json
import subprocess
import sys


def summary(store):
    import pyarrow.dataset as ds

    d = ds.dataset(store, format="parquet", partitioning="hive", exclude_invalid_files=False)
    t = d.to_table(columns=["facility_id", "equip", "role", "ts", "value"])
    out = {}
    for row in t.group_by(["facility_id", "equip", "role"]).aggregate(
        [("value", "count"), ("value", "sum"), ("ts", "min"), ("ts", "max")]
    ).to_pylist():
        key = f"{row['facility_id']}|{row['equip']}|{row['role']}"
        out[key] = {
            "rows": row["value_count"],
            "sum": row["value_sum"],
            "first": row["ts_min"].isoformat(),
            "last": row["ts_max"].isoformat(),
        }
    schema = d.schema
    return {"points": out, "types": {f.name: str(f.type) for f in schema}}


def call(store, name, args, allowed):
    from camber.capabilities import CallContext, default_registry

    ctx = CallContext(store=store, allowed_facilities=frozenset(allowed))
    res = default_registry().call(name, args, ctx)
    return {"data": res.data, "text": res.text}


def write(store, datadir, dataset_id):
    camber = sys.prefix + "/bin/camber"
    for step in (["datasets", "fetch", dataset_id, "--dir", datadir],
                 ["datasets", "ingest", dataset_id, "--dir", datadir, "--store", store]):
        subprocess.run([camber, *step], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return {"ok": True}


def rule_run(store, fid, dataset_id, config=None):
    import tempfile
    import time

    from camber.capabilities import CallContext, Caps, default_registry

    camber = sys.prefix + "/bin/camber"
    with tempfile.TemporaryDirectory() as d:
        cfg = config or d + "/template.json"
        if not config:
            subprocess.run([camber, "datasets", "config", dataset_id, "--store", store, "--out", cfg],
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        template = json.load(open(cfg))
        ctx = CallContext(store=store, allowed_facilities=frozenset([fid]), config=cfg,
                          caps=Caps(max_seconds=900, max_rows=100000, max_bytes=100_000_000))
        t = time.time()
        res = default_registry().call("rule_run", {"facility_id": fid}, ctx)
        seconds = time.time() - t
    entries = json.load(open(store + "/_facilities.json"))
    labels = entries[fid]["dataset"].get("labels") or {}
    rules = [r if isinstance(r, str) else r["name"] for r in template.get("rules", [])]
    found = [{"rule": f["rule"], "equip": f["equip"], "severity": f["severity"]} for f in res.data["findings"]]
    return {"seconds": seconds, "findings": found, "labels": labels, "rules": rules}


def drift(store, fid, dataset_id, args):
    import tempfile
    import time

    from camber.capabilities import CallContext, Caps, default_registry

    camber = sys.prefix + "/bin/camber"
    with tempfile.TemporaryDirectory() as d:
        cfg = d + "/template.json"
        subprocess.run([camber, "datasets", "config", dataset_id, "--store", store, "--out", cfg],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        ctx = CallContext(store=store, allowed_facilities=frozenset([fid]), config=cfg,
                          caps=Caps(max_seconds=900, max_rows=100000, max_bytes=100_000_000))
        t = time.time()
        res = default_registry().call("drift", {"facility_id": fid, **args}, ctx)
        seconds = time.time() - t
    entries = json.load(open(store + "/_facilities.json"))
    labels = entries[fid]["dataset"].get("labels") or {}
    found = [{"id": f.get("finding_id", ""), "rule": f["rule"], "equip": f["equip"], "severity": f["severity"]}
             for f in res.data["findings"]]
    diagnoses = [{"family": g["family"], "equip": g["equip"], "severity": g["severity"]} for g in res.data["diagnoses"]]
    return {"seconds": seconds, "source": res.data["source"], "findings": found, "diagnoses": diagnoses,
            "labels": labels, "unevaluated": len(res.data["unevaluated"])}


def rcx(store, fid, dataset_id):
    import tempfile
    import time

    from camber.capabilities import CallContext, Caps, default_registry

    camber = sys.prefix + "/bin/camber"
    with tempfile.TemporaryDirectory() as d:
        cfg = d + "/template.json"
        subprocess.run([camber, "datasets", "config", dataset_id, "--store", store, "--out", cfg],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        ctx = CallContext(store=store, allowed_facilities=frozenset([fid]), config=cfg,
                          caps=Caps(max_seconds=900, max_rows=100000, max_bytes=100_000_000))
        t = time.time()
        res = default_registry().call("rcx_report", {"facility_id": fid}, ctx)
        seconds = time.time() - t
    issues = [{"rank": i["rank"], "key": i["key"], "equip": i["equip"], "rules": i["rules"],
               "annual_cost_usd": i["annual_cost_usd"]} for i in res.data["issues"]]
    return {"seconds": seconds, "issues": issues, "kpis": res.data["kpis"]}


def score(store, dataset_id):
    camber = sys.prefix + "/bin/camber"
    out = subprocess.run([camber, "datasets", "score", dataset_id, "--store", store, "--json"],
                         check=True, capture_output=True, text=True).stdout
    d = json.loads(out)
    return {"overall": d["overall"], "suite": d.get("suite", [])}


def main():
    cmd, rest = sys.argv[1], sys.argv[2:]
    if cmd == "summary":
        out = summary(rest[0])
    elif cmd == "points":
        args = json.loads(rest[2]) if len(rest) > 2 else {}
        out = call(rest[0], "points", {"facility_id": rest[1], **args}, [rest[1]])
    elif cmd == "facilities":
        out = call(rest[0], "facilities", {}, rest[1:])
    elif cmd == "rule_run":
        out = rule_run(rest[0], rest[1], rest[2], rest[3] if len(rest) > 3 else None)
    elif cmd == "rcx":
        out = rcx(rest[0], rest[1], rest[2])
    elif cmd == "drift":
        out = drift(rest[0], rest[1], rest[2], json.loads(rest[3]))
    elif cmd == "score":
        out = score(rest[0], rest[1])
    elif cmd == "write":
        out = write(rest[0], rest[1], rest[2])
    else:
        raise SystemExit(f"unknown command {cmd}")
    json.dump(out, sys.stdout, default=str)


if __name__ == "__main__":
    main()
