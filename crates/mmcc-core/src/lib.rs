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
pub mod tcp;
pub mod text;
pub mod time;

pub use sim::{run, RunOutput, SimConfig, Simulation};
pub use time::{Bandwidth, Dur, Time};
