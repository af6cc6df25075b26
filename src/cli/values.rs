//! The value enums of the command line (`--format`, `--engine`,
//! `--color`): each mirrors a library enum, which knows nothing of clap,
//! and converts both ways. The conversions match exhaustively, so a
//! variant added to the library enum does not compile until the command
//! line names it too.

use crate::analysis::Engine;
use crate::facts::io::FactFormat;
use crate::report::style::ColorChoice;
use crate::report::symex::SymexFormat;

/// A clap value enum for library enum `$lib`, with the same variants (and
/// their help, from the doc comments).
macro_rules! mirror {
    ($(#[$m:meta])* $name:ident => $lib:ident { $($(#[$vm:meta])* $v:ident),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
        pub enum $name {
            $($(#[$vm])* $v),+
        }

        impl From<$name> for $lib {
            fn from(v: $name) -> $lib {
                match v {
                    $($name::$v => $lib::$v),+
                }
            }
        }

        impl From<$lib> for $name {
            fn from(v: $lib) -> $name {
                match v {
                    $($lib::$v => $name::$v),+
                }
            }
        }
    };
}

mirror! {
    /// `concord facts --format`.
    FactFormatArg => FactFormat {
        /// `<relation>.facts`, tab-separated (Soufflé's input format).
        Tsv,
        /// `<relation>.csv`, comma-separated.
        Csv,
    }
}

mirror! {
    /// `--color`.
    ColorArg => ColorChoice {
        Auto,
        Always,
        Never,
    }
}

mirror! {
    /// `concord symex --format`.
    SymexFormatArg => SymexFormat {
        Text,
        Json,
        Sarif,
    }
}

/// `--engine` of `diff`, `query` and `impact`. Written out rather than
/// mirrored: crepe exists only in builds with feature `reference-engine`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum EngineArg {
    /// ascent, serial: the production engine.
    Ascent,
    /// crepe: the independent reference engine (builds with feature
    /// `reference-engine`).
    #[cfg(feature = "reference-engine")]
    Crepe,
}

impl From<EngineArg> for Engine {
    fn from(v: EngineArg) -> Engine {
        match v {
            EngineArg::Ascent => Engine::Ascent,
            #[cfg(feature = "reference-engine")]
            EngineArg::Crepe => Engine::Crepe,
        }
    }
}

impl From<Engine> for EngineArg {
    fn from(v: Engine) -> EngineArg {
        match v {
            Engine::Ascent => EngineArg::Ascent,
            #[cfg(feature = "reference-engine")]
            Engine::Crepe => EngineArg::Crepe,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::ValueEnum;

    /// The names on the command line are the library's variants, lower case,
    /// and each converts back to itself.
    #[test]
    fn mirrors_round_trip_and_keep_their_names() {
        for v in FactFormatArg::value_variants() {
            assert_eq!(FactFormatArg::from(FactFormat::from(*v)), *v);
        }
        for v in ColorArg::value_variants() {
            assert_eq!(ColorArg::from(ColorChoice::from(*v)), *v);
        }
        for v in SymexFormatArg::value_variants() {
            assert_eq!(SymexFormatArg::from(SymexFormat::from(*v)), *v);
        }
        for v in EngineArg::value_variants() {
            assert_eq!(EngineArg::from(Engine::from(*v)), *v);
        }
        let names = |vs: &[EngineArg]| -> Vec<String> {
            vs.iter()
                .map(|v| v.to_possible_value().unwrap().get_name().to_string())
                .collect()
        };
        let engines: &[&str] = if cfg!(feature = "reference-engine") {
            &["ascent", "crepe"]
        } else {
            &["ascent"]
        };
        assert_eq!(names(EngineArg::value_variants()), engines);
        assert_eq!(
            ColorArg::from(ColorChoice::default()),
            ColorArg::Auto,
            "--color's default is the library's"
        );
        assert_eq!(
            FactFormat::from(FactFormatArg::from_str("csv", false).unwrap()),
            FactFormat::Csv
        );
        assert_eq!(
            SymexFormat::from(SymexFormatArg::from_str("sarif", false).unwrap()),
            SymexFormat::Sarif
        );
    }
}
