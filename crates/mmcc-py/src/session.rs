//! `mmcc._core.Session`: a simulation that Python advances step by step (`mmcc.gym`).
//!
//! Between two `run_until` calls Python reads flows' snapshots
//! (`mmcc_core::sim::FlowSnapshot`, as a tuple in [`SNAPSHOT_FIELDS`] order) and sets their
//! window and pacing rate; the agent's decision is applied inside the core, not by a Python
//! call per ACK. `finish` runs to the configured end and returns the same tables as `run`.

use crate::pycca::ErrorSlot;
use mmcc_core::cca::held::Held;
use mmcc_core::sim::{FlowSnapshot, Simulation, INTERRUPT_CHECK_EVENTS};
use mmcc_core::time::Time;
use pyo3::exceptions::{PyIndexError, PyKeyboardInterrupt, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// The order of [`Session::snapshot`]'s tuple (times in ns, sizes in bytes, rates in b/s).
pub const SNAPSHOT_FIELDS: [&str; 23] = [
    "now_ns", "cwnd", "ssthresh", "in_flight", "mss", "srtt_ns", "min_rtt_ns", "latest_rtt_ns",
    "rtt_samples", "rtt_sum_ns", "bytes_sent", "retx_bytes", "bytes_acked", "delivered",
    "retransmits", "fast_retransmits", "rtos", "ca_state", "pacing_bps", "sinr_db", "los", "done",
    "events",
];

#[pyclass(unsendable, module = "mmcc._core")]
pub struct Session {
    /// None once `finish` has collected the output.
    sim: Option<Simulation>,
    error: ErrorSlot,
    python_algorithms: bool,
}

impl Session {
    fn sim(&mut self) -> PyResult<&mut Simulation> {
        self.sim.as_mut().ok_or_else(|| PyRuntimeError::new_err("this session has finished; make a new one"))
    }

    fn flow(&mut self, flow: usize) -> PyResult<&mut Simulation> {
        let sim = self.sim()?;
        if flow >= sim.flow_count() {
            return Err(PyIndexError::new_err(format!("flow {flow}: the run has {} flows", sim.flow_count())));
        }
        Ok(sim)
    }

    /// The first error a Python algorithm raised, as RuntimeError.
    fn python_error(&self) -> PyResult<()> {
        match self.error.lock().expect("error slot").take() {
            Some(msg) => Err(PyRuntimeError::new_err(msg)),
            None => Ok(()),
        }
    }

    /// Run events due by `until`, in chunks with a Ctrl-C check between them.
    fn advance(&mut self, py: Python<'_>, until: Time) -> PyResult<()> {
        let python = self.python_algorithms;
        let sim = self.sim()?;
        loop {
            let mut step = || catch_unwind(AssertUnwindSafe(|| sim.run_some(until, INTERRUPT_CHECK_EVENTS)));
            let done = if python { step() } else { py.detach(step) };
            match done {
                Ok(true) => break,
                Ok(false) => py.check_signals()?,
                Err(panic) => {
                    self.sim = None;
                    return Err(PyRuntimeError::new_err(format!("internal simulator error: {}", crate::panic_message(panic))));
                }
            }
        }
        self.python_error()
    }
}

/// Advance several sessions at once, each to its own time (ns, capped at its duration), on up
/// to `threads` threads with the GIL released (`mmcc.gym.vector`). Each session is its own
/// simulation, so the result is the same as advancing them one by one. Sessions with Python
/// algorithms are advanced on this thread, holding the GIL.
#[pyfunction]
#[pyo3(signature = (sessions, until_ns, threads=0))]
pub fn run_sessions_until(py: Python<'_>, mut sessions: Vec<PyRefMut<'_, Session>>, until_ns: Vec<u64>, threads: usize) -> PyResult<()> {
    if sessions.len() != until_ns.len() {
        return Err(PyValueError::new_err(format!("{} sessions but {} times", sessions.len(), until_ns.len())));
    }
    let mut untils = Vec::with_capacity(sessions.len());
    for (s, &t) in sessions.iter_mut().zip(&until_ns) {
        let sim = s.sim()?;
        untils.push(Time(t.min(sim.config().duration.0).max(sim.now().0)));
    }
    let threads = if threads == 0 { std::thread::available_parallelism().map_or(1, |n| n.get()) } else { threads };
    {
        let mut parallel: Vec<(&mut Simulation, Time)> = sessions
            .iter_mut()
            .zip(&untils)
            .filter(|(s, _)| !s.python_algorithms)
            .map(|(s, &u)| (s.sim.as_mut().expect("checked above"), u))
            .collect();
        let chunk = parallel.len().div_ceil(threads.max(1)).max(1);
        let failed = py.detach(|| {
            std::thread::scope(|scope| {
                let handles: Vec<_> = parallel
                    .chunks_mut(chunk)
                    .map(|part| {
                        scope.spawn(move || {
                            catch_unwind(AssertUnwindSafe(|| {
                                for (sim, until) in part.iter_mut() {
                                    sim.run_until(*until);
                                }
                            }))
                            .err()
                            .map(crate::panic_message)
                        })
                    })
                    .collect();
                handles.into_iter().find_map(|h| h.join().ok().flatten())
            })
        });
        if let Some(msg) = failed {
            return Err(PyRuntimeError::new_err(format!("internal simulator error: {msg}")));
        }
    }
    for (s, until) in sessions.iter_mut().zip(untils) {
        if s.python_algorithms {
            s.advance(py, until)?;
        }
    }
    Ok(())
}

#[pymethods]
impl Session {
    /// `config_json`: a normalized configuration (`mmcc.Scenario.to_json`). `held`: flow index
    /// -> name of the flows whose window only `set_window` changes (`mmcc_core::cca::held`);
    /// `algorithms`: flow index -> Python algorithm object, as for `run`. Raises ValueError for
    /// a bad configuration.
    #[new]
    #[pyo3(signature = (config_json, held=BTreeMap::new(), algorithms=None))]
    fn new(py: Python<'_>, config_json: &str, held: BTreeMap<usize, String>, algorithms: Option<BTreeMap<usize, Py<PyAny>>>) -> PyResult<Session> {
        let cfg = mmcc_core::SimConfig::from_json(config_json).map_err(PyValueError::new_err)?;
        let error: ErrorSlot = Default::default();
        let mut custom = crate::pycca::wrap_all(py, algorithms, &error)?;
        let python_algorithms = !custom.is_empty();
        for (i, name) in held {
            if custom.contains_key(&i) {
                return Err(PyValueError::new_err(format!("flow {i}: both held and given a Python algorithm")));
            }
            custom.insert(i, Box::new(Held::new(&name)));
        }
        let sim = Simulation::with_algorithms(cfg, custom).map_err(PyValueError::new_err)?;
        Ok(Session { sim: Some(sim), error, python_algorithms })
    }

    /// Simulated time now, ns.
    #[getter]
    fn now_ns(&mut self) -> PyResult<u64> {
        Ok(self.sim()?.now().0)
    }

    /// The configured run length, ns.
    #[getter]
    fn duration_ns(&mut self) -> PyResult<u64> {
        Ok(self.sim()?.config().duration.0)
    }

    #[getter]
    fn flow_count(&mut self) -> PyResult<usize> {
        Ok(self.sim()?.flow_count())
    }

    /// Run every event due by `t_ns` (ns, capped at the run's duration; a time already passed
    /// runs nothing). Returns the time reached.
    fn run_until(&mut self, py: Python<'_>, t_ns: u64) -> PyResult<u64> {
        let sim = self.sim()?;
        let until = Time(t_ns.min(sim.config().duration.0).max(sim.now().0));
        self.advance(py, until)?;
        Ok(until.0)
    }

    /// Flow `flow`'s state as a tuple in `SNAPSHOT_FIELDS` order (None where a value does not
    /// exist yet, e.g. an RTT before the first sample).
    fn snapshot<'py>(&mut self, py: Python<'py>, flow: usize) -> PyResult<Bound<'py, PyTuple>> {
        let sim = self.flow(flow)?;
        let s: FlowSnapshot = sim.flow_snapshot(flow);
        let events = sim.events_processed();
        macro_rules! items {
            ($($v:expr),* $(,)?) => { [$($v.into_pyobject(py)?.to_owned().into_any().unbind()),*] };
        }
        let items: [Py<PyAny>; SNAPSHOT_FIELDS.len()] = items![
            s.now_ns, s.cwnd, s.ssthresh, s.in_flight, s.mss, s.srtt_ns, s.min_rtt_ns, s.latest_rtt_ns,
            s.rtt_samples, s.rtt_sum_ns as f64, s.bytes_sent, s.retx_bytes, s.bytes_acked, s.delivered,
            s.retransmits, s.fast_retransmits, s.rtos, s.ca_state, s.pacing_bps, s.sinr_db, s.los, s.done,
            events,
        ];
        PyTuple::new(py, items)
    }

    /// Set flow `flow`'s congestion window in bytes (at least one segment).
    fn set_window(&mut self, flow: usize, cwnd: u64) -> PyResult<()> {
        self.flow(flow)?.set_window(flow, cwnd);
        Ok(())
    }

    /// Set flow `flow`'s pacing rate in bits per second, or None for the stack's default.
    #[pyo3(signature = (flow, bps))]
    fn set_pacing(&mut self, flow: usize, bps: Option<u64>) -> PyResult<()> {
        self.flow(flow)?.set_pacing(flow, bps);
        Ok(())
    }

    /// Name flow `flow`'s algorithm in the run's tables (the `cca` column).
    fn set_label(&mut self, flow: usize, name: &str) -> PyResult<()> {
        self.flow(flow)?.set_label(flow, name);
        Ok(())
    }

    /// Run to the configured end, check the engine's invariants and return the run's output as
    /// `run` does. The session is finished afterwards.
    fn finish(&mut self, py: Python<'_>) -> PyResult<Py<PyDict>> {
        let end = Time(self.sim()?.config().duration.0);
        match self.advance(py, end) {
            Err(e) if e.is_instance_of::<PyKeyboardInterrupt>(py) => return Err(e),
            r => r?,
        }
        let mut sim = self.sim.take().expect("checked by advance");
        sim.check_invariants().map_err(|e| PyRuntimeError::new_err(format!("internal invariant violated: {e}")))?;
        let pcap = sim.close_pcap().map_err(PyRuntimeError::new_err)?;
        let out = mmcc_core::sim::RunOutput::collect(&mut sim, pcap);
        crate::output_to_py(py, out, None)
    }
}
