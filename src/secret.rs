//! Credentials as a type of their own, below every adapter: sources, the
//! resolver, the judge client and the command line all hold them, and none
//! can print one by accident.

/// A credential file that could not be read; says which, never what it holds.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Unreadable(String);

/// A credential (database URL, token). It prints as `[redacted]`, so it
/// cannot reach a log, an error or a status by accident.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: impl Into<String>) -> Self {
        Secret(value.into().trim().to_string())
    }

    pub fn expose(&self) -> &str {
        &self.0
    }

    /// Read from a file (a mounted Secret), surrounding whitespace dropped.
    pub fn from_file(path: &std::path::Path) -> Result<Self, Unreadable> {
        std::fs::read_to_string(path)
            .map(Secret::new)
            .map_err(|e| Unreadable(format!("cannot read {}: {e}", path.display())))
    }

    /// From `file` when given, else from the environment variable `var`
    /// when it is set and not empty.
    pub fn from_file_or_env(
        file: Option<&std::path::Path>,
        var: &str,
    ) -> Result<Option<Self>, Unreadable> {
        match file {
            Some(file) => Secret::from_file(file).map(Some),
            None => Ok(std::env::var(var)
                .ok()
                .filter(|v| !v.is_empty())
                .map(Secret::new)),
        }
    }

    /// Remove the secret from a message that might quote it.
    pub fn scrub(&self, message: &str) -> String {
        if self.0.is_empty() {
            message.to_string()
        } else {
            message.replace(&self.0, "[redacted]")
        }
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("[redacted]")
    }
}
