//! Antenna arrays and long-term beams: the beamforming gain each path of a channel realisation
//! gets from the gNB's and the UE's beams.
//!
//! ns3-mmwave's `MmWaveBeamforming` (the thesis' channel) multiplies each path by
//! `(w_gNB . a_gNB,p) (w_UE . a_UE,p)` (`GetLongTermFading`): the inner products of the two beams
//! with the path's array responses (its spatial signatures), for a 64-element gNB and a
//! 16-element UE array, both uniform planar arrays with half-wavelength spacing. Its stored
//! beams are each side's principal eigenvector of the paths' spatial covariance
//! `sum_p P_p a_p a_p^H` (checked on its 100 stored realisations: correlation at least 0.976,
//! in most at least 0.998), i.e. long-term beamforming towards the strongest direction of the cluster mix.
//! Such a beam reaches the ideal gain N only for a single direction; a cluster's angular spread
//! and a second cluster elsewhere cost gain, differently in every realisation.
//!
//! mmcc builds the same from a realisation's path angles: `Array::response` (the steering
//! vector of a uniform planar array, Balanis, *Antenna Theory*, 4th ed., eq. 6-87 with d = lambda/2)
//! and `principal_beam` (power iteration on the paths' L x L Gram matrix, whose top eigenvector
//! maps to the N x N covariance's through the response matrix: for V = [sqrt(P_p) a_p],
//! `V^H V x = lambda x` gives `V V^H (V x) = lambda (V x)`).

use std::f64::consts::PI;

/// A complex number (re, im).
pub type C = (f64, f64);

#[inline]
pub fn cmul(a: C, b: C) -> C {
    (a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0)
}

#[inline]
pub fn cis(phase: f64) -> C {
    (phase.cos(), phase.sin())
}

#[inline]
fn conj(a: C) -> C {
    (a.0, -a.1)
}

#[inline]
fn norm2(a: C) -> f64 {
    a.0 * a.0 + a.1 * a.1
}

/// `x^H y`.
fn inner(x: &[C], y: &[C]) -> C {
    x.iter().zip(y).fold((0.0, 0.0), |s, (&a, &b)| {
        let p = cmul(conj(a), b);
        (s.0 + p.0, s.1 + p.1)
    })
}

/// A uniform planar array with half-wavelength spacing: `rows` x `cols` elements, the columns
/// along the horizontal. N elements are laid out as the most nearly square rows x cols = N
/// (64: 8 x 8, 16: 4 x 4, as ns3-mmwave's arrays; a prime N is a horizontal line).
#[derive(Clone, Copy, Debug)]
pub struct Array {
    rows: usize,
    cols: usize,
}

impl Array {
    pub fn new(elements: u32) -> Array {
        let n = elements.max(1) as usize;
        let rows = (1..=n).take_while(|r| r * r <= n).filter(|r| n.is_multiple_of(*r)).last().unwrap_or(1);
        Array { rows, cols: n / rows }
    }

    pub fn elements(&self) -> usize {
        self.rows * self.cols
    }

    /// The response to a plane wave from azimuth `az` and elevation `el` (radians): element
    /// (r, c) at phase `pi (c sin(az) cos(el) + r sin(el))` relative to element (0, 0).
    pub fn response(&self, az: f64, el: f64) -> Vec<C> {
        let (h, v) = (PI * az.sin() * el.cos(), PI * el.sin());
        (0..self.rows).flat_map(|r| (0..self.cols).map(move |c| cis(c as f64 * h + r as f64 * v))).collect()
    }
}

/// The unit-norm principal eigenvector u of `sum_p power[p] a_p a_p^H` (the responses `a`),
/// returned as the weights w = conj(u) applied as `w . a` (`gain`).
pub fn principal_beam(a: &[Vec<C>], power: &[f64]) -> Vec<C> {
    let l = a.len();
    let amp: Vec<f64> = power.iter().map(|p| p.max(0.0).sqrt()).collect();
    // Gram matrix G_pq = sqrt(P_p P_q) a_p^H a_q (Hermitian, L x L)
    let mut g = vec![(0.0, 0.0); l * l];
    for p in 0..l {
        for q in p..l {
            let x = inner(&a[p], &a[q]);
            let s = amp[p] * amp[q];
            g[p * l + q] = (x.0 * s, x.1 * s);
            g[q * l + p] = (x.0 * s, -x.1 * s);
        }
    }
    // power iteration from the path amplitudes (a fixed count: deterministic, and converged for
    // the eigenvalue gaps of these channels; a tie between two equal clusters leaves a beam
    // between them, which is as good as either)
    let mut x: Vec<C> = amp.iter().map(|&s| (s, 0.0)).collect();
    let mut y = vec![(0.0, 0.0); l];
    for _ in 0..64 {
        for (p, yp) in y.iter_mut().enumerate() {
            *yp = g[p * l..(p + 1) * l].iter().zip(&x).fold((0.0, 0.0), |s, (&gpq, &xq)| {
                let m = cmul(gpq, xq);
                (s.0 + m.0, s.1 + m.1)
            });
        }
        let n = y.iter().map(|&c| norm2(c)).sum::<f64>().sqrt();
        if n == 0.0 {
            break;
        }
        x.iter_mut().zip(&y).for_each(|(xp, yp)| *xp = (yp.0 / n, yp.1 / n));
    }
    // u = V x / |V x|
    let n = a.first().map_or(0, Vec::len);
    let mut u = vec![(0.0, 0.0); n];
    for (p, ap) in a.iter().enumerate() {
        let c = (x[p].0 * amp[p], x[p].1 * amp[p]);
        u.iter_mut().zip(ap).for_each(|(ui, &e)| {
            let m = cmul(c, e);
            *ui = (ui.0 + m.0, ui.1 + m.1);
        });
    }
    let norm = u.iter().map(|&c| norm2(c)).sum::<f64>().sqrt();
    u.iter().map(|&c| if norm > 0.0 { (c.0 / norm, -c.1 / norm) } else { (0.0, 0.0) }).collect()
}

/// A beam's complex gain on a path: `w . a` (|.|^2 = N for a beam steered at the path).
pub fn gain(w: &[C], a: &[C]) -> C {
    w.iter().zip(a).fold((0.0, 0.0), |s, (&x, &y)| {
        let m = cmul(x, y);
        (s.0 + m.0, s.1 + m.1)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrays_are_laid_out_nearly_square() {
        for (n, r, c) in [(64, 8, 8), (16, 4, 4), (32, 4, 8), (7, 1, 7), (1, 1, 1), (0, 1, 1)] {
            let a = Array::new(n);
            assert_eq!((a.rows, a.cols), (r, c), "{n}");
        }
    }

    /// A beam at a single path gets the ideal array gain N; broadside is all ones.
    #[test]
    fn one_path_gets_the_full_array_gain() {
        let arr = Array::new(64);
        let a = arr.response(0.0, 0.0);
        assert!(a.iter().all(|&c| (c.0 - 1.0).abs() < 1e-12 && c.1.abs() < 1e-12));
        let a = arr.response(0.7, -0.25);
        let w = principal_beam(std::slice::from_ref(&a), &[1.0]);
        assert!((norm2(gain(&w, &a)) - 64.0).abs() < 1e-9);
    }

    /// Two equally strong paths in orthogonal directions: the principal beam can serve only a
    /// combination, so the power-weighted gain is half the ideal (N/2), whichever it picks.
    #[test]
    fn two_orthogonal_paths_share_the_gain() {
        let arr = Array::new(8); // 2 x 4
        let a = arr.response(0.0, 0.0);
        let b = arr.response((0.5f64).asin(), 0.0); // phase step pi/2 across 4 columns: orthogonal
        assert!(norm2(inner(&a, &b)) < 1e-20);
        let w = principal_beam(&[a.clone(), b.clone()], &[0.5, 0.5]);
        let g = 0.5 * norm2(gain(&w, &a)) + 0.5 * norm2(gain(&w, &b));
        assert!((g - 4.0).abs() < 1e-9, "{g}");
        // unequal powers: the beam goes to the stronger path
        let w = principal_beam(&[a.clone(), b.clone()], &[0.9, 0.1]);
        assert!((norm2(gain(&w, &a)) - 8.0).abs() < 1e-9);
    }

    /// The beam is the covariance's principal eigenvector: no unit vector does better
    /// (checked against random unit vectors and the per-path matched beams).
    #[test]
    fn no_beam_collects_more_power() {
        let arr = Array::new(16);
        let mut rng = crate::rng::Rng::stream(5, "beams-test");
        let resp: Vec<Vec<C>> = (0..6)
            .map(|_| arr.response(rng.uniform() * 6.0, rng.uniform() - 0.5))
            .collect();
        let power: Vec<f64> = (0..6).map(|_| rng.uniform()).collect();
        let collected = |w: &[C]| resp.iter().zip(&power).map(|(a, p)| p * norm2(gain(w, a))).sum::<f64>();
        let best = collected(&principal_beam(&resp, &power));
        for a in &resp {
            let w: Vec<C> = a.iter().map(|&c| (c.0 / 4.0, -c.1 / 4.0)).collect();
            assert!(collected(&w) <= best + 1e-9);
        }
        for _ in 0..200 {
            let v: Vec<C> = (0..16).map(|_| (rng.normal(), rng.normal())).collect();
            let n = v.iter().map(|&c| norm2(c)).sum::<f64>().sqrt();
            let w: Vec<C> = v.iter().map(|&c| (c.0 / n, c.1 / n)).collect();
            assert!(collected(&w) <= best + 1e-9);
        }
    }
}
