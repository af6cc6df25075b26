//! Sizes of the rank-3 sets without building them (`concord diff --counts`).
//!
//! rank3_may(e1, e2, e3) holds when the three ordered pairs (e1, e2),
//! (e2, e3), (e1, e3) are in rank2_may and rank3_no does not hold; every
//! rank3_no rule requires the same three pairs. So |rank3_may| is the number
//! of such "triangles" of rank2_may minus |rank3_no|, and the triangles can
//! be counted by intersecting successor lists, in memory linear in rank2_may.
//!
//! The diff programs never build rank2_may (they test pairs through its
//! definition), so `--counts` takes it from the single-version program.

use crate::budget::Budget;
use crate::error::Result;
use rustc_hash::FxHashMap as HashMap;

/// Number of triples (e1, e2, e3) with (e1, e2), (e2, e3) and (e1, e3) all
/// in `pairs` (rank2_may rows `(w1, r1, w2, r2)`).
pub fn rank2_triangles(pairs: &[(u32, u32, u32, u32)], budget: &Budget) -> Result<usize> {
    let mut ids: HashMap<(u32, u32), u32> = HashMap::default();
    let mut id = |e: (u32, u32)| {
        let n = ids.len() as u32;
        *ids.entry(e).or_insert(n)
    };
    let dense: Vec<(u32, u32)> = pairs
        .iter()
        .map(|&(w1, r1, w2, r2)| (id((w1, r1)), id((w2, r2))))
        .collect();
    let mut succ: Vec<Vec<u32>> = vec![Vec::new(); ids.len()];
    for &(a, b) in &dense {
        succ[a as usize].push(b);
    }
    for s in &mut succ {
        s.sort_unstable();
        s.dedup();
    }
    let mut total = 0usize;
    for (i, &(a, b)) in dense.iter().enumerate() {
        if i % 4096 == 0 {
            budget.check()?;
        }
        total += sorted_intersection_len(&succ[a as usize], &succ[b as usize]);
    }
    Ok(total)
}

fn sorted_intersection_len(x: &[u32], y: &[u32]) -> usize {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < x.len() && j < y.len() {
        match x[i].cmp(&y[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                n += 1;
                i += 1;
                j += 1;
            }
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Triangles counted by brute force over all triples of edges.
    fn brute(pairs: &[(u32, u32, u32, u32)]) -> usize {
        let set: std::collections::BTreeSet<((u32, u32), (u32, u32))> =
            pairs.iter().map(|&(a, b, c, d)| ((a, b), (c, d))).collect();
        let nodes: std::collections::BTreeSet<(u32, u32)> =
            set.iter().flat_map(|&(x, y)| [x, y]).collect();
        let mut n = 0;
        for &x in &nodes {
            for &y in &nodes {
                for &z in &nodes {
                    if set.contains(&(x, y)) && set.contains(&(y, z)) && set.contains(&(x, z)) {
                        n += 1;
                    }
                }
            }
        }
        n
    }

    #[test]
    fn counts_match_brute_force_including_repeated_edges() {
        // a small pseudo-random relation over 6 edges, with self pairs
        let mut pairs = Vec::new();
        let mut x = 7u32;
        for _ in 0..60 {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            let a = (x >> 8) % 6;
            let b = (x >> 16) % 6;
            pairs.push((a, a + 10, b, b + 10));
        }
        pairs.sort_unstable();
        pairs.dedup();
        let n = rank2_triangles(&pairs, &Budget::unlimited()).unwrap();
        assert_eq!(n, brute(&pairs));
        assert!(n > 0, "the sample should have triangles");
    }
}
