//! Any line, read as a `match --cases` case, must come back as a case or an
//! error, never a panic; and the one-pass typed reader must give exactly
//! what the general reader gives, errors included.
#![no_main]

use kagent_evals::core::score::ConfigError;
use kagent_evals::core::score::match_case::MatchCase;
use kagent_evals::core::score::trajectory_match::MatchConfig;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let defaults = MatchConfig::default();
    for line in data.split(|b| *b == b'\n') {
        let Ok(line) = std::str::from_utf8(line) else { continue };
        let general = serde_json::from_str(line)
            .map_err(|e: serde_json::Error| ConfigError(e.to_string()))
            .and_then(|value| MatchCase::parse(value, &defaults));
        assert_eq!(MatchCase::from_json(line, &defaults), general);
    }
});
