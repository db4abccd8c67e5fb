//! The decisions the RFCs leave open, as each reference stack takes them: a small strategy the
//! sender chooses once from its profile (as ns-3's `TcpSocketBase` delegates to its congestion,
//! recovery and rate objects) and calls without a branch on the profile.
//!
//! [`StackRules`] lists the decisions; [`Ns3Rules`] (ns-3 3.35-3.37 `TcpSocketBase`) and
//! [`LinuxRules`] (Linux 6.x `tcp_ack` and its helpers) implement them, each citing its
//! reference; [`Rules`] holds one of the two and dispatches statically (a `match`, no dynamic
//! call on the ACK path). The sender keeps what both stacks share.

mod linux;
mod ns3;
#[cfg(test)]
mod tests;

pub use linux::LinuxRules;
pub use ns3::Ns3Rules;

use super::profile::Profile;
use super::TcpSettings;
use super::prr::Ssrb;
use super::rtt::RttEstimator;
use super::scoreboard::{AckOutcome, HeadRetransmission, SackedRetransmission, Scoreboard};
use crate::cca::{AckEvent, CaState, CcState};
use crate::time::{Bandwidth, Dur, Time};

/// What an ACK tells the rules (the parts of the sender's `process_ack` they decide on).
#[derive(Clone, Copy, Debug)]
pub struct AckFacts<'a> {
    pub now: Time,
    /// The scoreboard's outcome for this ACK.
    pub res: &'a AckOutcome,
    /// The send time of the segment whose timestamp the ACK echoes.
    pub echo: Time,
    /// Timestamps are on (RFC 7323).
    pub timestamps: bool,
    /// The ACK advanced snd_una.
    pub advanced: bool,
    /// RFC 6937 DeliveredData of this ACK.
    pub delivered: u64,
    /// Bytes outstanding after the ACK.
    pub outstanding: u64,
    pub mss: u64,
}

/// Where the algorithm's ACK hook runs for an ACK, relative to the state machine.
#[derive(Clone, Copy, Debug)]
pub enum Hook {
    /// Not for this ACK, or already called before the state machine (Linux `pkts_acked`).
    None,
    /// Before the state machine sets cwnd (ns-3: the ACK that ends fast recovery).
    Before(AckEvent),
    /// After the state machine (ns-3 `PktsAcked` after `DupAck` / `DoRecovery`).
    After(AckEvent),
}

/// What the state machine's recovery-entry test reads (besides the scoreboard).
#[derive(Clone, Copy, Debug)]
pub struct RecoveryFacts {
    pub dupacks: u32,
    pub dupthresh: u32,
    /// RFC 6582's test has passed: the cumulative ACK is past the last episode's start.
    pub past_recover: bool,
    pub sack: bool,
    /// Losses are marked by time (RACK).
    pub rack: bool,
    pub mss: u64,
}

/// The order of the steps when an ACK ends fast recovery.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecoveryExit {
    /// cwnd = ssthresh (unless the algorithm sets cwnd itself), then the state changes, and
    /// a loss already marked starts the next recovery on the same ACK (Linux
    /// `tcp_end_cwnd_reduction`, `tcp_try_to_open`, `tcp_fastretrans_alert` "E. Process state").
    WindowThenState,
    /// The state goes to Open, the algorithm hears of it, then cwnd = ssthresh for every
    /// algorithm (ns-3 `ProcessAck`: `ExitRecovery`, CA_RECOVERY -> CA_OPEN).
    StateThenWindow,
}

/// How a partial ACK in fast recovery sets cwnd.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartialAck {
    /// RFC 6937 PRR with the SSRB variant Linux chooses (`tcp_cwnd_reduction`).
    Prr,
    /// ns-3's `DoRecovery` of its recovery object (`TcpPrrRecovery`), with its retransmission
    /// on the ACK (`ns3_recovery_ack`).
    Ns3DoRecovery,
}

/// How fast recovery's first retransmission is chosen (RFC 6675 (4.3): whatever the window).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FirstRetransmission {
    /// The first segment marked lost (Linux `tcp_enter_recovery` -> `tcp_xmit_retransmit_queue`).
    FirstLost,
    /// ns-3 `EnterRecovery` -> `DoRetransmit`: NextSeg's rule 2 sends new data when nothing
    /// lost is left to retransmit, else the head goes again.
    Ns3DoRetransmit,
}

/// Declares the decisions once: the [`StackRules`] trait, and [`Rules`]' implementation that
/// forwards each to the profile's rules.
macro_rules! stack_rules {
    ($( $(#[$doc:meta])* fn $name:ident(&self $(, $arg:ident: $ty:ty)*) -> $ret:ty; )*) => {
        /// The decisions in which the two reference stacks differ.
        pub trait StackRules {
            $( $(#[$doc])* fn $name(&self $(, $arg: $ty)*) -> $ret; )*
        }

        impl StackRules for Rules {
            $(
                #[inline]
                fn $name(&self $(, $arg: $ty)*) -> $ret {
                    match self {
                        Rules::Ns3(r) => r.$name($($arg),*),
                        Rules::Linux(r) => r.$name($($arg),*),
                    }
                }
            )*
        }
    };
}

stack_rules! {
    /// A SACKed retransmission leaves the pipe or stays counted until acknowledged.
    fn sacked_retransmission(&self) -> SackedRetransmission;
    /// What marking the head lost does to its retransmission in flight.
    fn head_retransmission(&self) -> HeadRetransmission;
    /// The first SYN retransmission timeout (doubled per retry).
    fn syn_timeout(&self, initial_rto: Dur) -> Dur;
    /// The SYN-ACK's receive window bounds the first flight.
    fn synack_sets_rwnd(&self) -> bool;
    /// The RTT sample of the handshake: the SYN sent at `sent`, its SYN-ACK at `now`.
    fn handshake_rtt(&self, now: Time, sent: Time) -> Dur;
    /// The RTT values the algorithm reads, from the estimator.
    fn sync_rtt(&self, rtt: &RttEstimator, cc: &mut CcState) -> ();
    /// A bulk application writes only when the socket asks for data.
    fn bulk_writes_when_asked(&self) -> bool;
    /// The flight is checked for an application-limited bubble at each application write.
    fn app_limited_at_write(&self) -> bool;
    /// The RTT sample this ACK gives (Karn's rule already applied by the scoreboard).
    fn ack_rtt(&self, a: &AckFacts) -> Option<Dur>;
    /// What the algorithm sees as this ACK's RTT, given the sample and the smoothed estimate.
    fn cc_rtt(&self, sample: Option<Dur>, srtt: Option<Dur>) -> Option<Dur>;
    /// The segments the algorithm counts for this ACK.
    fn segments_acked(&self, a: &AckFacts) -> u32;
    /// The algorithm's ACK hook is due for this ACK.
    fn pkts_acked(&self, a: &AckFacts) -> bool;
    /// The ACK hook runs in `process_ack`, before loss detection and the state machine.
    fn hook_before_loss_detection(&self) -> bool;
    /// Leaving Loss: the segments the ACK counts (`above`: bytes acknowledged above the
    /// recovery point), or None to keep the count.
    fn loss_exit_segments(&self, state: CaState, episode_over: bool, above: u64, mss: u64) -> Option<u32>;
    /// Where the hook runs for this ACK around the state machine (`in_recovery`: the state
    /// before it; `episode_over`: the ACK passes the recovery point).
    fn hook(&self, ev: AckEvent, pkts_acked: bool, advanced: bool, in_recovery: bool, episode_over: bool) -> Hook;
    /// The lost bytes the rate sample reports: `newly_lost` by the loss rule, or the change of
    /// the lost count over the whole ACK (`lost_before` to `lost_now`).
    fn rate_sample_lost(&self, lost_before: u64, lost_now: u64, newly_lost: u64) -> u64;
    /// The socket's `NewAck` step runs after this ACK (before the send).
    fn new_ack_runs(&self, advanced: bool, state: CaState) -> bool;
    /// RFC 6582 section 3.2 step 2: the cumulative ACK `snd_una` is past the previous
    /// episode's start `recover`.
    fn past_recover(&self, snd_una: u64, recover: u64) -> bool;
    /// RFC 6675 section 5 (1)-(2): this ACK starts fast recovery.
    fn starts_recovery(&self, sb: &Scoreboard, f: &RecoveryFacts) -> bool;
    /// The state an ACK leaves Open or Disorder in when it does not start recovery.
    fn open_or_disorder(&self, current: CaState, is_dup: bool, advanced: bool, dupacks: u32, sacked: u64) -> CaState;
    /// cwnd may grow in state `st` (on an ACK that advanced snd_una).
    fn grows_in(&self, st: CaState) -> bool;
    /// The order of the steps when an ACK ends fast recovery.
    fn recovery_exit(&self) -> RecoveryExit;
    /// The state after fast recovery, with `sacked` bytes still SACKed above.
    fn state_after_recovery(&self, sacked: u64) -> CaState;
    /// How a partial ACK in fast recovery sets cwnd.
    fn partial_ack(&self) -> PartialAck;
    /// The flight a rate sample reports (`at_ack`: as read while the ACK was processed; `now`:
    /// the pipe after it).
    fn sample_in_flight(&self, at_ack: u64, now: u64) -> u64;
    /// In SACK recovery an ACK with new SACK information and no cumulative progress re-arms
    /// the RTO from the head's latest transmission.
    fn rto_from_head_in_sack_recovery(&self) -> bool;
    /// In fast recovery only the first partial ACK restarts the RTO.
    fn rto_restarts_on_first_partial_ack_only(&self) -> bool;
    /// An ACK that advances snd_una but leaves the socket in Disorder leaves the RTO alone.
    fn disorder_ack_keeps_rto(&self) -> bool;
    /// An ACK that advances snd_una resets the RTO's back-off.
    fn new_ack_resets_backoff(&self) -> bool;
    /// The RTO keeps running (and fires) while data waits with nothing in flight.
    fn rto_runs_while_data_waits(&self) -> bool;
    /// RFC 6937 PRR-SSRB: which rule this ACK grants the extra segment by.
    fn ssrb(&self, una_advanced_no_new_loss: bool, retransmitted_data_acked: bool) -> Ssrb;
    /// NextSeg's rule 3 (RFC 6675, a SHOULD) in SACK fast recovery.
    fn next_seg_rule3(&self) -> bool;
    /// The flight the algorithm's ssthresh reads at recovery entry (`pipe`: after this ACK;
    /// `prior_in_flight`: before it).
    fn recovery_flight(&self, pipe: u64, prior_in_flight: u64) -> u64;
    /// PRR's RecoverFS at recovery entry.
    fn recover_fs(&self, outstanding: u64, prior_cwnd: u64) -> u64;
    /// Fast recovery's first retransmission.
    fn first_retransmission(&self) -> FirstRetransmission;
    /// A timeout lowers ssthresh (`state` before it, `previous_over`: no episode yet or the
    /// previous one's start acknowledged, `backoffs`: timeouts in a row so far).
    fn rto_lowers_ssthresh(&self, state: CaState, previous_over: bool, backoffs: u32) -> bool;
    /// The sender marks the flight application-limited when it finds nothing to send with room
    /// in cwnd and in the send buffer.
    fn app_limited_when_idle(&self) -> bool;
    /// The window keeps a retransmission of `len` bytes at `seq` from going out: `window` is
    /// cwnd less the pipe, `written` the end of the written data.
    fn retransmission_blocked(&self, window: u64, len: u64, seq: u64, written: u64, mss: u64) -> bool;
    /// The packet about to go out starts a transmission for the rate sampler (`pipe` and
    /// `outstanding` before it).
    fn starts_transmission(&self, pipe: u64, outstanding: u64) -> bool;
    /// A retransmission is re-cut to one MSS from the lost byte.
    fn recuts_retransmissions(&self) -> bool;
    /// Pacing applies (`snd_nxt`: the highest byte sent; `initial_cwnd`).
    fn paces(&self, snd_nxt: u64, initial_cwnd: u64) -> bool;
    /// The departure time after a packet of `len` bytes at `rate`, given the pacing clock
    /// `next` (`forced`: sent outside the window; `timer_ran`: the pacing timer's action for
    /// `next` has run).
    fn next_departure(&self, rate: Bandwidth, len: u64, next: Time, now: Time, forced: bool, timer_ran: bool) -> Time;
}

/// One profile's rules, chosen when the sender is built.
#[derive(Clone, Copy, Debug)]
pub enum Rules {
    Ns3(Ns3Rules),
    Linux(LinuxRules),
}

impl Rules {
    pub fn for_settings(cfg: &TcpSettings) -> Rules {
        match cfg.profile {
            Profile::Ns3 => Rules::Ns3(Ns3Rules { timestamps: cfg.timestamps }),
            Profile::Linux => Rules::Linux(LinuxRules),
        }
    }
}

/// Timestamps in whole milliseconds (RFC 7323 TSval at 1 kHz).
pub(crate) fn ts_ms(t: Time) -> u64 {
    t.0 / 1_000_000
}
