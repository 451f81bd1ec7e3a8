//! The floor `bench/ingest.sh` measures the reader against: every line of
//! every `*.jsonl` file under a directory parsed into a generic
//! `serde_json::Value`, on one core, and nothing else.
//!
//!     cargo run --release --example bare_parse -- DIR

use std::io::BufRead;

fn main() {
    let dir = std::env::args().nth(1).expect("usage: bare_parse DIR");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("a directory")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    let (mut lines, mut objects) = (0usize, 0usize);
    for file in files {
        let reader = std::io::BufReader::new(std::fs::File::open(file).expect("readable"));
        for line in reader.lines() {
            let line = line.expect("UTF-8");
            if line.trim().is_empty() {
                continue;
            }
            lines += 1;
            if let Ok(serde_json::Value::Object(_)) = serde_json::from_str(&line) {
                objects += 1;
            }
        }
    }
    println!("{lines} lines, {objects} objects");
}
