use super::*;
use A2aProtocol::{V0_3, V1_0};

#[test]
fn a_user_message_is_spelt_as_each_version_spells_it() {
    let old = user_message(V0_3, "ctx", None, Content::Text("hi"));
    assert_eq!(old["kind"], "message");
    assert_eq!(old["role"], "user");
    assert_eq!(old["parts"], json!([{"kind": "text", "text": "hi"}]));
    assert_eq!(old["contextId"], "ctx");
    assert!(old.get("taskId").is_none());
    let new = user_message(
        V1_0,
        "ctx",
        Some("t1"),
        Content::Data(json!({"decision_type": "approve"})),
    );
    assert!(new.get("kind").is_none());
    assert_eq!(new["role"], "ROLE_USER");
    assert_eq!(
        new["parts"],
        json!([{"data": {"decision_type": "approve"}}])
    );
    assert_eq!(new["taskId"], "t1");
    assert_ne!(old["messageId"], new["messageId"]);
    assert_eq!(headers(V1_0), [("A2A-Version", "1.0")]);
    assert!(headers(V0_3).is_empty());
    assert_eq!(
        (send_method(V1_0), get_method(V1_0)),
        ("SendMessage", "GetTask")
    );
    assert_eq!(
        (send_method(V0_3), get_method(V0_3)),
        ("message/send", "tasks/get")
    );
}

#[test]
fn a_1_0_answer_reads_its_task_and_state() {
    let answer = read_send(
        V1_0,
        &json!({"task": {"id": "t", "contextId": "c", "status": {"state": "TASK_STATE_COMPLETED"}}}),
    )
    .unwrap();
    assert_eq!(
        answer,
        Answer::Task(TaskView {
            id: Some("t".into()),
            context: Some("c".into()),
            state: State::Completed,
            approval_of: None,
            reply: String::new(),
        })
    );
    let working = read_get(
        V1_0,
        &json!({"id": "t", "status": {"state": "TASK_STATE_WORKING"}}),
    )
    .unwrap();
    assert!(!working.state.is_settled());
    let message = read_send(
        V1_0,
        &json!({"message": {"contextId": "c", "parts": [{"text": "hi"}]}}),
    )
    .unwrap();
    assert_eq!(
        message,
        Answer::Message {
            context: Some("c".into()),
            reply: "hi".into(),
        }
    );
}

#[test]
fn a_reply_is_read_from_artifacts_else_the_status_else_the_agents_last_message() {
    let from_artifacts = read_get(
        V0_3,
        &json!({"kind": "task", "id": "t", "status": {"state": "completed", "message": {"parts": [{"kind": "text", "text": "status"}]}},
                "artifacts": [{"parts": [{"kind": "text", "text": "It is sunny."}, {"kind": "data", "data": {}}]}]}),
    )
    .unwrap();
    assert_eq!(from_artifacts.reply, "It is sunny.");
    let from_status = read_get(
        V1_0,
        &json!({"id": "t", "status": {"state": "TASK_STATE_INPUT_REQUIRED", "message": {"parts": [{"text": "Which city?"}]}}}),
    )
    .unwrap();
    assert_eq!(from_status.reply, "Which city?");
    let from_history = read_get(
        V1_0,
        &json!({"id": "t", "status": {"state": "TASK_STATE_COMPLETED"},
                "history": [{"role": "ROLE_AGENT", "parts": [{"text": "first"}]}, {"role": "ROLE_USER", "parts": [{"text": "me"}]},
                            {"role": "ROLE_AGENT", "parts": [{"text": "last"}]}]}),
    )
    .unwrap();
    assert_eq!(from_history.reply, "last");
}

#[test]
fn an_approval_is_found_in_either_versions_parts() {
    let call = json!({"name": "adk_request_confirmation",
                      "args": {"originalFunctionCall": {"name": "delete_file", "args": {}}}});
    let new = read_send(
        V1_0,
        &json!({"task": {"id": "t", "status": {
        "state": "TASK_STATE_INPUT_REQUIRED",
        "message": {"role": "ROLE_AGENT", "parts": [{"data": call}]}}}}),
    )
    .unwrap();
    let Answer::Task(task) = new else { panic!() };
    assert_eq!(task.state, State::InputRequired);
    assert_eq!(task.approval_of.as_deref(), Some("delete_file"));
    let old = read_send(
        V0_3,
        &json!({"kind": "task", "id": "t", "status": {"state": "input-required"},
        "history": [{"kind": "message", "parts": [{"kind": "data", "data": call}]}]}),
    )
    .unwrap();
    let Answer::Task(task) = old else { panic!() };
    assert_eq!(task.approval_of.as_deref(), Some("delete_file"));
    // A question that is not an approval.
    let asked = read_get(
        V1_0,
        &json!({"id": "t", "status": {"state": "TASK_STATE_INPUT_REQUIRED",
        "message": {"parts": [{"text": "Which city?"}]}}}),
    )
    .unwrap();
    assert_eq!(asked.approval_of, None);
}

#[test]
fn a_body_of_the_other_version_is_named_as_such() {
    let old_body = json!({"kind": "task", "id": "t", "status": {"state": "completed"}});
    let error = read_send(V1_0, &old_body).unwrap_err();
    assert!(
        error.starts_with("answered an A2A 1.0 request with a body of A2A 0.3"),
        "{error}"
    );
    assert!(read_get(V1_0, &old_body).unwrap_err().contains("A2A 0.3"));
    let lower_case = json!({"id": "t", "status": {"state": "completed"}});
    assert!(
        read_get(V1_0, &lower_case)
            .unwrap_err()
            .contains("a task state of A2A 0.3")
    );

    let new_body = json!({"task": {"id": "t", "status": {"state": "TASK_STATE_COMPLETED"}}});
    let error = read_send(V0_3, &new_body).unwrap_err();
    assert!(
        error.starts_with("answered an A2A 0.3 request with a SendMessageResponse of A2A 1.0"),
        "{error}"
    );
    let enum_state = json!({"kind": "task", "id": "t", "status": {"state": "TASK_STATE_WORKING"}});
    assert!(
        read_get(V0_3, &enum_state)
            .unwrap_err()
            .contains("a task state of A2A 1.0")
    );
    assert!(
        read_send(V0_3, &json!({"id": "t"}))
            .unwrap_err()
            .contains("without `kind`")
    );
    assert!(
        read_send(V1_0, &json!({}))
            .unwrap_err()
            .contains("neither or both")
    );
}

#[test]
fn an_unknown_state_is_kept_and_not_settled() {
    let task = read_get(
        V0_3,
        &json!({"kind": "task", "status": {"state": "unknown"}}),
    )
    .unwrap();
    assert_eq!(task.state, State::Other("unknown".into()));
    assert!(!task.state.is_settled());
    assert_eq!(State::InputRequired.words(), "input-required");
}
