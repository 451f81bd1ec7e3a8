//! Opening a source from a suite's `spec.source` and the connection details
//! the caller holds (command-line flags and environment, or the operator's
//! defaults and the suite's Secrets). Credentials never come from the spec.

use super::adk_database::AdkDatabase;
use super::fixture::FixtureSource;
use super::kagent_api::KagentApi;
use super::kagent_postgres::KagentPostgres;
use super::{AnySource, Secret, SourceError};
use crate::core::suite::spec::{SourceKind, SourceSpec};
use crate::http_client::Retry;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Connection details that do not belong in a suite.
#[derive(Clone, Debug, Default)]
pub struct Connection {
    pub fixture: Option<PathBuf>,
    pub database_url: Option<Secret>,
    pub api_url: Option<String>,
    pub api_user: Option<String>,
    pub api_token: Option<Secret>,
    pub adk_app: Option<String>,
    pub api_timeout: Option<Duration>,
}

/// Open a source of `kind`; `spec` (a suite's source) fills in what the
/// connection leaves open, and fixture paths in it are relative to `base`.
pub fn open(
    kind: SourceKind,
    spec: Option<&SourceSpec>,
    connection: &Connection,
    base: &Path,
) -> Result<AnySource, SourceError> {
    let missing = |what: &str| SourceError::Config(format!("a {kind:?} source needs {what}"));
    Ok(match kind {
        SourceKind::Fixture => {
            let path = match (&connection.fixture, spec.and_then(|s| s.fixture.as_ref())) {
                (Some(path), _) => path.clone(),
                (None, Some(fixture)) => base.join(&fixture.path),
                (None, None) => return Err(missing("a fixture path")),
            };
            AnySource::Fixture(FixtureSource::open(path)?)
        }
        SourceKind::KagentPostgres => {
            let url = connection
                .database_url
                .clone()
                .ok_or_else(|| missing("a database URL"))?;
            AnySource::KagentPostgres(KagentPostgres::new(url)?)
        }
        SourceKind::KagentApi => {
            let api = spec.and_then(|s| s.kagent_api.as_ref());
            let url = connection
                .api_url
                .clone()
                .or(api.map(|a| a.url.clone()))
                .ok_or_else(|| missing("the kagent API URL"))?;
            let user = connection
                .api_user
                .clone()
                .or(api.and_then(|a| a.user_id.clone()));
            let timeout = connection.api_timeout.unwrap_or(Duration::from_secs(30));
            AnySource::KagentApi(KagentApi::new(
                &url,
                user,
                connection.api_token.clone(),
                timeout,
                Retry::default(),
            )?)
        }
        SourceKind::AdkDatabase => {
            let url = connection
                .database_url
                .clone()
                .ok_or_else(|| missing("a database URL"))?;
            let app = connection
                .adk_app
                .clone()
                .or(spec
                    .and_then(|s| s.adk_database.as_ref())
                    .map(|a| a.app_name.clone()))
                .ok_or_else(|| missing("an ADK app name"))?;
            AnySource::AdkDatabase(AdkDatabase::new(url, app)?)
        }
    })
}
