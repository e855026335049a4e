//! The process's log on stderr, written by one logger thread so that no call ever waits for
//! it or fails because of it. A line goes into a bounded queue; when the queue is full (the
//! reader of stderr is slow, or gone) the line is dropped and counted, and the next line the
//! logger manages to write is followed by how many were dropped. A write error (a closed
//! pipe) is ignored. `camber mcp` over stdio would otherwise stall once a client stops
//! reading its stderr, and a closed stderr would panic every call's log line.

use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TrySendError};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Lines the queue holds before new ones are dropped.
pub const QUEUE_LINES: usize = 256;

enum Msg {
    Line(String),
    /// Answered once every line queued before it has been written (or failed).
    Flush(SyncSender<()>),
}

static QUEUE: OnceLock<SyncSender<Msg>> = OnceLock::new();
static DROPPED: AtomicU64 = AtomicU64::new(0);

fn queue() -> &'static SyncSender<Msg> {
    QUEUE.get_or_init(|| {
        let (tx, rx) = sync_channel(QUEUE_LINES);
        // without a logger thread every line is dropped (and counted), never written in line
        let _ = std::thread::Builder::new().name("camber-log".into()).spawn(move || write_lines(rx));
        tx
    })
}

/// Log one line (a newline is added). Never blocks and never panics: when the queue is full
/// the line is dropped and counted.
pub fn line(text: impl Into<String>) {
    if let Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) = queue().try_send(Msg::Line(text.into())) {
        DROPPED.fetch_add(1, Ordering::Relaxed);
    }
}

/// How many lines were dropped so far.
pub fn dropped() -> u64 {
    DROPPED.load(Ordering::Relaxed)
}

/// Wait at most `timeout` for the queued lines to be written (before the process exits).
/// Returns whether they were.
pub fn flush(timeout: Duration) -> bool {
    let deadline = Instant::now() + timeout;
    let (ack, done) = sync_channel(1);
    let mut msg = Msg::Flush(ack);
    loop {
        match queue().try_send(msg) {
            Ok(()) => break,
            Err(TrySendError::Full(m)) => {
                if Instant::now() >= deadline {
                    return false;
                }
                msg = m;
                std::thread::sleep(Duration::from_millis(5));
            }
            Err(TrySendError::Disconnected(_)) => return false,
        }
    }
    done.recv_timeout(deadline.saturating_duration_since(Instant::now())).is_ok()
}

fn write_lines(rx: Receiver<Msg>) {
    let mut reported = 0u64;
    let mut buf = Vec::with_capacity(256);
    for msg in rx {
        buf.clear();
        let ack = match msg {
            Msg::Line(text) => {
                buf.extend_from_slice(text.as_bytes());
                buf.push(b'\n');
                None
            }
            Msg::Flush(ack) => Some(ack),
        };
        let dropped = DROPPED.load(Ordering::Relaxed);
        if dropped > reported {
            let note = format!("camber: {} log line(s) dropped: stderr was not read fast enough\n", dropped - reported);
            buf.extend_from_slice(note.as_bytes());
            reported = dropped;
        }
        if !buf.is_empty() {
            // a closed or broken stderr loses the line; it never stops a call
            let mut err = std::io::stderr().lock();
            let _ = err.write_all(&buf);
            let _ = err.flush();
        }
        if let Some(ack) = ack {
            let _ = ack.try_send(());
        }
    }
}

/// Log every panic as one line through the queue (the default hook writes to stderr in the
/// panicking thread, which blocks it while stderr is not read), without a backtrace and
/// with absolute paths taken out. Whoever catches the panic answers the call `internal`.
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let thread = std::thread::current();
        let what = info.payload_as_str().unwrap_or("a panic without a message");
        let at = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
        let msg = format!("camber: panic in thread '{}': {what}{at}", thread.name().unwrap_or("unnamed"));
        line(redactor().redact_sent(&camber_common::text::one_line(&msg)));
    }));
}

fn redactor() -> &'static camber_common::redact::Redactor {
    static R: OnceLock<camber_common::redact::Redactor> = OnceLock::new();
    R.get_or_init(|| camber_common::redact::Redactor::new(Vec::new()))
}
