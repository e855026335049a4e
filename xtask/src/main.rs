//! Build helper. `cargo xtask build` installs the wasm32-wasip2 target when missing, builds
//! every capability component and the host, and puts the components in a `capabilities/`
//! directory next to the `camber` binary. `demo` builds then runs `camber demo`; `test`
//! builds (with the hostile test components) then runs every test; `bench` builds in release
//! and runs the benchmarks.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// The shipped capability components (crate names).
const COMPONENTS: &[&str] = &[
    "cap_check_citations",
    "cap_coverage",
    "cap_datasets",
    "cap_facilities",
    "cap_points",
    "cap_portfolio",
    "cap_prompts",
    "cap_rule_params",
    "cap_rule_run",
];
/// Components only the tests load: misbehaving at call time, and refused at load.
const TEST_COMPONENTS: &[&str] = &["cap_hostile"];
/// Components built against an older, compatible version of the contract, which must load.
const COMPAT_COMPONENTS: &[&str] = &["cap_wit020"];
/// The fixtures the MCP conformance suite calls by name.
const CONFORMANCE_COMPONENTS: &[&str] = &["cap_conformance"];
/// The component the hot-reload tests drop into a running server's directory.
const RELOAD_COMPONENTS: &[&str] = &["cap_reload"];
const REFUSED_COMPONENTS: &[&str] = &["cap_badschema", "cap_oldwit"];

/// The workspace root: found from the working directory at run time (a binary built from
/// another checkout of this repository must still act on this one), else where xtask was built.
fn root() -> PathBuf {
    if let Ok(mut dir) = std::env::current_dir() {
        loop {
            if dir.join("xtask").join("Cargo.toml").is_file() && dir.join("Cargo.toml").is_file() {
                return dir;
            }
            if !dir.pop() {
                break;
            }
        }
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("workspace root").to_path_buf()
}

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|| root().join("target"))
}

fn cargo() -> Command {
    let mut c = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    c.current_dir(root());
    c
}

fn run(mut c: Command, what: &str) -> Result<(), String> {
    let status = c.status().map_err(|e| format!("{what}: cannot start: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{what} failed ({status})"))
    }
}

fn ensure_wasm_target() -> Result<(), String> {
    let out = Command::new("rustup").args(["target", "list", "--installed"]).output();
    match out {
        Ok(o) if String::from_utf8_lossy(&o.stdout).lines().any(|l| l.trim() == "wasm32-wasip2") => Ok(()),
        Ok(_) => {
            eprintln!("xtask: installing the wasm32-wasip2 target");
            let mut c = Command::new("rustup");
            c.args(["target", "add", "wasm32-wasip2"]);
            run(c, "rustup target add wasm32-wasip2")
        }
        Err(_) => Ok(()), // no rustup: assume the toolchain has the target
    }
}

/// Build the given component crates and copy each `<crate>.wasm` as `_<crate>.wasm` into
/// every directory of `dests`.
fn build_components(crates: &[&str], dests: &[PathBuf]) -> Result<(), String> {
    let mut c = cargo();
    c.args(["build", "--target", "wasm32-wasip2", "--profile", "component"]);
    for k in crates {
        c.args(["-p", k]);
    }
    run(c, "building the components")?;
    let out = target_dir().join("wasm32-wasip2").join("component");
    for d in dests {
        std::fs::create_dir_all(d).map_err(|e| format!("cannot create {}: {e}", d.display()))?;
        // a component left from an earlier build would be loaded too: keep only these
        let wanted: Vec<String> = crates.iter().map(|k| format!("_{k}.wasm")).collect();
        for entry in std::fs::read_dir(d).map_err(|e| format!("cannot list {}: {e}", d.display()))?.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with("_cap_") && name.ends_with(".wasm") && !wanted.contains(&name) {
                let _ = std::fs::remove_file(entry.path());
            }
        }
        for k in crates {
            let from = out.join(format!("{k}.wasm"));
            let to = d.join(format!("_{k}.wasm"));
            copy_if_changed(&from, &to)?;
        }
    }
    Ok(())
}

fn copy_if_changed(from: &Path, to: &Path) -> Result<(), String> {
    let new = std::fs::read(from).map_err(|e| format!("cannot read {}: {e}", from.display()))?;
    if std::fs::read(to).ok().as_deref() == Some(&new[..]) {
        return Ok(());
    }
    let tmp = to.with_extension("wasm.tmp");
    std::fs::write(&tmp, &new)
        .and_then(|_| std::fs::rename(&tmp, to))
        .map_err(|e| format!("cannot write {}: {e}", to.display()))
}

/// Touch every Rust source of this checkout.
fn touch_sources(dir: &Path) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    for e in rd.flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if p.is_dir() && name != "target" && !name.starts_with('.') {
            touch_sources(&p);
        } else if name.ends_with(".rs") || name == "Cargo.toml" || name.ends_with(".wit") {
            if let Ok(f) = std::fs::File::options().append(true).open(&p) {
                let _ = f.set_modified(std::time::SystemTime::now());
            }
        }
    }
}

/// A target directory shared by two checkouts (a CI clone and a work tree) holds one copy of
/// each binary and component (they have no hash in their names): when the last build came from
/// another checkout, mark this checkout's sources changed so cargo rebuilds and re-copies them.
fn claim_target_dir() {
    let stamp = target_dir().join(".camber-checkout");
    let me = root().to_string_lossy().into_owned();
    if std::fs::read_to_string(&stamp).ok().as_deref() == Some(me.as_str()) {
        return;
    }
    if stamp.exists() {
        eprintln!("xtask: the target directory was last built from another checkout; rebuilding this one's crates");
        for d in ["sdk", "host", "capabilities", "tests", "synth", "wit", "xtask"] {
            touch_sources(&root().join(d));
        }
    }
    let _ = std::fs::create_dir_all(target_dir());
    let _ = std::fs::write(&stamp, me);
}

fn build(release: bool, with_tests: bool) -> Result<PathBuf, String> {
    ensure_wasm_target()?;
    claim_target_dir();
    let profile = if release { "release" } else { "debug" };
    let bin_dir = target_dir().join(profile);
    build_components(COMPONENTS, &[bin_dir.join("capabilities"), target_dir().join("camber-components")])?;
    if with_tests {
        build_components(TEST_COMPONENTS, &[target_dir().join("camber-test-components")])?;
        build_components(REFUSED_COMPONENTS, &[target_dir().join("camber-refused-components")])?;
        build_components(COMPAT_COMPONENTS, &[target_dir().join("camber-compat-components")])?;
        build_components(CONFORMANCE_COMPONENTS, &[target_dir().join("camber-conformance-components")])?;
        build_components(RELOAD_COMPONENTS, &[target_dir().join("camber-reload-components")])?;
        build_guest_components()?;
    }
    let mut c = cargo();
    c.args(["build", "-p", "camber"]);
    if release {
        c.arg("--release");
    }
    run(c, "building the host")?;
    Ok(bin_dir.join("camber"))
}

/// What the client and interop tests need in their Python environment.
/// EnergyPlus 25.2 with the ASHRAE 90.1-2019 prototype buildings and TMY3 weather, for the
/// physics validation lab (`cargo xtask validate`, and its slice in the tests).
/// moto's S3 server stands in for object storage in the store's tests; DuckDB reads back what a
/// portfolio run writes.
const PYTHON_PACKAGES: &[&str] = &[
    "camber-toolkit==0.110.0",
    "mcp==2.3.0",
    "a2a-sdk==1.3.0",
    "pyenergyplus-lbnl==26.1.0",
    "moto[server]==5.2.5",
    "duckdb==2.0.1",
];

/// A virtual environment under the target directory with [`PYTHON_PACKAGES`]; installed once
/// (a marker file records what is there). Returns its python.
fn python_env() -> Result<PathBuf, String> {
    Ok(venv("camber-pyenv", PYTHON_PACKAGES, "the Python test environment")?.join("python"))
}

/// A virtual environment `name` under the target directory with `packages`, installed once (a
/// marker file records what is there). Returns its `bin/`.
fn venv(name: &str, packages: &[&str], what: &str) -> Result<PathBuf, String> {
    let venv = target_dir().join(name);
    let bin = venv.join("bin");
    let marker = venv.join(".camber-packages");
    let wanted = packages.join("\n");
    if bin.join("python").is_file() && std::fs::read_to_string(&marker).ok().as_deref() == Some(wanted.as_str()) {
        return Ok(bin);
    }
    eprintln!("xtask: preparing {what} ({})", packages.join(", "));
    let mut c = Command::new(std::env::var("PYTHON").unwrap_or_else(|_| "python3".into()));
    c.args(["-m", "venv"]).arg(&venv);
    run(c, "python3 -m venv")?;
    let mut c = Command::new(bin.join("python"));
    c.args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check"]).args(packages);
    run(c, "pip install")?;
    std::fs::write(&marker, wanted).map_err(|e| format!("cannot write {}: {e}", marker.display()))?;
    Ok(bin)
}

/// What a Python capability author builds with: componentize-py, in an environment of its own
/// (small: no simulation engine or reference toolkit) under the target directory.
const AUTHOR_PYTHON_PACKAGES: &[&str] = &["componentize-py==0.25.1"];

/// The authoring environment's `bin/` (its python and componentize-py), installed once.
fn author_python_env() -> Result<PathBuf, String> {
    venv("camber-author-pyenv", AUTHOR_PYTHON_PACKAGES, "the Python authoring environment")
}

/// The JavaScript authoring tools (componentize-js, and rolldown to bundle a capability's
/// modules into one), installed with `npm ci` from `sdk/js/tools` under the target directory,
/// again only when the lock file changed. Returns the directory holding their `node_modules`.
fn author_js_env() -> Result<PathBuf, String> {
    let dir = target_dir().join("camber-author-node");
    node()?;
    npm_ci(&dir, &root().join("sdk/js/tools"), &[], "the JavaScript authoring tools (componentize-js, rolldown)")?;
    Ok(dir)
}

/// The machine's `node` (Debian's, with npm, installed with apt-get when there is none).
fn node() -> Result<PathBuf, String> {
    on_path_or_apt("node", "npm", "Node.js and npm for the JavaScript authoring tools")
}

/// `npm ci` in `dir` from `src`'s package.json and package-lock.json (and `extra` files), again
/// only when the lock file changed; npm is Debian's, installed with apt-get when missing.
fn npm_ci(dir: &Path, src: &Path, extra: &[&str], what: &str) -> Result<(), String> {
    let lock =
        std::fs::read(src.join("package-lock.json")).map_err(|e| format!("cannot read the package lock: {e}"))?;
    let marker = dir.join(".camber-lock");
    if dir.join("node_modules").is_dir() && std::fs::read(&marker).ok().as_deref() == Some(&lock[..]) {
        return Ok(());
    }
    on_path_or_apt("npm", "npm", "npm")?;
    eprintln!("xtask: installing {what} (npm ci)");
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    for f in ["package.json", "package-lock.json"].iter().chain(extra) {
        std::fs::copy(src.join(f), dir.join(f)).map_err(|e| format!("cannot copy {f}: {e}"))?;
    }
    let mut c = Command::new("npm");
    c.args(["ci", "--no-audit", "--no-fund", "--loglevel=error"]).current_dir(dir);
    run(c, "npm ci")?;
    std::fs::write(&marker, &lock).map_err(|e| format!("cannot write {}: {e}", marker.display()))
}

/// `program` on the PATH, else Debian's `package` installed with apt-get (as root, or through
/// sudo) for `why`.
fn on_path_or_apt(program: &str, package: &str, why: &str) -> Result<PathBuf, String> {
    let find = || {
        std::env::var_os("PATH").and_then(|p| std::env::split_paths(&p).map(|d| d.join(program)).find(|c| c.is_file()))
    };
    if let Some(p) = find() {
        return Ok(p);
    }
    eprintln!("xtask: installing {why} (Debian's {package})");
    apt_install(package)?;
    find().ok_or_else(|| format!("apt-get installed {package} but {program} is not on the PATH"))
}

/// Components in other languages that only the tests and benchmarks load: (language, the
/// directory of its source, or `None` for the language's template as `new-capability`
/// writes it, the capability name the file is named for).
const GUEST_COMPONENTS: &[(&str, Option<&str>, &str)] = &[
    ("python", Some("tests/guests/python_hostile"), "py_hostile"),
    ("python", None, "py_template"),
    ("js", Some("tests/guests/js_hostile"), "js_hostile"),
    ("js", None, "js_template"),
];

/// Build each of [`GUEST_COMPONENTS`] the way an author does: the language's template written
/// to a directory under the target, its source put in, its `build.sh` run. The component goes
/// to `camber-python-components` or `camber-js-components`, again only when its source, the
/// language's SDK and template, the tools or the WIT changed (neither componentize-py's nor
/// componentize-js's output is the same from build to build, and a new file is compiled again
/// by every host).
fn build_guest_components() -> Result<(), String> {
    for (lang, source, name) in GUEST_COMPONENTS {
        let (sdk, dest, tools) = match *lang {
            "python" => ("python", "camber-python-components", AUTHOR_PYTHON_PACKAGES.join(",")),
            _ => (
                "js",
                "camber-js-components",
                String::from_utf8_lossy(
                    &std::fs::read(root().join("sdk/js/tools/package-lock.json")).unwrap_or_default(),
                )
                .into_owned(),
            ),
        };
        let dest = target_dir().join(dest);
        std::fs::create_dir_all(&dest).map_err(|e| format!("cannot create {}: {e}", dest.display()))?;
        let file = format!("_cap_{name}.wasm");
        let mut inputs = tools.into_bytes();
        let mut dirs = vec![
            root().join("sdk").join(sdk).join(if *lang == "python" { "camber_sdk" } else { "." }),
            root().join("wit"),
        ];
        dirs.push(root().join("xtask").join("template").join(sdk));
        if let Some(src) = source {
            dirs.push(root().join(src));
        }
        for d in dirs {
            let mut files: Vec<PathBuf> = std::fs::read_dir(&d)
                .map_err(|e| format!("cannot list {}: {e}", d.display()))?
                .flatten()
                .map(|e| e.path())
                .collect();
            files.sort();
            for f in files.iter().filter(|f| f.is_file()) {
                // relative: a clone of this checkout elsewhere reuses what this one built
                inputs.extend_from_slice(f.strip_prefix(root()).unwrap_or(f).to_string_lossy().as_bytes());
                inputs.extend(std::fs::read(f).map_err(|e| format!("cannot read {}: {e}", f.display()))?);
            }
        }
        let stamp = {
            use std::hash::{Hash, Hasher};
            let mut h = std::hash::DefaultHasher::new();
            inputs.hash(&mut h);
            format!("{:016x}", h.finish())
        };
        let marker = dest.join(format!(".{file}.inputs"));
        if dest.join(&file).is_file() && std::fs::read_to_string(&marker).ok().as_deref() == Some(stamp.as_str()) {
            continue;
        }
        eprintln!("xtask: building the {lang} component {file}");
        let work = target_dir().join("camber-guest-build").join(name);
        let _ = std::fs::remove_dir_all(&work);
        write_template(lang, name, &work)?;
        match (*lang, source) {
            ("python", Some(src)) => {
                std::fs::copy(root().join(src).join("app.py"), work.join("app.py"))
                    .map_err(|e| format!("cannot copy app.py: {e}"))?;
            }
            (_, Some(src)) => {
                // the template's entry, bound to this source's capability module
                let entry =
                    std::fs::read_to_string(work.join("app.js")).map_err(|e| format!("cannot read app.js: {e}"))?;
                let module = root().join(src).join("capability.js");
                let bound = entry.replace("'./capability.js'", &format!("'{}'", module.display()));
                std::fs::write(work.join("app.js"), bound).map_err(|e| format!("cannot write app.js: {e}"))?;
            }
            _ => {}
        }
        let mut c = Command::new("sh");
        c.arg(work.join("build.sh")).stdout(std::process::Stdio::null());
        run(c, &format!("building {file}"))?;
        std::fs::rename(work.join(&file), dest.join(&file)).map_err(|e| format!("cannot move {file}: {e}"))?;
        std::fs::write(&marker, stamp).map_err(|e| format!("cannot write {}: {e}", marker.display()))?;
    }
    Ok(())
}

/// A headless browser for the report's rendering test: `chromium` on the PATH, else Debian's
/// package installed with apt-get (as root, or through sudo). Returns its path.
fn browser() -> Result<PathBuf, String> {
    on_path_or_apt("chromium", "chromium", "a headless browser for the report test")
}

/// Install a Debian package with apt-get (as root, or through sudo).
fn apt_install(package: &str) -> Result<(), String> {
    let root = Command::new("id").arg("-u").output().ok().is_some_and(|o| o.stdout.starts_with(b"0"));
    for step in [&["apt-get", "update", "-qq"][..], &["apt-get", "install", "-y", "-qq", package][..]] {
        let mut c = if root { Command::new(step[0]) } else { Command::new("sudo") };
        if !root {
            c.arg(step[0]);
        }
        c.args(&step[1..]).env("DEBIAN_FRONTEND", "noninteractive");
        run(c, &step.join(" "))?;
    }
    Ok(())
}

/// The Node tools the serving tests drive (the MCP conformance suite and the Inspector CLI,
/// with a Node 22 from the npm registry: the suite needs 22 or later and the machine's may be
/// older), installed with `npm ci` from `tests/conformance/package-lock.json` under the target
/// directory, again only when the lock file changed. Needs an `npm` (Debian's, installed with
/// apt-get when there is none). Returns the directory of their executables.
fn node_env() -> Result<PathBuf, String> {
    let dir = target_dir().join("camber-node");
    npm_ci(
        &dir,
        &root().join("tests").join("conformance"),
        &["auth-preload.mjs"],
        "the MCP conformance suite, the Inspector CLI and Node 22",
    )?;
    Ok(dir.join("node_modules").join(".bin"))
}

/// `cargo xtask new-capability NAME [--lang rust|python|js] [--dir DIR]`: a capability a third
/// party starts from, written to DIR (default `./cap_NAME`), which must not exist yet. Each
/// language's template has an example handler that reads the store, cites a fact and pages a
/// list, a native test, and a README; each builds as it is with one command:
/// - rust: a crate of its own workspace with this checkout's SDK by path;
///   `cargo build --release --target wasm32-wasip2`.
/// - python: `app.py` on this checkout's Python SDK (`sdk/python`); `./build.sh` runs
///   componentize-py (installed here, in the authoring environment) against `wit/`.
/// - js: `capability.js` on this checkout's JavaScript SDK (`sdk/js`) and the entry `app.js`;
///   `./build.sh` bundles them with rolldown and runs componentize-js against `wit/`.
fn new_capability(args: &[String]) -> Result<(), String> {
    let usage = "usage: cargo xtask new-capability NAME [--lang rust|python|js] [--dir DIR]";
    let name = args.first().filter(|a| !a.starts_with("--")).ok_or(usage)?.clone();
    let ok = name.chars().next().is_some_and(|c| c.is_ascii_lowercase())
        && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if !ok {
        return Err(format!("'{name}' is not a capability name: snake_case, starting with a letter"));
    }
    let flag = |f: &str| -> Result<Option<&String>, String> {
        match args.iter().position(|a| a == f) {
            Some(i) => args.get(i + 1).map(Some).ok_or_else(|| usage.to_string()),
            None => Ok(None),
        }
    };
    let lang = flag("--lang")?.map(String::as_str).unwrap_or("rust");
    let dir = flag("--dir")?.map(PathBuf::from).unwrap_or_else(|| PathBuf::from(format!("cap_{name}")));
    if dir.exists() {
        return Err(format!("{} exists: name a new directory with --dir", dir.display()));
    }
    let how = write_template(lang, &name, &dir)?;
    eprintln!(
        "xtask: wrote the {lang} capability cap_{name} in {}; build it with {how} there (see its README.md)",
        dir.display()
    );
    Ok(())
}

/// Write the `lang` template of capability `name` into `dir`; returns how to build it.
fn write_template(lang: &str, name: &str, dir: &Path) -> Result<&'static str, String> {
    let (files, subdirs, how): (&[(&str, &str)], &[&str], &str) = match lang {
        "rust" => {
            ensure_wasm_target()?;
            (
                &[
                    ("Cargo.toml", include_str!("../template/Cargo.toml.in")),
                    ("src/lib.rs", include_str!("../template/lib.rs.in")),
                    ("README.md", include_str!("../template/README.md.in")),
                ],
                &["src"],
                "`cargo build --release --target wasm32-wasip2`",
            )
        }
        "python" => (
            &[
                ("app.py", include_str!("../template/python/app.py.in")),
                ("test_app.py", include_str!("../template/python/test_app.py.in")),
                ("build.sh", include_str!("../template/python/build.sh.in")),
                ("README.md", include_str!("../template/python/README.md.in")),
            ],
            &[],
            "`./build.sh` (its tests: `./build.sh test`)",
        ),
        "js" => (
            &[
                ("capability.js", include_str!("../template/js/capability.js.in")),
                ("app.js", include_str!("../template/js/app.js.in")),
                ("test.js", include_str!("../template/js/test.js.in")),
                ("build.sh", include_str!("../template/js/build.sh.in")),
                ("README.md", include_str!("../template/js/README.md.in")),
            ],
            &[],
            "`./build.sh` (its tests: `./build.sh test`)",
        ),
        other => return Err(format!("no template for the language '{other}': rust, python or js")),
    };
    let author_bin = if lang == "python" { Some(author_python_env()?) } else { None };
    let js = if lang == "js" { Some((node()?, author_js_env()?)) } else { None };
    let path = |p: PathBuf| p.display().to_string();
    let wit_version = wit_version()?;
    let fill = |t: &str| {
        let mut t = t.replace("{{name}}", name).replace("{{sdk}}", &path(root().join("sdk")));
        t = t
            .replace("{{sdk_python}}", &path(root().join("sdk").join("python")))
            .replace("{{wit}}", &path(root().join("wit")))
            .replace("{{wit_version}}", &wit_version);
        if let Some((node, tools)) = &js {
            t = t
                .replace("{{node}}", &path(node.clone()))
                .replace("{{tools}}", &path(tools.clone()))
                .replace("{{sdk_js}}", &path(root().join("sdk").join("js")));
        }
        if let Some(bin) = &author_bin {
            t = t
                .replace("{{python}}", &path(bin.join("python")))
                .replace("{{componentize_py}}", &path(bin.join("componentize-py")));
        }
        t
    };
    for d in std::iter::once("").chain(subdirs.iter().copied()) {
        std::fs::create_dir_all(dir.join(d)).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    for (file, text) in files {
        let to = dir.join(file);
        std::fs::write(&to, fill(text)).map_err(|e| format!("cannot write {file}: {e}"))?;
        if file.ends_with(".sh") {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&to, std::fs::Permissions::from_mode(0o755))
                .map_err(|e| format!("cannot make {file} executable: {e}"))?;
        }
    }
    Ok(how)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (cmd, rest) = args.split_first().map(|(c, r)| (c.as_str(), r)).unwrap_or(("help", &[]));
    let result = match cmd {
        "build" => build(rest.iter().any(|a| a == "--release"), false).map(|bin| {
            eprintln!("xtask: built {}", bin.display());
        }),
        "demo" => build(false, false).and_then(|bin| {
            let mut c = Command::new(bin);
            c.arg("demo").args(rest);
            run(c, "camber demo")
        }),
        "test" => build(false, true).and_then(|_| python_env()).and_then(|python| {
            let chromium = browser()?;
            let node = node_env()?;
            let mut c = cargo();
            c.env("CAMBER_TEST_NODE_BIN", node);
            c.env("CAMBER_TEST_PYTHON", python);
            c.env("CAMBER_TEST_BROWSER", chromium);
            c.env(
                "CAMBER_TEST_HAPROXY",
                on_path_or_apt("haproxy", "haproxy", "a load balancer for the replica tests")?,
            );
            c.env("CAMBER_TEST_AUTHOR_BIN", author_python_env()?);
            c.env("CAMBER_TEST_AUTHOR_NODE", author_js_env()?);
            c.env("CAMBER_CACHE_DIR", target_dir().join("camber-cwasm-cache"));
            c.args(["test", "--workspace"]);
            for k in
                TEST_COMPONENTS.iter().chain(REFUSED_COMPONENTS).chain(COMPAT_COMPONENTS).chain(CONFORMANCE_COMPONENTS)
            {
                c.args(["--exclude", k]);
            }
            c.args(rest);
            run(c, "cargo test")
        }),
        "bench" => build(true, true).and_then(|_| python_env()).and_then(|python| {
            let mut c = cargo();
            c.env("CAMBER_TEST_PYTHON", python);
            c.env("CAMBER_CACHE_DIR", target_dir().join("camber-cwasm-cache-release"));
            c.args(["run", "--release", "-p", "camber-tests", "--bin", "camber-bench", "--"]);
            c.args(rest);
            run(c, "the benchmarks")
        }),
        "new-capability" => new_capability(rest),
        "validate" => build(false, false).and_then(|bin| {
            let python = python_env()?;
            let mut c = Command::new(&python);
            c.current_dir(root());
            c.arg(Path::new("validation").join("lab.py"))
                .arg("--camber")
                .arg(&bin)
                .arg("--reference-python")
                .arg(&python)
                .arg("--sim-python")
                .arg(&python)
                .arg("--out")
                .arg(target_dir().join("validate"))
                .args(["--doc", "docs/VALIDATION.md"])
                .args(rest);
            run(c, "the validation lab")
        }),
        "fuzz" => build(true, false).map(|_| ()).and_then(|()| {
            let mut c = cargo();
            c.env("CAMBER_CACHE_DIR", target_dir().join("camber-cwasm-cache-release"));
            c.args(["run", "--release", "-p", "camber-tests", "--bin", "camber-fuzz", "--"]);
            c.args(rest);
            run(c, "the fuzz run")
        }),
        _ => {
            eprintln!("usage: cargo xtask <build [--release] | demo [--store DIR] | test [cargo test args] | bench | fuzz [CASES] [SEED] [stdio|http|both] | new-capability NAME [--lang rust|python|js] [--dir DIR] | validate [--only CASE ...]>");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The version of the WIT package in `wit/capability.wit` (its `package camber:capability@X;`
/// line), which a JavaScript component names in its imports.
fn wit_version() -> Result<String, String> {
    let wit = root().join("wit").join("capability.wit");
    let text = std::fs::read_to_string(&wit).map_err(|e| format!("cannot read {}: {e}", wit.display()))?;
    text.lines()
        .find_map(|l| l.trim().strip_prefix("package camber:capability@")?.strip_suffix(';').map(str::to_string))
        .ok_or_else(|| format!("{} names no package version", wit.display()))
}
