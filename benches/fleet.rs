//! A fleet on one tick: 1,000 EvalSuites in 50 namespaces, all scheduled
//! for the same minute, scored against a kagent database of 20,000
//! sessions by the `kagent-evals controller` binary as its own process, on
//! the real control plane. Once with the default `--max-concurrent-runs`
//! (4), once with 16, each on a fresh control plane.
//!
//!   cargo bench --bench fleet
//!
//! Prints the time from the tick until every run is terminal, run latency
//! (scheduled time to completionTime), the controller's peak RSS and CPU
//! seconds, its API requests and writes per run (from its
//! `kagent_evals_kube_requests_total`), the database connections it held,
//! whether the runs that queued said so (Pending, Reconciling=True
//! WaitingForSlot), and that every suite got exactly one run for the tick.
//!
//! Smaller fleets while developing: FLEET_SUITES=100 (20 suites a
//! namespace), FLEET_SESSIONS, FLEET_SLOTS=4 (comma-separated
//! `--max-concurrent-runs` values, one configuration each).
//!
//! Needs what the integration tests need: the control plane built by
//! hack/build-tools.sh and KAGENT_EVALS_TEST_DATABASE_URL. Figures are
//! recorded in docs/benchmarks.md.

#[allow(dead_code)]
#[path = "../tests/integration/support/mod.rs"]
mod support;

mod controller_process;

use controller_process::{Controller, memory};
use futures::{StreamExt, TryStreamExt};
use jiff::Timestamp;
use kagent_evals::k8s::crd::{EvalRun, EvalSuite, Phase};
use kube::Api;
use kube::api::ListParams;
use kube::runtime::watcher;
use sqlx::{Connection, Executor};
use std::collections::{BTreeMap, HashMap};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use support::operator::{agent, apply_suite, weather_suite};

/// EvalSuites in the fleet (FLEET_SUITES).
const SUITES: usize = 1000;
/// Suites in each namespace: 1,000 suites make 50 namespaces.
const SUITES_PER_NAMESPACE: usize = 20;
/// Agents of each namespace the suites evaluate, in turn.
const AGENTS_PER_NAMESPACE: usize = 4;
/// kagent 0.10 sessions seeded, spread evenly over the Agents
/// (FLEET_SESSIONS; default 20 per suite, 20,000 for 1,000).
const SESSIONS_PER_SUITE: usize = 20;
/// `--max-concurrent-runs` of each configuration (FLEET_SLOTS).
const SLOTS: [usize; 2] = [4, 16];
/// The controller has at least this long between the last suite reconciled
/// and the tick.
const LEAD: Duration = Duration::from_secs(60);
/// Suites applied at once.
const APPLY_CONCURRENCY: usize = 8;
/// How long the runs may take before the bench gives up.
const RUNS_TIMEOUT: Duration = Duration::from_secs(20 * 60);

// The aims of the issue.
const AIM_ALL_TERMINAL: Duration = Duration::from_secs(5 * 60);
const AIM_PEAK_RSS_MIB: f64 = 200.0;
const AIM_WRITES_PER_RUN: f64 = 6.0;

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn slots() -> Vec<usize> {
    match std::env::var("FLEET_SLOTS") {
        Ok(list) => list
            .split(',')
            .map(|s| s.trim().parse().expect("FLEET_SLOTS: numbers"))
            .collect(),
        Err(_) => SLOTS.to_vec(),
    }
}

fn namespace(n: usize) -> String {
    format!("fleet-{n:03}")
}

/// utime + stime of a process, in seconds.
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the command name, which is in parentheses: state is the
    // first, utime the 12th and stime the 13th.
    let rest = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or_default();
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    // SAFETY: sysconf reads a constant of the system.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    (ticks(11) + ticks(12)) / per_second
}

/// The controller's API requests by verb, from its /metrics.
async fn requests(http: &reqwest::Client, metrics: &str) -> BTreeMap<String, f64> {
    let text = http
        .get(metrics)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    text.lines()
        .filter_map(|l| l.strip_prefix("kagent_evals_kube_requests_total{verb=\""))
        .filter_map(|l| {
            let (verb, rest) = l.split_once("\"}")?;
            Some((verb.to_string(), rest.trim().parse().ok()?))
        })
        .collect()
}

const WRITES: [&str; 5] = ["create", "update", "patch", "delete", "deletecollection"];

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index]
}

/// What the bench's own watch saw of one run.
#[derive(Default, Debug)]
struct Seen {
    /// Its first status: `Pending/WaitingForSlot`, `Running`, ...
    first: Option<String>,
    /// Seen Pending with Reconciling=True, reason WaitingForSlot.
    waited: bool,
    /// Seen Pending without that condition.
    pending_otherwise: bool,
    terminal_at: Option<Instant>,
}

fn describe(run: &EvalRun) -> Option<String> {
    let status = run.status.as_ref()?;
    let phase = status.phase?;
    let reconciling = status
        .conditions
        .iter()
        .find(|c| c.type_ == "Reconciling" && c.status == "True")
        .map(|c| c.reason.clone());
    Some(match reconciling {
        Some(reason) => format!("{phase:?}/{reason}"),
        None => format!("{phase:?}"),
    })
}

/// kagent's database: 20,000 sessions of the grounded weather capture,
/// spread over the Agents of every namespace, updated within the day.
async fn seed(sessions: usize, namespaces: usize) -> support::postgres::TestDatabase {
    let db = support::operator::weather_database("fleet", "template").await;
    let mut conn = sqlx::PgConnection::connect(&db.url).await.unwrap();
    let agents = namespaces * AGENTS_PER_NAMESPACE;
    sqlx::query(
        "INSERT INTO session (id, user_id, name, created_at, updated_at, agent_id)
         SELECT 'fleet-' || n, 'admin@kagent.dev', 'fleet-' || n,
                now() - make_interval(secs => 700 + n % 7200),
                now() - make_interval(secs => 600 + n % 7200),
                format('fleet_%s__NS__weather_%s', lpad(((n % $2) / $3)::text, 3, '0'), (n % $2) % $3)
           FROM generate_series(0, $1 - 1) AS n",
    )
    .bind(sessions as i32)
    .bind(agents as i32)
    .bind(AGENTS_PER_NAMESPACE as i32)
    .execute(&mut conn)
    .await
    .unwrap();
    // Each session the captured events, at the same offsets before its update.
    sqlx::query(
        "INSERT INTO event (id, user_id, session_id, created_at, updated_at, data)
         SELECT s.id || '-' || e.id, s.user_id, s.id,
                e.created_at + (s.updated_at - t.updated_at), now(), e.data
           FROM session s
           CROSS JOIN session t
           JOIN event e ON e.session_id = t.id AND e.user_id = t.user_id
          WHERE t.id = 'grounded' AND s.id LIKE 'fleet-%'",
    )
    .execute(&mut conn)
    .await
    .unwrap();
    conn.execute("DELETE FROM event WHERE session_id IN ('grounded', 'ungrounded')")
        .await
        .unwrap();
    conn.execute("DELETE FROM session WHERE id IN ('grounded', 'ungrounded')")
        .await
        .unwrap();
    // Hint bits set now rather than by the first runs' reads.
    conn.execute("VACUUM ANALYZE").await.unwrap();
    db
}

fn database_name(url: &str) -> String {
    let tail = url.rsplit_once('/').unwrap().1;
    tail.split('?').next().unwrap().to_string()
}

async fn drop_database(name: &str) {
    let admin = support::postgres::admin_url().unwrap();
    let mut conn = sqlx::PgConnection::connect(&admin).await.unwrap();
    // The name was made by TestDatabase from a label, a pid and a counter.
    let _ = conn
        .execute(sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
            "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
        ))))
        .await;
}

/// One configuration: a fresh control plane, the fleet, one tick.
async fn fleet(
    plane: &support::controlplane::ControlPlane,
    db_url: &str,
    suites_total: usize,
    namespaces: usize,
    slots: usize,
) {
    support::crds::install(plane).await.unwrap();
    let client = plane.client().await;
    let namespace_api: Api<k8s_openapi::api::core::v1::Namespace> = Api::all(client.clone());
    for name in (0..namespaces)
        .map(namespace)
        .chain(["fleet-system".to_string()])
    {
        let ns = serde_json::json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}});
        namespace_api
            .create(&Default::default(), &serde_json::from_value(ns).unwrap())
            .await
            .unwrap();
        if name != "fleet-system" {
            for a in 0..AGENTS_PER_NAMESPACE {
                agent(
                    &client,
                    &name,
                    &format!("weather-{a}"),
                    "You report the weather from the tool.",
                )
                .await;
            }
        }
    }

    let port = support::free_port();
    let log_path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(format!("target/fleet-controller-{slots}.log"));
    let log = std::fs::File::create(&log_path).unwrap();
    let controller = Controller(
        Command::new(env!("CARGO_BIN_EXE_kagent-evals"))
            .args([
                "controller",
                "--identity",
                "fleet",
                "--lease-namespace",
                "fleet-system",
            ])
            .args(["--source", "kagent-postgres"])
            .arg(format!("--max-concurrent-runs={slots}"))
            .arg(format!("--metrics-address=127.0.0.1:{port}"))
            .env("KUBECONFIG", &plane.kubeconfig)
            .env("KAGENT_EVALS_DATABASE_URL", db_url)
            .env("RUST_LOG", "warn")
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap(),
    );
    let pid = controller.0.id();
    let http = reqwest::Client::new();
    let metrics = format!("http://127.0.0.1:{port}/metrics");
    support::operator::wait_for(
        "the controller to lead",
        Duration::from_secs(60),
        || async {
            let text = http.get(&metrics).send().await.ok()?.text().await.ok()?;
            text.contains("kagent_evals_leader 1").then_some(())
        },
    )
    .await;

    // The tick: a minute boundary far enough ahead for every suite to be
    // applied and reconciled, and then LEAD more.
    let estimate = Duration::from_millis(40 * suites_total as u64);
    let earliest = Timestamp::now().as_second() + (LEAD + estimate).as_secs() as i64;
    let tick = Timestamp::from_second((earliest + 59).div_euclid(60) * 60).unwrap();
    let utc = tick.to_zoned(jiff::tz::TimeZone::UTC);
    let schedule = format!("{} {} * * *", utc.minute(), utc.hour());

    let applying = Instant::now();
    futures::stream::iter(0..suites_total)
        .for_each_concurrent(APPLY_CONCURRENCY, |n| {
            let client = client.clone();
            let schedule = schedule.clone();
            async move {
                let ns = namespace(n / SUITES_PER_NAMESPACE);
                let agent = format!("weather-{}", n % AGENTS_PER_NAMESPACE);
                let mut suite = weather_suite(&ns, &format!("suite-{n:04}"), &agent);
                suite["spec"]["schedule"] = schedule.into();
                suite["spec"]["timeZone"] = "UTC".into();
                apply_suite(&client, &ns, &suite).await;
            }
        })
        .await;
    let applied = applying.elapsed();
    let suite_api: Api<EvalSuite> = Api::all(client.clone());
    support::operator::wait_for(
        "every suite to be reconciled",
        Duration::from_secs(600),
        || async {
            let list = suite_api.list(&ListParams::default()).await.ok()?;
            let observed = list
                .iter()
                .filter(|s| {
                    let observed = s.status.as_ref().and_then(|s| s.observed_generation);
                    observed.is_some() && observed == s.metadata.generation
                })
                .count();
            (observed == suites_total).then_some(())
        },
    )
    .await;
    let reconciled = applying.elapsed();
    let until_tick = tick.duration_since(Timestamp::now());
    assert!(
        until_tick.is_positive(),
        "the suites were not ready before the tick at {tick}: raise the estimate"
    );
    println!(
        "[{slots} slots] {suites_total} suites in {namespaces} namespaces applied in {:.1} s, reconciled in {:.1} s; tick {tick} ({schedule} UTC) in {:.0} s",
        applied.as_secs_f64(),
        reconciled.as_secs_f64(),
        until_tick.as_secs_f64()
    );

    // The bench's own watch of every run, from before the tick.
    let seen: Arc<Mutex<HashMap<String, Seen>>> = Arc::default();
    let watching = {
        let seen = seen.clone();
        let runs: Api<EvalRun> = Api::all(client.clone());
        tokio::spawn(async move {
            let mut stream = watcher(runs, watcher::Config::default()).boxed();
            while let Ok(Some(event)) = stream.try_next().await {
                let (watcher::Event::Apply(run) | watcher::Event::InitApply(run)) = event else {
                    continue;
                };
                let key = format!(
                    "{}/{}",
                    run.metadata.namespace.clone().unwrap_or_default(),
                    run.metadata.name.clone().unwrap_or_default()
                );
                let mut seen = seen.lock().unwrap();
                let entry = seen.entry(key).or_default();
                let Some(said) = describe(&run) else { continue };
                entry.first.get_or_insert_with(|| said.clone());
                match said.as_str() {
                    "Pending/WaitingForSlot" => entry.waited = true,
                    s if s.starts_with("Pending") => entry.pending_otherwise = true,
                    _ => {}
                }
                if kagent_evals::k8s::controller::suite_decision::is_done(&run) {
                    entry.terminal_at.get_or_insert_with(Instant::now);
                }
            }
        })
    };
    // PostgreSQL connections to the sessions' database, sampled from the
    // admin database (so that the sampler is not one of them).
    let db_name = database_name(db_url);
    let max_connections = Arc::new(std::sync::atomic::AtomicI64::new(0));
    let sampling = {
        let max_connections = max_connections.clone();
        let db_name = db_name.clone();
        tokio::spawn(async move {
            let admin = support::postgres::admin_url().unwrap();
            let mut conn = sqlx::PgConnection::connect(&admin).await.unwrap();
            loop {
                let count: i64 =
                    sqlx::query_scalar("SELECT count(*) FROM pg_stat_activity WHERE datname = $1")
                        .bind(&db_name)
                        .fetch_one(&mut conn)
                        .await
                        .unwrap();
                max_connections.fetch_max(count, std::sync::atomic::Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        })
    };

    // Just before the tick: the counters to subtract.
    let before_wait = until_tick.as_secs_f64() - 3.0;
    if before_wait > 0.0 {
        tokio::time::sleep(Duration::from_secs_f64(before_wait)).await;
    }
    let requests_before = requests(&http, &metrics).await;
    let window_start = Timestamp::now();
    let cpu_before = cpu_seconds(pid);
    let (rss_before, _) = memory(pid);
    let until_tick = tick.duration_since(Timestamp::now());
    let tick_instant = Instant::now() + Duration::try_from(until_tick).unwrap_or_default();

    // Until every suite's run of the tick is terminal.
    let mut peak_rss_sampled = 0.0f64;
    let deadline = tick_instant + RUNS_TIMEOUT;
    loop {
        peak_rss_sampled = peak_rss_sampled.max(memory(pid).0);
        let done = seen
            .lock()
            .unwrap()
            .values()
            .filter(|s| s.terminal_at.is_some())
            .count();
        if done >= suites_total {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "only {done} of {suites_total} runs terminal after {} s",
            RUNS_TIMEOUT.as_secs()
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let all_terminal = seen
        .lock()
        .unwrap()
        .values()
        .filter_map(|s| s.terminal_at)
        .max()
        .unwrap()
        .saturating_duration_since(tick_instant);
    let cpu_runs = cpu_seconds(pid) - cpu_before;

    // The suites record their runs; then the counters are read.
    let runs_api: Api<EvalRun> = Api::all(client.clone());
    support::operator::wait_for(
        "every suite to record its run",
        Duration::from_secs(120),
        || async {
            let list = suite_api.list(&ListParams::default()).await.ok()?;
            let recorded = list
                .iter()
                .filter(|s| {
                    s.status
                        .as_ref()
                        .is_some_and(|st| st.last_run.is_some() && st.active.is_empty())
                })
                .count();
            (recorded == suites_total).then_some(())
        },
    )
    .await;
    tokio::time::sleep(Duration::from_secs(5)).await;
    let requests_after = requests(&http, &metrics).await;
    let window_end = Timestamp::now();
    let cpu_total = cpu_seconds(pid);
    let cpu_after = cpu_total - cpu_before;
    let (rss_after, peak) = memory(pid);
    peak_rss_sampled = peak_rss_sampled.max(rss_after);
    sampling.abort();
    watching.abort();

    // Each suite exactly one run, for the tick; its latency from the tick.
    let runs = runs_api.list(&ListParams::default()).await.unwrap();
    let mut per_suite: HashMap<(String, String), usize> = HashMap::new();
    let mut latencies = Vec::new();
    let mut phases: BTreeMap<String, usize> = BTreeMap::new();
    let mut other_slot = 0;
    for run in &runs {
        let ns = run.metadata.namespace.clone().unwrap_or_default();
        *per_suite
            .entry((ns, run.spec.suite_ref.name.clone()))
            .or_default() += 1;
        let scheduled = run.spec.trigger.scheduled_time.as_ref().map(|t| t.0);
        if scheduled != Some(tick) {
            other_slot += 1;
        }
        let status = run.status.clone().unwrap_or_default();
        *phases
            .entry(format!("{:?}", status.phase.unwrap_or(Phase::Pending)))
            .or_default() += 1;
        if let Some(done) = status.completion_time {
            latencies.push(done.0.duration_since(tick).as_secs_f64());
        }
    }
    latencies.sort_by(f64::total_cmp);
    let suites_with_one = per_suite.values().filter(|n| **n == 1).count();
    let suites_with_more = per_suite.values().filter(|n| **n > 1).count();
    let suites_with_none = suites_total - per_suite.len();

    let seen = seen.lock().unwrap();
    let waited = seen.values().filter(|s| s.waited).count();
    let first_waiting = seen
        .values()
        .filter(|s| s.first.as_deref() == Some("Pending/WaitingForSlot"))
        .count();
    let pending_otherwise = seen.values().filter(|s| s.pending_otherwise).count();
    let straight: Vec<&str> = seen
        .values()
        .filter(|s| !s.waited)
        .map(|s| s.first.as_deref().unwrap_or("-"))
        .collect();
    let mut sample: Vec<(&String, &Seen)> = seen.iter().collect();
    sample.sort_by_key(|(k, _)| k.as_str());
    let sample: Vec<String> = sample
        .iter()
        .step_by((sample.len() / 4).max(1))
        .take(4)
        .map(|(k, s)| format!("{k}: first {}", s.first.as_deref().unwrap_or("-")))
        .collect();

    let delta: BTreeMap<&str, f64> = requests_after
        .iter()
        .map(|(verb, n)| {
            (
                verb.as_str(),
                n - requests_before.get(verb).copied().unwrap_or(0.0),
            )
        })
        .filter(|(_, n)| *n > 0.0)
        .collect();
    let total: f64 = delta.values().sum();
    let writes: f64 = delta
        .iter()
        .filter(|(verb, _)| WRITES.contains(verb))
        .map(|(_, n)| n)
        .sum();
    let n = suites_total as f64;
    let per_verb: Vec<String> = delta
        .iter()
        .map(|(verb, count)| format!("{verb} {:.2}", count / n))
        .collect();
    // The same writes from the API server's audit log, by resource and
    // answer: the bench itself only reads in this window.
    let mut audited: BTreeMap<String, f64> = BTreeMap::new();
    for entry in plane.audit() {
        let verb = entry["verb"].as_str().unwrap_or_default();
        let agent = entry["userAgent"].as_str().unwrap_or_default();
        let at: Option<Timestamp> = entry["requestReceivedTimestamp"]
            .as_str()
            .and_then(|t| t.parse().ok());
        if !WRITES.contains(&verb)
            || agent.starts_with("kube-apiserver")
            || !at.is_some_and(|at| at >= window_start && at <= window_end)
        {
            continue;
        }
        let object = &entry["objectRef"];
        let mut what = format!("{verb} {}", object["resource"].as_str().unwrap_or("?"));
        if let Some(sub) = object["subresource"].as_str() {
            what.push('/');
            what.push_str(sub);
        }
        let code = entry["responseStatus"]["code"].as_i64().unwrap_or(0);
        if !(200..300).contains(&code) {
            what.push_str(&format!(" ({code})"));
        }
        *audited.entry(what).or_default() += 1.0;
    }
    let audited: Vec<String> = audited
        .iter()
        .map(|(what, count)| format!("{what} {:.2}", count / suites_total as f64))
        .collect();
    let warnings = std::fs::read_to_string(&log_path)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains("WARN") || l.contains("ERROR"))
        .count();

    let aim = |met: bool| if met { "met" } else { "MISSED" };
    let held = max_connections.load(std::sync::atomic::Ordering::Relaxed);
    let pool = kagent_evals::source::kagent_postgres::POOL_SIZE;
    let terminal_s = all_terminal.as_secs_f64();
    let writes_per_run = writes / n;
    println!("[{slots} slots] --max-concurrent-runs {slots}, {suites_total} suites, one tick");
    println!(
        "  all {suites_total} runs terminal {terminal_s:.1} s after the tick (aim 300 s: {}); phases {phases:?}",
        aim(all_terminal <= AIM_ALL_TERMINAL)
    );
    println!(
        "  run latency (scheduled time to completionTime): p50 {:.0} s, p99 {:.0} s, max {:.0} s",
        percentile(&latencies, 0.5),
        percentile(&latencies, 0.99),
        percentile(&latencies, 1.0)
    );
    println!(
        "  controller RSS {rss_before:.1} MiB at the tick, {rss_after:.1} MiB after, peak (VmHWM) {peak:.1} MiB (aim 200: {}); highest sampled {peak_rss_sampled:.1} MiB",
        aim(peak < AIM_PEAK_RSS_MIB)
    );
    println!(
        "  controller CPU {cpu_runs:.1} s from the tick to the last run, {cpu_after:.1} s until the suites recorded them ({cpu_total:.1} s since start)",
    );
    println!(
        "  API requests per run {:.2}, writes per run {writes_per_run:.2} (aim 6: {}): {}",
        total / n,
        aim(writes_per_run <= AIM_WRITES_PER_RUN),
        per_verb.join(", ")
    );
    println!(
        "  writes per run by resource (audit log): {}",
        audited.join(", ")
    );
    println!(
        "  database connections held: max {held} sampled every 200 ms (one pool of {pool} shared by the runs, {slots} runs at once; never above it: {})",
        aim(held <= i64::from(pool))
    );
    println!(
        "  queued: {waited} runs said Pending/WaitingForSlot ({first_waiting} as their first status), {} never waited (first status {:?}), {pending_otherwise} were Pending otherwise",
        straight.len(),
        {
            let mut firsts: BTreeMap<&str, usize> = BTreeMap::new();
            for f in &straight {
                *firsts.entry(f).or_default() += 1;
            }
            firsts
        }
    );
    println!("  sample: {}", sample.join("; "));
    println!(
        "  one run per suite: {suites_with_one} suites exactly one, {suites_with_more} more than one, {suites_with_none} none; {other_slot} runs of another slot",
    );
    println!(
        "  controller log: {} ({warnings} warnings or errors)",
        log_path.display()
    );
    drop(controller);
}

fn main() {
    let Some(binaries) = controller_process::control_plane_when_benching() else {
        return;
    };
    let suites = env_usize("FLEET_SUITES", SUITES).max(1);
    let namespaces = suites.div_ceil(SUITES_PER_NAMESPACE);
    let sessions = env_usize("FLEET_SESSIONS", suites * SESSIONS_PER_SUITE);
    let runtime = support::runtime();
    let seeding = Instant::now();
    let db = runtime.block_on(seed(sessions, namespaces));
    println!(
        "seeded {sessions} kagent 0.10 sessions over {} Agents in {:.1} s",
        namespaces * AGENTS_PER_NAMESPACE,
        seeding.elapsed().as_secs_f64()
    );
    for slots in slots() {
        // A fresh control plane for each: nothing garbage-collects the
        // previous fleet's runs.
        let plane = support::controlplane::ControlPlane::start(&binaries);
        runtime.block_on(fleet(&plane, &db.url, suites, namespaces, slots));
        drop(plane);
    }
    runtime.block_on(drop_database(&database_name(&db.url)));
}
