//! The run capabilities: `rule_run` (every rule of the facility's run config on its equipment,
//! worst first), `finding_detail` (one finding of the same run in full: parameters and where
//! each came from, flagged time spans per condition, the evidence chart that applies) and
//! `sensor_trust` (the trust score of each point the run reads, scored on the same frames by
//! the same function the trust floor uses, and the reference comparisons: configured, the
//! site's own outdoor sensors, the zones an air handler serves); and
//! `drift` (the equipment against its own known-good behaviour, on the same frames and floor);
//! `mv_summary` (measured savings with their uncertainty, from the config's M&V entries); and
//! `rcx_report` (the rule run and the drift section grouped into ranked, costed issues).

mod detail;
mod drift;
mod mv;
mod prepare;
mod progress;
mod rcx;
mod run;
mod schemas;
mod trust;

use camber_sdk::{Capability, Plugin};

fn plugin() -> Plugin {
    Plugin::new()
        .capability(
            Capability::new("rule_run", run::rule_run)
                .title("Run the fault-detection rules")
                .description(
                    "Runs the facility's fault-detection rules (its run config, else the dataset's template, else \
                     every rule at its defaults on every stored equipment class) and returns the findings worst \
                     first: finding_id (<rule>@<equip>), severity (fault / warn / info / ok), summary, caveats, \
                     scalar metrics, the share of the samples the rule judged and what they are, and conditional_on \
                     when a reference disagrees with an input (see sensor_trust); counts per severity; the rules skipped \
                     for missing inputs. A check whose input scores below the trust floor is declined (info), \
                     never passed. Narrow with rules, equips, start / end (site wall clock), params \
                     ({rule: {param: value}}, see rule_params) and min_severity. Pages of 25 findings and 25 \
                     skipped rules (limit, offset). Pass a finding_id with the same arguments to finding_detail.",
                )
                .input_schema(schemas::rule_run_input())
                .output_schema(schemas::rule_run_output())
                .cost("long-running"),
        )
        .capability(
            Capability::new("finding_detail", detail::finding_detail)
                .title("One finding in detail")
                .description(
                    "One finding of a rule_run (same facility_id, rules, params, equips, start and end, plus its \
                     finding_id): every metric, the parameters it ran with and where each came from (call, config, \
                     default, or the rule's built-in fallback), its flagged hours as contiguous time spans overall \
                     and per named condition (or why there are none), the samples it judged, any reference it is \
                     conditional on, and its evidence chart: the signals it read over the window with the flagged \
                     spans shaded, attached as a PNG image (image: false leaves it out).",
                )
                .input_schema(schemas::finding_detail_input())
                .output_schema(schemas::finding_detail_output())
                .cost("long-running"),
        )
        .capability(
            Capability::new("sensor_trust", trust::sensor_trust)
                .title("How far each sensor can be trusted")
                .description(
                    "Per point the trust score (0-1), verdict (trusted / suspect / untrusted), flags (low coverage, \
                     out of range, spikes, stuck while running ...), coverage on the run's time grid and whether it \
                     is below the trust floor (the server's, the config's or a higher min_trust), least trusted \
                     first; and every reference comparison, a passing one too: those the run config names, each \
                     unit's outdoor air, humidity or wet bulb against the median of the site's other sensors of it \
                     (reference '<site>'), and each air handler's return air against the airflow-weighted mean of \
                     the zones it serves (reference '<zones>'), with bias = median of point minus reference, its \
                     sign, RMSE, correlation, samples, overlap and verdict. view 'rules' (default) \
                     scores the inputs the run's rules read, on the frames rule_run reads, so a check is declined \
                     exactly when its input is listed below the floor; view 'report' scores every stored point of \
                     the run's equipment. Filter by equips, roles, start / end. Pages of 100 points.",
                )
                .input_schema(schemas::sensor_trust_input())
                .output_schema(schemas::sensor_trust_output())
                .cost("reads every trend"),
        )
        .capability(
            Capability::new("drift", drift::drift)
                .title("Drift from known-good behaviour")
                .description(
                    "Slow performance drift (a tower fouling, a coil valve starting to pass, a pump losing head, a \
                     fan losing efficiency): each equipment's current window judged at matched conditions against a \
                     baseline, either a known-good baseline [start, end] you give (fitted for this call, never \
                     saved; current defaults to everything after it) or the run config's drift section (a \
                     known-good twin, a period, or frozen baselines; read, never written). Returns per-equipment \
                     diagnoses (severity and where the drift is), the findings worst first \
                     (<family>:<detector>@<equip>, the drift in the signal's units and in baseline sigmas), and \
                     the equipment not evaluated and why (not a clean bill of health). Families default to one per \
                     stored class; pass families [{equip_class, family}] to choose. Pages of 25 per list.",
                )
                .input_schema(schemas::drift_input())
                .output_schema(schemas::drift_output())
                .cost("long-running"),
        )
        .capability(
            Capability::new("mv_summary", mv::mv_summary)
                .title("Measured savings (M&V)")
                .description(
                    "Did the fix save anything: the M&V entries of the caller's run config for the facility (its mv \
                     section: a meter class and role, a baseline period, a reporting period, the method) measured on \
                     the meters' own trend, per ASHRAE Guideline 14 at the daily tier. Returns per meter the \
                     baseline model (2P/3P/4P/5P change-point against daily mean outdoor air) with R2, CV(RMSE), \
                     NMBE and the acceptance verdict; the avoided energy in the meter's own units (and the config's \
                     unit system when it names one), savings % and the 90 % uncertainty; re-baselining triggers and \
                     method proposals; and which meters declined and why. A baseline that fails acceptance makes its \
                     savings for information only, and the text says so. Needs a run config with an mv section.",
                )
                .input_schema(schemas::mv_summary_input())
                .output_schema(schemas::mv_summary_output())
                .cost("seconds"),
        )
        .capability(
            Capability::new("rcx_report", rcx::rcx_report)
                .title("The RCx report: what is wrong, how sure, what it costs")
                .description(
                    "The facility's issues ranked, each with its cause, equipment, severity, the rules and the \
                     finding_ids behind it (pass them to finding_detail), its annual cost or why it is uncosted \
                     (\"uncosted: needs X\"), its flagged hours and share of runtime, a confidence (H/M/L, the \
                     weakest of input trust, mapping, assumptions, sample size and corroboration) with its reasons, \
                     and what it is conditional on (a sensor issue ranks just above the first issue that leans on \
                     it); the KPIs (annual cost, costed and uncosted issues, cost at risk, coverage, declined \
                     checks); the section list; and the report's fact index (K1@summary, I1@<key>, C1@<key> ...), \
                     to cite. Runs the rule run and the run config's drift section. top_n issues (default the \
                     config's, else 8; offset for the next), and the first 20 rows of appendix A (declines and data \
                     gaps; limit for more). images: true attaches each ranked issue's evidence chart as a PNG \
                     image. No file is written: the camber://facility/{facility_id}/report resource and `camber \
                     report` draw the same report as a page.",
                )
                .input_schema(schemas::rcx_report_input())
                .output_schema(schemas::rcx_report_output())
                .cost("long-running"),
        )
}

camber_sdk::export_plugin!(plugin);
