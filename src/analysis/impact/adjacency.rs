//! Successor lists of the dependence graph in one array: statement ids are
//! dense, and the graphs have millions of edges at 50 KLoC, so offsets per
//! statement into one vector instead of a map of vectors.

/// The edges `from → to`, each with a label, grouped by `from`.
pub struct Adjacency<T> {
    offsets: Vec<usize>,
    next: Vec<(u32, T)>,
}

impl<T: Copy> Adjacency<T> {
    /// `nodes` bounds every id of `edges` (ids are `0..nodes`); the
    /// edges are walked twice (counted, then placed), never stored.
    pub fn new<I>(nodes: usize, edges: I) -> Adjacency<T>
    where
        I: Iterator<Item = (u32, u32, T)> + Clone,
    {
        let mut offsets = vec![0usize; nodes + 1];
        for (from, _, _) in edges.clone() {
            offsets[from as usize + 1] += 1;
        }
        for i in 0..nodes {
            offsets[i + 1] += offsets[i];
        }
        let mut fill = offsets.clone();
        let mut next = Vec::new();
        for (from, to, label) in edges {
            if next.is_empty() {
                // every slot is written below; the first edge fills them
                next = vec![(to, label); offsets[nodes]];
            }
            next[fill[from as usize]] = (to, label);
            fill[from as usize] += 1;
        }
        Adjacency { offsets, next }
    }

    /// The successors of `s`, with their edges' labels.
    pub fn next(&self, s: u32) -> &[(u32, T)] {
        &self.next[self.offsets[s as usize]..self.offsets[s as usize + 1]]
    }
}

/// One more than the largest id among `ids` (0 when there is none).
pub fn node_count(ids: impl Iterator<Item = u32>) -> usize {
    ids.max().map_or(0, |m| m as usize + 1)
}

#[cfg(test)]
mod tests {
    use super::Adjacency;

    #[test]
    fn successors_keep_their_labels_and_order() {
        let a = Adjacency::new(4, [(2, 0, 'a'), (0, 1, 'b'), (2, 3, 'c')].into_iter());
        assert_eq!(a.next(2), &[(0, 'a'), (3, 'c')]);
        assert_eq!(a.next(0), &[(1, 'b')]);
        assert!(a.next(1).is_empty() && a.next(3).is_empty());
    }
}
