//! Turning a finished simulation into columnar tables (unit-suffixed column names, see
//! docs/outputs.md).

use super::Simulation;
use crate::cca::CaState;
use crate::net::DropCause;
use crate::record::aggregate::{jain, quantile, AggBin};
use crate::record::{Aggregate, Bin, FlowRecorder, Histogram, Labels, Table};
use crate::time::{Dur, Time};
use std::mem::take;

pub struct RunOutput {
    pub tables: Vec<Table>,
    pub events_processed: u64,
    pub pcap_packets: Option<u64>,
}

impl RunOutput {
    pub fn table(&self, name: &str) -> Option<&Table> {
        self.tables.iter().find(|t| t.name == name)
    }

    /// The run's tables. The per-flow recordings move out of `sim` as their tables are built
    /// (each flow's buffers are freed as soon as they are copied), so a run with many flows
    /// does not hold its recordings twice; collecting the same simulation again gives empty
    /// series, cwnd, event, histogram and trace tables.
    pub fn collect(sim: &mut Simulation, pcap_packets: Option<u64>) -> RunOutput {
        let [series, spread] = series_tables(sim);
        let tables = vec![
            flows_table(sim),
            series,
            spread,
            cwnd_table(sim),
            events_table(sim),
            hist_table(sim, "rtt_hist", |r| &mut r.rtt),
            hist_table(sim, "owd_hist", |r| &mut r.owd),
            drops_table(sim),
            links_table(sim),
            trace_table(sim, "rtt_trace", "rtt_ms", |r| &mut r.rtt_trace),
            trace_table(sim, "owd_trace", "owd_ms", |r| &mut r.owd_trace),
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

/// `n` empty vectors with room for `rows` each.
fn columns<T, const N: usize>(rows: usize) -> [Vec<T>; N] {
    std::array::from_fn(|_| Vec::with_capacity(rows))
}

/// The `series` table and the `spread` table: per flow (no spread), or for all flows together.
fn series_tables(sim: &mut Simulation) -> [Table; 2] {
    match sim.series.take() {
        None => [series_table(sim), spread_table(&[], Dur::ZERO)],
        Some(agg) => aggregate_tables(sim, agg),
    }
}

/// Each flow's last bins into the aggregate, and the flow counted with its last window up to
/// its stop time; then one `series` row per bin (flow_id -1) and the spread across flows.
fn aggregate_tables(sim: &mut Simulation, mut agg: Aggregate) -> [Table; 2] {
    let w = agg.width().0.max(1);
    let end = sim.cfg.duration;
    for (i, f) in sim.flows.iter_mut().enumerate() {
        f.rec.finish_bins();
        let mss = f.sender.cc.mss;
        agg.absorb(i, mss, &mut f.rec.done);
        let stop = sim.cfg.flows[i].stop.map_or(end.0, |t| t.0.min(end.0));
        agg.fill(i, mss, stop.div_ceil(w) as usize);
    }
    let bins = take(&mut agg.bins);
    let width = agg.width();
    let mut rows = SeriesRows::with_capacity(bins.len());
    for (b, a) in bins.iter().enumerate() {
        // the windows are sums over the flows counted with one (NaN when none has one yet)
        let counted = a.cwnd.iter().any(|c| !c.is_nan());
        let or_nan = |v: f64| if counted { v } else { f64::NAN };
        let windows = [or_nan(a.cwnd_bytes as f64), or_nan(a.cwnd_segments), f64::NAN, or_nan(a.inflight_bytes as f64)];
        rows.push(-1, b, width, &a.sum, windows);
    }
    let series = rows.table();
    [series, spread_table(&bins, width)]
}

/// Per bin, across the flows counted in it: how many, quantiles (nearest rank) of their
/// throughput and window, and Jain's fairness index of their throughput.
fn spread_table(bins: &[AggBin], width: Dur) -> Table {
    let rows = bins.len();
    let [mut t_s, mut jains] = columns::<f64, 2>(rows);
    let [mut flows] = columns::<i64, 1>(rows);
    let qs = [0.0, 0.1, 0.5, 0.9, 1.0];
    let mut tq: [Vec<f64>; 5] = columns::<f64, 5>(rows);
    let mut cq: [Vec<f64>; 5] = columns::<f64, 5>(rows);
    for (b, a) in bins.iter().enumerate() {
        t_s.push((b as u64 * width.0) as f64 * 1e-9);
        flows.push(a.delivered.len() as i64);
        let mbps = 8.0 / width.secs_f64().max(1e-12) / 1e6;
        let mut d = a.delivered.clone();
        d.sort_by(f32::total_cmp);
        let mut c: Vec<f32> = a.cwnd.iter().copied().filter(|x| !x.is_nan()).collect();
        c.sort_by(f32::total_cmp);
        for (k, &q) in qs.iter().enumerate() {
            tq[k].push(quantile(&d, q) * mbps);
            cq[k].push(quantile(&c, q));
        }
        jains.push(jain(&d));
    }
    let [t0, t10, t50, t90, t100] = tq;
    let [c0, c10, c50, c90, c100] = cq;
    Table::new("spread")
        .f64("t_s", t_s)
        .i64("flows", flows)
        .f64("throughput_min_mbps", t0)
        .f64("throughput_p10_mbps", t10)
        .f64("throughput_p50_mbps", t50)
        .f64("throughput_p90_mbps", t90)
        .f64("throughput_max_mbps", t100)
        .f64("cwnd_min_segments", c0)
        .f64("cwnd_p10_segments", c10)
        .f64("cwnd_p50_segments", c50)
        .f64("cwnd_p90_segments", c90)
        .f64("cwnd_max_segments", c100)
        .f64("jain_index", jains)
}

/// The `series` table's columns, a row per flow (or all flows) and bin.
struct SeriesRows {
    ints: [Vec<i64>; 7],
    floats: [Vec<f64>; 8],
}

impl SeriesRows {
    fn with_capacity(rows: usize) -> SeriesRows {
        SeriesRows { ints: columns(rows), floats: columns(rows) }
    }

    /// Bin `b` of `width` of `flow` (-1: all flows), with `windows` = cwnd bytes, cwnd segments,
    /// ssthresh and in-flight bytes as the row shows them.
    fn push(&mut self, flow: i64, b: usize, width: Dur, x: &Bin, windows: [f64; 4]) {
        let mean_ms = |sum: u64, n: u64| if n > 0 { sum as f64 / n as f64 * 1e-6 } else { f64::NAN };
        let ints = [flow, x.delivered_bytes as i64, x.sent_bytes as i64, x.retx_bytes as i64, x.rtt_n as i64, x.acks as i64, x.dupacks as i64];
        let [cwnd, seg, ssthresh, inflight] = windows;
        let floats = [
            (b as u64 * width.0) as f64 * 1e-9,
            x.delivered_bytes as f64 * 8.0 / width.secs_f64() / 1e6,
            cwnd,
            seg,
            ssthresh,
            inflight,
            mean_ms(x.rtt_sum_ns, x.rtt_n),
            mean_ms(x.owd_sum_ns, x.owd_n),
        ];
        for (c, v) in self.ints.iter_mut().zip(ints) {
            c.push(v);
        }
        for (c, v) in self.floats.iter_mut().zip(floats) {
            c.push(v);
        }
    }

    fn table(self) -> Table {
        let [flow, deliv, sent, retx, rttn, acks, dups] = self.ints;
        let [t_s, tput, cwnd, seg, ssth, infl, rtt, owd] = self.floats;
        Table::new("series")
            .i64("flow_id", flow)
            .f64("t_s", t_s)
            .f64("throughput_mbps", tput)
            .i64("delivered_bytes", deliv)
            .i64("sent_bytes", sent)
            .i64("retx_bytes", retx)
            .f64("cwnd_bytes", cwnd)
            .f64("cwnd_segments", seg)
            .f64("ssthresh_bytes", ssth)
            .f64("inflight_bytes", infl)
            .f64("rtt_mean_ms", rtt)
            .f64("owd_mean_ms", owd)
            .i64("rtt_samples", rttn)
            .i64("acks", acks)
            .i64("dupacks", dups)
    }
}

fn series_table(sim: &mut Simulation) -> Table {
    let end = sim.cfg.duration;
    let nbins = |r: &FlowRecorder| end.0.div_ceil(r.bin_width().0.max(1)) as usize;
    let mut rows = SeriesRows::with_capacity(sim.flows.iter().map(|f| nbins(&f.rec)).sum());
    for (i, f) in sim.flows.iter_mut().enumerate() {
        let bin = f.rec.bin_width();
        let bins = take(&mut f.rec.bins);
        let mss = f.sender.cc.mss as f64;
        // the last cwnd / ssthresh / in-flight seen, carried over bins without a change
        let (mut last_cwnd, mut last_ss, mut last_inf) = (f64::NAN, f64::NAN, f64::NAN);
        for b in 0..nbins(&f.rec) {
            let x = bins.get(b).copied().unwrap_or_default();
            if let Some(c) = x.cwnd {
                last_cwnd = c as f64;
                last_ss = if x.ssthresh == u64::MAX { f64::NAN } else { x.ssthresh as f64 };
                last_inf = x.inflight as f64;
            }
            rows.push(i as i64, b, bin, &x, [last_cwnd, last_cwnd / mss, last_ss, last_inf]);
        }
    }
    rows.table()
}

fn cwnd_table(sim: &mut Simulation) -> Table {
    let rows = sim.flows.iter().map(|f| f.rec.cwnd_t.len()).sum();
    let [mut flow, mut cw, mut inf] = columns::<i64, 3>(rows);
    let [mut t, mut seg, mut ss] = columns::<f64, 3>(rows);
    let mut st = Vec::with_capacity(rows);
    for (i, f) in sim.flows.iter_mut().enumerate() {
        let mss = f.sender.cc.mss as f64;
        let r = &mut f.rec;
        let (ts, cws, sss, infs, sts) =
            (take(&mut r.cwnd_t), take(&mut r.cwnd_v), take(&mut r.ssthresh_v), take(&mut r.inflight_v), take(&mut r.state_v));
        flow.extend(std::iter::repeat_n(i as i64, ts.len()));
        t.extend(ts.iter().map(|&x| x as f64 * 1e-9));
        seg.extend(cws.iter().map(|&x| x as f64 / mss));
        cw.extend(cws);
        ss.extend(sss.iter().map(|&x| if x < 0 { f64::NAN } else { x as f64 }));
        inf.extend(infs);
        st.extend(sts.iter().map(|&x| state_code(x)));
    }
    let states = Labels { labels: STATES.iter().map(|s| s.name().to_string()).collect(), codes: st };
    Table::new("cwnd")
        .i64("flow_id", flow)
        .f64("t_s", t)
        .i64("cwnd_bytes", cw)
        .f64("cwnd_segments", seg)
        .f64("ssthresh_bytes", ss)
        .i64("inflight_bytes", inf)
        .labels("state", states)
}

/// The recorder's state numbers, in order.
const STATES: [CaState; 4] = [CaState::Open, CaState::Disorder, CaState::Recovery, CaState::Loss];

fn state_code(v: i64) -> u32 {
    match v {
        0..=2 => v as u32,
        _ => 3,
    }
}

fn events_table(sim: &mut Simulation) -> Table {
    let rows = sim.flows.iter().map(|f| f.rec.events.len()).sum();
    let [mut flow] = columns::<i64, 1>(rows);
    let [mut t, mut val] = columns::<f64, 2>(rows);
    let mut codes = Vec::with_capacity(rows);
    let mut kinds: Vec<String> = Vec::new();
    for (i, f) in sim.flows.iter_mut().enumerate() {
        for (tt, k, v) in take(&mut f.rec.events) {
            flow.push(i as i64);
            t.push(tt as f64 * 1e-9);
            let kind = if k == "state" { format!("state:{}", STATES[state_code(v as i64) as usize].name()) } else { k.to_string() };
            let code = kinds.iter().position(|x| *x == kind).unwrap_or_else(|| {
                kinds.push(kind);
                kinds.len() - 1
            });
            codes.push(code as u32);
            val.push(v);
        }
    }
    let kind = Labels { labels: kinds, codes };
    Table::new("events").i64("flow_id", flow).f64("t_s", t).labels("event", kind).f64("value", val)
}

fn hist_table(sim: &mut Simulation, name: &str, get: impl Fn(&mut FlowRecorder) -> &mut Histogram) -> Table {
    let (mut flow, mut lo, mut hi, mut n) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (i, f) in sim.flows.iter_mut().enumerate() {
        for (l, h, c) in take(get(&mut f.rec)).buckets() {
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
    sim: &mut Simulation,
    name: &str,
    col: &str,
    get: impl Fn(&mut FlowRecorder) -> &mut Vec<(i64, i64)>,
) -> Table {
    let (mut flow, mut t, mut v) = (Vec::new(), Vec::new(), Vec::new());
    for (i, f) in sim.flows.iter_mut().enumerate() {
        for (tt, vv) in take(get(&mut f.rec)) {
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
