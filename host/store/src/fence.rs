//! Fences: a writer that replaces or removes a facility's files marks the facility busy in
//! `<store>/_fence/<facility_id>` and gives it a fresh token when done. A call checks the
//! fences of the facilities it reads before and after its guest runs, so a call that a
//! rewrite overlapped is `unavailable` (retry), never a mix of old and new data. A mark left by
//! a writer that was killed (its process gone, or its pid reused by another process) blocks
//! no call.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::StoreError;

/// The fence directory under a store root.
pub const FENCE_DIR: &str = "_fence";

/// How long a call waits for a swap in progress before answering `unavailable`.
pub const WAIT: Duration = Duration::from_secs(1);

/// What a fence says now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FenceState {
    /// No writer has marked the facility, or its last writer finished with this token.
    Clear(Option<String>),
    /// A live writer is rewriting the facility.
    Busy,
    /// A writer was killed between the two renames of its swap: the facility's data is not
    /// in place until the next writer finishes the swap.
    Interrupted,
}

/// The fence file of a facility.
pub fn fence_path(root: &Path, fid: &str) -> PathBuf {
    root.join(FENCE_DIR).join(fid)
}

/// The marker of a committed but unfinished swap of a facility's partition.
pub fn ready_marker(root: &Path, fid: &str) -> PathBuf {
    root.join(format!("_swap-facility_id={fid}.ready"))
}

/// The start time of a process (clock ticks since boot, from `/proc/<pid>/stat`), which tells
/// a live writer from a later process that reused its pid. `None` when the process is gone.
pub fn process_start(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // the command name is in parentheses and may hold spaces: count fields after the last ')'
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(19)?.parse().ok()
}

/// Whether the writer that wrote `mark` is still running.
pub fn writer_alive(mark: &Value) -> bool {
    let Some(pid) = mark.get("pid").and_then(Value::as_u64) else { return false };
    match (process_start(pid as u32), mark.get("start").and_then(Value::as_u64)) {
        (Some(now), Some(then)) => now == then,
        (Some(_), None) => true,
        (None, _) => false,
    }
}

/// Read a facility's fence.
pub fn read(root: &Path, fid: &str) -> Result<FenceState, StoreError> {
    if ready_marker(root, fid).exists() {
        return Ok(FenceState::Interrupted);
    }
    // never a blocking open: a FIFO put where a fence belongs must not hold a call
    let text = match super::files::read_string(&fence_path(root, fid)) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(FenceState::Clear(None)),
        Err(_) => {
            return Err(StoreError {
                retryable: false,
                facility: Some(fid.to_string()),
                message: "the facility's fence cannot be read".into(),
            })
        }
    };
    // a fence being replaced may read empty or torn for an instant: busy; one that stays torn
    // (a power failure) blocks nobody after a few seconds
    let Ok(mark) = serde_json::from_str::<Value>(&text) else {
        let age =
            std::fs::metadata(fence_path(root, fid)).and_then(|m| m.modified()).ok().and_then(|t| t.elapsed().ok());
        return Ok(if age.is_some_and(|a| a > Duration::from_secs(5)) {
            FenceState::Clear(None)
        } else {
            FenceState::Busy
        });
    };
    if mark.get("state").and_then(Value::as_str) == Some("busy") {
        if writer_alive(&mark) {
            return Ok(FenceState::Busy);
        }
        return Ok(FenceState::Clear(mark.get("token").and_then(Value::as_str).map(str::to_string)));
    }
    Ok(FenceState::Clear(mark.get("token").and_then(Value::as_str).map(str::to_string)))
}

fn busy_error(fid: &str, interrupted: bool) -> StoreError {
    StoreError {
        retryable: true,
        facility: Some(fid.to_string()),
        message: if interrupted {
            "an interrupted rewrite of the facility's files has not been finished yet; the next ingest finishes it"
                .into()
        } else {
            "the facility's files are being rewritten by an ingest".into()
        },
    }
}

/// The tokens of the facilities' fences before a call, waiting up to [`WAIT`] for a swap in
/// progress.
pub fn before(root: &Path, fids: &[String]) -> Result<Vec<Option<String>>, StoreError> {
    let (_, tokens, unreadable) = before_inner(root, fids, false)?;
    debug_assert!(unreadable.is_empty());
    Ok(tokens)
}

/// The facilities, tokens and set-apart fences of a listing: as [`before`], except that a
/// facility whose fence cannot be read, that a live writer still holds after the wait, or whose
/// swap was interrupted is set apart (the listing shows it unavailable, with its `retryable`)
/// instead of failing the listing.
pub type Listing = (Vec<String>, Vec<Option<String>>, BTreeMap<String, StoreError>);

/// See [`Listing`].
pub fn before_listing(root: &Path, fids: &[String]) -> Result<Listing, StoreError> {
    before_inner(root, fids, true)
}

fn before_inner(root: &Path, fids: &[String], listing: bool) -> Result<Listing, StoreError> {
    let deadline = Instant::now() + WAIT;
    let mut out = Vec::with_capacity(fids.len());
    let mut kept = Vec::with_capacity(fids.len());
    let mut unreadable = BTreeMap::new();
    'each: for fid in fids {
        loop {
            let state = match read(root, fid) {
                Ok(s) => s,
                Err(e) if listing => {
                    unreadable.insert(fid.clone(), e);
                    continue 'each;
                }
                Err(e) => return Err(e),
            };
            match state {
                FenceState::Clear(t) => {
                    out.push(t);
                    kept.push(fid.clone());
                    break;
                }
                // a listing lists a facility that one writer holds, flagged, and goes on with
                // the others: one facility's trouble is not another's
                FenceState::Interrupted if listing => {
                    unreadable.insert(fid.clone(), busy_error(fid, true));
                    continue 'each;
                }
                FenceState::Interrupted => return Err(busy_error(fid, true)),
                FenceState::Busy if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
                FenceState::Busy if listing => {
                    unreadable.insert(fid.clone(), busy_error(fid, false));
                    continue 'each;
                }
                FenceState::Busy => return Err(busy_error(fid, false)),
            }
        }
    }
    Ok((kept, out, unreadable))
}

/// Whether the fences still hold the tokens `before` read: any rewrite since then makes the
/// call's answer unusable.
pub fn after(root: &Path, fids: &[String], tokens: &[Option<String>]) -> Result<(), StoreError> {
    for (fid, token) in fids.iter().zip(tokens) {
        match read(root, fid)? {
            FenceState::Clear(t) if &t == token => {}
            FenceState::Interrupted => return Err(busy_error(fid, true)),
            _ => return Err(busy_error(fid, false)),
        }
    }
    Ok(())
}

/// The fences of a store wherever it is. On disk they are the `_fence` marks above. On object
/// storage a facility's token is the fingerprint of its objects in the bucket's snapshot: a
/// write replaces the facility's generation pointer (and its parts), which changes it, so a
/// call whose facility changed between its start and its end is `unavailable` (retry), and a
/// write in progress is invisible until its pointer swap.
impl super::StoreDir {
    /// [`before`], for this store.
    pub fn fences_before(&self, fids: &[String]) -> Result<Vec<Option<String>>, StoreError> {
        match self.bucket() {
            None => before(self.root(), fids),
            Some(b) => {
                b.snapshot()?;
                Ok(fids.iter().map(|f| Some(self.facility_fingerprint(f))).collect())
            }
        }
    }

    /// [`before_listing`], for this store.
    pub fn fences_before_listing(&self, fids: &[String]) -> Result<Listing, StoreError> {
        match self.bucket() {
            None => before_listing(self.root(), fids),
            Some(_) => Ok((fids.to_vec(), self.fences_before(fids)?, BTreeMap::new())),
        }
    }

    /// [`after`], for this store.
    pub fn fences_after(&self, fids: &[String], tokens: &[Option<String>]) -> Result<(), StoreError> {
        if self.bucket().is_none() {
            return after(self.root(), fids, tokens);
        }
        for (fid, token) in fids.iter().zip(tokens) {
            if token.as_deref() != Some(self.facility_fingerprint(fid).as_str()) {
                return Err(StoreError {
                    retryable: true,
                    facility: Some(fid.clone()),
                    message: "the facility's objects changed while the call read them (a write overlapped it)".into(),
                });
            }
        }
        Ok(())
    }
}

/// Write a fence mark (through a temporary file and a rename).
pub fn write(root: &Path, fid: &str, busy: bool, token: &str) -> std::io::Result<()> {
    let dir = root.join(FENCE_DIR);
    std::fs::create_dir_all(&dir)?;
    let pid = std::process::id();
    let mark = json!({
        "state": if busy { "busy" } else { "done" },
        "pid": pid,
        "start": process_start(pid),
        "token": token,
    });
    let tmp = dir.join(format!(".{fid}.{pid}.tmp"));
    {
        use std::io::Write;
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(mark.to_string().as_bytes())?;
        f.sync_all()?;
    }
    std::fs::rename(&tmp, dir.join(fid))?;
    if let Ok(d) = std::fs::File::open(&dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_live_busy_fence_blocks_and_a_dead_one_does_not() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        assert_eq!(read(root, "hq").unwrap(), FenceState::Clear(None));
        write(root, "hq", true, "t1").unwrap();
        assert_eq!(read(root, "hq").unwrap(), FenceState::Busy);
        // a mark from a process that is gone
        std::fs::write(fence_path(root, "hq"), r#"{"state":"busy","pid":4000000000,"token":"t1"}"#).unwrap();
        assert_eq!(read(root, "hq").unwrap(), FenceState::Clear(Some("t1".into())));
        // our own pid with another start time: the pid was reused
        let reused = json!({"state": "busy", "pid": std::process::id(), "start": 1u64, "token": "t2"});
        std::fs::write(fence_path(root, "hq"), reused.to_string()).unwrap();
        assert_eq!(read(root, "hq").unwrap(), FenceState::Clear(Some("t2".into())));
        write(root, "hq", false, "t3").unwrap();
        let tokens = before(root, &["hq".into()]).unwrap();
        assert_eq!(tokens, vec![Some("t3".to_string())]);
        assert!(after(root, &["hq".into()], &tokens).is_ok());
        write(root, "hq", false, "t4").unwrap();
        assert!(after(root, &["hq".into()], &tokens).unwrap_err().retryable);
        std::fs::write(ready_marker(root, "hq"), b"").unwrap();
        assert_eq!(read(root, "hq").unwrap(), FenceState::Interrupted);
    }

    #[test]
    fn a_listing_sets_a_held_facility_apart_and_keeps_the_others() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(root, "a", true, "t1").unwrap(); // a live writer: this process
        write(root, "b", false, "t2").unwrap();
        std::fs::write(ready_marker(root, "c"), b"").unwrap();
        let fids: Vec<String> = ["a", "b", "c", "d"].iter().map(|s| s.to_string()).collect();
        assert!(before(root, &fids[..1]).unwrap_err().retryable);
        let (kept, tokens, apart) = before_listing(root, &fids).unwrap();
        assert_eq!(kept, vec!["b".to_string(), "d".to_string()]);
        assert_eq!(tokens, vec![Some("t2".to_string()), None]);
        assert_eq!(apart.keys().cloned().collect::<Vec<_>>(), vec!["a".to_string(), "c".to_string()]);
        assert!(apart.values().all(|e| e.retryable));
    }
}
