//! `mmcc._core`: the Python face of the Rust simulator.
//!
//! `run(config_json)` runs one normalized configuration (built and validated by
//! `mmcc.scenario`) with the GIL released (kept while Python algorithms run) and returns its
//! tables as columns of raw little-endian bytes (`numpy.frombuffer` reads them without a copy
//! per element); string columns as their distinct labels and u32 codes.

mod pycca;
mod session;

use mmcc_core::record::Column;
use std::collections::BTreeMap;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// `values` as little-endian bytes in a new `bytes` object (one copy, no intermediate buffer).
fn le_bytes<'py, T: Copy, const W: usize>(py: Python<'py>, values: &[T], to_le: impl Fn(T) -> [u8; W]) -> PyResult<Bound<'py, PyBytes>> {
    PyBytes::new_with(py, values.len() * W, |buf| {
        for (chunk, &v) in buf.chunks_exact_mut(W).zip(values) {
            chunk.copy_from_slice(&to_le(v));
        }
        Ok(())
    })
}

/// A column as `(dtype, data)`: "f64" / "i64" with little-endian bytes, or "str" with
/// `(labels, codes)`, the codes little-endian u32 indices into the list of labels. The column
/// is consumed, so its memory is freed as soon as Python holds the copy.
fn column_to_py(py: Python<'_>, c: Column) -> PyResult<Bound<'_, PyAny>> {
    let t = match c {
        Column::F64(v) => ("f64", le_bytes(py, &v, f64::to_le_bytes)?.into_any()).into_pyobject(py)?.into_any(),
        Column::I64(v) => ("i64", le_bytes(py, &v, i64::to_le_bytes)?.into_any()).into_pyobject(py)?.into_any(),
        Column::Str(l) => {
            let codes = le_bytes(py, &l.codes, u32::to_le_bytes)?;
            ("str", (PyList::new(py, &l.labels)?, codes)).into_pyobject(py)?.into_any()
        }
    };
    Ok(t)
}

/// Run one simulation. `config_json` is the normalized configuration (see
/// `mmcc_core::sim::SimConfig`); `algorithms` maps flow indices to Python algorithm objects
/// (subclasses of `mmcc.CongestionControl`). Returns `{"tables": {name: {column: (dtype,
/// data)}}, "events_processed": int, "pcap_packets": int | None}`. Raises ValueError for a bad
/// configuration, RuntimeError if a Python algorithm raised or the simulator failed.
#[pyfunction]
#[pyo3(signature = (config_json, algorithms=None))]
fn run(py: Python<'_>, config_json: &str, algorithms: Option<BTreeMap<usize, Py<PyAny>>>) -> PyResult<Py<PyDict>> {
    let cfg = mmcc_core::SimConfig::from_json(config_json).map_err(PyValueError::new_err)?;
    let error: pycca::ErrorSlot = Default::default();
    let custom = pycca::wrap_all(py, algorithms, &error)?;
    // Ctrl-C: Python's signal handlers run between chunks of events (the GIL is taken for the
    // check only); an interrupted run returns its tables so far with the time it reached. A run
    // with Python algorithms keeps the GIL (they take it on every ACK; taking it back from a
    // released state costs more than their call).
    let python_algorithms = !custom.is_empty();
    let go = move || {
        catch_unwind(AssertUnwindSafe(move || {
            mmcc_core::sim::run_interruptible(cfg, custom, || Python::attach(|py| py.check_signals().is_err()))
        }))
    };
    let result = if python_algorithms { go() } else { py.detach(go) };
    if let Some(msg) = error.lock().expect("error slot").take() {
        return Err(PyRuntimeError::new_err(msg));
    }
    let (out, interrupted_at) = match result {
        Ok(Ok(out)) => out,
        Ok(Err(msg)) => return Err(PyValueError::new_err(msg)),
        Err(panic) => return Err(PyRuntimeError::new_err(format!("internal simulator error: {}", panic_message(panic)))),
    };
    output_to_py(py, out, interrupted_at)
}

/// A run's output as `run` returns it (the tables' columns consumed one at a time).
fn output_to_py(py: Python<'_>, out: mmcc_core::sim::RunOutput, interrupted_at: Option<mmcc_core::time::Time>) -> PyResult<Py<PyDict>> {
    let d = PyDict::new(py);
    let tables = PyDict::new(py);
    for t in out.tables {
        let cols = PyDict::new(py);
        for (name, c) in t.columns {
            cols.set_item(name, column_to_py(py, c)?)?;
        }
        tables.set_item(t.name, cols)?;
    }
    d.set_item("tables", tables)?;
    d.set_item("events_processed", out.events_processed)?;
    d.set_item("pcap_packets", out.pcap_packets)?;
    d.set_item("interrupted_at_s", interrupted_at.map(|t| t.0 as f64 / 1e9))?;
    Ok(d.unbind())
}

/// A panic's message (the simulator's internal errors), for a RuntimeError.
fn panic_message(panic: Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "unknown panic".into())
}

/// Every built-in congestion-control algorithm: name, aliases, source, parameters.
#[pyfunction]
fn algorithms(py: Python<'_>) -> PyResult<Py<PyList>> {
    let list = PyList::empty(py);
    for a in mmcc_core::cca::algorithms() {
        let d = PyDict::new(py);
        d.set_item("name", a.name)?;
        d.set_item("aliases", a.aliases.to_vec())?;
        d.set_item("source", a.source)?;
        let params = PyList::empty(py);
        for p in a.params {
            let pd = PyDict::new(py);
            pd.set_item("name", p.name)?;
            pd.set_item("default", p.default)?;
            pd.set_item("min", p.min)?;
            pd.set_item("max", p.max)?;
            pd.set_item("help", p.help)?;
            params.append(pd)?;
        }
        d.set_item("params", params)?;
        list.append(d)?;
    }
    Ok(list.unbind())
}

/// Complete and check a run configuration (JSON in, JSON out): serde fills every default, then
/// the rules of `mmcc_core::sim::SimConfig::validate_with` apply (flows in `custom` bring their
/// own algorithm object) and each built-in algorithm name becomes its canonical name. Raises
/// ValueError with the rule's message (`key: what is wrong; allowed: ...`).
#[pyfunction]
#[pyo3(signature = (config_json, custom=Vec::new()))]
fn complete_config(config_json: &str, custom: Vec<usize>) -> PyResult<String> {
    let mut cfg = mmcc_core::SimConfig::from_json(config_json).map_err(PyValueError::new_err)?;
    cfg.validate_with(&|i| custom.contains(&i)).map_err(PyValueError::new_err)?;
    for (i, f) in cfg.flows.iter_mut().enumerate() {
        if !custom.contains(&i) {
            let a = mmcc_core::cca::build(&f.cca, &f.cca_params, f.tcp.profile).map_err(PyValueError::new_err)?;
            f.cca = a.name().to_string();
        }
    }
    serde_json::to_string(&cfg).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The concrete TCP settings of a flow's `tcp` table (JSON in, JSON out): every key the table
/// leaves unset takes its profile's value. Used by `mmcc export-ns3` and run.json.
#[pyfunction]
fn resolve_tcp(tcp_json: &str) -> PyResult<String> {
    let cfg: mmcc_core::tcp::TcpConfig =
        serde_json::from_str(tcp_json).map_err(|e| PyValueError::new_err(format!("invalid tcp settings: {e}")))?;
    serde_json::to_string(&cfg.resolve()).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The hops a packet from node `src` to node `dst` takes in a run configuration (JSON), by the
/// simulator's own routing (`SimConfig::route`): JSON `[{"link": [i, "ab"]}, {"radio": [j, "down"]},
/// ...]`, or `null` when there is no path.
#[pyfunction]
fn route(config_json: &str, src: u16, dst: u16) -> PyResult<String> {
    let cfg = mmcc_core::SimConfig::from_json(config_json).map_err(PyValueError::new_err)?;
    serde_json::to_string(&cfg.route(src, dst)).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The schema of every TCP knob as JSON (`mmcc_core::tcp::knobs::knobs`): field name, scenario
/// key, kind of value, each profile's value, range and meaning. The scenario reader and the
/// scenario-format table are built from it (`mmcc.schema`).
#[pyfunction]
fn tcp_knobs() -> PyResult<String> {
    serde_json::to_string(&mmcc_core::tcp::knobs::knobs()).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// Run the kernel testbed's link emulator (`mmcc_linkemu::emulator`) in this process until it
/// is told to stop (`python -m mmcc.testbed.linkemu CONFIG.json`): an installed mmcc needs no
/// separate binary and no cargo. The emulator installs its own SIGINT/SIGTERM handlers, so
/// this process is dedicated to it. Raises RuntimeError with the emulator's error.
#[pyfunction]
fn linkemu(py: Python<'_>, config_path: String) -> PyResult<()> {
    py.detach(move || mmcc_linkemu::emulator::run(&config_path)).map_err(PyRuntimeError::new_err)
}

/// How many of the first `draws` draws of the seeded stream `stream` of run seed `seed` lose a
/// packet at a per-packet rate `rate` (`ErrorModel::corrupts`, unit packet): the losses a link
/// whose error model draws from that stream (the simulator's `link/<i>/<dir>/error`, the
/// testbed's `testbed/link/<i>/<dir>/error`) deals its first `draws` packets. `mmcc validate
/// linux --independent` checks the kernel runs' realised loss against it.
#[pyfunction]
fn stream_losses(seed: u64, stream: &str, rate: f64, draws: u64) -> PyResult<u64> {
    use mmcc_core::net::error_model::{ErrorModel, ErrorModelConfig, ErrorUnit};
    if !(0.0..=1.0).contains(&rate) {
        return Err(PyValueError::new_err(format!("stream_losses: rate {rate} is not a probability (0 to 1)")));
    }
    let mut m = ErrorModel::new(&ErrorModelConfig { unit: ErrorUnit::Packet, rate }, mmcc_core::rng::Rng::stream(seed, stream));
    Ok((0..draws).filter(|_| m.corrupts(0)).count() as u64)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms, m)?)?;
    m.add_function(wrap_pyfunction!(complete_config, m)?)?;
    m.add_function(wrap_pyfunction!(resolve_tcp, m)?)?;
    m.add_function(wrap_pyfunction!(tcp_knobs, m)?)?;
    m.add_function(wrap_pyfunction!(route, m)?)?;
    m.add_function(wrap_pyfunction!(linkemu, m)?)?;
    m.add_function(wrap_pyfunction!(stream_losses, m)?)?;
    m.add_class::<pycca::PyCcState>()?;
    m.add_class::<session::Session>()?;
    m.add_function(wrap_pyfunction!(session::run_sessions_until, m)?)?;
    m.add("SNAPSHOT_FIELDS", session::SNAPSHOT_FIELDS.to_vec())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
