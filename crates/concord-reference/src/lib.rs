//! The rule programs of `rules/*.dl` compiled to crepe, the reference
//! engine: written by concord-rulec's second backend, evaluated by a
//! different library than the production ascent programs
//! (crate `concord-programs`), so a test that finds both agree checks the
//! rules' compilation as well as the engines.

#![allow(clippy::all, unused, non_snake_case, non_camel_case_types)]

macro_rules! reference_program {
    ($name:ident) => {
        pub mod $name {
            include!(concat!(
                env!("OUT_DIR"),
                "/",
                stringify!($name),
                "_crepe.rs"
            ));
        }
    };
}

reference_program!(sync1_core);
reference_program!(sync1);
reference_program!(sync2);
reference_program!(sync3);
reference_program!(counts);
reference_program!(hb);
reference_program!(cia);
reference_program!(pointsto);
reference_program!(diff1);
reference_program!(diff2);
reference_program!(diff3);
