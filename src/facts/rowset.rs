//! One relation's rows, stored flat: `arity` columns per row in one vector,
//! rows sorted and without duplicates. A fact set of a 25 KLoC program holds
//! millions of rows of two or three columns; a `BTreeSet<Vec<u32>>` spent
//! about 50 bytes on each (the vector's header, its own allocation, the
//! tree's slack) where the row itself is 8 or 12.

/// Rows of one relation, sorted lexicographically, without duplicates.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RowSet {
    arity: usize,
    data: Vec<u32>,
}

impl RowSet {
    /// An empty set of rows with `arity` columns.
    pub fn new(arity: usize) -> RowSet {
        RowSet {
            arity,
            data: Vec::new(),
        }
    }

    /// Rows given flat (`arity` values each), in any order, duplicates
    /// allowed. Panics if `data` is not a whole number of rows.
    pub fn from_flat(arity: usize, data: Vec<u32>) -> RowSet {
        let width = arity.max(1);
        assert!(
            data.len() % width == 0,
            "{} values are not rows of {arity} columns",
            data.len()
        );
        let rows = data.len() / width;
        let row = |i: u32| &data[i as usize * width..(i as usize + 1) * width];
        let sorted_unique = (1..rows as u32).all(|i| row(i - 1) < row(i));
        if sorted_unique {
            return RowSet { arity, data };
        }
        // Sort row numbers (4 bytes each), then gather: no row is boxed.
        let mut order: Vec<u32> = (0..rows as u32).collect();
        order.sort_unstable_by(|&a, &b| row(a).cmp(row(b)));
        order.dedup_by(|a, b| row(*a) == row(*b));
        let mut out = Vec::with_capacity(order.len() * width);
        for i in order {
            out.extend_from_slice(row(i));
        }
        RowSet { arity, data: out }
    }

    /// Rows in any order, duplicates allowed. Panics on a row of another
    /// arity.
    pub fn from_rows<R: AsRef<[u32]>>(arity: usize, rows: impl IntoIterator<Item = R>) -> RowSet {
        let mut data = Vec::new();
        for r in rows {
            let r = r.as_ref();
            assert_eq!(r.len(), arity, "a row of {} columns for {arity}", r.len());
            data.extend_from_slice(r);
        }
        RowSet::from_flat(arity, data)
    }

    pub fn arity(&self) -> usize {
        self.arity
    }

    pub fn len(&self) -> usize {
        self.data.len() / self.arity.max(1)
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The rows in order.
    pub fn iter(&self) -> std::slice::ChunksExact<'_, u32> {
        self.data.chunks_exact(self.arity.max(1))
    }

    /// The rows whose first column is `first` (a binary search, not a scan).
    pub fn starting(&self, first: u32) -> std::slice::ChunksExact<'_, u32> {
        let width = self.arity.max(1);
        let rows = self.len();
        let at = |i: usize| self.data[i * width];
        let lo = partition_point(rows, |i| at(i) < first);
        let hi = partition_point(rows, |i| at(i) <= first);
        self.data[lo * width..hi * width].chunks_exact(width)
    }

    /// Where `row` is, or where it would go.
    fn search(&self, row: &[u32]) -> Result<usize, usize> {
        let width = self.arity.max(1);
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            match self.data[mid * width..(mid + 1) * width].cmp(row) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Ok(mid),
            }
        }
        Err(lo)
    }

    pub fn contains(&self, row: &[u32]) -> bool {
        self.search(row).is_ok()
    }

    /// Adds one row (kept in order); false if it was there. Linear in the
    /// rows after it: for single rows, not for bulk loads (`from_flat`).
    pub fn insert(&mut self, row: &[u32]) -> bool {
        assert_eq!(row.len(), self.arity, "a row of {} columns", row.len());
        match self.search(row) {
            Ok(_) => false,
            Err(i) => {
                let at = i * self.arity;
                self.data.splice(at..at, row.iter().copied());
                true
            }
        }
    }

    /// Adds many rows at once (one sort).
    /// Rows in any order, duplicates allowed, as flat values.
    pub fn extend_flat(&mut self, flat: Vec<u32>) {
        let data = if self.data.is_empty() {
            flat
        } else {
            let mut data = std::mem::take(&mut self.data);
            data.extend_from_slice(&flat);
            data
        };
        *self = RowSet::from_flat(self.arity, data);
    }

    pub fn extend<R: AsRef<[u32]>>(&mut self, rows: impl IntoIterator<Item = R>) {
        let mut data = std::mem::take(&mut self.data);
        for r in rows {
            let r = r.as_ref();
            assert_eq!(r.len(), self.arity, "a row of {} columns", r.len());
            data.extend_from_slice(r);
        }
        *self = RowSet::from_flat(self.arity, data);
    }
}

/// The first index in `0..n` where `pred` turns false (`pred` true then
/// false along the range).
fn partition_point(n: usize, pred: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if pred(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

impl<'a> IntoIterator for &'a RowSet {
    type Item = &'a [u32];
    type IntoIter = std::slice::ChunksExact<'a, u32>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// The same rows as a `BTreeSet<Vec<u32>>`, the representation this
    /// replaces: same order, same duplicates dropped, same ranges.
    #[test]
    fn a_row_set_orders_and_deduplicates_like_a_tree_of_rows() {
        let rows: Vec<Vec<u32>> = vec![
            vec![3, 1],
            vec![1, 9],
            vec![3, 0],
            vec![1, 9],
            vec![2, 2],
            vec![3, 1],
            vec![0, 5],
        ];
        let tree: BTreeSet<Vec<u32>> = rows.iter().cloned().collect();
        let set = RowSet::from_rows(2, &rows);
        assert_eq!(set.len(), tree.len());
        assert!(set.iter().eq(tree.iter().map(|r| r.as_slice())));
        for first in 0..5 {
            let want: Vec<&[u32]> = tree
                .iter()
                .filter(|r| r[0] == first)
                .map(|r| r.as_slice())
                .collect();
            assert_eq!(
                set.starting(first).collect::<Vec<_>>(),
                want,
                "first {first}"
            );
        }
        assert!(set.contains(&[2, 2]) && !set.contains(&[2, 3]));
    }

    #[test]
    fn insert_keeps_order_and_reports_duplicates() {
        let mut set = RowSet::new(3);
        assert!(set.insert(&[5, 0, 0]));
        assert!(set.insert(&[1, 2, 3]));
        assert!(!set.insert(&[5, 0, 0]));
        assert!(set.insert(&[1, 2, 2]));
        set.extend([[0u32, 0, 0], [5, 0, 0]]);
        let got: Vec<&[u32]> = set.iter().collect();
        assert_eq!(got, [&[0, 0, 0][..], &[1, 2, 2], &[1, 2, 3], &[5, 0, 0]]);
    }

    #[test]
    #[should_panic(expected = "columns")]
    fn a_row_of_another_arity_is_refused() {
        RowSet::from_rows(2, [vec![1u32, 2, 3]]);
    }
}
