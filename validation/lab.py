#!/usr/bin/env python3
"""Physics validation lab: simulate each case of lab.json with EnergyPlus (simulate.py), ingest it
into a camber store, run every rule with camber and with the reference implementation on the same
store and run config, and score both: is each injected fault found by a rule that targets it, what
else does it set off, and which alarms fire on the fault-free twins.

    python validation/lab.py --camber target/debug/camber \
        --reference-python target/camber-pyenv/bin/python --out target/validate

Writes, under --out: sims/<case>/ (simulate.py output, kept while its inputs are unchanged),
stores/<case>/, runs/<case>/ (configs and both tools' findings), results.json and results.md.
--doc FILE replaces the part of FILE between the lab-results markers with results.md.
Standard library only; simulate.py runs under --sim-python (it needs pyenergyplus-lbnl).
"""
import argparse, csv, fnmatch, hashlib, json, os, re, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
ALARM = ("warn", "fault")
RANK = {"info": 0, "warn": 1, "fault": 2}
DOC_BEGIN, DOC_END = "<!-- lab results: begin (written by validation/lab.py --doc) -->", "<!-- lab results: end -->"


# ---------------------------------------------------------------- cases
def load_cases(lab):
    """One case per period of each building (its clean twin) and per fault of that period."""
    cases = []
    for b in lab["buildings"]:
        for p in b["periods"]:
            base = {"building": b["name"], "prototype": b["prototype"], "weather": b.get("weather", "usa_co_denver"),
                    "start": p["start"], "end": p["end"], "rule_params": b.get("rule_params", {})}
            clean = f"{b['name']}-{p['name']}-clean"
            cases.append(dict(base, name=clean, clean=None, fault=None))
            for f in p["faults"]:
                cases.append(dict(base, name=f"{b['name']}-{p['name']}-{f['name']}", clean=clean, fault=f))
    return cases


def facility_id(case_name):
    return re.sub(r"[^a-z0-9-]+", "-", case_name.lower()).strip("-")


def file_sha(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


# ---------------------------------------------------------------- simulate
def simulate(case, sim_python, sim_dir):
    """Run simulate.py unless sim_dir already holds the output of the same inputs (inputs.json)."""
    cmd = [sim_python, os.path.join(HERE, "simulate.py"), "--prototype", case["prototype"], "--weather", case["weather"],
           "--start", case["start"], "--end", case["end"], "--out", sim_dir]
    inputs = {"args": cmd[2:-2], "simulate.py": file_sha(os.path.join(HERE, "simulate.py"))}
    if case["fault"]:
        fault_file = os.path.join(HERE, case["fault"]["file"])
        cmd += ["--fault", fault_file]
        inputs["fault"] = file_sha(fault_file)
    stamp = os.path.join(sim_dir, "inputs.json")
    if os.path.exists(os.path.join(sim_dir, "trends.csv")) and os.path.exists(stamp) and json.load(open(stamp)) == inputs:
        return "kept"
    if os.path.exists(stamp):
        os.remove(stamp)
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    json.dump(inputs, open(stamp, "w"), indent=1)
    return "simulated"


# ---------------------------------------------------------------- camber and the reference
def run_tool(cmd, retries=5):
    """Run a command and return its stdout; retry when the binary is missing or being rebuilt."""
    for attempt in range(retries):
        try:
            p = subprocess.run(cmd, capture_output=True, text=True)
        except OSError as e:
            err = str(e)
        else:
            if p.returncode == 0:
                return p.stdout
            err = (p.stderr or p.stdout)[-2000:]
        time.sleep(5)
    sys.exit(f"failed: {' '.join(cmd)}\n{err}")


def camber_call(camber, capability, args, *extra):
    out = json.loads(run_tool([camber, "call", capability, json.dumps(args), *extra]))
    if out.get("truncated"):
        sys.exit(f"{capability} output truncated: {out.get('banners')}")
    return out["data"]


def sensors_named(camber, store, fid, config_path, sim_dir):
    """For each column the fault biases (truth.json's biased_columns), whether camber's
    sensor_trust names that point: a reference (configured, the site's other sensors of the same
    air, or the zones an air handler serves) that disagrees at warn or worse, or a verdict other
    than trusted."""
    biased = json.load(open(os.path.join(sim_dir, "truth.json"))).get("biased_columns") or []
    if not biased:
        return []
    columns = json.load(open(os.path.join(sim_dir, "mapping.json")))["columns"]
    data = camber_call(camber, "sensor_trust", {"facility_id": fid, "view": "report", "limit": 1000},
                       "--store", store, "--allow", fid, "--config", config_path)
    out = []
    for column, bias in biased:
        col = columns.get(column)
        if not col:
            continue
        equip, role = col["equip"], col["role"]
        if role.endswith("_sp"):
            # a thermostat offset lists the setpoints the BAS shows beside the biased reading:
            # they are the configured values, no sensor
            continue
        how = []
        for r in data["references"]:
            c = r.get("comparison") or {}
            if r["equip"] == equip and r["role"] == role and c.get("verdict") in ("warn", "fault"):
                how.append(f"bias {c['bias']:+.2f} against {r['reference']} ({c['verdict']})")
        for p in data["points"]:
            if p["equip"] == equip and p["role"] == role and p["verdict"] != "trusted":
                how.append(f"{p['verdict']} (trust {p['trust']:.2f})")
        out.append({"column": column, "bias_F": bias, "named": bool(how), "how": "; ".join(dict.fromkeys(how))})
    return out


def rule_ids(camber):
    """Every rule that rule_run runs (the drift detectors run with `drift`, not here)."""
    rules = camber_call(camber, "rule_params", {"limit": 1000})["rules"]
    return [r["rule"] for r in rules if r["run_with"] == "rule_run"]


def run_config(fid, sim_dir, rules, rule_params):
    """All rules on every class of the mapping, with the simulated topology (box -> AHU), and
    the boxes' minimum airflows as the prototype designs them (a commissioning engineer's VAV
    schedule: simulate.py reads it from the model before any fault edits it)."""
    mapping = json.load(open(os.path.join(sim_dir, "mapping.json")))
    classes = sorted({c["equip_class"] for c in mapping["columns"].values()})
    schedule = json.load(open(os.path.join(sim_dir, "truth.json"))).get("design_min_airflow_cfm") or {}
    if schedule:
        rule_params = dict(rule_params)
        rule_params["overcooling_min_flow"] = dict(rule_params.get("overcooling_min_flow", {}), design_min_airflow=schedule)
    return {"source": {"facility_id": fid},
            "equipment": [{"class": c} for c in classes],
            "rules": [{"name": r, "params": rule_params[r]} if r in rule_params else r for r in rules],
            "topology": json.load(open(os.path.join(sim_dir, "topology.json")))}


def ingest(camber, sim_dir, store, fid):
    run_tool([camber, "ingest", os.path.join(sim_dir, "trends.csv"), "--store", store, "--facility", fid,
              "--timezone", "America/Denver", "--mapping", os.path.join(sim_dir, "mapping.json"), "--replace"])


def camber_findings(camber, store, fid, config_path):
    data = camber_call(camber, "rule_run", {"facility_id": fid, "min_severity": "warn", "limit": 1000},
                       "--store", store, "--allow", fid, "--config", config_path)
    return [{"rule": f["rule"], "equip": f["equip"], "severity": f["severity"], "summary": f["summary"],
             "equips": sorted(f.get("equips") or [])} for f in data["findings"]]


def camber_declined(camber, store, fid, config_path, rules, equip):
    """The checks of `rules` the trust floor declined on `equip` (or on a fleet naming it): a
    fault no rule could judge is a different miss from one a rule judged healthy."""
    data = camber_call(camber, "rule_run", {"facility_id": fid, "rules": rules, "min_severity": "info", "limit": 1000},
                       "--store", store, "--allow", fid, "--config", config_path)
    return [{"rule": f["rule"], "equip": f["equip"], "summary": f["summary"]} for f in data["findings"]
            if f.get("declined") and (f["equip"] == equip or f["equip"].startswith("<"))]


def reference_rules(ref_python):
    """The rule ids the reference implementation has, each with the parameter names its
    constructor takes (camber's own rules and parameters beyond them are left out of its
    config: a tower's design range, say, is a camber parameter the reference refuses)."""
    script = ("import inspect, json; from camber.rules import builtin_registry; r = builtin_registry(); "
              "print(json.dumps({n: sorted(inspect.signature(type(r.get(n)).__init__).parameters) for n in r.names()}))")
    out = subprocess.run([ref_python, "-c", script], capture_output=True, text=True, check=True)
    return {n: set(ps) - {"self", "args", "kwargs"} for n, ps in json.loads(out.stdout).items()}


def reference_findings(ref_python, store, config, run_dir, equips, known):
    """The reference reads the same store through a store source; fleet findings name their units
    in metrics lists (outliers, ...), so any list of known equipment ids counts."""
    rules = [r if isinstance(r, str) else dict(r, params={k: v for k, v in r["params"].items() if k in known[r["name"]]})
             for r in config["rules"] if (r if isinstance(r, str) else r["name"]) in known]
    cfg = dict(config, rules=rules,
               source={"kind": "store", "store": os.path.abspath(store), "facility_id": config["source"]["facility_id"]})
    path = os.path.join(run_dir, "reference-config.json")
    json.dump(cfg, open(path, "w"), indent=1)
    out = os.path.join(run_dir, "reference")
    run_tool([ref_python, "-c", "import sys; from camber.cli import main; sys.exit(main())",
              "run", path, "--out", out, "--no-persist"])
    found = []
    for f in json.load(open(os.path.join(out, "findings.json"))):
        named = {x for v in (f.get("metrics") or {}).values() if isinstance(v, list) for x in v if x in equips}
        found.append({"rule": f["rule"], "equip": f["equip"], "severity": f["severity"], "summary": f["summary"],
                      "equips": sorted(named) if f["equip"].startswith("<") else []})
    return found


# ---------------------------------------------------------------- scoring
def alarms(findings):
    return [f for f in findings if f["severity"] in ALARM]


def key(f):
    return f["rule"], f["equip"], tuple(f["equips"])


def names(f, equip):
    return f["equip"] == equip or equip in f["equips"]


def score_fault(fault, faulted, clean):
    """found: an alarm of a targeted rule names the faulted equipment and the clean twin does not
    raise it, or raises it at a lower severity. "clean twin too": only alarms the twin raises as
    well name it (not a detection). side: the other alarms the twin does not raise."""
    clean_keys = {key(f): f["severity"] for f in alarms(clean)}
    hits = [dict(f, on_clean_twin=clean_keys.get(key(f))) for f in alarms(faulted)
            if f["rule"] in fault["rules"] and names(f, fault["equip"])]
    new_hits = [f for f in hits if not f["on_clean_twin"] or RANK[f["severity"]] > RANK[f["on_clean_twin"]]]
    side = [f for f in alarms(faulted) if key(f) not in clean_keys and key(f) not in {key(h) for h in new_hits}]
    status = "found" if new_hits else "clean twin too" if hits else "missed"
    return {"status": status, "by": new_hits or hits, "side_alarms": side}


def applies_to(entry, building):
    """A by_design entry holds for the buildings it names ("buildings": [...] or "building"), or
    for every building when it names none."""
    scope = entry.get("buildings", [entry["building"]] if "building" in entry else None)
    return scope is None or building in scope


def split_clean_alarms(clean, by_design, building):
    """(false alarms, alarms the prototype explains by design) of a clean twin of `building`. A
    by_design entry matches when it applies to the building (applies_to), the rule, an equipment
    pattern (the finding's equip or one of its equips) and, when it has one, a regular expression
    searched in the summary."""
    false, design = [], []
    for f in alarms(clean):
        why = next((d["reason"] for d in by_design if applies_to(d, building) and d["rule"] == f["rule"]
                    and any(fnmatch.fnmatchcase(e, d["equip"]) for e in [f["equip"]] + f["equips"])
                    and re.search(d.get("summary", ""), f["summary"])), None)
        (design if why else false).append(dict(f, by_design=why) if why else f)
    return false, design


def physical_effect(clean_dir, fault_dir, columns, start, hours="occupied"):
    """Mean of each column over occupied (or, with hours="unoccupied", unoccupied) rows (AHU-1
    occupancy) from the fault start: clean, faulted."""
    def rows(d):
        return list(csv.DictReader(open(os.path.join(d, "trends.csv"), newline="")))
    clean, fault = rows(clean_dir), rows(fault_dir)
    since = clean[0]["Time"][:5] + start if start else ""
    occ = "0.000" if hours == "unoccupied" else "1.000"
    keep = [i for i, r in enumerate(clean) if r.get("AHU-1 occupancy") == occ and r["Time"] >= since]
    mean = lambda rs, c: sum(float(rs[i][c]) for i in keep if rs[i][c]) / max(1, sum(1 for i in keep if rs[i][c]))
    return {c: {"clean": round(mean(clean, c), 2), "faulted": round(mean(fault, c), 2)}
            for c in columns if c in clean[0]}


# ---------------------------------------------------------------- report
def describe(f):
    unit = f" ({', '.join(f['equips'])})" if f["equips"] else ""
    return md_escape(f"{f['rule']} @ {f['equip']}{unit}")


def md_escape(text):
    """Text for a markdown table cell or list item: `|` and `<` escaped (a fleet's `<fleet>`
    or the site's `<site>` would read as an HTML tag and vanish), one line."""
    return text.replace("|", "\\|").replace("<", "\\<").replace("\n", " ")


def results_markdown(res):
    lines = [f"Run of {res['finished']} ({res['seconds']:.0f} s; camber built {res['camber_build']}, "
             f"reference camber-toolkit {res['reference_version']})."]
    if res["camber_rebuilt_during_run"]:
        lines.append("**The camber binary was rebuilt during the run: the cases may mix two builds; run again.**")
    lines += ["",
             "### Faults", "",
             "| case | fault | equipment | physical proof (occupied mean, clean → faulted) | targeted rules | camber | reference |",
             "|---|---|---|---|---|---|---|"]
    for c in res["cases"]:
        if not c["fault"]:
            continue
        proof = "; ".join(f"{col}: {v['clean']} → {v['faulted']}" for col, v in c["proof"].items())
        if c["fault"].get("proof_hours") == "unoccupied":
            proof = "(unoccupied mean) " + proof
        cell = lambda s: s["status"] + "".join(
            f"; {f['rule']} {f['severity']}" + (f" ({f['on_clean_twin']} on the twin)" if f["on_clean_twin"] else "") for f in s["by"])
        declined = "".join(f"; {d['rule']} declined ({md_escape(d['summary'].removeprefix('declined -- '))})"
                           for d in c.get("declined", []))
        lines.append(f"| {c['name']} | {md_escape(c['fault']['why'])} | {c['fault']['equip']} | {proof} | "
                     f"{', '.join(c['fault']['rules'])} | {cell(c['camber'])}{declined} | {cell(c['reference'])} |")
    lines += ["", "Side alarms (warn/fault findings on the faulted case that its clean twin does not raise, other "
              "than the detection itself):", ""]
    for c in res["cases"]:
        if c["fault"]:
            for tool in ("camber", "reference"):
                side = c[tool]["side_alarms"]
                lines.append(f"* {c['name']}, {tool}: " + ("; ".join(f"{describe(f)} [{f['severity']}]" for f in side) or "none"))
    lines += ["", "Biased sensors (the columns a fault's truth.json biases): does camber's `sensor_trust` name the "
              "point, by a reference that disagrees (configured, the site's own sensors of the same air, or the zones an air handler serves) or a "
              "verdict other than trusted? (The reference is not asked: its sensor_trust has no site comparison.)", "",
              "| case | column | bias | named | how |", "|---|---|---|---|---|"]
    for c in res["cases"]:
        for b in c.get("sensors") or []:
            lines.append(f"| {c['name']} | {b['column']} | {b['bias_F']:+g} °F | {'yes' if b['named'] else 'no'} | "
                         f"{md_escape(b['how']) or '-'} |")
    lines += ["", "### False alarms on the clean twins", "",
              "| twin | tool | rule | equipment | severity | summary |", "|---|---|---|---|---|---|"]
    for c in res["cases"]:
        if not c["fault"]:
            for tool in ("camber", "reference"):
                for f in c[tool]["false_alarms"]:
                    eq = md_escape(f["equip"] + (f" ({', '.join(f['equips'])})" if f["equips"] else ""))
                    lines.append(f"| {c['name']} | {tool} | {f['rule']} | {eq} | {f['severity']} | {md_escape(f['summary'])} |")
    lines += ["", "Explained by the prototype's design (not counted):", ""]
    for c in res["cases"]:
        if not c["fault"]:
            for tool in ("camber", "reference"):
                for f in c[tool]["by_design"]:
                    lines.append(f"* {c['name']}, {tool}: {describe(f)} [{f['severity']}]: {f['by_design']}")
    t = res["totals"]
    lines += ["", "### Totals", "", "| | camber | reference |", "|---|---|---|"]
    n = t["faults"]
    for k, label in (("found", f"faults found (of {n})"), ("clean twin too", f"flagged only as on the clean twin (of {n})"),
                     ("missed", f"faults missed (of {n})"), ("side_alarms", "side alarms"),
                     ("false_alarms", "false alarms on the clean twins")):
        lines.append(f"| {label} | {t['camber'][k]} | {t['reference'][k]} |")
    return "\n".join(lines) + "\n"


def update_doc(path, text):
    doc = open(path).read()
    a, b = doc.index(DOC_BEGIN) + len(DOC_BEGIN), doc.index(DOC_END)
    open(path, "w").write(doc[:a] + "\n" + text + doc[b:])


def totals(cases):
    t = {"faults": sum(1 for c in cases if c["fault"])}
    for tool in ("camber", "reference"):
        s = {"found": 0, "clean twin too": 0, "missed": 0, "side_alarms": 0, "false_alarms": 0}
        for c in cases:
            if c["fault"]:
                s[c[tool]["status"]] += 1
                s["side_alarms"] += len(c[tool]["side_alarms"])
            else:
                s["false_alarms"] += len(c[tool]["false_alarms"])
        t[tool] = s
    return t


# ---------------------------------------------------------------- main
def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--camber", required=True, help="the camber binary")
    ap.add_argument("--reference-python", required=True, help="python of a venv with camber-toolkit installed")
    ap.add_argument("--out", required=True, help="work and results directory")
    ap.add_argument("--lab", default=os.path.join(HERE, "lab.json"))
    ap.add_argument("--sim-python", default=sys.executable, help="python with pyenergyplus-lbnl (default: this one)")
    ap.add_argument("--only", nargs="*", help="run only these cases (and their clean twins)")
    ap.add_argument("--doc", help="markdown file whose lab-results section to rewrite (docs/VALIDATION.md)")
    a = ap.parse_args()
    t0 = time.time()
    lab = json.load(open(a.lab))
    unknown = {n for d in lab["by_design"] for n in d.get("buildings", [d["building"]] if "building" in d else [])} \
        - {b["name"] for b in lab["buildings"]}
    if unknown:
        sys.exit(f"by_design names unknown buildings: {sorted(unknown)}")
    cases = load_cases(lab)
    if a.only:
        wanted = set(a.only) | {c["clean"] for c in cases if c["name"] in a.only}
        cases = [c for c in cases if c["name"] in wanted]
    rules = rule_ids(a.camber)
    ref_rules = reference_rules(a.reference_python)
    build = time.ctime(os.path.getmtime(a.camber))
    ref_version = run_tool([a.reference_python, "-c", "import importlib.metadata as m; print(m.version('camber-toolkit'))"]).strip()

    by_name = {}
    for c in cases:
        sim_dir, store = (os.path.join(a.out, d, c["name"]) for d in ("sims", "stores"))
        run_dir = os.path.join(a.out, "runs", c["name"])
        os.makedirs(run_dir, exist_ok=True)
        t1 = time.time()
        how = simulate(c, a.sim_python, sim_dir)
        fid = facility_id(c["name"])
        ingest(a.camber, sim_dir, store, fid)
        config = run_config(fid, sim_dir, rules, c["rule_params"])
        config_path = os.path.join(run_dir, "config.json")
        json.dump(config, open(config_path, "w"), indent=1)
        equips = {col["equip"] for col in json.load(open(os.path.join(sim_dir, "mapping.json")))["columns"].values()}
        c["findings"] = {"camber": camber_findings(a.camber, store, fid, config_path),
                         "reference": reference_findings(a.reference_python, store, config, run_dir, equips, ref_rules)}
        if c["fault"]:
            c["sensors"] = sensors_named(a.camber, store, fid, config_path, sim_dir)
        targeted = [r for r in (c["fault"] or {}).get("rules", []) if r in rules]
        if targeted:
            c["declined"] = camber_declined(a.camber, store, fid, config_path, targeted, c["fault"]["equip"])
        for tool, fs in c["findings"].items():
            json.dump(fs, open(os.path.join(run_dir, f"{tool}-findings.json"), "w"), indent=1)
        c["sim_dir"] = sim_dir
        by_name[c["name"]] = c
        print(f"{c['name']}: {how}, {len(alarms(c['findings']['camber']))} camber / "
              f"{len(alarms(c['findings']['reference']))} reference warn+fault findings ({time.time() - t1:.0f} s)", flush=True)

    for c in cases:
        if c["fault"]:
            twin = by_name[c["clean"]]
            for tool in ("camber", "reference"):
                c[tool] = score_fault(c["fault"], c["findings"][tool], twin["findings"][tool])
            spec = json.load(open(os.path.join(HERE, c["fault"]["file"])))
            c["proof"] = physical_effect(twin["sim_dir"], c["sim_dir"], c["fault"]["proof"], spec.get("start"),
                                         c["fault"].get("proof_hours", "occupied"))
        else:
            for tool in ("camber", "reference"):
                false, design = split_clean_alarms(c["findings"][tool], lab["by_design"], c["building"])
                c[tool] = {"false_alarms": false, "by_design": design}

    keep = ("name", "building", "prototype", "weather", "start", "end", "clean", "fault", "proof", "camber", "reference",
            "declined", "sensors")
    rebuilt = time.ctime(os.path.getmtime(a.camber)) != build
    res = {"finished": time.strftime("%Y-%m-%d %H:%M"), "seconds": time.time() - t0, "camber": a.camber,
           "camber_build": build, "camber_rebuilt_during_run": rebuilt,
           "reference_version": ref_version, "rules": rules,
           "cases": [{k: c[k] for k in keep if k in c} for c in cases], "totals": totals(cases)}
    json.dump(res, open(os.path.join(a.out, "results.json"), "w"), indent=1)
    md = results_markdown(res)
    open(os.path.join(a.out, "results.md"), "w").write(md)
    if a.doc:
        update_doc(a.doc, md)
    print(md)


if __name__ == "__main__":
    main()
