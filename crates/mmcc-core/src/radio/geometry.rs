//! Geometry and mobility: 3D points, axis-aligned obstacles, line-of-sight tests and
//! piecewise-constant-velocity UE trajectories (ns-3 ConstantVelocityMobilityModel with
//! scheduled velocity changes).

use crate::time::Time;
use serde::{Deserialize, Serialize};

pub type Vec3 = [f64; 3];

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ObstacleKind {
    /// Opaque: crossing it makes the link NLoS (+ blockage loss).
    Building,
    /// Vegetation: the link stays LoS and gets Weissberger's loss over the crossed depth.
    Foliage,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Obstacle {
    pub kind: ObstacleKind,
    pub min: Vec3,
    pub max: Vec3,
}

impl Obstacle {
    /// Length of the segment a-b inside the box (slab method), 0 if it misses.
    pub fn crossed_length(&self, a: Vec3, b: Vec3) -> f64 {
        let (mut t0, mut t1) = (0.0f64, 1.0f64);
        for k in 0..3 {
            let d = b[k] - a[k];
            if d.abs() < 1e-12 {
                if a[k] < self.min[k] || a[k] > self.max[k] {
                    return 0.0;
                }
            } else {
                let (mut lo, mut hi) = ((self.min[k] - a[k]) / d, (self.max[k] - a[k]) / d);
                if lo > hi {
                    std::mem::swap(&mut lo, &mut hi);
                }
                t0 = t0.max(lo);
                t1 = t1.min(hi);
                if t0 > t1 {
                    return 0.0;
                }
            }
        }
        (t1 - t0) * dist(a, b)
    }
}

pub fn dist(a: Vec3, b: Vec3) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

pub fn dist2d(a: Vec3, b: Vec3) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt()
}

/// A velocity that applies from time `t` (until the next change).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct VelocityChange {
    pub t: Time,
    /// m/s
    pub v: Vec3,
}

/// Piecewise-constant velocity from a start position.
#[derive(Clone, Debug)]
pub struct Trajectory {
    start: Vec3,
    changes: Vec<VelocityChange>,
}

impl Trajectory {
    pub fn new(start: Vec3, mut changes: Vec<VelocityChange>) -> Trajectory {
        changes.sort_by_key(|c| c.t);
        Trajectory { start, changes }
    }

    /// Speed (m/s) at time `t`: that of the latest velocity change at or before `t`.
    pub fn speed(&self, t: Time) -> f64 {
        self.changes
            .iter()
            .take_while(|c| c.t <= t)
            .last()
            .map_or(0.0, |c| c.v.iter().map(|x| x * x).sum::<f64>().sqrt())
    }

    /// Position at time `t`.
    pub fn position(&self, t: Time) -> Vec3 {
        let mut p = self.start;
        for (i, c) in self.changes.iter().enumerate() {
            if c.t >= t {
                break;
            }
            let end = self.changes.get(i + 1).map_or(t, |n| n.t.min(t));
            let dt = (end - c.t).secs_f64();
            for (pk, vk) in p.iter_mut().zip(c.v) {
                *pk += vk * dt;
            }
        }
        p
    }
}

/// What the straight gNB-UE segment crosses.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Visibility {
    /// A building blocks the path (or the UE is inside one).
    pub nlos: bool,
    /// Total foliage depth crossed, metres.
    pub foliage_m: f64,
}

pub fn visibility(gnb: Vec3, ue: Vec3, obstacles: &[Obstacle]) -> Visibility {
    let mut v = Visibility::default();
    for o in obstacles {
        let l = o.crossed_length(gnb, ue);
        if l > 0.0 {
            match o.kind {
                ObstacleKind::Building => v.nlos = true,
                ObstacleKind::Foliage => v.foliage_m += l,
            }
        }
    }
    v
}

/// ns3-mmwave's line-of-sight rule (`BuildingsObstaclePropagationLossModel::GetLoss` and
/// `MmWaveLosTracker::UpdateLosNlosState`, ns3-mmwave before 2020-06): a 2D test on azimuths
/// that ignores heights (every box is as tall as needed). Order the two ends so that `b` lies
/// in the half-plane x >= `a`.x (azimuth from `a` to `b` in [-pi/2, pi/2)); a box blocks when
/// that azimuth lies strictly between the azimuths from `a` to the box's two corners that
/// bound it as seen from `a` ((xMax, yMin) and (xMin, yMax) when `b` is up-right of `a`,
/// (xMin, yMin) and (xMax, yMax) when down-right) and `b` is past the box's near x face and
/// its near y face. Returns true when some box blocks (NLoS).
pub fn ns3_mmwave_blocked(gnb: Vec3, ue: Vec3, obstacles: &[Obstacle]) -> bool {
    let az = |to: [f64; 2], from: Vec3| (to[1] - from[1]).atan2(to[0] - from[0]);
    let half_pi = std::f64::consts::FRAC_PI_2;
    for o in obstacles {
        let (mut a, mut b) = (ue, gnb);
        let mut phi = az([b[0], b[1]], a);
        if !(-half_pi..half_pi).contains(&phi) {
            std::mem::swap(&mut a, &mut b);
            phi = az([b[0], b[1]], a);
        }
        let blocked = if phi >= 0.0 {
            let (p1, p2) = (az([o.max[0], o.min[1]], a), az([o.min[0], o.max[1]], a));
            phi > p1 && phi < p2 && b[0] > o.min[0] && b[1] > o.min[1]
        } else {
            let (p1, p2) = (az([o.min[0], o.min[1]], a), az([o.max[0], o.max[1]], a));
            phi > p1 && phi < p2 && b[0] > o.min[0] && b[1] < o.max[1]
        };
        if blocked {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bx(min: Vec3, max: Vec3) -> Obstacle {
        Obstacle {
            kind: ObstacleKind::Building,
            min,
            max,
        }
    }

    #[test]
    fn crossed_length_of_a_box() {
        let b = bx([1.0, -1.0, -1.0], [3.0, 1.0, 1.0]);
        assert!((b.crossed_length([0.0, 0.0, 0.0], [4.0, 0.0, 0.0]) - 2.0).abs() < 1e-12);
        assert_eq!(b.crossed_length([0.0, 2.0, 0.0], [4.0, 2.0, 0.0]), 0.0);
        // the segment ends inside the box
        assert!((b.crossed_length([0.0, 0.0, 0.0], [2.0, 0.0, 0.0]) - 1.0).abs() < 1e-12);
        // diagonal through the corner region
        let l = b.crossed_length([0.0, -2.0, 0.0], [4.0, 2.0, 0.0]);
        assert!((l - 2f64.sqrt() * 2.0).abs() < 1e-9, "{l}");
    }

    #[test]
    fn trajectory_integrates_velocity_changes() {
        let t = Trajectory::new(
            [0.0, 0.0, 1.5],
            vec![
                VelocityChange {
                    t: Time::from_secs(1),
                    v: [0.0, 1.5, 0.0],
                },
                VelocityChange {
                    t: Time::from_secs(3),
                    v: [0.0, 0.0, 0.0],
                },
                VelocityChange {
                    t: Time::from_secs(5),
                    v: [-30.0, 0.0, 0.0],
                },
            ],
        );
        assert_eq!(t.position(Time::from_millis(500)), [0.0, 0.0, 1.5]);
        assert_eq!(t.position(Time::from_secs(2)), [0.0, 1.5, 1.5]);
        assert_eq!(t.position(Time::from_secs(4)), [0.0, 3.0, 1.5]);
        assert_eq!(t.position(Time::from_secs(6)), [-30.0, 3.0, 1.5]);
    }

    #[test]
    fn ns3_mmwave_rule_matches_the_segment_test_on_the_thesis_geometry_and_ignores_heights() {
        let gnb = [0.0, 0.0, 15.0];
        let tree = bx([49.0, 2.2, 0.0], [49.5, 2.7, 10.0]);
        let building = bx([34.0, 17.8, 0.0], [40.5, 23.8, 30.0]);
        let obstacles = [tree.clone(), building.clone()];
        // walk the UE along the thesis path (x = 52, y from -0.2 to 21.25; then y = 21.25, x to 30)
        let mut path: Vec<Vec3> = (0..=2145)
            .map(|i| [52.0, -0.2 + i as f64 * 0.01, 1.5])
            .collect();
        path.extend((0..=2200).map(|i| [52.0 - i as f64 * 0.01, 21.25, 1.5]));
        let mut blocked = 0;
        for ue in path {
            let slab = visibility(gnb, ue, &obstacles).nlos;
            assert_eq!(ns3_mmwave_blocked(gnb, ue, &obstacles), slab, "{ue:?}");
            blocked += usize::from(slab);
        }
        assert!(blocked > 100);
        // behind the tree at x = 52 the blocked span is y in (2.2 * 52 / 49.5, 2.7 * 52 / 49)
        assert!(ns3_mmwave_blocked(
            gnb,
            [52.0, 2.5, 1.5],
            std::slice::from_ref(&tree)
        ));
        assert!(!ns3_mmwave_blocked(
            gnb,
            [52.0, 2.3, 1.5],
            std::slice::from_ref(&tree)
        ));
        // a 1 m box between a 15 m gNB and the UE: the segment passes over it, ns3-mmwave's
        // rule (2D) still calls it blocked
        let low = bx([20.0, -1.0, 0.0], [21.0, 1.0, 1.0]);
        assert!(!visibility(gnb, [52.0, 0.0, 1.5], std::slice::from_ref(&low)).nlos);
        assert!(ns3_mmwave_blocked(
            gnb,
            [52.0, 0.0, 1.5],
            std::slice::from_ref(&low)
        ));
        // the order of the two ends does not matter (UE to the left of the gNB)
        assert!(ns3_mmwave_blocked([52.0, 0.0, 1.5], gnb, &[low]));
        // down-right half plane
        assert!(ns3_mmwave_blocked(
            gnb,
            [52.0, -2.5, 1.5],
            &[bx([49.0, -2.7, 0.0], [49.5, -2.2, 10.0])]
        ));
    }
}
