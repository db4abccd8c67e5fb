//! Congestion control: the [`CongestionControl`] trait every algorithm implements, the state it
//! sees ([`CcState`]) and the registry that builds algorithms by name.
//!
//! The trait is shaped after ns-3's `TcpCongestionOps` and quinn's `Controller`:
//! - [`CongestionControl::on_ack`]: every ACK that delivers data, with its RTT sample
//!   (ns-3 `PktsAcked`);
//! - [`CongestionControl::increase_window`]: grow cwnd on an ACK that advances `snd_una` outside
//!   fast recovery (ns-3 `IncreaseWindow`);
//! - [`CongestionControl::ssthresh`]: the new slow-start threshold after a loss, a pure function
//!   (ns-3 `GetSsThresh`);
//! - [`CongestionControl::on_congestion_event`]: state updates at a loss (e.g. CUBIC's W_max);
//! - [`CongestionControl::on_state_change`] (ns-3 `CongestionStateSet`);
//! - [`CongestionControl::on_rate_sample`]: a delivery-rate sample per ACK (ns-3 `CongControl`),
//!   for model-based algorithms, which set [`CongestionControl::controls_window`].
//!
//! Windows are in bytes everywhere (`cc.mss` converts); the equations in the algorithm files are
//! written in segments as the publications write them.

pub mod bbr;
pub mod bic;
pub mod cubic;
pub mod dtcp;
pub mod fbtcp;
pub mod held;
pub mod highspeed;
pub mod htcp;
pub mod hybla;
pub mod mmstcp;
pub mod mrvhs;
pub mod msscca;
pub mod newreno;
pub mod rttv;
pub mod scalable;
pub mod tahoe;
pub mod util;
pub mod vegas;
pub mod westwood;
pub mod yeah;

pub mod rate;

use crate::rng::Rng;
pub use crate::stack::Profile;
use crate::time::{Bandwidth, Dur, Time};
pub use rate::RateSample;
use std::collections::BTreeMap;

/// Congestion state of the sender (ns-3 `TcpCongState_t`, Linux `tcp_ca_state`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum CaState {
    /// Normal operation.
    Open = 0,
    /// Duplicate ACKs or SACKs seen, not yet a loss.
    Disorder = 1,
    /// Fast recovery after a loss detected by duplicate ACKs / SACK.
    Recovery = 2,
    /// After a retransmission timeout.
    Loss = 3,
}

impl CaState {
    pub fn name(self) -> &'static str {
        match self {
            CaState::Open => "open",
            CaState::Disorder => "disorder",
            CaState::Recovery => "recovery",
            CaState::Loss => "loss",
        }
    }
}

/// What caused a window reduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CongestionKind {
    /// Loss detected by three duplicate ACKs or SACK (entering fast recovery).
    FastRetransmit,
    /// Retransmission timeout.
    Timeout,
}

/// A congestion event as the algorithm sees it: one struct for fast retransmit and timeout, so
/// both report the window before the event (on a timeout cwnd is already one segment when
/// [`CongestionControl::on_congestion_event`] runs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CongestionEvent {
    pub kind: CongestionKind,
    /// cwnd just before the event, bytes.
    pub prior_cwnd: u64,
    /// Bytes in flight the stack used for the event (ns-3's `GetSsThresh` argument).
    pub bytes_in_flight: u64,
}

/// The connection state an algorithm reads and (for cwnd, ssthresh, pacing and the requests
/// below) writes.
#[derive(Clone, Debug)]
pub struct CcState {
    pub now: Time,
    /// Request: the samples of the data now in flight are not bandwidth samples (Linux
    /// `tp->app_limited`; BBR sets it in ProbeRTT). The stack clears it once acted on.
    pub request_app_limited: bool,
    /// The flow's seeded random stream for the algorithm's own choices (stream "flow/<i>/cca"
    /// of the run seed; BBR's ProbeBW start phase).
    pub rng: Rng,
    /// Sender maximum segment size in bytes.
    pub mss: u64,
    /// Congestion window in bytes.
    pub cwnd: u64,
    /// Slow-start threshold in bytes.
    pub ssthresh: u64,
    /// Initial window in bytes.
    pub initial_cwnd: u64,
    /// RFC 6675 pipe before this event, in bytes.
    pub bytes_in_flight: u64,
    pub state: CaState,
    /// Latest RTT sample, smoothed RTT, connection minimum and maximum. In the `ns3` profile
    /// latest, minimum and maximum are taken over the smoothed estimate, as an ns-3 class sees
    /// RTTs (`PktsAcked` gets `m_lastRtt`, the estimate).
    pub latest_rtt: Option<Dur>,
    pub srtt: Option<Dur>,
    pub min_rtt: Option<Dur>,
    pub max_rtt: Option<Dur>,
    /// Total bytes delivered to the receiver so far (cumulative + SACKed).
    pub delivered: u64,
    /// Bytes the ACK being processed delivered (cumulatively or by SACK; ns-3
    /// `m_lastAckedSackedBytes`).
    pub acked_sacked: u64,
    /// Pacing rate set by the algorithm (None: the stack's default).
    pub pacing_rate: Option<Bandwidth>,
    /// The sender is application-limited (no data while cwnd allowed more).
    pub app_limited: bool,
    /// The UE's SINR in dB as seen by the sender, when a cross-layer feed is configured.
    pub sinr_db: Option<f64>,
    /// Bytes per second the receiving application got over the last interval, when a receiver
    /// feed is configured (FB-TCP's authors' scripts hand it to the algorithm); None otherwise.
    pub receiver_rate: Option<f64>,
    /// First unacknowledged byte and next byte to send (for per-round bookkeeping), both as
    /// they were when the ACK arrived (ns-3's `m_nextTxSequence` as Vegas and YeAH read it).
    pub snd_una: u64,
    pub snd_nxt: u64,
    /// The highest byte sent so far, current at every hook: also what the stack has sent while
    /// processing this ACK (ns-3 `m_highTxMark`, which `DoRetransmit` raises when it sends new
    /// data on a partial ACK before the algorithm's `PktsAcked`; Linux `snd_nxt`).
    pub high_tx: u64,
    /// The run's seed, for the `ns3` profile's draws from ns-3's own generator (ns-3's run
    /// number; BBR's ProbeBW phase).
    pub run_seed: u64,
}

impl CcState {
    pub fn new(mss: u64, initial_cwnd_segments: u64) -> CcState {
        CcState {
            now: Time::ZERO,
            request_app_limited: false,
            rng: Rng::stream(0, "cca"),
            mss,
            cwnd: initial_cwnd_segments * mss,
            ssthresh: u64::MAX,
            initial_cwnd: initial_cwnd_segments * mss,
            bytes_in_flight: 0,
            state: CaState::Open,
            latest_rtt: None,
            srtt: None,
            min_rtt: None,
            max_rtt: None,
            delivered: 0,
            pacing_rate: None,
            app_limited: false,
            sinr_db: None,
            receiver_rate: None,
            snd_una: 0,
            snd_nxt: 0,
            high_tx: 0,
            acked_sacked: 0,
            run_seed: 0,
        }
    }
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }
    /// cwnd in segments (fractional), for equations written in segments.
    pub fn cwnd_segments(&self) -> f64 {
        self.cwnd as f64 / self.mss as f64
    }
    /// RFC 5681 (4) floor: two segments.
    pub fn min_ssthresh(&self) -> u64 {
        2 * self.mss
    }
}

/// An ACK as the algorithm sees it.
#[derive(Clone, Copy, Debug, Default)]
pub struct AckEvent {
    /// Segments newly acknowledged cumulatively (ns-3 `segmentsAcked`).
    pub segments_acked: u32,
    /// Bytes newly acknowledged cumulatively.
    pub bytes_acked: u64,
    /// RTT sample of this ACK, if valid (Karn's rule).
    pub rtt: Option<Dur>,
}

pub trait CongestionControl: Send {
    /// Registry name, e.g. `"newreno"`.
    fn name(&self) -> &str;

    /// Called once before the first segment is sent; may set cwnd / ssthresh.
    fn init(&mut self, _cc: &mut CcState) {}

    /// Every ACK that delivered data (ns-3 `PktsAcked`), before `increase_window`.
    fn on_ack(&mut self, _cc: &mut CcState, _ack: &AckEvent) {}

    /// Grow cwnd on an ACK that advanced `snd_una` in the Open, Disorder or Loss state.
    fn increase_window(&mut self, cc: &mut CcState, ack: &AckEvent);

    /// New slow-start threshold in bytes after a congestion event (pure; ns-3 `GetSsThresh`).
    fn ssthresh(&self, cc: &CcState) -> u64;

    /// A congestion event happened; `cc.ssthresh` already holds `ssthresh(cc)` and `cc.cwnd`
    /// the stack's new window (one segment after a timeout); `ev` has the window before.
    fn on_congestion_event(&mut self, _cc: &mut CcState, _ev: &CongestionEvent) {}

    /// The congestion state changed (`cc.state` is the new state).
    fn on_state_change(&mut self, _cc: &mut CcState, _from: CaState) {}

    /// A window reduction turned out spurious (Linux `ca_ops->undo_cwnd`): the window to
    /// restore, given the one before the reduction. Default `tcp_reno_undo_cwnd`:
    /// max(cwnd, prior cwnd).
    fn undo_cwnd(&mut self, cc: &mut CcState, prior_cwnd: u64) -> u64 {
        cc.cwnd.max(prior_cwnd)
    }

    /// A transmission starts with nothing in flight (ns-3 and Linux `CA_EVENT_TX_START`), e.g.
    /// after an idle period or a timeout.
    fn on_tx_start(&mut self, _cc: &mut CcState) {}

    /// A delivery-rate sample for this ACK.
    fn on_rate_sample(&mut self, _cc: &mut CcState, _rs: &RateSample) {}

    /// False for algorithms without fast recovery (Tahoe): a loss detected by duplicate ACKs
    /// then restarts slow start from one segment, like a timeout without the back-off.
    fn uses_fast_recovery(&self) -> bool {
        true
    }

    /// True for model-based algorithms (BBR) that set cwnd themselves in `on_rate_sample`: the
    /// stack then skips `increase_window`, PRR and the cwnd = ssthresh step at recovery exit.
    fn controls_window(&self) -> bool {
        false
    }

    /// Current parameter values, for reports.
    fn params(&self) -> Vec<(&'static str, f64)> {
        Vec::new()
    }
}

/// A tunable parameter of an algorithm.
#[derive(Clone, Copy, Debug)]
pub struct ParamSpec {
    pub name: &'static str,
    pub default: f64,
    /// The range a value must lie in (inclusive): where the algorithm's equations stay
    /// meaningful and its window bounded.
    pub min: f64,
    pub max: f64,
    pub help: &'static str,
}

/// Parameter values given for one algorithm, checked against its [`ParamSpec`]s.
pub struct Params<'a> {
    specs: &'static [ParamSpec],
    values: &'a BTreeMap<String, f64>,
    /// The flow's stack profile.
    pub profile: Profile,
}

impl Params<'_> {
    /// The override of `name`, if the user gave one (for defaults that depend on the profile).
    pub fn given(&self, name: &str) -> Option<f64> {
        self.values.get(name).copied()
    }

    /// The value of `name` (the override if given, else the published default).
    pub fn get(&self, name: &str) -> f64 {
        if let Some(v) = self.values.get(name) {
            return *v;
        }
        self.specs
            .iter()
            .find(|s| s.name == name)
            .map(|s| s.default)
            .expect("parameter declared in specs")
    }
}

/// A registry entry.
pub struct AlgorithmInfo {
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    /// The publication / RFC the implementation follows.
    pub source: &'static str,
    pub params: &'static [ParamSpec],
    pub build: fn(&Params) -> Box<dyn CongestionControl>,
}

/// Every built-in algorithm.
pub fn algorithms() -> &'static [&'static AlgorithmInfo] {
    ALGORITHMS
}

static ALGORITHMS: &[&AlgorithmInfo] = &[
    // benchmarks
    &newreno::INFO,
    &tahoe::INFO,
    &highspeed::INFO,
    &scalable::INFO,
    &hybla::INFO,
    &bic::INFO,
    &cubic::INFO,
    &westwood::INFO,
    &vegas::INFO,
    &yeah::INFO,
    &htcp::INFO,
    &bbr::INFO,
    // mmWave algorithms of the source publications
    &rttv::INFO,
    &msscca::INFO,
    &mrvhs::INFO,
    &mmstcp::INFO,
    &fbtcp::INFO,
    &dtcp::INFO,
];

/// Find an algorithm by name or alias (case-insensitive).
pub fn lookup(name: &str) -> Option<&'static AlgorithmInfo> {
    let n = name.to_ascii_lowercase();
    ALGORITHMS
        .iter()
        .copied()
        .find(|a| a.name == n || a.aliases.contains(&n.as_str()))
}

/// Build an algorithm by name with parameter overrides; errors name what is allowed.
/// `profile` is the flow's stack profile: an algorithm whose ns-3 class and Linux module differ
/// too much for switches inside one model (BBR) builds the reference's own.
pub fn build(
    name: &str,
    overrides: &BTreeMap<String, f64>,
    profile: Profile,
) -> Result<Box<dyn CongestionControl>, String> {
    let info = lookup(name).ok_or_else(|| {
        let names: Vec<&str> = ALGORITHMS.iter().map(|a| a.name).collect();
        format!(
            "unknown congestion control algorithm '{name}'; available: {}",
            names.join(", ")
        )
    })?;
    for (k, v) in overrides {
        if !info.params.iter().any(|p| p.name == k) {
            let allowed: Vec<&str> = info.params.iter().map(|p| p.name).collect();
            return Err(format!(
                "algorithm '{}' has no parameter '{k}'; its parameters: {}",
                info.name,
                if allowed.is_empty() {
                    "(none)".to_string()
                } else {
                    allowed.join(", ")
                }
            ));
        }
        if !v.is_finite() {
            return Err(format!(
                "parameter '{k}' of '{}' must be a finite number, got {v}",
                info.name
            ));
        }
        let spec = info
            .params
            .iter()
            .find(|p| p.name == k)
            .expect("checked above");
        if *v < spec.min || *v > spec.max {
            return Err(format!(
                "parameter '{k}' of '{}' is {}; allowed: {}..{} ({})",
                info.name,
                crate::text::number(v),
                crate::text::number(spec.min),
                crate::text::number(spec.max),
                spec.help
            ));
        }
    }
    Ok((info.build)(&Params {
        specs: info.params,
        values: overrides,
        profile,
    }))
}

#[cfg(test)]
pub(crate) mod testing {
    //! A fake-clock driver for algorithm unit tests.
    use super::*;

    pub fn state(mss: u64, cwnd_segments: u64, ssthresh_segments: u64) -> CcState {
        let mut cc = CcState::new(mss, 10);
        cc.cwnd = cwnd_segments * mss;
        cc.ssthresh = ssthresh_segments.saturating_mul(mss);
        cc
    }

    pub fn loss(kind: CongestionKind, cc: &CcState) -> CongestionEvent {
        CongestionEvent {
            kind,
            prior_cwnd: cc.cwnd,
            bytes_in_flight: cc.bytes_in_flight,
        }
    }

    pub fn ack(segments: u32, mss: u64, rtt_ms: Option<u64>) -> AckEvent {
        AckEvent {
            segments_acked: segments,
            bytes_acked: segments as u64 * mss,
            rtt: rtt_ms.map(Dur::from_millis),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_algorithm_and_parameter_errors_list_what_is_allowed() {
        let e = build("newrenoo", &BTreeMap::new(), Profile::Linux).err().unwrap();
        assert!(
            e.contains("unknown congestion control algorithm 'newrenoo'") && e.contains("newreno"),
            "{e}"
        );
        let mut p = BTreeMap::new();
        p.insert("beta".to_string(), 0.3);
        let e = build("newreno", &p, Profile::Linux).err().unwrap();
        assert!(e.contains("has no parameter 'beta'"), "{e}");
    }

    #[test]
    fn parameters_out_of_their_range_are_refused() {
        let mut p = BTreeMap::new();
        p.insert("beta".to_string(), 1e9);
        let e = build("cubic", &p, Profile::Linux).err().unwrap();
        assert!(
            e.contains("parameter 'beta' of 'cubic' is 1000000000; allowed: 0..1"),
            "{e}"
        );
        p.insert("beta".to_string(), 0.8);
        assert!(build("cubic", &p, Profile::Linux).is_ok());
        for a in algorithms() {
            for s in a.params {
                assert!(
                    s.min <= s.default && s.default <= s.max,
                    "{}.{}",
                    a.name,
                    s.name
                );
            }
        }
    }

    #[test]
    fn lookup_is_case_insensitive_and_knows_aliases() {
        assert_eq!(lookup("NewReno").unwrap().name, "newreno");
        assert_eq!(lookup("reno").unwrap().name, "newreno");
    }
}
