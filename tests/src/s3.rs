//! An S3 API server for the tests: moto's server mode, from the Python test environment that
//! `cargo xtask test` prepares, started on a free loopback port and stopped when dropped. No
//! cloud account: moto keeps the buckets in its memory and checks no signature.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use camber_store::bucket::{Bucket, Expect};

/// A running moto server.
pub struct S3Server {
    child: Child,
    /// `127.0.0.1:<port>`.
    pub addr: String,
}

impl Drop for S3Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl S3Server {
    /// Start a server with these buckets.
    pub fn start(buckets: &[&str]) -> S3Server {
        let port = TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("a free port").port();
        let moto = super::python().with_file_name("moto_server");
        let child = Command::new(&moto)
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", moto.display()));
        let s = S3Server { child, addr: format!("127.0.0.1:{port}") };
        let deadline = Instant::now() + Duration::from_secs(60);
        while TcpStream::connect(&s.addr).is_err() {
            assert!(Instant::now() < deadline, "moto did not start listening");
            std::thread::sleep(Duration::from_millis(100));
        }
        for b in buckets {
            // the server may accept connections a moment before it answers them
            let made = (0..50).any(|_| {
                let ok = std::panic::catch_unwind(|| s.request("PUT", &format!("/{b}"), b"").0 == 200).unwrap_or(false);
                if !ok {
                    std::thread::sleep(Duration::from_millis(100));
                }
                ok
            });
            assert!(made, "bucket {b} is made");
        }
        s
    }

    /// The environment a `camber` process needs to reach this server (the standard AWS
    /// variables, as an operator would set them).
    pub fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("AWS_ENDPOINT", format!("http://{}", self.addr)),
            ("AWS_ALLOW_HTTP", "true".into()),
            ("AWS_ACCESS_KEY_ID", "test".into()),
            ("AWS_SECRET_ACCESS_KEY", "test".into()),
            ("AWS_REGION", "us-east-1".into()),
            ("CAMBER_STORE_REFRESH_MS", "200".into()),
        ]
    }

    /// One plain HTTP request (unsigned; moto does not check): the status and the body.
    pub fn request(&self, method: &str, path: &str, body: &[u8]) -> (u16, Vec<u8>) {
        let mut c = TcpStream::connect(&self.addr).expect("connect to moto");
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            self.addr,
            body.len()
        );
        c.write_all(head.as_bytes()).and_then(|_| c.write_all(body)).expect("send a request to moto");
        let mut out = Vec::new();
        c.read_to_end(&mut out).expect("read moto's answer");
        let split = out.windows(4).position(|w| w == b"\r\n\r\n").map_or(out.len(), |p| p + 4);
        let status = String::from_utf8_lossy(&out[..split.min(out.len())])
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        (status, out[split..].to_vec())
    }

    /// The store at `s3://<bucket>/<prefix>` opened in this process (signed requests, as a
    /// client of the bucket would make), for a test to look at or change objects.
    pub fn bucket(&self, bucket: &str, prefix: &str) -> std::sync::Arc<Bucket> {
        let store = object_store::aws::AmazonS3Builder::new()
            .with_endpoint(format!("http://{}", self.addr))
            .with_allow_http(true)
            .with_bucket_name(bucket)
            .with_region("us-east-1")
            .with_access_key_id("test")
            .with_secret_access_key("test")
            .build()
            .expect("an S3 client for moto");
        Bucket::over(std::sync::Arc::new(store), prefix, &format!("s3://{bucket}/{prefix}")).expect("the bucket lists")
    }

    /// Copy a directory into `bucket` under `prefix`, as `aws s3 cp --recursive` would.
    pub fn upload_dir(&self, dir: &std::path::Path, bucket: &str, prefix: &str) {
        fn walk(b: &Bucket, root: &std::path::Path, d: &std::path::Path) {
            for e in std::fs::read_dir(d).expect("list").flatten() {
                let p = e.path();
                if p.is_dir() {
                    walk(b, root, &p);
                } else {
                    let rel = p.strip_prefix(root).expect("under the root").to_string_lossy().into_owned();
                    let bytes = bytes::Bytes::from(std::fs::read(&p).expect("read"));
                    assert!(b.put(&rel, bytes, Expect::Any).is_ok(), "{rel} is uploaded");
                }
            }
        }
        walk(&self.bucket(bucket, prefix), dir, dir);
    }

    /// The keys under `prefix` in `bucket`, relative to it.
    pub fn keys(&self, bucket: &str, prefix: &str) -> Vec<String> {
        self.bucket(bucket, prefix).snapshot_now().objects.keys().cloned().collect()
    }
}
