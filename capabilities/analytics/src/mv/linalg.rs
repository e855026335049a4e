//! The little dense linear algebra the M&V fits need: a symmetric system of at most a dozen
//! unknowns solved by Gaussian elimination with partial pivoting, and its inverse. A near-zero
//! pivot (relative to the matrix's own scale) is a singular system, answered `None`, never a
//! division by zero.

/// A square matrix, row-major.
pub type Matrix = Vec<Vec<f64>>;

const PIVOT_REL: f64 = 1e-11;

/// Solve `a x = b`; `None` when `a` is singular at working precision.
pub fn solve(a: &Matrix, b: &[f64]) -> Option<Vec<f64>> {
    let n = b.len();
    let scale = a.iter().flatten().fold(0.0_f64, |m, v| m.max(v.abs()));
    if n == 0 || !(scale.is_finite() && scale > 0.0) {
        return None;
    }
    let mut m: Matrix = a.iter().zip(b).map(|(row, &bi)| row.iter().copied().chain([bi]).collect()).collect();
    for col in 0..n {
        let piv = (col..n).max_by(|&i, &j| m[i][col].abs().total_cmp(&m[j][col].abs()))?;
        if m[piv][col].abs() <= PIVOT_REL * scale {
            return None;
        }
        m.swap(col, piv);
        for r in col + 1..n {
            let f = m[r][col] / m[col][col];
            if f != 0.0 {
                let (top, bottom) = m.split_at_mut(r);
                for (x, p) in bottom[0][col..].iter_mut().zip(&top[col][col..]) {
                    *x -= f * p;
                }
            }
        }
    }
    let mut x = vec![0.0; n];
    for r in (0..n).rev() {
        let s: f64 = (r + 1..n).map(|c| m[r][c] * x[c]).sum();
        x[r] = (m[r][n] - s) / m[r][r];
    }
    x.iter().all(|v| v.is_finite()).then_some(x)
}

/// The inverse of `a`, column by column; `None` when singular.
pub fn inverse(a: &Matrix) -> Option<Matrix> {
    let n = a.len();
    let mut cols = Vec::with_capacity(n);
    for j in 0..n {
        let mut e = vec![0.0; n];
        e[j] = 1.0;
        cols.push(solve(a, &e)?);
    }
    Some((0..n).map(|i| (0..n).map(|j| cols[j][i]).collect()).collect())
}

/// `v' a v`.
pub fn quad(a: &Matrix, v: &[f64]) -> f64 {
    a.iter().zip(v).map(|(row, &vi)| vi * row.iter().zip(v).map(|(x, y)| x * y).sum::<f64>()).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solves_inverts_and_refuses_singular() {
        let a = vec![vec![4.0, 2.0], vec![2.0, 3.0]];
        let x = solve(&a, &[2.0, 5.0]).unwrap();
        assert!((x[0] - (-0.5)).abs() < 1e-12 && (x[1] - 2.0).abs() < 1e-12);
        let inv = inverse(&a).unwrap();
        assert!((inv[0][0] - 0.375).abs() < 1e-12 && (inv[0][1] + 0.25).abs() < 1e-12);
        assert!((quad(&a, &[1.0, 1.0]) - 11.0).abs() < 1e-12);
        assert!(solve(&vec![vec![1.0, 2.0], vec![2.0, 4.0]], &[1.0, 2.0]).is_none());
        assert!(solve(&vec![vec![0.0]], &[1.0]).is_none());
        assert!(solve(&Vec::new(), &[]).is_none());
    }
}
