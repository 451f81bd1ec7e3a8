fn main() -> std::process::ExitCode {
    kagent_evals::cli::main()
}
