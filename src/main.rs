// Scoring allocates many small JSON values; mimalloc is markedly faster at
// that than the system allocator (docs/benchmarks.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    kagent_evals::cli::main()
}
