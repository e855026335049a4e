//! Hot reload: a server watches its capability directories (and its trust policy, with the
//! lock and keys beside it) and reloads the capability set when a file lands, changes or goes,
//! or when it gets SIGHUP. Events are gathered until the directories have been quiet for a
//! moment, so a file still being copied is not loaded half-written; a directory scan every
//! second catches what a file system does not report (a network mount, a missed event).

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use notify::{RecursiveMode, Watcher};

use camber_serve::{log, Service};

/// How long the directories must be quiet before a reload.
const SETTLE: Duration = Duration::from_millis(100);
/// How often the directories are scanned anyway.
const SCAN: Duration = Duration::from_secs(1);

/// Why a reload was asked for.
enum Nudge {
    Changed,
    Hangup,
}

/// Watch `dirs` and the policy file's directory; reload `svc` on a change or on SIGHUP. Runs
/// on threads of its own (a reload compiles and runs guests: never on an async executor).
pub fn spawn(svc: Arc<Service>, dirs: Vec<PathBuf>, policy: Option<PathBuf>) {
    let (tx, rx) = mpsc::channel::<Nudge>();
    let mut watched: Vec<PathBuf> = dirs.iter().filter(|d| d.is_dir()).cloned().collect();
    if let Some(dir) = policy.as_deref().and_then(Path::parent) {
        let dir = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
        if !watched.iter().any(|w| w == dir) {
            watched.push(dir.to_path_buf());
        }
    }
    let watcher = {
        let tx = tx.clone();
        notify::recommended_watcher(move |ev: notify::Result<notify::Event>| {
            if ev.is_ok_and(|e| !e.kind.is_access()) {
                let _ = tx.send(Nudge::Changed);
            }
        })
    };
    let watcher = match watcher {
        Ok(mut w) => {
            for d in &watched {
                if let Err(e) = w.watch(d, RecursiveMode::NonRecursive) {
                    log::line(format!(
                        "camber: cannot watch {} ({e}); its changes are seen within {} s",
                        camber_runtime::file_label(d),
                        SCAN.as_secs()
                    ));
                }
            }
            Some(w)
        }
        Err(e) => {
            log::line(format!("camber: no file watcher ({e}); changes are seen within {} s", SCAN.as_secs()));
            None
        }
    };
    match signal_hook::iterator::Signals::new([signal_hook::consts::SIGHUP]) {
        Ok(mut signals) => {
            let tx = tx.clone();
            let _ = std::thread::Builder::new().name("camber-sighup".into()).spawn(move || {
                for _ in signals.forever() {
                    if tx.send(Nudge::Hangup).is_err() {
                        break;
                    }
                }
            });
        }
        Err(e) => log::line(format!("camber: SIGHUP will not reload ({e})")),
    }
    // the directories as they are now, before the server serves: a file that lands later is
    // a change even if the thread below starts late
    let mut last = scan(&watched);
    let _ = std::thread::Builder::new().name("camber-reload".into()).spawn(move || {
        // the watcher lives as long as this thread
        let _watcher = watcher;
        loop {
            let first = match rx.recv_timeout(SCAN) {
                Ok(n) => Some(n),
                Err(mpsc::RecvTimeoutError::Timeout) => None,
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            };
            let mut hangup = matches!(first, Some(Nudge::Hangup));
            if first.is_some() {
                // gather the burst of events a copy makes
                while let Ok(n) = rx.recv_timeout(SETTLE) {
                    hangup |= matches!(n, Nudge::Hangup);
                }
            }
            // taken before the reload: a change made while it runs is seen by the next scan
            let now = scan(&watched);
            // an event always reloads (a reload that finds nothing changed costs little); the
            // periodic scan only when the directories differ
            if first.is_none() && now == last {
                continue;
            }
            last = now;
            if hangup {
                log::line("camber: SIGHUP: reloading the capability set");
            }
            let svc = svc.clone();
            // a panic in a reload is contained: the set stays as it was
            if std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| svc.reload())).is_err() {
                log::line("camber: a reload panicked; the capability set stays as it was");
            }
        }
    });
}

/// Every file of the watched directories with its size and time: what a change changes.
fn scan(dirs: &[PathBuf]) -> Vec<(PathBuf, u64, Option<SystemTime>)> {
    let mut out = Vec::new();
    for d in dirs {
        let Ok(rd) = std::fs::read_dir(d) else { continue };
        for e in rd.flatten() {
            if let Ok(m) = e.metadata() {
                out.push((e.path(), m.len(), m.modified().ok()));
            }
        }
    }
    out.sort();
    out
}
