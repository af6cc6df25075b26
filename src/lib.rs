//! concord: what did a patch to multithreaded C code really change?
//!
//! Data flows one way: `frontend` (C/IR → llvm-ir Module) → `facts`
//! (relations) → `analysis` (Datalog rules) → `report`; `datalog` (running
//! the generated rule programs) sits below `facts` and `analysis`, which
//! both run rules through it; `symex` explores
//! the executions of a program with z3. See `docs/` for the facts schema,
//! the rules, the command line and the limitations.

pub mod analysis;
pub mod budget;
pub mod calls;
pub mod cleanup;
pub mod cli;
pub mod compdb;
pub mod datalog;
pub mod error;
pub mod facts;
pub mod filelist;
pub mod frontend;
pub mod ir;
pub mod load;
pub(crate) mod parallel;
pub mod pipeline;
pub mod report;
pub mod symex;
pub mod versions;
