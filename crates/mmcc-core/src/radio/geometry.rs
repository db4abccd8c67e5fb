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

#[cfg(test)]
mod tests {
    use super::*;

    fn bx(min: Vec3, max: Vec3) -> Obstacle {
        Obstacle { kind: ObstacleKind::Building, min, max }
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
                VelocityChange { t: Time::from_secs(1), v: [0.0, 1.5, 0.0] },
                VelocityChange { t: Time::from_secs(3), v: [0.0, 0.0, 0.0] },
                VelocityChange { t: Time::from_secs(5), v: [-30.0, 0.0, 0.0] },
            ],
        );
        assert_eq!(t.position(Time::from_millis(500)), [0.0, 0.0, 1.5]);
        assert_eq!(t.position(Time::from_secs(2)), [0.0, 1.5, 1.5]);
        assert_eq!(t.position(Time::from_secs(4)), [0.0, 3.0, 1.5]);
        assert_eq!(t.position(Time::from_secs(6)), [-30.0, 3.0, 1.5]);
    }
}
