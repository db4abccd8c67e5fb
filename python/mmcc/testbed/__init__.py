"""Real kernels: mmcc's algorithms as eBPF congestion controls (`bpf`) and a testbed that runs a
scenario's flows with kernel TCP over an emulated copy of its path (`run`, the sender/receiver
`endpoint` and the Rust link emulator crates/mmcc-linkemu)."""
