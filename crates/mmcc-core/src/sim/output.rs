//! Turning a finished simulation into columnar tables (unit-suffixed column names, see
//! docs/outputs.md).

use super::Simulation;
use crate::cca::CaState;
use crate::net::DropCause;
use crate::record::{Histogram, Table};
use crate::time::{Dur, Time};

pub struct RunOutput {
    pub tables: Vec<Table>,
    pub events_processed: u64,
    pub pcap_packets: Option<u64>,
}

impl RunOutput {
    pub fn table(&self, name: &str) -> Option<&Table> {
        self.tables.iter().find(|t| t.name == name)
    }

    pub fn collect(sim: &Simulation, pcap_packets: Option<u64>) -> RunOutput {
        let tables = vec![
            flows_table(sim),
            series_table(sim),
            cwnd_table(sim),
            events_table(sim),
            hist_table(sim, "rtt_hist", |r| &r.rtt),
            hist_table(sim, "owd_hist", |r| &r.owd),
            drops_table(sim),
            links_table(sim),
            trace_table(sim, "rtt_trace", "rtt_ms", |r| &r.rtt_trace),
            trace_table(sim, "owd_trace", "owd_ms", |r| &r.owd_trace),
            radio_table(sim),
        ];
        RunOutput { tables, events_processed: sim.events_processed(), pcap_packets }
    }
}

fn ms(d: Option<Dur>) -> f64 {
    d.map_or(f64::NAN, |d| d.millis_f64())
}

/// The flows table's numeric columns, in the order `flow_values` gives them.
const FLOW_COLUMNS: [&str; 43] = [
    "start_s", "stop_s", "first_send_s", "last_delivery_s", "delivered_bytes", "throughput_mbps",
    "rtt_mean_ms", "rtt_min_ms", "rtt_max_ms", "rtt_p50_ms", "rtt_p95_ms", "rtt_p99_ms", "rtt_samples",
    "owd_mean_ms", "owd_p50_ms", "owd_p95_ms", "owd_p99_ms", "segments_sent", "bytes_sent", "retransmits",
    "fast_retransmits", "rtos", "one_segment_timeouts", "one_segment_stall_s", "acks_received", "dupacks", "dupack_ratio", "data_received",
    "dup_data_received", "acks_sent", "drops_queue_full", "drops_aqm", "drops_error_model",
    "drops_link_down", "drops_mtu", "drops_rlc_discard", "ack_drops", "final_cwnd_bytes", "final_ssthresh_bytes",
    "srtt_ms", "rto_ms", "rwnd_limited_ratio", "sndbuf_limited_ratio",
];

fn flows_table(sim: &Simulation) -> Table {
    let n = sim.flow_count();
    let mut cols: Vec<Vec<f64>> = FLOW_COLUMNS.iter().map(|_| Vec::with_capacity(n)).collect();
    let (mut ids, mut ccas, mut profiles, mut mss) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (i, drops) in drops_per_flow(sim).iter().enumerate() {
        for (col, v) in cols.iter_mut().zip(flow_values(sim, i, drops)) {
            col.push(v);
        }
        let fc = &sim.cfg.flows[i];
        ids.push(i as i64);
        ccas.push(sim.flows[i].cca_name.clone());
        profiles.push(fc.tcp.profile.name().to_string());
        mss.push(sim.flows[i].sender.cc.mss as i64);
    }
    let mut t =
        Table::new("flows").i64("flow_id", ids).str("cca", ccas).str("tcp_profile", profiles).i64("mss_bytes", mss);
    for (name, v) in FLOW_COLUMNS.iter().zip(cols) {
        t = t.f64(name, v);
    }
    t
}

/// Drops per flow in one pass over the drop map: (data packets by cause, ACK packets).
fn drops_per_flow(sim: &Simulation) -> Vec<([u64; 6], u64)> {
    let mut out = vec![([0u64; 6], 0u64); sim.flow_count()];
    for (&(_, flow, is_ack, cause), &(pk, _)) in &sim.drops() {
        let d = &mut out[flow as usize];
        if is_ack == 1 {
            d.1 += pk;
        } else {
            d.0[cause as usize] += pk;
        }
    }
    out
}

/// One flow's row of FLOW_COLUMNS.
fn flow_values(sim: &Simulation, i: usize, &(drops, ack_drops): &([u64; 6], u64)) -> [f64; 43] {
    let f = &sim.flows[i];
    let fc = &sim.cfg.flows[i];
    let c = &f.rec.counters;
    let s = &f.sender;
    let tput = match (c.first_send, c.last_delivery) {
        (Some(a), Some(b)) if b > a => c.delivered_bytes as f64 * 8.0 / (b - a).secs_f64() / 1e6,
        _ => 0.0,
    };
    let h = &f.rec.rtt;
    let o = &f.rec.owd;
    let (rwnd_limited, sndbuf_limited) = s.stops.ratios();
    [
        fc.start.secs_f64(),
        fc.stop.map_or(sim.cfg.duration.secs_f64(), |t| t.secs_f64()),
        c.first_send.map_or(f64::NAN, |t| t.secs_f64()),
        c.last_delivery.map_or(f64::NAN, |t| t.secs_f64()),
        c.delivered_bytes as f64,
        tput,
        ms(h.mean()),
        ms(h.min()),
        ms(h.max()),
        ms(h.quantile(0.5)),
        ms(h.quantile(0.95)),
        ms(h.quantile(0.99)),
        h.count() as f64,
        ms(o.mean()),
        ms(o.quantile(0.5)),
        ms(o.quantile(0.95)),
        ms(o.quantile(0.99)),
        c.segments_sent as f64,
        c.bytes_sent as f64,
        c.retransmits as f64,
        c.fast_retransmits as f64,
        c.rtos as f64,
        c.one_segment_timeouts as f64,
        c.one_segment_span.map_or(0.0, |(a, b)| (b - a).secs_f64()),
        c.acks_received as f64,
        c.dupacks as f64,
        if c.acks_received > 0 { c.dupacks as f64 / c.acks_received as f64 } else { 0.0 },
        c.data_received as f64,
        c.dup_data_received as f64,
        c.acks_sent as f64,
        drops[DropCause::QueueFull as usize] as f64,
        drops[DropCause::Aqm as usize] as f64,
        drops[DropCause::ErrorModel as usize] as f64,
        drops[DropCause::LinkDown as usize] as f64,
        drops[DropCause::Mtu as usize] as f64,
        drops[DropCause::RlcDiscard as usize] as f64,
        ack_drops as f64,
        s.cc.cwnd as f64,
        if s.cc.ssthresh == u64::MAX { f64::NAN } else { s.cc.ssthresh as f64 },
        ms(s.rtt.srtt()),
        s.rtt.rto().millis_f64(),
        rwnd_limited,
        sndbuf_limited,
]
}

fn series_table(sim: &Simulation) -> Table {
    let mut flow = Vec::new();
    let mut t_s = Vec::new();
    let (mut tput, mut deliv, mut sent, mut retx) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut cwnd, mut cwnd_seg, mut ssth, mut infl) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut rtt, mut owd, mut rttn) = (Vec::new(), Vec::new(), Vec::new());
    let (mut acks, mut dups) = (Vec::new(), Vec::new());
    let end = sim.cfg.duration;
    for (i, f) in sim.flows.iter().enumerate() {
        let bin = f.rec.bin_width();
        let nbins = (end.0.div_ceil(bin.0.max(1))) as usize;
        let mss = f.sender.cc.mss as f64;
        let (mut last_cwnd, mut last_ss, mut last_inf) = (f64::NAN, f64::NAN, f64::NAN);
        for b in 0..nbins {
            let x = f.rec.bins.get(b).copied().unwrap_or_default();
            if let Some(c) = x.cwnd {
                last_cwnd = c as f64;
                last_ss = if x.ssthresh == u64::MAX { f64::NAN } else { x.ssthresh as f64 };
                last_inf = x.inflight as f64;
            }
            flow.push(i as i64);
            t_s.push((b as u64 * bin.0) as f64 * 1e-9);
            tput.push(x.delivered_bytes as f64 * 8.0 / bin.secs_f64() / 1e6);
            deliv.push(x.delivered_bytes as i64);
            sent.push(x.sent_bytes as i64);
            retx.push(x.retx_bytes as i64);
            cwnd.push(last_cwnd);
            cwnd_seg.push(last_cwnd / mss);
            ssth.push(last_ss);
            infl.push(last_inf);
            rtt.push(if x.rtt_n > 0 { x.rtt_sum_ns as f64 / x.rtt_n as f64 * 1e-6 } else { f64::NAN });
            owd.push(if x.owd_n > 0 { x.owd_sum_ns as f64 / x.owd_n as f64 * 1e-6 } else { f64::NAN });
            rttn.push(x.rtt_n as i64);
            acks.push(x.acks as i64);
            dups.push(x.dupacks as i64);
        }
    }
    Table::new("series")
        .i64("flow_id", flow)
        .f64("t_s", t_s)
        .f64("throughput_mbps", tput)
        .i64("delivered_bytes", deliv)
        .i64("sent_bytes", sent)
        .i64("retx_bytes", retx)
        .f64("cwnd_bytes", cwnd)
        .f64("cwnd_segments", cwnd_seg)
        .f64("ssthresh_bytes", ssth)
        .f64("inflight_bytes", infl)
        .f64("rtt_mean_ms", rtt)
        .f64("owd_mean_ms", owd)
        .i64("rtt_samples", rttn)
        .i64("acks", acks)
        .i64("dupacks", dups)
}

fn cwnd_table(sim: &Simulation) -> Table {
    let (mut flow, mut t, mut cw, mut seg, mut ss, mut inf, mut st) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (i, f) in sim.flows.iter().enumerate() {
        let mss = f.sender.cc.mss as f64;
        let r = &f.rec;
        for k in 0..r.cwnd_t.len() {
            flow.push(i as i64);
            t.push(r.cwnd_t[k] as f64 * 1e-9);
            cw.push(r.cwnd_v[k]);
            seg.push(r.cwnd_v[k] as f64 / mss);
            ss.push(if r.ssthresh_v[k] < 0 { f64::NAN } else { r.ssthresh_v[k] as f64 });
            inf.push(r.inflight_v[k]);
            st.push(state_name(r.state_v[k]).to_string());
        }
    }
    Table::new("cwnd")
        .i64("flow_id", flow)
        .f64("t_s", t)
        .i64("cwnd_bytes", cw)
        .f64("cwnd_segments", seg)
        .f64("ssthresh_bytes", ss)
        .i64("inflight_bytes", inf)
        .str("state", st)
}

fn state_name(v: i64) -> &'static str {
    match v {
        0 => CaState::Open.name(),
        1 => CaState::Disorder.name(),
        2 => CaState::Recovery.name(),
        _ => CaState::Loss.name(),
    }
}

fn events_table(sim: &Simulation) -> Table {
    let (mut flow, mut t, mut kind, mut val) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (i, f) in sim.flows.iter().enumerate() {
        for &(tt, k, v) in &f.rec.events {
            flow.push(i as i64);
            t.push(tt as f64 * 1e-9);
            if k == "state" {
                kind.push(format!("state:{}", state_name(v as i64)));
            } else {
                kind.push(k.to_string());
            }
            val.push(v);
        }
    }
    Table::new("events").i64("flow_id", flow).f64("t_s", t).str("event", kind).f64("value", val)
}

fn hist_table(sim: &Simulation, name: &str, get: impl Fn(&crate::record::FlowRecorder) -> &Histogram) -> Table {
    let (mut flow, mut lo, mut hi, mut n) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (i, f) in sim.flows.iter().enumerate() {
        for (l, h, c) in get(&f.rec).buckets() {
            flow.push(i as i64);
            lo.push(l as f64 * 1e-3);
            hi.push(h as f64 * 1e-3);
            n.push(c as i64);
        }
    }
    Table::new(name).i64("flow_id", flow).f64("lower_ms", lo).f64("upper_ms", hi).i64("count", n)
}

fn drops_table(sim: &Simulation) -> Table {
    let (mut link, mut dir, mut flow, mut kind, mut cause, mut pk, mut by) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (&(chan, fl, is_ack, c), &(p, b)) in &sim.drops() {
        let (l, d) = sim.port_name(chan);
        link.push(l);
        dir.push(d);
        flow.push(fl as i64);
        kind.push(if is_ack == 1 { "ack" } else { "data" }.to_string());
        cause.push(c.name().to_string());
        pk.push(p as i64);
        by.push(b as i64);
    }
    Table::new("drops")
        .i64("link_id", link)
        .str("direction", dir)
        .i64("flow_id", flow)
        .str("kind", kind)
        .str("cause", cause)
        .i64("packets", pk)
        .i64("wire_bytes", by)
}

fn links_table(sim: &Simulation) -> Table {
    let (mut link, mut dir, mut pk, mut by, mut util) = (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let dur = sim.cfg.duration.secs_f64();
    for (ci, ch) in sim.chans.iter().enumerate() {
        link.push((ci / 2) as i64);
        dir.push(format!("{}->{}", sim.cfg.nodes[ch.from as usize], sim.cfg.nodes[ch.to as usize]));
        pk.push(ch.tx_packets as i64);
        by.push(ch.tx_bytes as i64);
        let end = Time::ZERO + sim.cfg.duration;
        util.push(if dur > 0.0 { ch.bytes_sent_by(end) as f64 * 8.0 / dur / ch.mean_rate(end) } else { 0.0 });
    }
    for (ri, r) in sim.radios.iter().enumerate() {
        for d in 0..2 {
            let (l, name) = sim.port_name((sim.chans.len() + 2 * ri + d) as u32);
            let st = &r.dirs[d].stats;
            link.push(l);
            dir.push(name);
            pk.push(st.tbs as i64);
            by.push(st.air_bytes as i64);
            util.push(f64::NAN);
        }
    }
    Table::new("links")
        .i64("link_id", link)
        .str("direction", dir)
        .i64("tx_packets", pk)
        .i64("tx_wire_bytes", by)
        .f64("utilization", util)
}

fn trace_table(
    sim: &Simulation,
    name: &str,
    col: &str,
    get: impl Fn(&crate::record::FlowRecorder) -> &Vec<(i64, i64)>,
) -> Table {
    let (mut flow, mut t, mut v) = (Vec::new(), Vec::new(), Vec::new());
    for (i, f) in sim.flows.iter().enumerate() {
        for &(tt, vv) in get(&f.rec) {
            flow.push(i as i64);
            t.push(tt as f64 * 1e-9);
            v.push(vv as f64 * 1e-6);
        }
    }
    Table::new(name).i64("flow_id", flow).f64("t_s", t).f64(col, v)
}

fn radio_table(sim: &Simulation) -> Table {
    let mut radio = Vec::new();
    let (mut t, mut x, mut y, mut los, mut pl, mut sdl, mut sul, mut se, mut cap, mut rdl, mut rul) =
        (vec![], vec![], vec![], vec![], vec![], vec![], vec![], vec![], vec![], vec![], vec![]);
    let mut mcs = vec![];
    for (i, r) in sim.radios.iter().enumerate() {
        for s in &r.samples {
            radio.push(i as i64);
            t.push(s.t.secs_f64());
            x.push(s.x);
            y.push(s.y);
            los.push(s.los as i64);
            pl.push(s.pathloss_db);
            sdl.push(s.sinr_dl_db);
            sul.push(s.sinr_ul_db);
            se.push(s.se_dl);
            mcs.push(s.mcs_dl);
            cap.push(s.capacity_dl_bytes as i64);
            rdl.push(s.rlc_dl_bytes as i64);
            rul.push(s.rlc_ul_bytes as i64);
        }
    }
    Table::new("radio")
        .i64("radio_id", radio)
        .f64("t_s", t)
        .f64("ue_x_m", x)
        .f64("ue_y_m", y)
        .i64("los", los)
        .f64("pathloss_db", pl)
        .f64("sinr_dl_db", sdl)
        .f64("sinr_ul_db", sul)
        .f64("se_dl_bps_per_hz", se)
        .i64("mcs_dl", mcs)
        .i64("capacity_dl_bytes", cap)
        .i64("rlc_dl_bytes", rdl)
        .i64("rlc_ul_bytes", rul)
}
