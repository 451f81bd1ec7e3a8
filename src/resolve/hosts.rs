//! The hosts a suite may name for its own source or judge, set by whoever
//! runs the operator (`--allowed-source-hosts`, `--allowed-judge-hosts`).

use std::fmt;

/// Host patterns: `*` any host, `*.example.com` any host under that
/// domain, anything else one host (compared without case).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AllowList(Vec<String>);

impl Default for AllowList {
    /// Any host: credentials never follow a suite's URL, so the default
    /// only decides where the operator may connect on a suite's behalf.
    fn default() -> Self {
        AllowList(vec!["*".into()])
    }
}

impl std::str::FromStr for AllowList {
    type Err = String;

    /// Comma-separated patterns.
    fn from_str(text: &str) -> Result<Self, String> {
        let mut patterns = Vec::new();
        for pattern in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let host = pattern.strip_prefix("*.").unwrap_or(pattern);
            let valid = pattern == "*"
                || (!host.is_empty()
                    && host
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | ':')));
            if !valid {
                return Err(format!(
                    "`{pattern}` is not a host pattern (a host, *.domain or *)"
                ));
            }
            patterns.push(pattern.to_ascii_lowercase());
        }
        Ok(AllowList(patterns))
    }
}

impl AllowList {
    /// Nothing but these patterns.
    pub fn only(patterns: impl IntoIterator<Item = impl Into<String>>) -> Self {
        AllowList(patterns.into_iter().map(Into::into).collect())
    }

    pub fn extend(&mut self, other: AllowList) {
        self.0.extend(other.0);
    }

    pub fn permits(&self, host: &str) -> bool {
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        self.0
            .iter()
            .any(|pattern| match pattern.strip_prefix("*.") {
                None if pattern == "*" => true,
                None => *pattern == host,
                Some(domain) => host
                    .strip_suffix(domain)
                    .is_some_and(|rest| rest.ends_with('.')),
            })
    }
}

impl fmt::Display for AllowList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            f.write_str("(none)")
        } else {
            f.write_str(&self.0.join(", "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_match_hosts_and_domains() {
        let list: AllowList = "kagent-controller.kagent, *.svc.cluster.local"
            .parse()
            .unwrap();
        assert!(list.permits("kagent-controller.kagent"));
        assert!(list.permits("KAGENT-controller.kagent."));
        assert!(list.permits("db.team-a.svc.cluster.local"));
        assert!(
            !list.permits("svc.cluster.local"),
            "the domain itself is not under it"
        );
        assert!(!list.permits("evil.example.com"));
        assert!(!list.permits("xsvc.cluster.local"));
        assert!(AllowList::default().permits("anything.example"));
        assert!(!AllowList::only(Vec::<String>::new()).permits("a"));
        assert!("http://x".parse::<AllowList>().is_err());
        assert_eq!(
            list.to_string(),
            "kagent-controller.kagent, *.svc.cluster.local"
        );
    }
}
