//! Congestion-control algorithms written in Python.
//!
//! A Python object (a subclass of `mmcc.CongestionControl`) is wrapped in [`PyCca`], which
//! implements the Rust trait by calling the object's methods with the GIL re-acquired for each
//! call. The state is passed as a `CcState` Python object whose `cwnd`, `ssthresh` and
//! `pacing_rate_bps` the method may change; it is one object per flow, refreshed before each
//! call (no allocation per call). A method the class leaves as `mmcc.CongestionControl`'s
//! no-op is not called at all. An exception stops further Python calls for that flow (it then
//! behaves as "hold the window") and is reported when the run ends.

use mmcc_core::cca::{AckEvent, CaState, CcState, CongestionControl, CongestionEvent, CongestionKind};
use mmcc_core::cca::RateSample;
use mmcc_core::time::Bandwidth;
use pyo3::prelude::*;
use std::cell::Cell;
use std::sync::{Arc, Mutex};

/// The connection state seen by a Python algorithm (times in seconds, windows in bytes).
#[pyclass(name = "CcState", module = "mmcc._core")]
pub struct PyCcState {
    #[pyo3(get)]
    pub now_s: f64,
    #[pyo3(get)]
    pub mss: u64,
    #[pyo3(get, set)]
    pub cwnd: u64,
    #[pyo3(get, set)]
    pub ssthresh: u64,
    #[pyo3(get)]
    pub initial_cwnd: u64,
    #[pyo3(get)]
    pub bytes_in_flight: u64,
    #[pyo3(get)]
    pub state: &'static str,
    #[pyo3(get)]
    pub latest_rtt_s: Option<f64>,
    #[pyo3(get)]
    pub srtt_s: Option<f64>,
    #[pyo3(get)]
    pub min_rtt_s: Option<f64>,
    #[pyo3(get)]
    pub max_rtt_s: Option<f64>,
    #[pyo3(get)]
    pub delivered: u64,
    #[pyo3(get, set)]
    pub pacing_rate_bps: Option<u64>,
    #[pyo3(get)]
    pub app_limited: bool,
    #[pyo3(get)]
    pub sinr_db: Option<f64>,
    #[pyo3(get)]
    pub snd_una: u64,
    #[pyo3(get)]
    pub snd_nxt: u64,
}

#[pymethods]
impl PyCcState {
    /// cwnd in segments.
    fn cwnd_segments(&self) -> f64 {
        self.cwnd as f64 / self.mss as f64
    }
    /// cwnd < ssthresh.
    fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }
    fn __repr__(&self) -> String {
        format!("CcState(t={:.6}s, cwnd={}, ssthresh={}, state={})", self.now_s, self.cwnd, self.ssthresh, self.state)
    }
}

fn to_py(cc: &CcState) -> PyCcState {
    let s = |d: Option<mmcc_core::Dur>| d.map(|d| d.secs_f64());
    PyCcState {
        now_s: cc.now.secs_f64(),
        mss: cc.mss,
        cwnd: cc.cwnd,
        ssthresh: cc.ssthresh,
        initial_cwnd: cc.initial_cwnd,
        bytes_in_flight: cc.bytes_in_flight,
        state: cc.state.name(),
        latest_rtt_s: s(cc.latest_rtt),
        srtt_s: s(cc.srtt),
        min_rtt_s: s(cc.min_rtt),
        max_rtt_s: s(cc.max_rtt),
        delivered: cc.delivered,
        pacing_rate_bps: cc.pacing_rate.map(|b| b.as_bps()),
        app_limited: cc.app_limited,
        sinr_db: cc.sinr_db,
        snd_una: cc.snd_una,
        snd_nxt: cc.snd_nxt,
    }
}

/// Largest window (cwnd, ssthresh) a Python algorithm may set: 1 TiB, far above any path's
/// bandwidth-delay product, so that a runaway window is an error instead of overflowing.
const MAX_WINDOW: u64 = 1 << 40;

fn from_py(cc: &mut CcState, p: &PyCcState) {
    cc.cwnd = p.cwnd.max(1);
    cc.ssthresh = p.ssthresh.max(1);
    cc.pacing_rate = p.pacing_rate_bps.map(Bandwidth);
}

/// Shared slot for the first Python error of a run.
pub type ErrorSlot = Arc<Mutex<Option<String>>>;

/// The Python algorithm objects of a run (flow index -> object), wrapped for the core, all
/// reporting into `error`.
pub fn wrap_all(
    py: Python<'_>,
    algorithms: Option<std::collections::BTreeMap<usize, Py<PyAny>>>,
    error: &ErrorSlot,
) -> PyResult<std::collections::BTreeMap<usize, Box<dyn CongestionControl>>> {
    let mut out: std::collections::BTreeMap<usize, Box<dyn CongestionControl>> = Default::default();
    for (i, obj) in algorithms.unwrap_or_default() {
        out.insert(i, Box::new(PyCca::new(py, obj, error.clone())?));
    }
    Ok(out)
}

/// The methods of `mmcc.CongestionControl`.
#[derive(Clone, Copy, PartialEq)]
enum Method {
    Init,
    OnAck,
    IncreaseWindow,
    Ssthresh,
    OnCongestionEvent,
    OnStateChange,
    OnRateSample,
}

impl Method {
    /// Every method, in declaration order (the index of [`PyCca::methods`]).
    const ALL: [Method; 7] = [
        Method::Init,
        Method::OnAck,
        Method::IncreaseWindow,
        Method::Ssthresh,
        Method::OnCongestionEvent,
        Method::OnStateChange,
        Method::OnRateSample,
    ];

    /// The base class defines it as a no-op: an algorithm need not define it.
    fn optional(self) -> bool {
        !matches!(self, Method::IncreaseWindow | Method::Ssthresh)
    }

    fn name(self) -> &'static str {
        match self {
            Method::Init => "init",
            Method::OnAck => "on_ack",
            Method::IncreaseWindow => "increase_window",
            Method::Ssthresh => "ssthresh",
            Method::OnCongestionEvent => "on_congestion_event",
            Method::OnStateChange => "on_state_change",
            Method::OnRateSample => "on_rate_sample",
        }
    }

    /// The name as an interned Python string (made once per run, not per call).
    fn py_name<'py>(self, py: Python<'py>) -> &'py Bound<'py, pyo3::types::PyString> {
        match self {
            Method::Init => pyo3::intern!(py, "init"),
            Method::OnAck => pyo3::intern!(py, "on_ack"),
            Method::IncreaseWindow => pyo3::intern!(py, "increase_window"),
            Method::Ssthresh => pyo3::intern!(py, "ssthresh"),
            Method::OnCongestionEvent => pyo3::intern!(py, "on_congestion_event"),
            Method::OnStateChange => pyo3::intern!(py, "on_state_change"),
            Method::OnRateSample => pyo3::intern!(py, "on_rate_sample"),
        }
    }

    /// The bit of [`PyCca::overridden`].
    fn bit(self) -> u8 {
        1 << self as u8
    }
}

pub struct PyCca {
    /// The object's bound methods, looked up once, in [`Method`] order (they hold the object).
    methods: Vec<Py<PyAny>>,
    /// The state object handed to every call (made at the first).
    state: std::cell::OnceCell<Py<PyCcState>>,
    /// Bits of the methods to call: the required ones, and the optional ones the object defines
    /// itself (the base class's are no-ops).
    overridden: u8,
    name: String,
    controls_window: bool,
    fast_recovery: bool,
    error: ErrorSlot,
    /// Set after the first exception: no more Python calls for this flow.
    failed: Cell<bool>,
}

impl PyCca {
    pub fn new(py: Python<'_>, obj: Py<PyAny>, error: ErrorSlot) -> PyResult<PyCca> {
        let b = obj.bind(py);
        let name: String = b.getattr("name")?.extract()?;
        let controls_window: bool = b.getattr("controls_window")?.extract()?;
        let fast_recovery: bool = b.getattr("uses_fast_recovery")?.extract()?;
        let base = py.import("mmcc.cca")?.getattr("CongestionControl")?;
        let mut overridden = 0;
        let mut methods = Vec::with_capacity(Method::ALL.len());
        for m in Method::ALL {
            let own = b.getattr(m.py_name(py))?;
            // a bound method of the base class's function is the no-op; anything else (an
            // override, a function set on the instance) is called
            let base_fn = base.getattr(m.py_name(py))?;
            if !m.optional() || !own.getattr("__func__").is_ok_and(|f| f.is(&base_fn)) {
                overridden |= m.bit();
            }
            methods.push(own.unbind());
        }
        Ok(PyCca { methods, state: Default::default(), overridden, name, controls_window, fast_recovery, error, failed: Cell::new(false) })
    }

    /// Call `method(cc, *extra)`, copy the window back; returns the method's result.
    fn call(&self, cc: &mut CcState, method: Method, extra: impl FnOnce(Python<'_>) -> PyResult<Vec<Py<PyAny>>>) -> Option<Py<PyAny>> {
        if self.failed.get() || self.overridden & method.bit() == 0 {
            return None;
        }
        let res = Python::attach(|py| -> PyResult<Py<PyAny>> {
            let state = match self.state.get() {
                Some(s) => {
                    let s = s.bind(py).clone();
                    *s.borrow_mut() = to_py(cc);
                    s
                }
                None => {
                    let s = Bound::new(py, to_py(cc))?;
                    let _ = self.state.set(s.clone().unbind());
                    s
                }
            };
            let mut args: Vec<Py<PyAny>> = vec![state.clone().into_any().unbind()];
            args.extend(extra(py)?);
            let tuple = pyo3::types::PyTuple::new(py, args)?;
            let out = self.methods[method as usize].bind(py).call1(tuple)?;
            let st = state.borrow();
            if st.cwnd > MAX_WINDOW || st.ssthresh > MAX_WINDOW && st.ssthresh != u64::MAX {
                return Err(pyo3::exceptions::PyValueError::new_err(format!(
                    "cwnd = {} / ssthresh = {} bytes; allowed: at most {MAX_WINDOW} bytes (1 TiB)",
                    st.cwnd, st.ssthresh
                )));
            }
            from_py(cc, &st);
            Ok(out.unbind())
        });
        match res {
            Ok(v) => Some(v),
            Err(e) => {
                let msg = Python::attach(|py| {
                    let tb = e.traceback(py).and_then(|t| t.format().ok()).unwrap_or_default();
                    format!("Python congestion control '{}' raised in {}(): {e}{}", self.name, method.name(),
                        if tb.is_empty() { String::new() } else { format!("\n{tb}") })
                });
                self.fail(msg);
                None
            }
        }
    }

    /// Record the first error of the run and stop calling into Python for this flow.
    fn fail(&self, msg: String) {
        self.failed.set(true);
        let mut slot = self.error.lock().expect("error slot");
        if slot.is_none() {
            *slot = Some(msg);
        }
    }
}

fn ack_obj(py: Python<'_>, ack: &AckEvent) -> PyResult<Vec<Py<PyAny>>> {
    let d = pyo3::types::PyDict::new(py);
    d.set_item(pyo3::intern!(py, "segments_acked"), ack.segments_acked)?;
    d.set_item(pyo3::intern!(py, "bytes_acked"), ack.bytes_acked)?;
    d.set_item(pyo3::intern!(py, "rtt_s"), ack.rtt.map(|r| r.secs_f64()))?;
    Ok(vec![d.into_any().unbind()])
}

impl CongestionControl for PyCca {
    fn name(&self) -> &str {
        &self.name
    }
    fn init(&mut self, cc: &mut CcState) {
        self.call(cc, Method::Init, |_| Ok(vec![]));
    }
    fn on_ack(&mut self, cc: &mut CcState, ack: &AckEvent) {
        self.call(cc, Method::OnAck, |py| ack_obj(py, ack));
    }
    fn increase_window(&mut self, cc: &mut CcState, ack: &AckEvent) {
        self.call(cc, Method::IncreaseWindow, |py| ack_obj(py, ack));
    }
    fn ssthresh(&self, cc: &CcState) -> u64 {
        // pure by contract: called on a copy of the state
        let mut copy = cc.clone();
        let Some(out) = self.call(&mut copy, Method::Ssthresh, |_| Ok(vec![])) else {
            return cc.ssthresh.max(cc.min_ssthresh());
        };
        match Python::attach(|py| out.extract::<u64>(py).map_err(|_| out.bind(py).repr().map(|r| r.to_string()).unwrap_or_default())) {
            Ok(v) if v <= MAX_WINDOW => v.max(cc.min_ssthresh()),
            res => {
                let got = match res {
                    Ok(v) => v.to_string(),
                    Err(repr) => repr,
                };
                self.fail(format!(
                    "Python congestion control '{}': ssthresh() returned {got}; expected a whole number of bytes in 0..={MAX_WINDOW}",
                    self.name
                ));
                cc.ssthresh.max(cc.min_ssthresh())
            }
        }
    }
    fn on_congestion_event(&mut self, cc: &mut CcState, ev: &CongestionEvent) {
        let k = match ev.kind {
            CongestionKind::FastRetransmit => "fast_retransmit",
            CongestionKind::Timeout => "timeout",
        };
        self.call(cc, Method::OnCongestionEvent, |py| Ok(vec![k.into_pyobject(py)?.into_any().unbind()]));
    }
    fn on_state_change(&mut self, cc: &mut CcState, from: CaState) {
        self.call(cc, Method::OnStateChange, |py| Ok(vec![from.name().into_pyobject(py)?.into_any().unbind()]));
    }
    fn on_rate_sample(&mut self, cc: &mut CcState, rs: &RateSample) {
        if !self.controls_window {
            return; // only model-based algorithms get the per-ACK rate sample (saves a call)
        }
        self.call(cc, Method::OnRateSample, |py| {
            let d = pyo3::types::PyDict::new(py);
            d.set_item("delivered", rs.delivered)?;
            d.set_item("interval_s", rs.interval.secs_f64())?;
            d.set_item("delivery_rate_bps", rs.delivery_rate().as_bps())?;
            d.set_item("is_app_limited", rs.is_app_limited)?;
            d.set_item("rtt_s", rs.rtt.map(|r| r.secs_f64()))?;
            d.set_item("acked_sacked", rs.acked_sacked)?;
            d.set_item("newly_lost", rs.newly_lost)?;
            d.set_item("prior_in_flight", rs.prior_in_flight)?;
            d.set_item("valid", rs.valid)?;
            Ok(vec![d.into_any().unbind()])
        });
    }
    fn controls_window(&self) -> bool {
        self.controls_window
    }
    fn uses_fast_recovery(&self) -> bool {
        self.fast_recovery
    }
}
