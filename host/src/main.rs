//! The `camber` command.

fn main() {
    std::process::exit(camber_host::cli::main());
}
