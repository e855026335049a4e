//! Replicas of `camber serve` over one bucket behind Debian's haproxy: what the replica tests
//! and the replica benchmark both start.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::s3::S3Server;

/// A `camber serve` process on a loopback port, killed when dropped.
pub struct Replica {
    pub child: Child,
    /// `127.0.0.1:<port>`.
    pub addr: String,
}

impl Drop for Replica {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Replica {
    /// A replica serving the store at `url` in `s3` over HTTP, with the test components, this
    /// environment besides the bucket's, and, given `cpu`, held to that one core (`taskset`).
    pub fn start(s3: &S3Server, url: &str, env: &[(&str, &str)], cpu: Option<usize>) -> Replica {
        let mut c = match cpu {
            Some(core) => {
                let mut c = Command::new("taskset");
                c.args(["-c", &core.to_string()]).arg(crate::camber_bin());
                c
            }
            None => Command::new(crate::camber_bin()),
        };
        c.args(["serve", "--allow-all-active", "--http", "127.0.0.1:0", "--no-auth", "--store", url])
            .env("CAMBER_CACHE_DIR", crate::cache_dir())
            .env("CAMBER_CAPABILITIES", crate::test_components_dir())
            .envs(s3.env())
            .envs(env.iter().copied())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut child = c.spawn().expect("camber serve starts");
        let (addr, _log) = crate::serving_addr(child.stderr.take().expect("its stderr"));
        Replica { child, addr }
    }
}

/// Ingest one synthetic dataset into the store at `url`.
pub fn ingest(s3: &S3Server, url: &str, dataset: &str) {
    let out = Command::new(crate::camber_bin())
        .args(["datasets", "ingest", dataset, "--store", url])
        .env("CAMBER_CACHE_DIR", crate::cache_dir())
        .envs(s3.env())
        .output()
        .expect("camber runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// A stateless 2026-07-28 `tools/call` through `addr`: the status and the answer.
pub fn stateless_call(addr: &str, name: &str, arguments: Value, id: u64) -> (u16, Value) {
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}});
    let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments, "_meta": meta}});
    let h = [
        ("Content-Type", "application/json"),
        ("Accept", "application/json"),
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", name),
    ];
    let (st, _, body) = crate::http(addr, "POST", "/mcp", &h, call.to_string().as_bytes());
    (st, serde_json::from_slice(&body).unwrap_or(Value::Null))
}

/// haproxy in front of `backends`: round robin, health checks, a retry elsewhere for a request
/// a replica dropped, and 2025-11-25 sessions kept on the replica that made them (the
/// `Mcp-Session-Id` of the initialize response is stored, and matched on later requests).
/// Returns once it forwards a request to a replica.
pub fn haproxy(dir: &Path, backends: &[&str]) -> (Child, String) {
    let port = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port").local_addr().expect("its port").port();
    let servers: String = backends
        .iter()
        .enumerate()
        .map(|(i, b)| format!("  server r{i} {b} check inter 300ms fall 1 rise 1\n"))
        .collect();
    let cfg = format!(
        "global\n  maxconn 512\ndefaults\n  mode http\n  timeout connect 2s\n  timeout client 30s\n  timeout server 30s\n  retries 3\n  option redispatch 1\n  retry-on all-retryable-errors\nfrontend fe\n  bind 127.0.0.1:{port}\n  http-request wait-for-body time 2s\n  default_backend be\nbackend be\n  balance roundrobin\n  option httpchk GET /.well-known/agent-card.json\n  stick-table type string len 64 size 10k expire 30m\n  stick match req.hdr(mcp-session-id)\n  stick store-response res.hdr(mcp-session-id)\n{servers}"
    );
    let file = dir.join("haproxy.cfg");
    std::fs::write(&file, cfg).expect("write haproxy.cfg");
    let child = Command::new(crate::haproxy())
        .arg("-f")
        .arg(&file)
        .arg("-db")
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(dir.join("haproxy.log")).expect("haproxy.log"))
        .spawn()
        .expect("haproxy starts");
    let addr = format!("127.0.0.1:{port}");
    let deadline = Instant::now() + Duration::from_secs(20);
    let forwards = |a: &str| {
        std::net::TcpStream::connect(a).is_ok()
            && crate::http(a, "GET", "/.well-known/agent-card.json", &[], b"").0 == 200
    };
    while !forwards(&addr) {
        assert!(Instant::now() < deadline, "haproxy did not start serving");
        std::thread::sleep(Duration::from_millis(100));
    }
    (child, addr)
}
