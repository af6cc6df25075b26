//! Command-line front end, for people and scripts:
//!
//! ```text
//! cargo run --example rulec -- (check|souffle|z3|ascent|crepe|strata) FILE.dl...
//! ```
//! Files are combined in the order given. Diagnostics go to stderr (exit 1).

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((what, files)) = args.split_first() else {
        eprintln!("usage: rulec (check|souffle|z3|ascent|crepe|strata) FILE.dl...");
        std::process::exit(2);
    };
    let p = match concord_rulec::compile_files(files) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    match what.as_str() {
        "check" => println!(
            "ok: {} relations, {} rules, {} strata",
            p.relations.len(),
            p.program.rules.len(),
            p.strata.len()
        ),
        "souffle" => print!("{}", concord_rulec::to_souffle(&p)),
        "z3" => print!("{}", concord_rulec::z3_script(&p, "")),
        "ascent" => print!("{}", concord_rulec::to_ascent(&p, "Program")),
        "crepe" => print!("{}", concord_rulec::to_crepe(&p, "program")),
        "strata" => {
            for (i, s) in p.strata.iter().enumerate() {
                println!("{i}: {}", s.join(" "));
            }
        }
        other => {
            eprintln!("unknown command `{other}`");
            std::process::exit(2);
        }
    }
}
