//! Opening a source from settings the resolver has already decided
//! ([`crate::resolve`]): nothing is merged or defaulted here.

use super::adk_database::AdkDatabase;
use super::fixture::FixtureSource;
use super::kagent_api::KagentApi;
use super::kagent_postgres::KagentPostgres;
use super::{AnySource, NoSource, SourceError};
use crate::core::read_limits::ReadLimits;
use crate::http_client::Retry;
use crate::resolve::SourceSettings;

/// The source `settings` name, holding at most `limits` of a session
/// where it reads a database.
pub fn open_source(
    settings: &SourceSettings,
    limits: ReadLimits,
) -> Result<AnySource, SourceError> {
    Ok(match settings {
        SourceSettings::Fixture { path } => AnySource::Fixture(FixtureSource::open(path)?),
        SourceSettings::KagentPostgres { url, schema } => {
            AnySource::KagentPostgres(KagentPostgres::new(url.clone(), schema.clone(), limits)?)
        }
        SourceSettings::KagentApi {
            url,
            user,
            token,
            timeout,
        } => AnySource::KagentApi(KagentApi::new(
            url,
            user.clone(),
            token.clone(),
            *timeout,
            Retry::default(),
        )?),
        SourceSettings::AdkDatabase { url, app } => {
            AnySource::AdkDatabase(AdkDatabase::new(url.clone(), app.clone(), limits)?)
        }
        SourceSettings::Nothing => AnySource::Nothing(NoSource),
    })
}
