// Temporary entry point (the lead engineer owns this file and will rewire
// it): forwards `concord symex ...` / `concord replay ...` to the executor.
fn main() {
    match concord::symex::cli_main(std::env::args_os()) {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::exit(2);
        }
    }
}
