//! `mmcc-linkemu CONFIG.json`: the kernel testbed's link emulator as a program of its own (the
//! testbed itself runs the same code through the Python extension: `mmcc_linkemu::emulator`).

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 2 || args[1].starts_with('-') {
        eprintln!("usage: mmcc-linkemu CONFIG.json  (written by `mmcc testbed`; see docs/testbed.md)");
        std::process::exit(2);
    }
    if let Err(e) = mmcc_linkemu::emulator::run(&args[1]) {
        eprintln!("mmcc-linkemu: {e}");
        std::process::exit(1);
    }
}
