//! kagent 1.0's records: A2A v1 protobuf in PostgreSQL (`lf.a2a.v1.Task` in
//! `session_task.data`, `lf.a2a.v1.StreamResponse` in
//! `session_task_event.data`, `kagent.api.v1alpha1.Session` in
//! `session.data`). [`proto`] holds the messages, [`json`] reads bytes into
//! their proto3 JSON, and [`timeline`] makes one Session's rows the tasks of
//! a conversation, which [`crate::task`] reads as it reads any A2A task.
//! [`fixture`] is the form a Session's decoded rows take on disk.

pub mod fixture;
pub mod json;
pub mod proto;
pub mod timeline;
