//! mmcc-core: the deterministic packet-level simulator of mmcc.
//!
//! Folder map: [`engine`] (event queue, timers), [`time`] (integer-nanosecond time, bandwidth),
//! [`rng`] (seeded streams), [`net`] (packets, links, queues, error models), [`tcp`] (the TCP
//! stack), [`cca`] (congestion-control algorithms), [`record`] (what a run records),
//! [`sim`] (the world and its configuration).

pub mod cca;
pub mod engine;
pub mod net;
pub mod radio;
pub mod record;
pub mod rng;
pub mod sim;
pub mod stack;
pub mod tcp;
pub mod text;
pub mod time;

pub use sim::{run, RunOutput, SimConfig, Simulation};

/// docs/adding-a-cca.md's example algorithm, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/adding-a-cca.md")]
pub struct AddingACcaExample;
pub use time::{Bandwidth, Dur, Time};
