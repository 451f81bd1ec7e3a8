//! Cron schedules in a time zone, and the CronJob rules for what is due:
//! the latest slot since the last run, skipped when it is older than the
//! starting deadline. Time is always passed in, never read, so the rules
//! are tested with any clock.

use croner::Cron;
use croner::parser::{CronParser, Seconds, Year};
use jiff::tz::TimeZone;
use jiff::{SignedDuration, Timestamp, Zoned};

/// A five-field cron schedule (or `@daily` and friends) read in a zone.
#[derive(Clone, Debug)]
pub struct Schedule {
    cron: Cron,
    zone: TimeZone,
}

/// How many missed slots are counted before giving up counting.
const MISSED_SLOTS_COUNTED: usize = 100;

/// What a schedule must be, said by the API server and the command line
/// alike.
pub const CRON_EXPECTED: &str = "five fields (minute 0-59, hour 0-23, day of month 1-31, month 1-12, day of week 0-7) of numbers, *, ranges, steps and lists, or @hourly, @daily, @weekly, @monthly, @yearly";

/// The longest schedule: a bound the API server's CEL cost estimate needs.
pub const SCHEDULE_MAX: usize = 256;

/// The CRD's rule for a schedule: its pattern as CEL, whose message is
/// one line rather than the pattern itself.
pub fn cron_validation() -> serde_json::Value {
    serde_json::json!([{
        "rule": format!("self.matches('{}')", cron_pattern().replace('\\', "\\\\")),
        "message": format!("must be a cron schedule: {CRON_EXPECTED}"),
    }])
}

/// The schedules a suite may have, as one regular expression: five fields
/// of numbers in their ranges (or names), `*`, ranges, steps and lists, or
/// a macro. The CRD's schema carries it, so the API server refuses
/// `61 * * * *` at admission, and [`Schedule::parse`] applies it too, so
/// the command line refuses exactly the same schedules.
pub fn cron_pattern() -> String {
    fn field(value: &str, extra: &str) -> String {
        let item = format!(r"(\*|({value})(-({value}))?){extra}(/[1-9][0-9]?)?");
        format!("{item}(,{item})*")
    }
    fn names(names: &[&str]) -> String {
        names
            .iter()
            .flat_map(|n| [n.to_string(), n.to_lowercase()])
            .collect::<Vec<_>>()
            .join("|")
    }
    let minute = field("[0-5]?[0-9]", "");
    let hour = field("[01]?[0-9]|2[0-3]", "");
    let day = format!(r"\?|{}", field("0?[1-9]|[12][0-9]|3[01]", ""));
    let month = field(
        &format!(
            "0?[1-9]|1[0-2]|{}",
            names(&[
                "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"
            ])
        ),
        "",
    );
    let weekday = format!(
        r"\?|{}",
        field(
            &format!(
                "[0-7]|{}",
                names(&["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"])
            ),
            ""
        )
    );
    format!(
        r"^(@(yearly|annually|monthly|weekly|daily|midnight|hourly)|({minute})\s+({hour})\s+({day})\s+({month})\s+({weekday}))$"
    )
}

impl Schedule {
    pub fn parse(expression: &str, time_zone: Option<&str>) -> Result<Self, String> {
        static PATTERN: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
            regex::Regex::new(&cron_pattern()).expect("the cron pattern is a regex")
        });
        if expression.len() > SCHEDULE_MAX || !PATTERN.is_match(expression.trim()) {
            return Err(format!(
                "`{expression}` is not a cron schedule: {CRON_EXPECTED}"
            ));
        }
        let parser = CronParser::builder()
            .seconds(Seconds::Disallowed)
            .year(Year::Disallowed)
            .build();
        let cron = parser
            .parse(expression)
            .map_err(|e| format!("`{expression}` is not a cron schedule: {e}"))?;
        let zone = match time_zone {
            None => TimeZone::UTC,
            Some(name) => {
                TimeZone::get(name).map_err(|_| format!("`{name}` is not an IANA time zone"))?
            }
        };
        Ok(Schedule { cron, zone })
    }

    fn zoned(&self, at: Timestamp) -> Zoned {
        at.to_zoned(self.zone.clone())
    }

    /// The first slot strictly after `at`.
    pub fn next_after(&self, at: Timestamp) -> Option<Timestamp> {
        self.cron
            .find_next_occurrence(&self.zoned(at), false)
            .ok()
            .map(|z| z.timestamp())
    }

    /// The latest slot at or before `at`.
    pub fn latest_at_or_before(&self, at: Timestamp) -> Option<Timestamp> {
        self.cron
            .find_previous_occurrence(&self.zoned(at), true)
            .ok()
            .map(|z| z.timestamp())
    }

    /// Slots in `(after, until]`, counted up to a bound.
    fn count_between(&self, after: Timestamp, until: Timestamp) -> usize {
        let mut count = 0;
        let mut cursor = after;
        while count <= MISSED_SLOTS_COUNTED {
            match self.next_after(cursor) {
                Some(slot) if slot <= until => {
                    count += 1;
                    cursor = slot;
                }
                _ => break,
            }
        }
        count
    }
}

/// What a suite's schedule asks for now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Due {
    /// Nothing due; look again at `next`.
    Wait { next: Option<Timestamp> },
    /// Start the run of `slot`. `missed` counts earlier slots passed over
    /// since the last run (a controller that was down), `next` is the slot after.
    Start {
        slot: Timestamp,
        missed: usize,
        next: Option<Timestamp>,
    },
    /// The latest slot is older than the starting deadline: record it as
    /// missed and do not run it.
    TooLate {
        slot: Timestamp,
        next: Option<Timestamp>,
    },
}

/// CronJob's rule: of the slots since `last` (or since the suite was
/// created), only the latest is run, and only within the deadline.
pub fn due(
    schedule: &Schedule,
    last: Option<Timestamp>,
    created: Timestamp,
    now: Timestamp,
    deadline: Option<SignedDuration>,
) -> Due {
    let since = last.unwrap_or(created);
    let next = schedule.next_after(now);
    let Some(slot) = schedule
        .latest_at_or_before(now)
        .filter(|slot| *slot > since)
    else {
        return Due::Wait {
            next: schedule.next_after(since.max(now)),
        };
    };
    if deadline.is_some_and(|d| now.duration_since(slot) > d) {
        return Due::TooLate { slot, next };
    }
    let missed = schedule.count_between(since, slot).saturating_sub(1);
    Due::Start { slot, missed, next }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    #[test]
    fn slots_follow_the_time_zone() {
        let s = Schedule::parse("0 2 * * *", Some("Europe/Berlin")).unwrap();
        // 02:00 in Berlin in winter is 01:00 UTC.
        assert_eq!(
            s.next_after(t("2026-12-02T00:00:00Z")),
            Some(t("2026-12-02T01:00:00Z"))
        );
        // ... and 00:00 UTC in summer.
        assert_eq!(
            s.next_after(t("2026-07-01T00:30:00Z")),
            Some(t("2026-07-02T00:00:00Z"))
        );
        let utc = Schedule::parse("@daily", None).unwrap();
        assert_eq!(
            utc.next_after(t("2026-12-02T00:00:00Z")),
            Some(t("2026-12-03T00:00:00Z"))
        );
    }

    #[test]
    fn bad_schedules_and_zones_are_refused() {
        assert!(Schedule::parse("every night", None).is_err());
        for bad in [
            "61 * * * *",
            "* 24 * * *",
            "* * 0 * *",
            "* * * 13 *",
            "* * * * 8",
            "*/0 * * * *",
            "1-60 * * * *",
            "* * * *",
        ] {
            assert!(Schedule::parse(bad, None).is_err(), "{bad}");
        }
        for good in [
            "*/15 9-17 * * MON-FRI",
            "0 2 1,15 jan,JUL ?",
            "@hourly",
            "5 4 * * 0",
        ] {
            assert!(Schedule::parse(good, None).is_ok(), "{good}");
        }
        // croner reads `L`, but the API server's pattern does not: neither does.
        assert!(Schedule::parse("0 0 L * *", None).is_err());
        assert!(
            Schedule::parse("0 0 2 * * *", None).is_err(),
            "no seconds field"
        );
        assert!(Schedule::parse("0 2 * * *", Some("Mars/Olympus")).is_err());
    }

    #[test]
    fn the_latest_slot_since_the_last_run_is_due_once() {
        let s = Schedule::parse("*/10 * * * *", None).unwrap();
        let created = t("2026-12-02T09:55:00Z");
        let now = t("2026-12-02T10:00:05Z");
        assert_eq!(
            due(&s, None, created, now, None),
            Due::Start {
                slot: t("2026-12-02T10:00:00Z"),
                missed: 0,
                next: Some(t("2026-12-02T10:10:00Z"))
            }
        );
        // Once recorded, the same slot is not due again.
        assert_eq!(
            due(&s, Some(t("2026-12-02T10:00:00Z")), created, now, None),
            Due::Wait {
                next: Some(t("2026-12-02T10:10:00Z"))
            }
        );
    }

    #[test]
    fn after_an_outage_only_the_latest_slot_runs_and_the_rest_are_counted() {
        let s = Schedule::parse("*/10 * * * *", None).unwrap();
        let last = t("2026-12-02T10:00:00Z");
        let now = t("2026-12-02T10:45:00Z");
        assert_eq!(
            due(&s, Some(last), last, now, None),
            Due::Start {
                slot: t("2026-12-02T10:40:00Z"),
                missed: 3,
                next: Some(t("2026-12-02T10:50:00Z"))
            }
        );
    }

    #[test]
    fn a_slot_past_the_starting_deadline_is_too_late() {
        let s = Schedule::parse("0 * * * *", None).unwrap();
        let created = t("2026-12-02T08:30:00Z");
        let now = t("2026-12-02T10:05:00Z");
        assert_eq!(
            due(&s, None, created, now, Some(SignedDuration::from_secs(120))),
            Due::TooLate {
                slot: t("2026-12-02T10:00:00Z"),
                next: Some(t("2026-12-02T11:00:00Z"))
            }
        );
        assert!(matches!(
            due(&s, None, created, now, Some(SignedDuration::from_secs(600))),
            Due::Start { .. }
        ));
    }
}
