//! The `camber` command: the command line over the store, the registry and the serving
//! adapters, and the one place they are wired together.

#![deny(unsafe_code)]

mod backend;
mod cli;
mod portfolio;
mod report;
mod watch;

fn main() {
    std::process::exit(cli::main());
}
