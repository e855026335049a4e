//! `camber-bench sandbox-year-count`: issue 25's ratio (every rule over a facility-year at 1
//! minute, through the sandbox against the engine alone) in instructions, which the machine's
//! noise cannot move. This bench runs itself under callgrind with `CAMBER_BENCH_COUNT` set:
//! `sandbox_year` then does the engine alone once and the call again once, each in a function
//! callgrind is told to count (`counted_*`), and nothing else is counted. Instructions are not
//! time (a spill to the stack is one instruction, a cache miss none), but a change that removes
//! work from the guest shows here to the instruction where a timing cannot see it.

use std::path::Path;
use std::process::Command;

/// The counted functions' inclusive instructions, from `callgrind_annotate --inclusive=yes`.
fn counted(annotated: &str, name: &str) -> Option<u64> {
    annotated
        .lines()
        .find(|l| l.contains(name))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|n| n.replace(',', "").parse().ok())
}

/// Run the count, printing both figures and their ratio; a line saying why when valgrind or
/// callgrind_annotate is not on the machine.
pub fn sandbox_year_count() {
    let Ok(me) = std::env::current_exe() else {
        println!("sandbox-year-count: cannot find this program");
        return;
    };
    if Command::new("valgrind").arg("--version").output().is_err() {
        println!("sandbox-year-count: valgrind is not installed (Debian's package valgrind)");
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let file = out.path().join("callgrind.out");
    // under valgrind the processor reports other features, so the components are compiled for
    // it (minutes, the first time a build is counted) and cached apart from the native code
    let run = Command::new("valgrind")
        .args(["--tool=callgrind", "--collect-atstart=no", "--toggle-collect=*counted_*"])
        .arg(format!("--callgrind-out-file={}", file.display()))
        .arg(&me)
        .arg("sandbox-year")
        .env("CAMBER_BENCH_COUNT", "1")
        .env("CAMBER_MEMO_MB", "0")
        .output();
    if !run.as_ref().is_ok_and(|o| o.status.success()) || !Path::new(&file).exists() {
        println!("sandbox-year-count: the run under callgrind failed");
        return;
    }
    let annotated = Command::new("callgrind_annotate").arg("--inclusive=yes").arg(&file).output();
    let text = annotated.map(|o| String::from_utf8_lossy(&o.stdout).into_owned()).unwrap_or_default();
    match (counted(&text, "counted_engine"), counted(&text, "counted_sandbox")) {
        (Some(engine), Some(sandbox)) => println!(
            "rule_run on one AHU-year at 1 minute, in instructions (callgrind): the engine alone {}, through the sandbox {}: {:.3} x",
            camber_common::text::thousands(engine),
            camber_common::text::thousands(sandbox),
            sandbox as f64 / engine as f64
        ),
        _ => println!("sandbox-year-count: callgrind_annotate did not list the counted functions"),
    }
}
