use super::*;
use A2aProtocol::{V0_3, V1_0};

#[test]
fn a_user_message_is_spelt_as_each_version_spells_it() {
    let old = user_message(V0_3, "m1", Some("ctx"), None, Content::Text("hi"));
    assert_eq!(old["kind"], "message");
    assert_eq!(old["role"], "user");
    assert_eq!(old["parts"], json!([{"kind": "text", "text": "hi"}]));
    assert_eq!(old["contextId"], "ctx");
    assert_eq!(old["messageId"], "m1");
    assert!(old.get("taskId").is_none());
    let first = user_message(V1_0, "m1", None, None, Content::Text("hi"));
    assert!(
        first.get("contextId").is_none(),
        "kagent 1.0 opens the Session"
    );
    let new = user_message(
        V1_0,
        "m2",
        Some("ctx"),
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
    let hitl = user_message(
        V1_0,
        "m3",
        Some("ctx"),
        Some("t1"),
        Content::Hitl {
            payload: approvals_response(&[("a1".into(), "delete_file".into())], Some("no")),
            text: "Rejected",
        },
    );
    assert_eq!(hitl["extensions"], json!([HITL_EXTENSION]));
    assert_eq!(
        hitl["metadata"][HITL_EXTENSION],
        json!({"type": "tool_approval_response",
               "approvals": [{"id": "a1", "approved": false, "rejection_reason": "no"}]})
    );
    assert_eq!(
        headers(V1_0),
        [
            ("A2A-Version", "1.0"),
            (
                "A2A-Extensions",
                "https://kagent.dev/extensions/usage/v1,https://kagent.dev/extensions/hitl/v1"
            )
        ]
    );
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
            pause: None,
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
    assert_eq!(
        task.pause,
        Some(Pause::Confirmation {
            tool: "delete_file".into()
        })
    );
    let old = read_send(
        V0_3,
        &json!({"kind": "task", "id": "t", "status": {"state": "input-required"},
        "history": [{"kind": "message", "parts": [{"kind": "data", "data": call}]}]}),
    )
    .unwrap();
    let Answer::Task(task) = old else { panic!() };
    assert_eq!(
        task.pause,
        Some(Pause::Confirmation {
            tool: "delete_file".into()
        })
    );
    // A question that is not an approval.
    let asked = read_get(
        V1_0,
        &json!({"id": "t", "status": {"state": "TASK_STATE_INPUT_REQUIRED",
        "message": {"parts": [{"text": "Which city?"}]}}}),
    )
    .unwrap();
    assert_eq!(asked.pause, None);
}

#[test]
fn kagents_hitl_requests_are_read_only_where_the_message_declares_the_extension() {
    let paused = |extensions: Value, request: Value| {
        read_get(
            V1_0,
            &json!({"id": "t", "status": {"state": "TASK_STATE_INPUT_REQUIRED", "message": {
                "role": "ROLE_AGENT", "extensions": extensions, "metadata": {HITL_EXTENSION: request},
                "parts": [{"text": "Approval required for delete_file"}]}}}),
        )
        .unwrap()
        .pause
    };
    let approval = json!({"type": "tool_approval_request", "tools": [
        {"id": "a1", "call_id": "c1", "name": "delete_file", "args": {"path": "/tmp/x"}}]});
    assert_eq!(
        paused(json!([HITL_EXTENSION]), approval.clone()),
        Some(Pause::Approvals {
            tools: vec![("a1".into(), "delete_file".into())]
        })
    );
    assert_eq!(paused(json!([]), approval), None, "undeclared: not read");
    let nested = json!({"type": "tool_approval_request",
        "tools": [{"id": "p1", "name": "k8s_agent"}],
        "nested": {"tools": [{"id": "n1", "name": "delete_pod"}]}});
    assert_eq!(
        paused(json!([HITL_EXTENSION]), nested),
        Some(Pause::Approvals {
            tools: vec![("n1".into(), "delete_pod".into())]
        }),
        "the child's calls are the ones authorised"
    );
    let question = json!({"type": "ask_user_request", "id": "q",
        "questions": [{"question": "Which database?", "choices": ["PostgreSQL"], "multiple": false}]});
    assert_eq!(
        paused(json!([HITL_EXTENSION]), question),
        Some(Pause::Questions {
            id: "q".into(),
            questions: vec!["Which database?".into()]
        })
    );
    // A child's question is answered by the child's id.
    let nested = json!({"type": "ask_user_request", "id": "parent",
        "questions": [{"question": "Which namespace?"}],
        "nested": {"tools": [{"id": "child-q"}]}});
    assert_eq!(
        paused(json!([HITL_EXTENSION]), nested),
        Some(Pause::Questions {
            id: "child-q".into(),
            questions: vec!["Which namespace?".into()]
        })
    );
    assert_eq!(
        questions_response("q", &[vec!["PostgreSQL".into()], vec![]]),
        json!({"type": "ask_user_response", "id": "q",
               "answers": [{"answer": ["PostgreSQL"]}, {"answer": []}]})
    );
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
