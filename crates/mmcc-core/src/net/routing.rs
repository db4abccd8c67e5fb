//! Routing: the ports each flow's data and ACKs take, hop by hop.
//!
//! Paths are shortest in hops, found breadth-first from each destination over the reversed
//! ports; ties go to the lower port index, so routes are deterministic. Only the paths flows use
//! are kept (one copy per distinct source/destination pair), so memory grows with the nodes,
//! ports and flows, never with nodes squared: a 65,535-node topology with one flow holds two
//! short paths.

use std::collections::BTreeMap;

use super::NodeId;

/// A port: a wired channel (< number of channels) or a radio direction after them.
pub type Port = u32;

#[derive(Debug, Clone, Default)]
pub struct Routes {
    /// (node, port to take there), path after path.
    hops: Vec<(NodeId, Port)>,
    /// Per flow: [data path, ACK path] as (start, end) into `hops`.
    flows: Vec<[(u32, u32); 2]>,
    /// Per flow: where its data goes (a packet for any other node is one of its ACKs).
    data_dst: Vec<NodeId>,
}

impl Routes {
    /// The paths of `pairs` (one (source, destination) pair per flow, its ACKs going back) over
    /// `ends[port] = (from, to)`. Err((from, to)) names the first direction without a path, in
    /// flow order, data before ACKs.
    pub fn build(n: usize, ends: &[(NodeId, NodeId)], pairs: &[(NodeId, NodeId)]) -> Result<Routes, (NodeId, NodeId)> {
        // incoming ports per node, in port order (compressed rows)
        let mut start = vec![0u32; n + 1];
        for &(_, to) in ends {
            start[to as usize + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut incoming = vec![0 as Port; ends.len()];
        for (p, &(_, to)) in ends.iter().enumerate() {
            incoming[fill[to as usize] as usize] = p as Port;
            fill[to as usize] += 1;
        }
        // destinations -> the directions that end there (flow, 0 data / 1 ACK)
        let mut by_dst: BTreeMap<NodeId, Vec<(usize, usize)>> = BTreeMap::new();
        for (f, &(src, dst)) in pairs.iter().enumerate() {
            by_dst.entry(dst).or_default().push((f, 0));
            by_dst.entry(src).or_default().push((f, 1));
        }
        let mut routes = Routes {
            hops: Vec::new(),
            flows: vec![[(0, 0); 2]; pairs.len()],
            data_dst: pairs.iter().map(|p| p.1).collect(),
        };
        let mut shared: BTreeMap<(NodeId, NodeId), (u32, u32)> = BTreeMap::new();
        let mut next: Vec<Option<Port>> = vec![None; n]; // the port each node takes towards dst
        let mut seen = vec![false; n];
        let mut queue = std::collections::VecDeque::new();
        let mut missing: Option<(usize, usize, NodeId, NodeId)> = None; // (flow, dir, from, to)
        for (&dst, dirs) in &by_dst {
            next.iter_mut().for_each(|x| *x = None);
            seen.iter_mut().for_each(|x| *x = false);
            seen[dst as usize] = true;
            queue.clear();
            queue.push_back(dst as usize);
            while let Some(v) = queue.pop_front() {
                for &p in &incoming[start[v] as usize..start[v + 1] as usize] {
                    let from = ends[p as usize].0 as usize;
                    if !seen[from] {
                        seen[from] = true;
                        next[from] = Some(p);
                        queue.push_back(from);
                    }
                }
            }
            for &(f, dir) in dirs {
                let src = if dir == 0 { pairs[f].0 } else { pairs[f].1 };
                if let Some(&span) = shared.get(&(src, dst)) {
                    routes.flows[f][dir] = span;
                    continue;
                }
                if src != dst && next[src as usize].is_none() {
                    if missing.is_none_or(|m| (f, dir) < (m.0, m.1)) {
                        missing = Some((f, dir, src, dst));
                    }
                    continue;
                }
                let first = routes.hops.len() as u32;
                let mut node = src;
                while node != dst {
                    let p = next[node as usize].expect("every node on the way was reached");
                    routes.hops.push((node, p));
                    node = ends[p as usize].1;
                }
                let span = (first, routes.hops.len() as u32);
                shared.insert((src, dst), span);
                routes.flows[f][dir] = span;
            }
        }
        match missing {
            Some((_, _, from, to)) => Err((from, to)),
            None => Ok(routes),
        }
    }

    /// The hops of a flow's data path (`ack` false) or ACK path.
    pub fn path(&self, flow: usize, ack: bool) -> &[(NodeId, Port)] {
        let (a, b) = self.flows[flow][usize::from(ack)];
        &self.hops[a as usize..b as usize]
    }

    /// The port a packet of `flow` bound for `dst` takes at `node` (a node on its path): a scan
    /// of a path of a few hops.
    #[inline]
    pub fn port(&self, flow: usize, dst: NodeId, node: NodeId) -> Port {
        self.path(flow, dst != self.data_dst[flow])
            .iter()
            .find(|h| h.0 == node)
            .map(|h| h.1)
            .expect("a packet is only ever at a node of its path")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// a - r1 - b and a - r2 - b (ports in link order, two per link): the tie goes to the lower port.
    #[test]
    fn shortest_paths_break_ties_by_port_index() {
        let ends = [(0, 1), (1, 0), (1, 3), (3, 1), (0, 2), (2, 0), (2, 3), (3, 2)];
        let r = Routes::build(4, &ends, &[(0, 3)]).unwrap();
        assert_eq!(r.path(0, false), &[(0, 0), (1, 2)]);
        assert_eq!(r.path(0, true), &[(3, 3), (1, 1)]);
        assert_eq!(r.port(0, 3, 1), 2);
        assert_eq!(r.port(0, 0, 1), 1);
    }

    #[test]
    fn a_missing_direction_is_named() {
        let ends = [(0, 1), (1, 0)];
        assert_eq!(Routes::build(3, &ends, &[(0, 2)]).unwrap_err(), (0, 2));
    }

    #[test]
    fn flows_with_the_same_ends_share_one_path() {
        let ends = [(0, 1), (1, 0)];
        let r = Routes::build(2, &ends, &vec![(0, 1); 1000]).unwrap();
        assert_eq!(r.hops.len(), 2);
        assert_eq!(r.path(999, true), &[(1, 1)]);
    }

    /// A chain of 65,535 nodes: paths found without an n x n table.
    #[test]
    fn a_long_chain_routes_in_linear_memory() {
        let n = u16::MAX as usize;
        let ends: Vec<(NodeId, NodeId)> =
            (0..n - 1).flat_map(|i| [(i as NodeId, i as NodeId + 1), (i as NodeId + 1, i as NodeId)]).collect();
        let r = Routes::build(n, &ends, &[(0, (n - 1) as NodeId)]).unwrap();
        assert_eq!(r.path(0, false).len(), n - 1);
        assert_eq!(r.port(0, 0, 1), 1);
    }
}
