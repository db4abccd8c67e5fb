# mmcc: the two commands of the README are `make run` and `make test`.
VENV   ?= .venv
PY     := $(VENV)/bin/python
PYTHON ?= python3

.PHONY: setup run test test-rust test-ns3 test-bpf test-python validate ns3-deps kernel-deps bench bench-deps bench-gym rl-deps rl-example clean mmwave-runner mutants

# Create the virtualenv, install the Python dependencies pyproject.toml lists and build the Rust
# extension (release). The default install is lean; the test tools and Ray (the `test` extra) are
# installed by `make test` only.
setup: $(VENV)/.deps
	$(VENV)/bin/maturin develop --release --quiet

$(VENV)/.deps: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/python .ci/requirements.py gym > $(VENV)/requirements.txt
	$(VENV)/bin/pip install --quiet "maturin>=1.5,<2" -r $(VENV)/requirements.txt
	touch $@

$(VENV)/.test-deps: $(VENV)/.deps pyproject.toml
	$(VENV)/bin/python .ci/requirements.py test > $(VENV)/requirements-test.txt
	$(VENV)/bin/pip install --quiet -r $(VENV)/requirements-test.txt
	touch $@

# The main job: a quick reproduction of the thesis' experiments (urban 28 GHz scenario, 8
# algorithms x 16 conditions, one seed): tables, figures and out/thesis/report.html.
run: setup
	$(VENV)/bin/mmcc reproduce thesis --quick --out out/thesis

# Rust unit + system tests, the ns-3 module's unit tests, the eBPF programs (host arithmetic test;
# built when clang/libbpf are there), then the Python tests (fast suite, with a short cross-check
# against ns-3 and, as root, the kernel testbed; see `validate` for the long ones).
test: setup $(VENV)/.test-deps test-rust test-ns3 test-bpf test-python

# clippy enforces the engine's determinism rules (clippy.toml: no wall clock, no HashMap).
test-rust:
	cargo clippy --release --workspace --all-targets --quiet -- -D warnings
	cargo test --release --workspace --exclude mmcc-py

test-python: $(VENV)/.test-deps
	$(PY) -m pytest -q

# Long validations (marked slow), separate from the default suite: the thesis ordering and a
# quick cross-check against ns-3 3.37 (Debian's libns3-dev, installed here if missing).
validate: setup $(VENV)/.test-deps ns3-deps
	$(PY) -m pytest -q -m slow

# Mutation testing of the TCP stack and the algorithms (not part of `make test`: ~3,800 mutants,
# a few seconds each with the `mutants` profile, about 3-4 hours on 2 cores). Each mutant must fail
# the unit tests, the pinned ns-3 / linux traces or the two-endpoint harness; the report is
# target/mutants/mutants.out/{caught,missed,timeout,unviable}.txt. Narrow it with
# MUTANTS_FILES='crates/mmcc-core/src/tcp/sender/recovery.rs'.
MUTANTS_FILES ?= crates/mmcc-core/src/tcp/**/*.rs crates/mmcc-core/src/cca/**/*.rs
mutants:
	@command -v cargo-mutants >/dev/null || cargo install --locked cargo-mutants
	cargo mutants -p mmcc-core $(foreach f,$(MUTANTS_FILES),-f '$(f)') --profile mutants --output target/mutants \
		-- --lib --test pinned_traces --test harness

# The ns-3 module (ns3/): build it against libns3-dev (installed here if missing and root) and run
# its ns-3 test suite; skipped with a message when ns-3 cannot be installed.
test-ns3: ns3-deps
	@if pkg-config --exists ns3-internet 2>/dev/null; then \
		$(MAKE) --no-print-directory -C ns3 -j$$(nproc) && target/ns3/mmcc-ns3-tests; \
	else echo "ns-3 is not installed: the ns-3 module tests are skipped"; fi
	@if command -v clang-format >/dev/null; then $(MAKE) --no-print-directory -C ns3 format-check; \
	else echo "clang-format is not installed: the ns-3 module's formatting is not checked"; fi

NS3_DEBS := libns3-dev libgsl-dev libsqlite3-dev pkg-config nlohmann-json3-dev g++ clang-format
ns3-deps:
	@if pkg-config --exists ns3-internet 2>/dev/null && [ -f /usr/include/nlohmann/json.hpp ] && command -v clang-format >/dev/null; then :; \
	elif [ "$$(id -u)" = 0 ]; then { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(NS3_DEBS); } \
		|| echo "could not install ns-3 ($(NS3_DEBS)): the ns-3 checks will be skipped"; \
	else echo "ns-3 is not installed; as root: apt-get install $(NS3_DEBS) (the ns-3 check will be skipped)"; fi

# The eBPF congestion controls (bpf/): their integer arithmetic against the simulator's equations
# on the host (needs only cc), then the BPF objects (needs clang, libbpf and bpftool, installed
# here if missing and root; loading them is tested by the Python suite as root).
# The BPF toolchain (clang, bpftool, libbpf headers) is there.
HAVE_BPF_TOOLS := command -v clang >/dev/null && command -v bpftool >/dev/null && [ -f /usr/include/bpf/bpf_helpers.h ]

test-bpf: kernel-deps
	$(MAKE) --no-print-directory -C bpf test
	@if command -v clang-format >/dev/null; then $(MAKE) --no-print-directory -C bpf format-check; \
	else echo "clang-format is not installed: the BPF sources' formatting is not checked"; fi
	@if $(HAVE_BPF_TOOLS) && [ -f /sys/kernel/btf/vmlinux ]; then $(MAKE) --no-print-directory -C bpf -j$$(nproc); \
	else echo "clang/libbpf/bpftool or kernel BTF missing: the BPF programs are not built"; fi

KERNEL_DEBS := clang llvm libbpf-dev bpftool iproute2 ethtool
kernel-deps:
	@if $(HAVE_BPF_TOOLS) && command -v ip >/dev/null; then :; \
	elif [ "$$(id -u)" = 0 ]; then { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(KERNEL_DEBS); } \
		|| echo "could not install $(KERNEL_DEBS): the kernel checks will be skipped"; \
	else echo "as root: apt-get install $(KERNEL_DEBS) (the kernel checks will be skipped)"; fi

# The ns3-mmwave runner of `mmcc validate mmwave`, against an ns3-mmwave tree you built
# (docs/validation.md, "The mmWave path against ns3-mmwave"): make mmwave-runner NS3_MMWAVE=DIR
# [MMWAVE_RUNNER_DIR=target/mmwave-oracle-tcp-3.35 for the tree with ns-3.35's TCP]
MMWAVE_RUNNER_DIR ?= target/mmwave-oracle
mmwave-runner:
	$(MAKE) --no-print-directory -C ns3/mmwave-oracle NS3_MMWAVE=$(abspath $(NS3_MMWAVE)) BUILD=$(abspath $(MMWAVE_RUNNER_DIR))

# Speed and memory as ratios against the previous commit (built in target/bench-base) and ns-3
# 3.37 on the same case; BENCH_ARGS='--base REV', '--grid', '--skip-base' (benches/bench.py).
bench: setup bench-deps
	$(PY) benches/bench.py $(BENCH_ARGS)

# valgrind counts the instructions the engine executes (make bench's noise-free ratio), and ns-3
# the reference it is timed against; installed here if missing and root, else those rows skip.
bench-deps: ns3-deps
	@command -v valgrind >/dev/null || { [ "$$(id -u)" = 0 ] && apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind; } \
		|| echo "valgrind is not installed (apt-get install valgrind): make bench skips the instruction counts"

# The learning environment's speed: steps per second, real-time ratio, vector-env scaling
# (benches/gym_bench.py; GYM_BENCH_ARGS='--seconds 10 --workers N').
bench-gym: setup
	$(PY) benches/gym_bench.py $(GYM_BENCH_ARGS)

# The optional training stack of examples/train_ppo.py (torch, stable-baselines3: the `rl`
# extra of pyproject.toml); no test needs it.
rl-deps: setup
	$(PY) .ci/requirements.py rl > $(VENV)/requirements-rl.txt
	$(VENV)/bin/pip install --quiet -r $(VENV)/requirements-rl.txt

# Train a small PPO controller on thesis-edge and compare it with CUBIC, BBR and RTTV
# (out/rl/report.md; RL_ARGS='--minutes 5 --workers 2').
rl-example: rl-deps
	$(PY) examples/train_ppo.py $(RL_ARGS)

clean:
	rm -rf $(VENV) target out
