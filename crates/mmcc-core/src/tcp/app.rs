//! Application models feeding a TCP sender.

use crate::time::{Bandwidth, Dur, Time};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum AppConfig {
    /// Always has data (up to `bytes` in total, unlimited if absent): BulkSendApplication.
    Bulk {
        #[serde(default)]
        bytes: Option<u64>,
        /// Bytes per write call where the stack lets a writer wait for a writable socket
        /// (`tcp.send_buffer_truesize`): the writer polls and writes this much while the socket
        /// is writable. Default [`BULK_WRITE_SIZE`].
        #[serde(default)]
        write_size: Option<u32>,
    },
    /// Writes `write_size` bytes every `write_size * 8 / rate` seconds (an application rate cap);
    /// a write that finds the send buffer full is skipped, like ns-3's OnOffApplication whose
    /// `Send` fails.
    Rate {
        rate: Bandwidth,
        /// Bytes per write (default 1400).
        #[serde(default = "d_write_size")]
        write_size: u32,
        #[serde(default)]
        bytes: Option<u64>,
        /// Write attempts in total, refused ones included (the thesis scripts' MyApp counts
        /// every `Send` call towards its packet count and stops after it); unlimited if absent.
        #[serde(default)]
        writes: Option<u64>,
    },
}

fn d_write_size() -> u32 {
    1400
}

/// A bulk writer's write size: 256 KiB, what the testbed's sender writes per call (iperf3's
/// default is 128 KiB).
pub const BULK_WRITE_SIZE: u32 = 256 * 1024;

impl Default for AppConfig {
    fn default() -> Self {
        AppConfig::Bulk { bytes: None, write_size: None }
    }
}

pub struct App {
    cfg: AppConfig,
    /// Bytes written into the socket so far.
    pub written: u64,
    next_write: Time,
    interval: Dur,
    /// Write attempts so far (rate-capped application).
    attempts: u64,
    pub skipped_writes: u64,
}

impl App {
    pub fn new(cfg: &AppConfig, start: Time) -> App {
        let interval = match cfg {
            AppConfig::Rate { rate, write_size, .. } => rate.tx_time(*write_size as u64),
            AppConfig::Bulk { .. } => Dur::ZERO,
        };
        App { cfg: cfg.clone(), written: 0, next_write: start, interval, attempts: 0, skipped_writes: 0 }
    }

    fn total(&self) -> Option<u64> {
        match self.cfg {
            AppConfig::Bulk { bytes, .. } | AppConfig::Rate { bytes, .. } => bytes,
        }
    }

    fn attempts_left(&self) -> u64 {
        match self.cfg {
            AppConfig::Rate { writes: Some(w), .. } => w.saturating_sub(self.attempts),
            _ => u64::MAX,
        }
    }

    /// All the data the application will ever write has been written (or, with a write
    /// count, every write has been attempted).
    pub fn finished(&self) -> bool {
        self.total().is_some_and(|t| self.written >= t) || self.attempts_left() == 0
    }

    /// Perform the writes due by `now`, given `space` free bytes in the send buffer. Returns
    /// the bytes written.
    pub fn catch_up(&mut self, now: Time, space: u64) -> u64 {
        let remaining = self.total().map_or(u64::MAX, |t| t.saturating_sub(self.written));
        let add = match self.cfg {
            AppConfig::Bulk { .. } => space.min(remaining),
            AppConfig::Rate { write_size, .. } => {
                if now < self.next_write || remaining == 0 || self.attempts_left() == 0 {
                    return 0;
                }
                let due = (now - self.next_write).0 / self.interval.0.max(1) + 1;
                let due = due.min(self.attempts_left());
                self.attempts += due;
                self.next_write += Dur(self.interval.0 * due);
                let fit = space / write_size as u64;
                let n = due.min(fit);
                self.skipped_writes += due - n;
                (n * write_size as u64).min(remaining)
            }
        };
        self.written += add;
        add
    }

    /// A bulk application with data left: it would write now if the send buffer had room (a
    /// rate-capped one counts the writes a full buffer refused in `skipped_writes`).
    pub fn wants_more(&self) -> bool {
        matches!(self.cfg, AppConfig::Bulk { .. }) && !self.finished()
    }

    /// Bytes per write call of a bulk writer.
    pub fn bulk_write_size(&self) -> u64 {
        match self.cfg {
            AppConfig::Bulk { write_size, .. } => write_size.unwrap_or(BULK_WRITE_SIZE).max(1) as u64,
            AppConfig::Rate { write_size, .. } => write_size as u64,
        }
    }

    /// When the next write is due (rate-capped application with data left).
    pub fn next_write_time(&self) -> Option<Time> {
        match self.cfg {
            AppConfig::Rate { .. } if !self.finished() => Some(self.next_write),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_app_writes_at_its_rate_and_skips_when_full() {
        // 1400-byte writes at 1.12 Mb/s: one write per 10 ms
        let cfg =
            AppConfig::Rate { rate: Bandwidth::bps(1_120_000), write_size: 1400, bytes: None, writes: None };
        let mut a = App::new(&cfg, Time::ZERO);
        assert_eq!(a.catch_up(Time::ZERO, 1 << 20), 1400);
        assert_eq!(a.catch_up(Time::from_millis(5), 1 << 20), 0);
        assert_eq!(a.catch_up(Time::from_millis(30), 1 << 20), 3 * 1400);
        assert_eq!(a.next_write_time(), Some(Time::from_millis(40)));
        // three writes due but room for one
        assert_eq!(a.catch_up(Time::from_millis(60), 2000), 1400);
        assert_eq!(a.skipped_writes, 2);
    }

    #[test]
    fn a_write_count_stops_the_writer_whether_the_writes_were_taken_or_not() {
        // MyApp: 4 writes in all, one every 10 ms; the full buffer refuses two of them
        let rate = Bandwidth::bps(1_120_000);
        let cfg = AppConfig::Rate { rate, write_size: 1400, bytes: None, writes: Some(4) };
        let mut a = App::new(&cfg, Time::ZERO);
        assert_eq!(a.catch_up(Time::from_millis(20), 1400), 1400); // 3 due, room for 1
        assert_eq!(a.skipped_writes, 2);
        assert!(!a.finished() && a.next_write_time() == Some(Time::from_millis(30)));
        assert_eq!(a.catch_up(Time::from_millis(100), 1 << 20), 1400); // only the 4th is left
        assert!(a.finished() && a.next_write_time().is_none());
        assert_eq!(a.catch_up(Time::from_millis(200), 1 << 20), 0);
    }

    #[test]
    fn bulk_app_fills_the_buffer_up_to_its_total() {
        let mut a = App::new(&AppConfig::Bulk { bytes: Some(5000), write_size: None }, Time::ZERO);
        assert_eq!(a.catch_up(Time::ZERO, 3000), 3000);
        assert_eq!(a.catch_up(Time::ZERO, 3000), 2000);
        assert!(a.finished());
    }
}
