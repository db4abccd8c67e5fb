//! Proportional Rate Reduction (RFC 6937), with the Slow Start Reduction Bound (PRR-SSRB).

#[derive(Clone, Debug, Default)]
pub struct Prr {
    /// RecoverFS: bytes outstanding when recovery started.
    recover_fs: u64,
    /// prr_delivered: bytes delivered to the receiver since recovery started.
    delivered: u64,
    /// prr_out: bytes sent since recovery started.
    out: u64,
}

impl Prr {
    /// RFC 6937 section 3, on entering recovery: RecoverFS = snd.nxt - snd.una.
    pub fn start(&mut self, recover_fs: u64) {
        *self = Prr { recover_fs: recover_fs.max(1), delivered: 0, out: 0 };
    }

    pub fn on_sent(&mut self, bytes: u64) {
        self.out += bytes;
    }

    /// On every ACK in recovery: returns the new cwnd = pipe + sndcnt.
    pub fn on_ack(&mut self, delivered_data: u64, pipe: u64, ssthresh: u64, mss: u64) -> u64 {
        self.delivered += delivered_data;
        let sndcnt = if pipe > ssthresh {
            // RFC 6937: sndcnt = CEIL(prr_delivered * ssthresh / RecoverFS) - prr_out
            let target = (self.delivered as u128 * ssthresh as u128).div_ceil(self.recover_fs as u128) as u64;
            target.saturating_sub(self.out)
        } else {
            // PRR-SSRB: limit = MAX(prr_delivered - prr_out, DeliveredData) + MSS;
            //           sndcnt = MIN(ssthresh - pipe, limit)
            let limit = self.delivered.saturating_sub(self.out).max(delivered_data) + mss;
            (ssthresh - pipe).min(limit)
        };
        pipe + sndcnt
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prr_sends_half_as_much_as_delivered_when_ssthresh_is_half() {
        // RFC 6937 example: cwnd 20, ssthresh 10 segments; each ACK delivers one segment.
        let mss = 1000;
        let mut p = Prr::default();
        p.start(20 * mss);
        let mut sent = 0;
        for i in 1..=10u64 {
            let pipe = 20 * mss - i * mss + sent; // delivered segments leave, sent ones join
            let cwnd = p.on_ack(mss, pipe, 10 * mss, mss);
            let can = cwnd.saturating_sub(pipe);
            p.on_sent(can);
            sent += can;
        }
        // ten deliveries -> five segments sent (ceil(10 * 10 / 20) = 5)
        assert_eq!(sent, 5 * mss);
    }

    #[test]
    fn ssrb_grows_back_towards_ssthresh_when_pipe_is_below() {
        let mss = 1000;
        let mut p = Prr::default();
        p.start(20 * mss);
        // pipe collapsed to 2 segments (many losses); ssthresh 10: send delivered + 1 MSS
        let cwnd = p.on_ack(mss, 2 * mss, 10 * mss, mss);
        assert_eq!(cwnd, 2 * mss + 2 * mss);
    }
}
