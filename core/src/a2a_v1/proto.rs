//! The subset of A2A v1 (`lf.a2a.v1`) and of kagent's `kagent.api.v1alpha1`
//! that kagent 1.0 stores, written from the field tables of the 1.0 data
//! contract (§4 and §5.4), not generated from the upstream `.proto` files.
//! Field numbers are what matter on the wire; fields this reader does not
//! know are skipped, as every protobuf decoder does.

use prost_types::Timestamp;

/// A `google.protobuf.Struct` as its bytes, and a `google.protobuf.Value`
/// as its: read by [`super::json`] to the depth kagent's own decoder
/// reads, not to prost's recursion limit, which counts every message from
/// the row down and refused tool arguments 31 objects deep.
pub type StructBytes = Vec<u8>;
pub type ValueBytes = Vec<u8>;

/// `lf.a2a.v1.Task`: `session_task.data`, the current projection.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Task {
    #[prost(string, tag = "1")]
    pub id: String,
    #[prost(string, tag = "2")]
    pub context_id: String,
    #[prost(message, optional, tag = "3")]
    pub status: Option<TaskStatus>,
    #[prost(message, repeated, tag = "4")]
    pub artifacts: Vec<Artifact>,
    #[prost(message, repeated, tag = "5")]
    pub history: Vec<Message>,
    #[prost(bytes = "vec", optional, tag = "6")]
    pub metadata: Option<StructBytes>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct TaskStatus {
    #[prost(enumeration = "TaskState", tag = "1")]
    pub state: i32,
    #[prost(message, optional, tag = "2")]
    pub message: Option<Message>,
    #[prost(message, optional, tag = "3")]
    pub timestamp: Option<Timestamp>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct Message {
    #[prost(string, tag = "1")]
    pub message_id: String,
    #[prost(string, tag = "2")]
    pub context_id: String,
    #[prost(string, tag = "3")]
    pub task_id: String,
    #[prost(enumeration = "Role", tag = "4")]
    pub role: i32,
    #[prost(message, repeated, tag = "5")]
    pub parts: Vec<Part>,
    #[prost(bytes = "vec", optional, tag = "6")]
    pub metadata: Option<StructBytes>,
    #[prost(string, repeated, tag = "7")]
    pub extensions: Vec<String>,
    #[prost(string, repeated, tag = "8")]
    pub reference_task_ids: Vec<String>,
}

/// A part's content is one of text, raw bytes, a URL or any JSON value.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Part {
    #[prost(oneof = "PartContent", tags = "1, 2, 3, 4")]
    pub content: Option<PartContent>,
    #[prost(bytes = "vec", optional, tag = "5")]
    pub metadata: Option<StructBytes>,
    #[prost(string, tag = "6")]
    pub filename: String,
    #[prost(string, tag = "7")]
    pub media_type: String,
}

#[derive(Clone, PartialEq, prost::Oneof)]
pub enum PartContent {
    #[prost(string, tag = "1")]
    Text(String),
    #[prost(bytes, tag = "2")]
    Raw(Vec<u8>),
    #[prost(string, tag = "3")]
    Url(String),
    #[prost(bytes = "vec", tag = "4")]
    Data(ValueBytes),
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct Artifact {
    #[prost(string, tag = "1")]
    pub artifact_id: String,
    #[prost(string, tag = "2")]
    pub name: String,
    #[prost(string, tag = "3")]
    pub description: String,
    #[prost(message, repeated, tag = "4")]
    pub parts: Vec<Part>,
    #[prost(bytes = "vec", optional, tag = "5")]
    pub metadata: Option<StructBytes>,
    #[prost(string, repeated, tag = "6")]
    pub extensions: Vec<String>,
}

/// `lf.a2a.v1.StreamResponse`: one `session_task_event.data`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StreamResponse {
    #[prost(oneof = "Payload", tags = "1, 2, 3, 4")]
    pub payload: Option<Payload>,
}

#[derive(Clone, PartialEq, prost::Oneof)]
pub enum Payload {
    #[prost(message, tag = "1")]
    Task(Task),
    #[prost(message, tag = "2")]
    Message(Message),
    #[prost(message, tag = "3")]
    StatusUpdate(TaskStatusUpdateEvent),
    #[prost(message, tag = "4")]
    ArtifactUpdate(TaskArtifactUpdateEvent),
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct TaskStatusUpdateEvent {
    #[prost(string, tag = "1")]
    pub task_id: String,
    #[prost(string, tag = "2")]
    pub context_id: String,
    #[prost(message, optional, tag = "3")]
    pub status: Option<TaskStatus>,
    #[prost(bytes = "vec", optional, tag = "4")]
    pub metadata: Option<StructBytes>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct TaskArtifactUpdateEvent {
    #[prost(string, tag = "1")]
    pub task_id: String,
    #[prost(string, tag = "2")]
    pub context_id: String,
    #[prost(message, optional, tag = "3")]
    pub artifact: Option<Artifact>,
    #[prost(bool, tag = "4")]
    pub append: bool,
    #[prost(bool, tag = "5")]
    pub last_chunk: bool,
    #[prost(bytes = "vec", optional, tag = "6")]
    pub metadata: Option<StructBytes>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
#[repr(i32)]
pub enum Role {
    Unspecified = 0,
    User = 1,
    Agent = 2,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
#[repr(i32)]
pub enum TaskState {
    Unspecified = 0,
    Submitted = 1,
    Working = 2,
    Completed = 3,
    Failed = 4,
    Canceled = 5,
    InputRequired = 6,
    Rejected = 7,
    AuthRequired = 8,
}

impl TaskState {
    /// The enum's name in proto3 JSON, which is also the text kagent
    /// stores in `session_task.state`.
    pub fn proto_name(self) -> &'static str {
        match self {
            TaskState::Unspecified => "TASK_STATE_UNSPECIFIED",
            TaskState::Submitted => "TASK_STATE_SUBMITTED",
            TaskState::Working => "TASK_STATE_WORKING",
            TaskState::Completed => "TASK_STATE_COMPLETED",
            TaskState::Failed => "TASK_STATE_FAILED",
            TaskState::Canceled => "TASK_STATE_CANCELED",
            TaskState::InputRequired => "TASK_STATE_INPUT_REQUIRED",
            TaskState::Rejected => "TASK_STATE_REJECTED",
            TaskState::AuthRequired => "TASK_STATE_AUTH_REQUIRED",
        }
    }
}

impl Role {
    pub fn proto_name(self) -> &'static str {
        match self {
            Role::Unspecified => "ROLE_UNSPECIFIED",
            Role::User => "ROLE_USER",
            Role::Agent => "ROLE_AGENT",
        }
    }
}

/// `kagent.api.v1alpha1.Session`: `session.data`. Fields 3, 4 and 12 are
/// reserved upstream; the store's columns win over id, creator, revision,
/// state and operation here.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Session {
    #[prost(string, tag = "1")]
    pub id: String,
    #[prost(string, tag = "2")]
    pub creator: String,
    #[prost(message, optional, tag = "15")]
    pub agent: Option<ResourceReference>,
    #[prost(string, tag = "5")]
    pub prepared_revision: String,
    #[prost(string, tag = "6")]
    pub a2a_authority: String,
    #[prost(int32, tag = "7")]
    pub state: i32,
    #[prost(int32, tag = "8")]
    pub operation: i32,
    #[prost(message, optional, tag = "9")]
    pub failure: Option<SessionFailure>,
    #[prost(message, optional, tag = "10")]
    pub created_at: Option<Timestamp>,
    #[prost(message, optional, tag = "11")]
    pub updated_at: Option<Timestamp>,
    #[prost(string, tag = "13")]
    pub name: String,
    #[prost(string, tag = "14")]
    pub context_id: String,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct ResourceReference {
    #[prost(string, tag = "1")]
    pub namespace: String,
    #[prost(string, tag = "2")]
    pub name: String,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct SessionFailure {
    #[prost(string, tag = "1")]
    pub reason: String,
    #[prost(string, tag = "2")]
    pub message: String,
}
