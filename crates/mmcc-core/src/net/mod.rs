//! The network: packets, links (two channels each), queues, error models, routing.

pub mod channel;
pub mod error_model;
pub mod packet;
pub mod queue;
pub mod routing;

pub use channel::{Channel, DirectionConfig, DropCause, Outage, ReorderConfig, Verdict, Wakes};
pub use error_model::{ErrorModel, ErrorModelConfig, ErrorUnit};
pub use packet::{FlowId, Kind, NodeId, Packet, Range};
pub use queue::QueueConfig;
pub use routing::Routes;
