// The module of one generated program (included by concord-programs and
// concord-diff-programs, whose build scripts write the same OUT_DIR files).
macro_rules! rule_program {
    ($name:ident) => {
        pub mod $name {
            pub mod ascent {
                include!(concat!(
                    env!("OUT_DIR"),
                    "/",
                    stringify!($name),
                    "_ascent.rs"
                ));
            }
            include!(concat!(
                env!("OUT_DIR"),
                "/",
                stringify!($name),
                "_columns.rs"
            ));
            /// The program in Soufflé syntax (input declarations included).
            pub const SOUFFLE: &str =
                include_str!(concat!(env!("OUT_DIR"), "/", stringify!($name), ".dl"));
            /// The program for Z3's fixedpoint engine (facts and queries appended by the caller).
            pub const Z3: &str =
                include_str!(concat!(env!("OUT_DIR"), "/", stringify!($name), ".smt2"));
        }
    };
}
