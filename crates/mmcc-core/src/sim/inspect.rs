//! What a simulation exposes while and after it runs: endpoints, radio links, drop and
//! packet accounting, the conservation invariants, the pcap capture.

use super::*;

impl Simulation {
    /// (link id, "from->to") of a port, for reports: wired links first, then radio links.
    pub fn port_name(&self, port: u32) -> (i64, String) {
        let p = port as usize;
        let (link, from, to) = if p < self.chans.len() {
            (p / 2, self.chans[p].from, self.chans[p].to)
        } else {
            let k = p - self.chans.len();
            let d = &self.radios[k / 2].dirs[k % 2];
            (self.cfg.links.len() + k / 2, d.from, d.to)
        };
        (
            link as i64,
            format!(
                "{}->{}",
                self.cfg.nodes[from as usize], self.cfg.nodes[to as usize]
            ),
        )
    }

    /// Packets currently inside the network, per flow and kind: (packets, payload bytes).
    pub fn inside(&self) -> Vec<[(u64, u64); 2]> {
        let mut v = vec![[(0u64, 0u64); 2]; self.flows.len()];
        for c in &self.chans {
            c.for_each_inside(|p| {
                let e = &mut v[p.flow as usize][p.kind.dir()];
                e.0 += 1;
                e.1 += p.len as u64;
            });
        }
        for r in &self.radios {
            r.for_each_inside(|p| {
                let e = &mut v[p.flow as usize][p.kind.dir()];
                e.0 += 1;
                e.1 += p.len as u64;
            });
        }
        for p in self.delayed.iter().flatten() {
            let e = &mut v[p.flow as usize][p.kind.dir()];
            e.0 += 1;
            e.1 += p.len as u64;
        }
        v
    }

    /// The engine invariants; an error names the first one violated.
    ///
    /// - Conservation: every packet (and payload byte) an endpoint emitted arrived at its
    ///   destination, was dropped with a cause, or is still inside the network.
    /// - The receiver delivered a contiguous byte stream, each byte once, in order.
    /// - Every sender's scoreboard counters agree with a recount.
    pub fn check_invariants(&self) -> Result<(), String> {
        let inside = self.inside();
        for (i, f) in self.flows.iter().enumerate() {
            for (k, name) in [(0, "data"), (1, "ack")] {
                let a = self.acct[i][k];
                let (ip, ib) = inside[i][k];
                if a.emitted != a.arrived + a.dropped + ip {
                    return Err(format!(
                        "flow {i} {name}: {} packets emitted != {} arrived + {} dropped + {} inside",
                        a.emitted, a.arrived, a.dropped, ip
                    ));
                }
                if a.emitted_bytes != a.arrived_bytes + a.dropped_bytes + ib {
                    return Err(format!("flow {i} {name}: payload bytes not conserved"));
                }
            }
            if f.rec.counters.stream_violations != 0 {
                return Err(format!(
                    "flow {i}: receiver delivered out of order or twice"
                ));
            }
            if f.receiver.delivered != f.receiver.rcv_nxt {
                return Err(format!("flow {i}: delivered bytes != rcv_nxt"));
            }
            if f.receiver.rcv_nxt > f.sender.sb.snd_nxt {
                return Err(format!("flow {i}: receiver got bytes never sent"));
            }
            if f.sender.sb.snd_una > f.receiver.rcv_nxt {
                return Err(format!(
                    "flow {i}: sender saw an ACK for bytes not received"
                ));
            }
            f.sender
                .sb
                .check()
                .map_err(|e| format!("flow {i}: scoreboard: {e}"))?;
            // the sender never puts more in the pipe than cwnd allows (PRR's sndcnt included:
            // in recovery cwnd = pipe + sndcnt), but for RFC 6675 (4.3)'s first retransmission
            if f.sender.over_cwnd_sends != 0 {
                return Err(format!(
                    "flow {i}: {} transmissions exceeded cwnd",
                    f.sender.over_cwnd_sends
                ));
            }
        }
        Ok(())
    }

    pub fn accounting(&self, flow: usize) -> [Accounting; 2] {
        self.acct[flow]
    }

    pub fn events_processed(&self) -> u64 {
        self.sched.processed()
    }

    pub fn radio(&self, i: usize) -> &RadioLink {
        &self.radios[i]
    }

    pub fn radio_count(&self) -> usize {
        self.radios.len()
    }

    pub fn flow_count(&self) -> usize {
        self.flows.len()
    }

    pub fn sender(&self, flow: usize) -> &TcpSender {
        &self.flows[flow].sender
    }

    pub fn receiver(&self, flow: usize) -> &TcpReceiver {
        &self.flows[flow].receiver
    }

    pub fn recorder(&self, flow: usize) -> &FlowRecorder {
        &self.flows[flow].rec
    }

    /// Drop counts: (channel, flow, is_ack, cause) -> (packets, wire bytes).
    pub fn drops(&self) -> BTreeMap<DropKey, (u64, u64)> {
        let mut all = self.drops.clone();
        if let Some((k, (n, b))) = self.drop_memo {
            let e = all.entry(k).or_default();
            e.0 += n;
            e.1 += b;
        }
        all
    }

    /// Finish the pcap file (if any).
    pub fn close_pcap(&mut self) -> Result<Option<u64>, String> {
        match &mut self.pcap {
            Some((_, w)) => {
                w.finish().map_err(|e| format!("pcap: {e}"))?;
                Ok(Some(w.packets))
            }
            None => Ok(None),
        }
    }
}
