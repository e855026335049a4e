//! The deployment examples in `deploy/`: the Kubernetes manifests parse, the portfolio Job is an
//! Indexed Job whose completions match its shard count, and its container's arguments run as
//! they are (over a local store and output, the index as Kubernetes sets it).

use std::path::Path;
use std::process::Command;

use camber_tests::{cache_dir, camber_bin};
use serde::Deserialize;
use serde_json::Value;

fn docs(file: &str) -> Vec<Value> {
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../deploy/kubernetes").join(file)).unwrap();
    serde_norway::Deserializer::from_str(&text).map(|d| Value::deserialize(d).unwrap()).collect()
}

fn args(pod_spec: &Value) -> Vec<String> {
    pod_spec["containers"][0]["args"].as_array().unwrap().iter().map(|a| a.as_str().unwrap().to_string()).collect()
}

#[test]
fn the_kubernetes_examples_parse_and_the_portfolio_job_runs_as_written() {
    let serve = docs("serve.yaml");
    let kinds: Vec<&str> = serve.iter().map(|d| d["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["Deployment", "Service"]);
    assert_eq!(args(&serve[0]["spec"]["template"]["spec"])[0], "serve");

    let job = &docs("portfolio-job.yaml")[0];
    assert_eq!(job["kind"], "Job");
    assert_eq!(job["spec"]["completionMode"], "Indexed");
    let mut a = args(&job["spec"]["template"]["spec"]);
    let shards = a.iter().position(|x| x == "--shards").map(|i| a[i + 1].clone()).unwrap();
    assert_eq!(job["spec"]["completions"].as_u64().unwrap().to_string(), shards);
    // the same arguments, over a local store and output
    let store = camber_tests::demo_store();
    let out = tempfile::tempdir().unwrap();
    for (flag, to) in [("--store", store.path()), ("--out", out.path())] {
        let i = a.iter().position(|x| x == flag).unwrap();
        a[i + 1] = to.to_string_lossy().into_owned();
    }
    let mut ran = 0;
    for index in 0..shards.parse::<u32>().unwrap() {
        let o = Command::new(camber_bin())
            .args(&a)
            .env("JOB_COMPLETION_INDEX", index.to_string())
            .env("CAMBER_CACHE_DIR", cache_dir())
            .env_remove("CAMBER_CAPABILITIES")
            .output()
            .unwrap();
        assert!(o.status.success(), "shard {index}: {}", String::from_utf8_lossy(&o.stderr));
        let line = String::from_utf8_lossy(&o.stdout);
        ran += line.split(": ").nth(2).and_then(|s| s.split(' ').next()).and_then(|n| n.parse::<u32>().ok()).unwrap();
    }
    assert_eq!(ran, 2, "the demo store's two facilities, each run by one shard");
}
