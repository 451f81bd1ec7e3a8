//! A database of its own for each test, in the PostgreSQL that `.ci/run`
//! starts (`KAGENT_EVALS_TEST_DATABASE_URL`, a superuser URL).

pub const URL_VAR: &str = "KAGENT_EVALS_TEST_DATABASE_URL";

pub fn admin_url() -> Option<String> {
    std::env::var(URL_VAR).ok().filter(|u| !u.is_empty())
}
