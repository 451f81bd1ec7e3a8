//! The floors `bench/ingest.sh` measures the reader against, over every
//! line of every `*.jsonl` file under a directory:
//!
//! - by default, each line parsed into a generic `serde_json::Value`, on
//!   one core, and nothing else;
//! - with `--scan`, each line only checked to be JSON (serde's
//!   `IgnoredAny`: nothing built), on every core: the least any reader
//!   built on serde_json can do with these bytes.
//!
//!     cargo run --release --example bare_parse -- [--scan] DIR

use rayon::prelude::*;
use serde::de::IgnoredAny;
use std::io::BufRead;
use std::path::PathBuf;

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let scan = args.first().is_some_and(|a| a == "--scan");
    if scan {
        args.remove(0);
    }
    let dir = args.first().expect("usage: bare_parse [--scan] DIR");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("a directory")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    let (lines, objects) = if scan {
        files
            .par_iter()
            .map(|file| {
                // Lines split across cores too: one large file is no
                // slower per byte than many small ones.
                let text = std::fs::read(file).expect("readable");
                text.par_split(|&b| b == b'\n')
                    .filter(|l| !l.trim_ascii().is_empty())
                    .map(|line| {
                        let json = serde_json::from_slice::<IgnoredAny>(line).is_ok();
                        (1, usize::from(json))
                    })
                    .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
            })
            .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
    } else {
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
        (lines, objects)
    };
    println!("{lines} lines, {objects} objects");
}
