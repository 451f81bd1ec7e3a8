//! The decode floor `bench/kagent_v1_sessions.sh` measures the kagent 1.0
//! reader against: the bytes of every row the run reads, each decoded into
//! the reader's own prost messages (`lf.a2a.v1.StreamResponse` for
//! `session_task_event.data`, `lf.a2a.v1.Task` for `session_task.data`)
//! with `prost::Message::decode`, and nothing else: no JSON, no timeline,
//! no scoring. Each decoded message is dropped (freed) as the reader's are.
//!
//! Frames files are what `tests/data/kagent-1.0/generate.py --scale`
//! writes as `events.frames`: a u32 little-endian length, then that many
//! bytes, repeated. The bench writes its two (the weather agent's event
//! rows, and its task rows) from psql's binary COPY of the very rows the run
//! reads. The files are read whole before the clock starts; the
//! time printed is the decode alone (the process's own time, as
//! `/usr/bin/time` sees it, adds the read and start-up).
//!
//! By default the frames are decoded on every core (rayon, work stolen),
//! as the reader decodes Sessions on every core (`map_in_order_beside`):
//! the stricter floor. `--one-core` decodes them in order on one thread.
//! The process uses mimalloc, as `kagent-evals` does, so the allocator is
//! the same on both sides.
//!
//! The messages are named through `kagent_evals_core` (what `kagent_evals`
//! re-exports as `core`), so that the example links the core only. It
//! names the `prost` crate itself, a dev-dependency.
//!
//!     cargo run --release --example bare_prost_decode -- [--one-core] EVENTS.frames [TASKS.frames]

use kagent_evals_core::a2a_v1::proto::{StreamResponse, Task};
use rayon::prelude::*;
use std::time::Instant;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The frames of a file: each a slice of `bytes`.
fn frames(bytes: &[u8], path: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let length = bytes
            .get(at..at + 4)
            .map(|b| u32::from_le_bytes(b.try_into().expect("four bytes")) as usize)
            .unwrap_or_else(|| panic!("{path}: a length cut short at byte {at}"));
        let start = at + 4;
        assert!(
            start + length <= bytes.len(),
            "{path}: a frame of {length} bytes at byte {at} runs past the end"
        );
        out.push((start, length));
        at = start + length;
    }
    out
}

/// Decode every frame as `M`; the frames that decoded, and a number read
/// out of each so that the work is not optimised away.
fn decode_all<M: prost::Message + Default>(
    bytes: &[u8],
    frames: &[(usize, usize)],
    one_core: bool,
    weigh: impl Fn(&M) -> usize + Sync,
) -> (usize, usize) {
    let one = |&(start, length): &(usize, usize)| match M::decode(&bytes[start..start + length]) {
        Ok(message) => (1, weigh(&message)),
        Err(_) => (0, 0),
    };
    let add = |a: (usize, usize), b: (usize, usize)| (a.0 + b.0, a.1 + b.1);
    if one_core {
        frames.iter().map(one).fold((0, 0), add)
    } else {
        frames.par_iter().map(one).reduce(|| (0, 0), add)
    }
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let one_core = args.first().is_some_and(|a| a == "--one-core");
    if one_core {
        args.remove(0);
    }
    let usage = "usage: bare_prost_decode [--one-core] EVENTS.frames [TASKS.frames]";
    let events_path = args.first().expect(usage).clone();
    let tasks_path = args.get(1).cloned();
    let events = std::fs::read(&events_path).expect("a readable events frames file");
    let tasks = tasks_path
        .as_ref()
        .map(|p| std::fs::read(p).expect("a readable tasks frames file"))
        .unwrap_or_default();
    let event_frames = frames(&events, &events_path);
    let task_frames = frames(&tasks, tasks_path.as_deref().unwrap_or("-"));

    let started = Instant::now();
    let (event_ok, event_weight) =
        decode_all::<StreamResponse>(&events, &event_frames, one_core, |r| {
            usize::from(r.payload.is_some())
        });
    let (task_ok, task_weight) = decode_all::<Task>(&tasks, &task_frames, one_core, |t| {
        t.artifacts.len() + t.id.len()
    });
    let took = started.elapsed();

    println!(
        "{} event frames ({} bytes), {event_ok} decoded ({event_weight} with a payload); \
         {} task frames ({} bytes), {task_ok} decoded ({task_weight}); \
         decode {:.3} s on {}",
        event_frames.len(),
        events.len() - 4 * event_frames.len(),
        task_frames.len(),
        tasks.len() - 4 * task_frames.len(),
        took.as_secs_f64(),
        if one_core {
            "one core".to_string()
        } else {
            format!("{} threads", rayon::current_num_threads())
        },
    );
    if event_ok != event_frames.len() || task_ok != task_frames.len() {
        eprintln!("some frames did not decode");
        std::process::exit(1);
    }
}
