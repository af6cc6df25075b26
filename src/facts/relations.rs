//! The typed model of the facts, expanded from the one declaration in
//! `schema.rs` (`for_each_relation!`): an id newtype per column kind and
//! one row struct per relation, its fields the relation's columns in order
//! (Polonius's `AllFacts` is the model: each type a documented relation
//! signature). Code that reads or writes a particular relation names its
//! row type (`facts.iter::<MutexLock>()`, `facts.insert(MutexLock { .. })`);
//! only the generic layers (TSV files, the fact checks, `concord query`,
//! handing facts to the rule engines) go through the schema table by name.
//!
//! Rows are stored as the schema's `Vec<u32>` rows (one store for every
//! relation, which the generic layers walk); a row struct's derived order is
//! the order of its row, so sorted output stays sorted the same way.

use super::Row;

/// An id newtype: an unsigned 32-bit id that says what it refers to.
macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
        pub struct $name(pub u32);

        impl From<u32> for $name {
            fn from(id: u32) -> Self {
                $name(id)
            }
        }

        impl From<$name> for u32 {
            fn from(id: $name) -> u32 {
                id.0
            }
        }

        impl Column for $name {
            fn from_id(id: u32) -> Self {
                $name(id)
            }
            fn id(self) -> u32 {
                self.0
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.0.fmt(f)
            }
        }
    };
}

id_type!(
    /// A statement: a row of `statements.tsv`.
    StmtId
);
id_type!(
    /// A thread instance: a row of `threads.tsv`; main is 0.
    ThreadId
);
id_type!(
    /// A memory location: a row of `locations.tsv`.
    LocId
);
id_type!(
    /// A location used as a mutex (a row of `locations.tsv` too): typed
    /// apart from the data locations it guards.
    LockId
);

impl From<LockId> for LocId {
    fn from(lock: LockId) -> LocId {
        LocId(lock.0)
    }
}

/// A column's value: an id newtype, or a plain number (`u32`).
pub trait Column: Copy {
    fn from_id(id: u32) -> Self;
    fn id(self) -> u32;
}

impl Column for u32 {
    fn from_id(id: u32) -> Self {
        id
    }
    fn id(self) -> u32 {
        self
    }
}

/// One relation's row type: its name in the schema and its conversion
/// to and from the schema's untyped row.
pub trait TypedRelation: Sized + Copy + Ord {
    /// The relation's name (as in the schema, the files and the rules).
    const NAME: &'static str;
    /// The row with the relation's arity. Panics on another arity: rows
    /// in a fact set have the arity the schema declares (`facts::io` and
    /// the extractor both build them from this schema).
    fn from_row(row: &[u32]) -> Self;
    fn to_row(&self) -> Row;
    /// Append the row's values to flat rows (`RowSet`'s layout): no
    /// allocation per row.
    fn push_to(&self, flat: &mut Vec<u32>);
}

/// The Rust type of a declared column kind.
macro_rules! column_type {
    (Stmt) => {
        StmtId
    };
    (Thread) => {
        ThreadId
    };
    (Loc) => {
        LocId
    };
    (Lock) => {
        LockId
    };
    (Number) => {
        u32
    };
}

/// One row struct per relation of both groups.
macro_rules! typed_relations {
    (
        analysis { $($name:ident ($($col:ident : $kind:ident),*) $row:ident {
            group: $group:ident, meaning: $meaning:literal, source: $source:literal, example: $example:literal $(,)?
        })* }
        ir { $($ir_name:ident ($($ir_col:ident : $ir_kind:ident),*) $ir_row:ident {
            group: $ir_group:ident, meaning: $ir_meaning:literal, source: $ir_source:literal, example: $ir_example:literal $(,)?
        })* }
    ) => {
        $(typed_relation!($name ($($col : $kind),*) $row $meaning);)*
        $(typed_relation!($ir_name ($($ir_col : $ir_kind),*) $ir_row $ir_meaning);)*
    };
}

macro_rules! typed_relation {
    ($name:ident ($($col:ident : $kind:ident),*) $row:ident $meaning:literal) => {
        #[doc = concat!("`", stringify!($name), "(", stringify!($($col),*), ")`: ", $meaning)]
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $row {
            $(pub $col: column_type!($kind),)*
        }

        impl TypedRelation for $row {
            const NAME: &'static str = stringify!($name);

            fn from_row(row: &[u32]) -> Self {
                let mut columns = row.iter().copied();
                let mut next = || {
                    columns
                        .next()
                        .unwrap_or_else(|| panic!("a `{}` row is too short", stringify!($name)))
                };
                let typed = $row { $($col: Column::from_id(next()),)* };
                assert!(
                    columns.next().is_none(),
                    "a `{}` row is too long",
                    stringify!($name)
                );
                typed
            }

            fn to_row(&self) -> Row {
                vec![$(Column::id(self.$col)),*]
            }

            fn push_to(&self, flat: &mut Vec<u32>) {
                $(flat.push(Column::id(self.$col));)*
            }
        }
    };
}

super::schema::for_each_relation!(typed_relations);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::schema;

    /// Each row type carries its schema relation's name and arity, and
    /// converts a row there and back unchanged.
    #[test]
    fn row_types_agree_with_the_schema_table() {
        fn check<R: TypedRelation + std::fmt::Debug>() {
            let rel = schema::relation(R::NAME).expect("declared in the schema");
            let row: Row = (1..=rel.arity() as u32).collect();
            let typed = R::from_row(&row);
            assert_eq!(typed.to_row(), row, "{}", R::NAME);
        }
        check::<StmtThread>();
        check::<ThreadCreate>();
        check::<MutexLock>();
        check::<CondWait>();
        check::<InCriticalSection>();
        check::<CallArg>();
        check::<IrGlobalInit>();
        check::<IrAlloc>();
        let lock = MutexLock::from_row(&[5, 2]);
        assert_eq!((lock.s, lock.m), (StmtId(5), LockId(2)));
    }

    /// A row struct's order is its row's order, so sets of either sort alike.
    #[test]
    fn row_order_is_column_order() {
        let rows: Vec<Row> = vec![vec![1, 9, 0], vec![2, 0, 5], vec![2, 1, 0], vec![2, 1, 3]];
        let typed: Vec<InCriticalSection> = rows
            .iter()
            .map(|r| InCriticalSection::from_row(r))
            .collect();
        let mut sorted = typed.clone();
        sorted.sort();
        assert_eq!(sorted, typed);
    }

    #[test]
    #[should_panic(expected = "too short")]
    fn a_row_of_the_wrong_arity_is_refused() {
        MutexLock::from_row(&[1]);
    }
}
