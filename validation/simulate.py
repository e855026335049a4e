#!/usr/bin/env python3
"""Run an ASHRAE 90.1-2019 prototype (bundled with pyenergyplus-lbnl) for a date range, with an
optional injected fault, and write a wide trend CSV plus a camber mapping file.

    python simulate.py --prototype office_large --weather usa_co_denver \
        --start 07-01 --end 07-31 --fault faults/none.json --out OUT/large_jul_clean

Outputs in --out: trends.csv (Time + one column per point, IP units, local wall clock),
mapping.json (camber's wide-CSV mapping), truth.json (the fault spec, what it edited, which
columns carry a sensor bias), topology.json (camber's run-config topology: box -> AHU,
chiller -> plant), and the EnergyPlus run directory (eplus/).
"""
import argparse, csv, datetime as dt, json, os, random, re, shutil, sys, tempfile, time, zlib

from pyenergyplus.api import EnergyPlusAPI
from pyenergyplus.dataset import ashrae_models, weather_files

# ---------------------------------------------------------------- unit conversions
C2F = lambda c: c * 1.8 + 32.0
M3S2CFM = 2118.88                      # m3/s -> ft3/min
KGS2GPM = 15.850 / 1.0                 # kg/s of water (~1000 kg/m3) -> US gpm
W2KW = 0.001
W2MBH = 3.412142e-3                    # W -> kBtu/h
RHO_CHW, RHO_HW = 999.9, 983.2         # kg/m3 EnergyPlus uses at 5 C and 60 C to size water flows

FAULT_SCHED = "camber_fault_active"


# ---------------------------------------------------------------- model topology
class Model:
    """The epJSON dict with a few topology look-ups."""

    def __init__(self, ep):
        self.ep = ep

    def objs(self, kind):
        return self.ep.get(kind, {})

    def get(self, kind, name):
        for n, o in self.objs(kind).items():
            if n.upper() == name.upper():
                return o
        return None

    def branch_components(self, branch_list):
        out = []
        for b in self.get("BranchList", branch_list)["branches"]:
            out += self.get("Branch", b["branch_name"])["components"]
        return out

    def oa_controller(self, loop):
        ret = loop["supply_side_inlet_node_name"].upper()
        for n, c in self.objs("Controller:OutdoorAir").items():
            if c["return_air_node_name"].upper() == ret:
                return n, c
        return None, None

    def terminals(self, loop):
        """(terminal type, name, obj, zone) for each terminal fed by the loop's zone splitter."""
        inlet = loop["demand_side_inlet_node_names"].upper()
        outlets = set()
        for s in self.objs("AirLoopHVAC:ZoneSplitter").values():
            if s["inlet_node_name"].upper() == inlet:
                outlets |= {x["outlet_node_name"].upper() for x in s["nodes"]}
        adu_zone = {}
        for conn in self.objs("ZoneHVAC:EquipmentConnections").values():
            el = self.get("ZoneHVAC:EquipmentList", conn["zone_conditioning_equipment_list_name"])
            for e in el["equipment"]:
                adu_zone[e["zone_equipment_name"].upper()] = conn["zone_name"]
        out = []
        for adu_name, adu in self.objs("ZoneHVAC:AirDistributionUnit").items():
            kind, tname = adu["air_terminal_object_type"], adu["air_terminal_name"]
            t = self.get(kind, tname)
            if t and t.get("air_inlet_node_name", "").upper() in outlets:
                out.append((kind, tname, t, adu_zone.get(adu_name.upper())))
        return sorted(out, key=lambda x: x[1])

    def plant_loop_of(self, comp_name):
        for n, pl in self.objs("PlantLoop").items():
            for c in self.branch_components(pl["plant_side_branch_list_name"]):
                if c["component_name"].upper() == comp_name.upper():
                    return n, pl
        return None, None

    def zone_multiplier(self, zone):
        z = self.get("Zone", zone) or {}
        return float(z.get("multiplier", 1))


# ---------------------------------------------------------------- sizing (eplusout.eio)
def read_sizes(eio_path):
    """{(TYPE, NAME): {description: value}} from 'Component Sizing Information' lines."""
    sizes = {}
    for line in open(eio_path, errors="replace"):
        if not line.startswith(" Component Sizing Information,"):
            continue
        p = [x.strip() for x in line.split(",")]
        try:
            sizes.setdefault((p[1].upper(), p[2].upper()), {})[p[3]] = float(p[4])
        except (IndexError, ValueError):
            pass
    return sizes


def size_of(sizes, obj, kind, name, field, pattern):
    """A hard-coded epJSON value if there is one, else the eio value whose description matches
    `pattern` (a user-specified value wins over a design-size one)."""
    for fld in field.split("|"):
        v = (obj or {}).get(fld)
        if isinstance(v, (int, float)) and v > 0:
            return float(v)
    found = {d: x for d, x in sizes.get((kind.upper(), name.upper()), {}).items() if re.search(pattern, d, re.I)}
    for d, x in found.items():
        if d.startswith("User-Specified"):
            return x
    return next(iter(found.values()), None)


# ---------------------------------------------------------------- points
class Point:
    """One trend column: equipment, class, role, unit, and how to compute it from E+ series."""

    def __init__(self, column, equip, cls, role, unit, inputs, fn, note):
        self.column, self.equip, self.cls, self.role, self.unit = column, equip, cls, role, unit
        self.inputs, self.fn, self.note = inputs, fn, note  # inputs: [(key, variable)]


def build_points(m, ahu_names, plants):
    """Points for every air loop with an OA system and VAV terminals, and for the plant.
    Sizing-dependent conversions take a `sz` dict filled after the run."""
    pts, ahu_no = [], 0
    sz = {}  # (what, name) -> value, filled from the eio after the run
    add = lambda *a: pts.append(Point(*a))
    T = lambda key, note: ([(key, "System Node Temperature")], lambda v: C2F(v[0]), note)
    for lname, loop in sorted(m.objs("AirLoopHVAC").items()):
        ctrl_name, ctrl = m.oa_controller(loop)
        terms = [t for t in m.terminals(loop) if t[0].startswith("AirTerminal:SingleDuct:VAV")]
        if not ctrl or not terms:
            continue
        ahu_no += 1
        ahu = f"AHU-{ahu_no}"
        ahu_names[ahu] = {"air_loop": lname, "oa_controller": ctrl_name, "boxes": [f"VAV-{t[3]}" for t in terms]}
        comps = m.branch_components(loop["branch_list_name"])
        ret, sup = loop["supply_side_inlet_node_name"], loop["supply_side_outlet_node_names"]
        c = lambda role: f"{ahu} {role}"
        add(c("oat"), ahu, "AHU", "oat", "degF", [("Environment", "Site Outdoor Air Drybulb Temperature")],
            lambda v: C2F(v[0]), "weather-file dry bulb (plus any injected OA sensor bias)")
        add(c("return_air_temp"), ahu, "AHU", "return_air_temp", "degF", *T(ret, "air loop supply-side inlet node"))
        add(c("mixed_air_temp"), ahu, "AHU", "mixed_air_temp", "degF", *T(ctrl["mixed_air_node_name"], "OA mixer outlet node"))
        add(c("supply_air_temp"), ahu, "AHU", "supply_air_temp", "degF", *T(sup, "air loop supply outlet node (after fan)"))
        add(c("supply_air_temp_sp"), ahu, "AHU", "supply_air_temp_sp", "degF", [(sup, "System Node Setpoint Temperature")],
            lambda v: C2F(v[0]), "setpoint manager value on the supply outlet node")
        add(c("oa_damper"), ahu, "AHU", "oa_damper", "%", [(lname, "Air System Outdoor Air Flow Fraction")],
            lambda v: 100.0 * v[0], "outdoor-air mass flow / mixed-air mass flow")
        add(c("oa_airflow"), ahu, "AHU", "oa_airflow", "cfm", [(ctrl["actuator_node_name"], "System Node Standard Density Volume Flow Rate")],
            lambda v: M3S2CFM * v[0], "OA inlet node volume flow")
        add(c("econ_cmd"), ahu, "AHU", "econ_cmd", "", [(lname, "Air System Outdoor Air Economizer Status")],
            lambda v: 1.0 if v[0] > 0.5 else 0.0, "economizer active flag")
        for comp in comps:
            kind, name = comp["component_object_type"], comp["component_name"]
            out_node = comp["component_outlet_node_name"]
            if kind.startswith("Coil:Cooling") or kind.startswith("CoilSystem:Cooling"):
                add(c("cool_coil_leaving_temp"), ahu, "AHU", "cool_coil_leaving_temp", "degF", *T(out_node, f"{name} air outlet node"))
                if kind == "Coil:Cooling:Water":
                    w = m.get(kind, name)["water_inlet_node_name"]
                    add(c("cool_valve"), ahu, "AHU", "cool_valve", "%", [(w, "System Node Mass Flow Rate")],
                        lambda v, n=name: valve(v[0], sz.get(("cw", n)), RHO_CHW, sz.get(("leak", n), 0.0)),
                        "coil water flow / design water flow (linear valve, ideal controller)")
                    sz[("want_cw", name)] = (kind, name)
                else:
                    coil = m.get(kind, name).get("cooling_coil_name", name) if kind.startswith("CoilSystem") else name
                    add(c("cool_valve"), ahu, "AHU", "cool_valve", "%", [(coil, "Cooling Coil Total Cooling Rate")],
                        lambda v, n=coil: rate_pct(v[0], sz.get(("cap", n))), "DX coil cooling rate / rated capacity")
                    sz[("want_cap", coil)] = (m.get(kind, name).get("cooling_coil_object_type", kind), coil)
            elif kind.startswith("Coil:Heating"):
                add(c("heat_coil_leaving_temp"), ahu, "AHU", "heat_coil_leaving_temp", "degF", *T(out_node, f"{name} air outlet node"))
                if kind == "Coil:Heating:Water":
                    w = m.get(kind, name)["water_inlet_node_name"]
                    add(c("heat_valve"), ahu, "AHU", "heat_valve", "%", [(w, "System Node Mass Flow Rate")],
                        lambda v, n=name: valve(v[0], sz.get(("hw", n)), RHO_HW, sz.get(("leak", n), 0.0)),
                        "coil water flow / design water flow (linear valve, ideal controller)")
                    sz[("want_hw", name)] = (kind, name)
                else:
                    add(c("heat_valve"), ahu, "AHU", "heat_valve", "%", [(name, "Heating Coil Heating Rate")],
                        lambda v, n=name: rate_pct(v[0], sz.get(("cap", n))), "heating rate / nominal capacity")
                    sz[("want_cap", name)] = (kind, name)
            elif kind.startswith("Fan:"):
                add(c("supply_fan_speed"), ahu, "AHU", "supply_fan_speed", "%", [(out_node, "System Node Standard Density Volume Flow Rate")],
                    lambda v, n=name: rate_pct(v[0], sz.get(("fan", n))), "fan flow / design flow (speed ~ flow on a fixed system curve)")
                add(c("supply_fan_status"), ahu, "AHU", "supply_fan_status", "", [(out_node, "System Node Mass Flow Rate")],
                    lambda v: 1.0 if v[0] > 1e-3 else 0.0, "1 when the fan moves air")
                add(c("airflow"), ahu, "AHU", "airflow", "cfm", [(out_node, "System Node Standard Density Volume Flow Rate")],
                    lambda v: M3S2CFM * v[0], "supply fan outlet volume flow")
                add(c("power"), ahu, "AHU", "power", "kW", [(name, "Fan Electricity Rate")], lambda v: W2KW * v[0], "fan electric power")
                sz[("want_fan", name)] = (kind, name)
        add(c("occupancy"), ahu, "AHU", "occupancy", "", [("HVACOperationSchd", "Schedule Value")],
            lambda v: 1.0 if v[0] > 0.5 else 0.0, "occupied-mode schedule (HVACOperationSchd)")
        for kind, tname, t, zone in terms:
            mult = m.zone_multiplier(zone)
            box = f"VAV-{zone}"
            b = lambda role: f"{box} {role}"
            outn = t["air_outlet_node_name"]
            add(b("space_temp"), box, "VAV", "space_temp", "degF", [(zone, "Zone Air Temperature")],
                lambda v: C2F(v[0]), "zone mean air temperature (plus any injected thermostat bias)")
            add(b("cool_sp"), box, "VAV", "cool_sp", "degF", [(zone, "Zone Thermostat Cooling Setpoint Temperature")],
                lambda v: C2F(v[0]), "thermostat cooling setpoint")
            add(b("heat_sp"), box, "VAV", "heat_sp", "degF", [(zone, "Zone Thermostat Heating Setpoint Temperature")],
                lambda v: C2F(v[0]), "thermostat heating setpoint")
            add(b("airflow"), box, "VAV", "airflow", "cfm", [(outn, "System Node Standard Density Volume Flow Rate")],
                lambda v, k=mult: M3S2CFM * v[0] / k, f"box outlet node flow / zone multiplier {mult:g}")
            add(b("airflow_min_sp"), box, "VAV", "airflow_min_sp", "", [(tname, "Zone Air Terminal Minimum Air Flow Fraction")],
                lambda v, n=tname, k=mult: M3S2CFM * v[0] * (sz.get(("box", n)) or float("nan")) / k,
                "minimum flow fraction x box design max flow, cfm")
            add(b("damper"), box, "VAV", "damper", "%", [(tname, "Zone Air Terminal VAV Damper Position")],
                lambda v: 100.0 * v[0], "terminal damper position (fraction of max flow)")
            add(b("supply_air_temp"), box, "VAV", "supply_air_temp", "degF", *T(outn, "box discharge node"))
            add(b("occupancy"), box, "VAV", "occupancy", "", [("HVACOperationSchd", "Schedule Value")],
                lambda v: 1.0 if v[0] > 0.5 else 0.0, "occupied-mode schedule")
            sz[("want_box", tname)] = (kind, tname)
            frac = t.get("constant_minimum_air_flow_fraction")
            if isinstance(frac, (int, float)):
                # the box's minimum as designed, read before any fault edits the model
                sz[("design_min", box)] = (tname, float(frac), mult)
            rk, rn = t.get("reheat_coil_object_type", ""), t.get("reheat_coil_name")
            if rk == "Coil:Heating:Water":
                w = m.get(rk, rn)["water_inlet_node_name"]
                add(b("heat_valve"), box, "VAV", "heat_valve", "%", [(w, "System Node Mass Flow Rate")],
                    lambda v, n=rn: valve(v[0], sz.get(("hw", n)), RHO_HW), "reheat water flow / design water flow")
                sz[("want_hw", rn)] = (rk, rn)
            elif rn:
                add(b("heat_valve"), box, "VAV", "heat_valve", "%", [(rn, "Heating Coil Heating Rate")],
                    lambda v, n=rn: rate_pct(v[0], sz.get(("cap", n))), "reheat rate / nominal capacity")
                sz[("want_cap", rn)] = (rk, rn)
    plant_points(m, pts, sz, plants)
    return pts, sz


def plant_points(m, pts, sz, plants):
    add = lambda *a: pts.append(Point(*a))
    chillers = [(k, n, o) for k in ("Chiller:Electric:ReformulatedEIR", "Chiller:Electric:EIR", "Chiller:Electric")
                for n, o in m.objs(k).items()]
    for i, (kind, n, o) in enumerate(sorted(chillers, key=lambda x: x[1]), 1):
        e = f"CH-{i}"
        c = lambda role: f"{e} {role}"
        add(c("chw_supply_temp"), e, "CHILLER", "chw_supply_temp", "degF", [(n, "Chiller Evaporator Outlet Temperature")], lambda v: C2F(v[0]), "evaporator leaving water")
        add(c("chw_return_temp"), e, "CHILLER", "chw_return_temp", "degF", [(n, "Chiller Evaporator Inlet Temperature")], lambda v: C2F(v[0]), "evaporator entering water")
        add(c("chw_flow"), e, "CHILLER", "chw_flow", "gpm", [(n, "Chiller Evaporator Mass Flow Rate")], lambda v: KGS2GPM * v[0], "evaporator water flow")
        add(c("power"), e, "CHILLER", "power", "kW", [(n, "Chiller Electricity Rate")], lambda v: W2KW * v[0], "compressor electric power")
        add(c("compressor_status"), e, "CHILLER", "compressor_status", "", [(n, "Chiller Part Load Ratio")], lambda v: 1.0 if v[0] > 0 else 0.0, "1 when part-load ratio > 0")
        if o.get("condenser_type", "WaterCooled").lower() == "watercooled":
            # an air-cooled chiller's condenser inlet is outdoor air, not condenser water
            add(c("cond_entering_water_temp"), e, "CHILLER", "cond_entering_water_temp", "degF", [(n, "Chiller Condenser Inlet Temperature")], lambda v: C2F(v[0]), "condenser entering water")
        else:
            # an air-cooled chiller's controller reads the air entering its condenser coils
            add(c("oat"), e, "CHILLER", "oat", "degF", [(n, "Chiller Condenser Inlet Temperature")], lambda v: C2F(v[0]), "condenser entering (outdoor) air")
        loop, pl = m.plant_loop_of(n)
        plants.setdefault(loop, []).append(e)
        if pl:
            add(c("chw_supply_temp_sp"), e, "CHILLER", "chw_supply_temp_sp", "degF", [(pl["loop_temperature_setpoint_node_name"], "System Node Setpoint Temperature")],
                lambda v: C2F(v[0]), "plant loop supply setpoint")
    boilers = [(n, o) for n, o in m.objs("Boiler:HotWater").items() if "dummy" not in n.lower()]
    for i, (n, o) in enumerate(sorted(boilers), 1):
        e = f"B-{i}"
        c = lambda role: f"{e} {role}"
        add(c("hw_supply_temp"), e, "BOILER", "hw_supply_temp", "degF", [(n, "Boiler Outlet Temperature")], lambda v: C2F(v[0]), "boiler leaving water")
        add(c("hw_return_temp"), e, "BOILER", "hw_return_temp", "degF", [(n, "Boiler Inlet Temperature")], lambda v: C2F(v[0]), "boiler entering water")
        add(c("hw_flow"), e, "BOILER", "hw_flow", "gpm", [(n, "Boiler Mass Flow Rate")], lambda v: KGS2GPM * v[0], "boiler water flow")
        add(c("gas_input_rate"), e, "BOILER", "gas_input_rate", "", [(n, "Boiler NaturalGas Rate")], lambda v: W2MBH * v[0], "gas input, kBtu/h (MBH)")
        add(c("boiler_status"), e, "BOILER", "boiler_status", "", [(n, "Boiler Part Load Ratio")], lambda v: 1.0 if v[0] > 0 else 0.0, "1 when part-load ratio > 0")
    towers = [(k, n) for k in ("CoolingTower:VariableSpeed", "CoolingTower:SingleSpeed", "CoolingTower:TwoSpeed") for n in m.objs(k)]
    for i, (kind, n) in enumerate(sorted(towers, key=lambda x: x[1]), 1):
        e = f"CT-{i}"
        c = lambda role: f"{e} {role}"
        add(c("cw_supply_temp"), e, "COOLING_TOWER", "cw_supply_temp", "degF", [(n, "Cooling Tower Outlet Temperature")], lambda v: C2F(v[0]), "tower leaving (condenser supply) water")
        add(c("cw_return_temp"), e, "COOLING_TOWER", "cw_return_temp", "degF", [(n, "Cooling Tower Inlet Temperature")], lambda v: C2F(v[0]), "tower entering water")
        add(c("cw_flow"), e, "COOLING_TOWER", "cw_flow", "gpm", [(n, "Cooling Tower Mass Flow Rate")], lambda v: KGS2GPM * v[0], "tower water flow")
        if kind == "CoolingTower:VariableSpeed":
            add(c("tower_fan_speed"), e, "COOLING_TOWER", "tower_fan_speed", "%", [(n, "Cooling Tower Air Flow Rate Ratio")], lambda v: 100.0 * v[0], "tower air flow ratio")
        add(c("power"), e, "COOLING_TOWER", "power", "kW", [(n, "Cooling Tower Fan Electricity Rate")], lambda v: W2KW * v[0], "tower fan power")
        add(c("wetbulb_temp"), e, "COOLING_TOWER", "wetbulb_temp", "degF", [("Environment", "Site Outdoor Air Wetbulb Temperature")], lambda v: C2F(v[0]), "weather-file wet bulb")
        add(c("oat"), e, "COOLING_TOWER", "oat", "degF", [("Environment", "Site Outdoor Air Drybulb Temperature")], lambda v: C2F(v[0]), "weather-file dry bulb")


def valve(mdot, design_m3s, rho, leak_m3s=0.0):
    """Valve command as the controlled share of design flow. A leak (water that passes with the
    valve shut) is not part of the command: the BAS shows 0 % while the leak flows."""
    if not design_m3s:
        return float("nan")
    q = mdot / rho
    return min(100.0, max(0.0, 100.0 * (q - leak_m3s) / (design_m3s - leak_m3s)))


def rate_pct(x, design):
    if not design:
        return float("nan")
    return min(100.0, max(0.0, 100.0 * x / design))


def fill_sizes(sz, m, sizes):
    for key, val in list(sz.items()):
        what = key[0]
        if not what.startswith("want_"):
            continue
        kind, name = val
        obj = m.get(kind, name)
        if what == "want_cw":
            sz[("cw", name)] = size_of(sizes, obj, kind, name, "design_water_flow_rate", r"water.flow.rate")
        elif what == "want_hw":
            sz[("hw", name)] = size_of(sizes, obj, kind, name, "maximum_water_flow_rate", r"water.flow.rate")
        elif what == "want_fan":
            sz[("fan", name)] = size_of(sizes, obj, kind, name, "maximum_flow_rate", r"maximum.flow.rate|design.maximum.air.flow")
        elif what == "want_box":
            sz[("box", name)] = size_of(sizes, obj, kind, name, "maximum_air_flow_rate", r"maximum air flow rate")
        elif what == "want_cap":
            sz[("cap", name)] = size_of(sizes, obj, kind, name, "nominal_capacity|high_speed_gross_rated_total_cooling_capacity|gross_rated_total_cooling_capacity",
                                        r"nominal.capacity|rated_capacity|gross.rated.total.cooling.capacity")


# ---------------------------------------------------------------- faults
def ahu_loop(ahus, spec):
    return ahus[spec["ahu"]]


def apply_faults(m, spec, ahus, year, sz):
    """Edit the model for each fault in the spec. Returns [(column, offset_F)] for sensor biases
    the BAS would see, and a list of human-readable edits."""
    ep, biases, edits = m.ep, [], []
    start = spec.get("start")  # "MM-DD": the fault is active from this day on
    if start:
        mm, dd = map(int, start.split("-"))
        day_before = dt.date(year, mm, dd) - dt.timedelta(days=1)
        data = []
        if day_before.year == year:
            data += [{"field": f"Through: {day_before.month:02d}/{day_before.day:02d}"}, {"field": "For: AllDays"},
                     {"field": "Until: 24:00"}, {"field": 0}]
        data += [{"field": "Through: 12/31"}, {"field": "For: AllDays"}, {"field": "Until: 24:00"}, {"field": 1}]
        ep.setdefault("Schedule:Compact", {})[FAULT_SCHED] = {"data": data}
    avail = {"availability_schedule_name": FAULT_SCHED} if start else {}
    dC = lambda f: f["delta_F"] / 1.8
    for i, f in enumerate(spec.get("faults", [])):
        t, name = f["type"], f"camber fault {i + 1}"
        if t == "oat_sensor_offset":
            ctrl = ahu_loop(ahus, f)["oa_controller"]
            ep.setdefault("FaultModel:TemperatureSensorOffset:OutdoorAir", {})[name] = dict(
                avail, controller_object_type="Controller:OutdoorAir", controller_object_name=ctrl, temperature_sensor_offset=dC(f))
            biases.append((f"{f['ahu']} oat", f["delta_F"]))
        elif t == "rat_sensor_offset":
            ctrl = ahu_loop(ahus, f)["oa_controller"]
            ep.setdefault("FaultModel:TemperatureSensorOffset:ReturnAir", {})[name] = dict(
                avail, controller_object_type="Controller:OutdoorAir", controller_object_name=ctrl, temperature_sensor_offset=dC(f))
            biases.append((f"{f['ahu']} return_air_temp", f["delta_F"]))
        elif t == "thermostat_offset":
            tstat = next(n for n, o in m.objs("ZoneControl:Thermostat").items() if o["zone_or_zonelist_name"].upper() == f["zone"].upper())
            ep.setdefault("FaultModel:ThermostatOffset", {})[name] = dict(
                avail, thermostat_name=tstat, reference_thermostat_offset=dC(f))
            # EnergyPlus shifts the effective setpoints by -offset; the BAS shows the configured
            # setpoints and a reading of actual + offset
            for col in ("space_temp", "cool_sp", "heat_sp"):
                biases.append((f"VAV-{f['zone']} {col}", f["delta_F"]))
        elif t == "coil_fouling":
            ep.setdefault("FaultModel:Fouling:Coil", {})[name] = dict(
                avail, coil_name=f["coil"], fouling_input_method="FoulingFactor",
                water_side_fouling_factor=f.get("water_side_fouling_factor", 0.0003),
                air_side_fouling_factor=f.get("air_side_fouling_factor", 0.0003),
                outside_coil_surface_area=f.get("outside_coil_surface_area", 100.0),
                inside_to_outside_coil_surface_area_ratio=f.get("inside_to_outside_coil_surface_area_ratio", 0.07))
        elif t == "chiller_fouling":
            kind = next(k for k in ("Chiller:Electric:ReformulatedEIR", "Chiller:Electric:EIR") if m.get(k, f["chiller"]))
            ep.setdefault("FaultModel:Fouling:Chiller", {})[name] = dict(
                avail, chiller_object_type=kind, chiller_object_name=f["chiller"], fouling_factor=f.get("fouling_factor", 0.7))
        elif t == "tower_fouling":
            # FaultModel:Fouling:CoolingTower takes SingleSpeed, TwoSpeed and VariableSpeed:MERKEL
            kind = next(k for k in ("CoolingTower:SingleSpeed", "CoolingTower:TwoSpeed", "CoolingTower:VariableSpeed:Merkel",
                                    "CoolingTower:VariableSpeed") if m.get(k, f["tower"]))
            if kind == "CoolingTower:VariableSpeed":
                sys.exit("CoolingTower:VariableSpeed (CoolTools) has no fouling fault; use tower_degraded")
            ep.setdefault("FaultModel:Fouling:CoolingTower", {})[name] = dict(
                avail, cooling_tower_object_type=kind, cooling_tower_object_name=f["tower"],
                reference_ua_reduction_factor=f.get("ua_factor", 0.5))
        elif t == "tower_degraded":
            # CoolTools towers: a worse design approach is a tower that delivers warmer water at
            # the same wet bulb, range and flows (whole run; the object has no schedule)
            m.get("CoolingTower:VariableSpeed", f["tower"])["design_approach_temperature"] = f["design_approach_F"] / 1.8
        elif t == "chw_sensor_offset":
            kind = next(k for k in ("Chiller:Electric:ReformulatedEIR", "Chiller:Electric:EIR") if m.get(k, f["chiller"]))
            ep.setdefault("FaultModel:TemperatureSensorOffset:ChillerSupplyWater", {})[name] = dict(
                avail, chiller_object_type=kind, chiller_object_name=f["chiller"], reference_sensor_offset=dC(f))
            # the BAS trends the chiller's own (biased) sensor; plant_points names chillers
            # CH-1, CH-2, ... in the order of their object names
            names = sorted(n for k in ("Chiller:Electric:ReformulatedEIR", "Chiller:Electric:EIR", "Chiller:Electric")
                           for n in m.objs(k))
            biases.append((f"CH-{names.index(f['chiller']) + 1} chw_supply_temp", f["delta_F"]))
        elif t == "oa_min_fraction":
            ctrl = m.get("Controller:OutdoorAir", ahu_loop(ahus, f)["oa_controller"])
            s = f"camber min OA {i + 1}"
            ep.setdefault("Schedule:Compact", {})[s] = sched_after(start, f["fraction"], year)
            ctrl["minimum_fraction_of_outdoor_air_schedule_name"] = s
        elif t == "oa_damper_stuck":
            ctrl = m.get("Controller:OutdoorAir", ahu_loop(ahus, f)["oa_controller"])
            s = f"camber stuck OA {i + 1}"
            ep.setdefault("Schedule:Compact", {})[s] = {"data": [{"field": "Through: 12/31"}, {"field": "For: AllDays"},
                                                                 {"field": "Until: 24:00"}, {"field": f["fraction"]}]}
            ctrl["minimum_fraction_of_outdoor_air_schedule_name"] = s
            ctrl["maximum_fraction_of_outdoor_air_schedule_name"] = s
            ctrl["economizer_control_type"] = "NoEconomizer" if f["fraction"] < 1 else ctrl["economizer_control_type"]
        elif t == "leaking_valve":
            # a leak is water that flows with the valve commanded shut: the coil controller's
            # minimum actuated flow (whole run; Controller:WaterCoil has no schedule)
            loop = m.get("AirLoopHVAC", ahu_loop(ahus, f)["air_loop"])
            want = "Coil:Heating:Water" if f.get("coil", "heat") == "heat" else "Coil:Cooling:Water"
            coil = next(c["component_name"] for c in m.branch_components(loop["branch_list_name"]) if c["component_object_type"] == want)
            wnode = m.get(want, coil)["water_inlet_node_name"].upper()
            cname, ctl = next((n, o) for n, o in m.objs("Controller:WaterCoil").items() if o["actuator_node_name"].upper() == wnode)
            ctl["minimum_actuated_flow"] = f["flow_m3s"]
            sz[("leak", coil)] = f["flow_m3s"]
            edits.append(f"Controller:WaterCoil {cname}: minimum_actuated_flow = {f['flow_m3s']} m3/s")
        elif t == "epjson":
            for kind, objs in f.get("add", {}).items():
                ep.setdefault(kind, {}).update(objs)
            for kind, oname, field, value in f.get("set", []):
                m.get(kind, oname)[field] = value
        else:
            sys.exit(f"unknown fault type {t!r}")
        edits.append(f"{t}: {json.dumps(f)}")
    return biases, edits


def sched_after(start, value, year):
    """`value` from the start day on (0 before it), like the FaultModel availability schedule."""
    data = []
    if start:
        mm, dd = map(int, start.split("-"))
        day_before = dt.date(year, mm, dd) - dt.timedelta(days=1)
        if day_before.year == year:
            data += [{"field": f"Through: {day_before.month:02d}/{day_before.day:02d}"}, {"field": "For: AllDays"},
                     {"field": "Until: 24:00"}, {"field": 0}]
    data += [{"field": "Through: 12/31"}, {"field": "For: AllDays"}, {"field": "Until: 24:00"}, {"field": value}]
    return {"data": data}


# ---------------------------------------------------------------- sensor noise
# EnergyPlus reports the model's exact state: a controlled water temperature sits on its
# setpoint to the last digit for weeks, which no real sensor does (and which camber's sensor
# trust rightly reads as a frozen point). Measured points get a sensor's noise; setpoints,
# commands, statuses and schedules are written as the controller holds them.
TEMP_NOISE_F = 0.1                      # standard deviation of a temperature sensor, degF
RELATIVE_NOISE = {"airflow": 0.01, "oa_airflow": 0.01, "chw_flow": 0.01, "cw_flow": 0.01,
                  "hw_flow": 0.01, "power": 0.005, "gas_input_rate": 0.01}


def noise_of(role):
    """(absolute degF, relative share) of the sensor noise a role's point carries."""
    if role.endswith("_sp"):
        return 0.0, 0.0
    if role.endswith("_temp") or role in ("oat",):
        return TEMP_NOISE_F, 0.0
    return 0.0, RELATIVE_NOISE.get(role, 0.0)


def noise_source(column):
    """The same noise for a column in every run of a building: a fault and its twin differ by
    the fault alone."""
    return random.Random(zlib.crc32(column.encode()))


# ---------------------------------------------------------------- run + export
def prepare(ep, start, end, year, points):
    sm, sd = map(int, start.split("-"))
    em, ed = map(int, end.split("-"))
    ep["RunPeriod"] = {"camber run": {
        "begin_month": sm, "begin_day_of_month": sd, "begin_year": year,
        "end_month": em, "end_day_of_month": ed, "end_year": year,
        "use_weather_file_holidays_and_special_days": "No", "use_weather_file_daylight_saving_period": "No",
        "apply_weekend_holiday_rule": "No", "use_weather_file_rain_indicators": "Yes", "use_weather_file_snow_indicators": "Yes"}}
    ep["Timestep"] = {"Timestep 1": {"number_of_timesteps_per_hour": 4}}
    ep.pop("Output:Variable", None)
    ep.pop("Output:Meter", None)
    want = {(k.upper(), v) for p in points for k, v in p.inputs} | {("ENVIRONMENT", "Site Daylight Saving Time Status")}
    ep["Output:Variable"] = {f"camber out {i}": {"key_value": k, "variable_name": v, "reporting_frequency": "Timestep"}
                             for i, (k, v) in enumerate(sorted(want))}
    ep["OutputControl:Files"] = {"OutputControl:Files 1": {
        "output_csv": "Yes", "output_eso": "No", "output_mtr": "No", "output_eio": "Yes", "output_tabular": "No",
        "output_sqlite": "No", "output_json": "No", "output_dxf": "No", "output_shd": "No", "output_audit": "No",
        "output_rdd": "Yes", "output_mdd": "No", "output_bnd": "No", "output_end": "Yes", "output_zone_sizing": "No",
        "output_system_sizing": "No", "output_space_sizing": "No"}}


def run_energyplus(epjson_path, weather, outdir):
    api = EnergyPlusAPI()
    state = api.state_manager.new_state()
    api.runtime.set_console_output_status(state, False)
    rc = api.runtime.run_energyplus(state, ["-w", weather, "-d", outdir, epjson_path])
    api.state_manager.delete_state(state)
    return rc


def read_eplus_csv(path):
    with open(path, newline="") as fh:
        r = csv.reader(fh)
        header = next(r)
        cols = {}
        for i, h in enumerate(header[1:], 1):
            mt = re.match(r"\s*(.*?):(.*?) \[.*\]\(TimeStep\)", h)
            if mt:
                cols[(mt.group(1).strip().upper(), mt.group(2).strip())] = i
        rows = [row for row in r]
    return cols, rows


def stamp(text, year):
    """' 07/01  00:15:00' (interval end, standard time) -> datetime."""
    md, hms = text.split()
    mo, d = map(int, md.split("/"))
    h, mi, _ = map(int, hms.split(":"))
    return dt.datetime(year, mo, d) + dt.timedelta(hours=h, minutes=mi)


def topology(ahus, plants, equips):
    """camber's run-config topology: each VAV box to the AHU that serves it, each chiller to its
    plant (PLANT-1, ... in plant-loop name order). Only equipment that has trend columns."""
    parents = {box: ahu for ahu, info in ahus.items() for box in info["boxes"] if box in equips}
    for i, (loop, chillers) in enumerate(sorted(plants.items()), 1):
        parents.update({ch: f"PLANT-{i}" for ch in chillers if ch in equips})
    return {"parents": parents}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--prototype", default="office_large", choices=sorted(ashrae_models))
    ap.add_argument("--weather", default="usa_co_denver", help=f"one of {sorted(weather_files)} or an .epw path")
    ap.add_argument("--start", default="07-01", help="MM-DD")
    ap.add_argument("--end", default="07-31", help="MM-DD (inclusive)")
    ap.add_argument("--year", type=int, default=2023, help="calendar year for weekdays and timestamps")
    ap.add_argument("--fault", help="fault spec JSON file (omit for a fault-free run)")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()

    spec = json.load(open(a.fault)) if a.fault else {"name": "none", "faults": []}
    weather = weather_files.get(a.weather, a.weather)
    os.makedirs(a.out, exist_ok=True)
    run_dir = os.path.join(a.out, "eplus")
    shutil.rmtree(run_dir, ignore_errors=True)
    os.makedirs(run_dir)

    # the bundled prototypes are IDF; convert once to epJSON (EnergyPlus --convert-only)
    with tempfile.TemporaryDirectory() as tmp:
        api = EnergyPlusAPI()
        st = api.state_manager.new_state()
        api.runtime.set_console_output_status(st, False)
        api.runtime.run_energyplus(st, ["--convert-only", "-d", tmp, ashrae_models[a.prototype]])
        api.state_manager.delete_state(st)
        conv = [f for f in os.listdir(tmp) if f.endswith(".epJSON")][0]
        ep = json.load(open(os.path.join(tmp, conv)))

    m = Model(ep)
    ahus, plants = {}, {}
    points, sz = build_points(m, ahus, plants)
    biases, edits = apply_faults(m, spec, ahus, a.year, sz)
    prepare(ep, a.start, a.end, a.year, points)
    path = os.path.join(run_dir, "in.epJSON")
    json.dump(ep, open(path, "w"), indent=1)

    t0 = time.time()
    rc = run_energyplus(path, weather, run_dir)
    secs = time.time() - t0
    err = open(os.path.join(run_dir, "eplusout.err"), errors="replace").read()
    if rc != 0:
        sys.exit(f"EnergyPlus failed (rc {rc}); see {run_dir}/eplusout.err:\n" + "\n".join(l for l in err.splitlines() if "Severe" in l or "Fatal" in l)[:3000])
    print(f"EnergyPlus finished in {secs:.1f} s; {err.strip().splitlines()[-1].strip()}")

    fill_sizes(sz, m, read_sizes(os.path.join(run_dir, "eplusout.eio")))
    cols, rows = read_eplus_csv(os.path.join(run_dir, "eplusout.csv"))
    missing = sorted({f"{k}:{v}" for p in points for k, v in p.inputs if (k.upper(), v) not in cols})
    if missing:
        print(f"warning: {len(missing)} requested outputs not produced, their points are dropped: {missing[:8]}")
    points = [p for p in points if all((k.upper(), v) in cols for k, v in p.inputs)]
    bias = dict(biases)
    # a sensor reads wrong from the day its fault starts, as the model's fault does
    start = spec.get("start")
    bias_from = dt.datetime(a.year, *map(int, start.split("-"))) if start else None
    dst_col = cols[("ENVIRONMENT", "Site Daylight Saving Time Status")]
    noise = {p.column: (noise_of(p.role), noise_source(p.column)) for p in points}
    csv_path = os.path.join(a.out, "trends.csv")
    with open(csv_path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["Time"] + [p.column for p in points])
        for row in rows:
            if not row or not row[0].strip():
                continue
            # EnergyPlus stamps interval ends in standard time; shift to the wall clock
            t = stamp(row[0], a.year) + dt.timedelta(hours=float(row[dst_col]))
            out = [t.strftime("%Y-%m-%d %H:%M")]
            for p in points:
                biased = bias_from is None or t >= bias_from
                v = p.fn([float(row[cols[(k.upper(), var)]]) for k, var in p.inputs]) + (bias.get(p.column, 0.0) if biased else 0.0)
                (absolute, relative), rng = noise[p.column]
                if v == v and (absolute or relative):
                    v = v + rng.gauss(0.0, absolute) if absolute else v * (1.0 + rng.gauss(0.0, relative))
                out.append("" if v != v else f"{v:.3f}")
            w.writerow(out)
    mapping = {"timestamp": "Time", "columns": {p.column: {"equip": p.equip, "equip_class": p.cls, "role": p.role, "unit": p.unit} for p in points}}
    json.dump(mapping, open(os.path.join(a.out, "mapping.json"), "w"), indent=1)
    json.dump(topology(ahus, plants, {p.equip for p in points}), open(os.path.join(a.out, "topology.json"), "w"), indent=1)
    # the VAV schedule of the unmodified prototype: each box's minimum airflow as designed
    designed = {key[1]: v for key, v in sz.items() if key[0] == "design_min"}
    schedule = {box: round(M3S2CFM * frac * sz[("box", tname)] / mult, 1)
                for box, (tname, frac, mult) in designed.items() if sz.get(("box", tname))}
    truth = {"prototype": a.prototype, "weather": weather, "period": [a.start, a.end], "year": a.year,
             "fault": spec, "edits": edits, "biased_columns": biases, "ahus": ahus, "plants": plants,
             "design_min_airflow_cfm": schedule, "sensor_noise": {"temperature_degF": TEMP_NOISE_F, "relative": RELATIVE_NOISE},
             "energyplus_seconds": round(secs, 1),
             "sources": {p.column: {"inputs": p.inputs, "note": p.note} for p in points}}
    json.dump(truth, open(os.path.join(a.out, "truth.json"), "w"), indent=1)
    print(f"wrote {csv_path} ({len(rows)} rows x {len(points)} points), mapping.json, truth.json")


if __name__ == "__main__":
    main()
