//! Human-in-the-loop approvals: read from the AI SDK's ModelMessages and UIMessages into the
//! canonical request and decision, written back to each, and what validation, repair and the
//! store make of them.

use super::*;
use crate::repair::{repair_values, validate_values, OnPendingApproval, Provider, RepairOptions, Rule};
use serde_json::json;

fn user(text: &str) -> Value {
    json!({"role": "user", "content": text})
}

/// An AI SDK assistant message calling `del` (call `c`) with an approval request `ap`.
fn asks(c: &str, ap: &str) -> Value {
    json!({"role": "assistant", "content": [
        {"type": "tool-call", "toolCallId": c, "toolName": "del", "input": {"path": "/tmp"}},
        {"type": "tool-approval-request", "approvalId": ap, "toolCallId": c}
    ]})
}

fn decides(ap: &str, approved: bool, reason: Option<&str>) -> Value {
    let mut part = json!({"type": "tool-approval-response", "approvalId": ap, "approved": approved});
    if let Some(r) = reason {
        part["reason"] = json!(r);
    }
    json!({"role": "tool", "content": [part]})
}

fn rules(values: &[Value]) -> Vec<(Rule, Option<String>)> {
    validate_values(values, Provider::Openai).unwrap().into_iter().map(|v| (v.rule, v.tool_call_id)).collect()
}

#[test]
fn ai_sdk_requests_and_decisions_read_as_canonical_approvals_and_round_trip() {
    let h = vec![user("clean up"), asks("c1", "ap1"), decides("ap1", false, Some("not today"))];
    let d = decode_messages(&h, None).unwrap().messages;
    assert_eq!(d[1].tool_calls[0].approval.as_ref().map(|r| r.id.as_str()), Some("ap1"));
    assert_eq!(d[1].content, Content::Parts(vec![]), "the request is no content part");
    let decision = d[2].approval.as_ref().unwrap();
    assert_eq!(
        (decision.id.as_str(), decision.tool_call_id.as_deref(), decision.approved, decision.reason.as_deref()),
        ("ap1", Some("c1"), false, Some("not today")),
        "the call is found from its request"
    );
    assert_eq!((d[2].tool_call_id.as_deref(), d[2].status), (None, None), "a decision answers no call");
    assert_eq!(encode_messages(&d, Format::AiSdk), h);
    // Through the canonical form as JSON too.
    let canonical: Vec<Value> = d.iter().map(|m| serde_json::to_value(m).unwrap()).collect();
    assert_eq!(encode_messages(&decode_messages(&canonical, None).unwrap().messages, Format::AiSdk), h);
    // No provider request has approvals: OpenAI gets the call (its result is the repair's).
    let openai = encode_messages(&d, Format::Openai);
    assert_eq!(openai.len(), 2);
    assert!(!serde_json::to_string(&openai).unwrap().contains("ap1"));
}

#[test]
fn approvals_that_name_nothing_are_refused_with_what_was_seen() {
    let stray = json!({"role": "assistant", "content": [
        {"type": "tool-call", "toolCallId": "c1", "toolName": "del", "input": {}},
        {"type": "tool-approval-request", "approvalId": "ap1", "toolCallId": "c9"}
    ]});
    let e = decode_messages(&[stray], None).unwrap_err();
    assert_eq!((e.code, e.index), (ErrorCode::UnknownToolCall, Some(0)));
    assert!(e.message.contains("c9") && e.message.contains("ap1"), "{}", e.message);
    let twice = json!({"role": "assistant", "content": [
        {"type": "tool-call", "toolCallId": "c1", "toolName": "del", "input": {}},
        {"type": "tool-approval-request", "approvalId": "ap1", "toolCallId": "c1"},
        {"type": "tool-approval-request", "approvalId": "ap2", "toolCallId": "c1"}
    ]});
    assert_eq!(decode_messages(&[twice], None).unwrap_err().code, ErrorCode::InvalidMessage);
    let no_flag = json!({"role": "tool", "content": [{"type": "tool-approval-response", "approvalId": "ap1"}]});
    let e = decode_messages(&[no_flag], None).unwrap_err();
    assert!(e.code == ErrorCode::InvalidMessage && e.message.contains("approved"), "{}", e.message);
    let requested_without = json!({"id": "a", "role": "assistant", "parts": [
        {"type": "tool-del", "toolCallId": "c1", "state": "approval-requested", "input": {}}
    ]});
    assert_eq!(decode_messages(&[requested_without], None).unwrap_err().code, ErrorCode::InvalidMessage);
    let responded_undecided = json!({"id": "a", "role": "assistant", "parts": [
        {"type": "tool-del", "toolCallId": "c1", "state": "approval-responded", "input": {}, "approval": {"id": "ap1"}}
    ]});
    assert_eq!(decode_messages(&[responded_undecided], None).unwrap_err().code, ErrorCode::InvalidMessage);
}

#[test]
fn ui_approval_states_convert_as_convert_to_model_messages_does_and_back() {
    let part = |state: &str, approval: Value| {
        json!({"id": "a1", "role": "assistant", "parts": [
            {"type": "tool-del", "toolCallId": "c1", "state": state, "input": {"path": "/tmp"}, "approval": approval}
        ]})
    };
    let call = json!({"role": "assistant", "content": [
        {"type": "tool-call", "toolCallId": "c1", "toolName": "del", "input": {"path": "/tmp"}},
        {"type": "tool-approval-request", "approvalId": "ap1", "toolCallId": "c1"}
    ]});
    let cases = [
        (part("approval-requested", json!({"id": "ap1"})), vec![call.clone()]),
        (
            part("approval-responded", json!({"id": "ap1", "approved": true})),
            vec![
                call.clone(),
                json!({"role": "tool", "content": [
                    {"type": "tool-approval-response", "approvalId": "ap1", "approved": true}
                ]}),
            ],
        ),
        (
            part("output-denied", json!({"id": "ap1", "approved": false, "reason": "no"})),
            vec![
                call.clone(),
                json!({"role": "tool", "content": [
                    {"type": "tool-approval-response", "approvalId": "ap1", "approved": false, "reason": "no"},
                    {"type": "tool-result", "toolCallId": "c1", "toolName": "del", "output": {"type": "error-text", "value": "no"}}
                ]}),
            ],
        ),
    ];
    for (ui, model) in cases {
        let d = decode_messages(std::slice::from_ref(&ui), None).unwrap();
        let mut out = encode_messages(&d.messages, Format::AiSdk);
        for m in &mut out {
            if let Some(o) = m.as_object_mut() {
                o.remove("id");
            }
        }
        assert_eq!(out, model, "{ui}");
        assert_eq!(encode_messages(&d.messages, Format::Ui), vec![ui.clone()], "a round trip is exact");
        // And the AI SDK's messages read back to the same UIMessage.
        let back = decode_messages(&model, None).unwrap().messages;
        let mut ui_back = encode_messages(&back, Format::Ui);
        if let Some(o) = ui_back.first_mut().and_then(Value::as_object_mut) {
            o.insert("id".into(), json!("a1"));
        }
        assert_eq!(ui_back, vec![ui], "from the AI SDK's messages");
    }
}

#[test]
fn a_call_at_the_end_that_waits_for_its_approval_is_not_dangling() {
    for tail in [vec![], vec![decides("ap1", true, None)]] {
        let mut h = vec![user("clean up"), asks("c1", "ap1")];
        h.extend(tail);
        for provider in [Provider::Openai, Provider::Anthropic, Provider::Gemini] {
            // Gemini's count of responses owes none for a call waiting for its approval.
            let v: Vec<_> =
                validate_values(&h, provider).unwrap().into_iter().map(|v| (v.rule, v.tool_call_id)).collect();
            assert_eq!(v, vec![(Rule::ApprovalPending, Some("c1".into()))], "{provider:?}");
            let opts = RepairOptions { provider: Some(provider), ..Default::default() };
            let (out, report) = repair_values(&h, &opts).unwrap();
            assert!(report.is_empty(), "{report:?}");
            assert_eq!(out, h, "repair leaves the paused run alone");
        }
    }
}

#[test]
fn a_denied_call_gets_its_denial_as_its_result() {
    for (reason, text) in [(Some("not today"), "not today"), (None, DENIED)] {
        let h = vec![user("clean up"), asks("c1", "ap1"), decides("ap1", false, reason)];
        assert_eq!(rules(&h), vec![(Rule::MissingToolResult, Some("c1".into()))]);
        let (out, report) =
            repair_values(&h, &RepairOptions { provider: Some(Provider::Anthropic), ..Default::default() }).unwrap();
        assert_eq!(report.len(), 1);
        assert_eq!((report[0].tool_call_id.as_deref(), report[0].approval_id.as_deref()), (Some("c1"), Some("ap1")));
        let d = decode_messages(&out, None).unwrap().messages;
        let result = d.iter().find(|m| m.tool_call_id.as_deref() == Some("c1")).unwrap();
        assert_eq!((result.content.text().as_str(), result.status), (text, Some(crate::message::ToolStatus::Error)));
        for provider in [Provider::Openai, Provider::Anthropic] {
            let shapes_ok = crate::repair::validate(&d, provider);
            assert!(shapes_ok.is_empty(), "{provider:?}: {shapes_ok:?}");
        }
    }
}

#[test]
fn a_pending_approval_the_conversation_moved_past_is_answered_by_the_policy() {
    let h = vec![user("clean up"), asks("c1", "ap1"), user("actually, list the files instead")];
    assert_eq!(rules(&h), vec![(Rule::MissingToolResult, Some("c1".into()))]);
    let text_of = |policy| {
        let (out, report) =
            repair_values(&h, &RepairOptions { on_pending_approval: policy, ..Default::default() }).unwrap();
        assert_eq!(report[0].approval_id.as_deref(), Some("ap1"));
        let d = decode_messages(&out, None).unwrap().messages;
        assert!(crate::repair::validate(&d, Provider::Openai).is_empty());
        d.iter().find(|m| m.tool_call_id.as_deref() == Some("c1")).unwrap().content.text()
    };
    let interrupted = text_of(OnPendingApproval::Interrupt);
    assert!(interrupted.contains("c1") && interrupted.contains("approval (ap1) was not given"), "{interrupted}");
    assert!(crate::message::is_placeholder(&interrupted, "c1"), "recognised as a repair's placeholder");
    assert_eq!(text_of(OnPendingApproval::Deny), DENIED);
    let e = repair_values(&h, &RepairOptions { on_pending_approval: OnPendingApproval::Error, ..Default::default() })
        .unwrap_err();
    assert_eq!((e.code, e.index), (ErrorCode::ApprovalPending, Some(1)));
    assert!(e.message.contains("ap1"), "{}", e.message);
    let opts: RepairOptions = serde_json::from_value(json!({"onPendingApproval": "deny"})).unwrap();
    assert_eq!(opts.on_pending_approval, OnPendingApproval::Deny);
    assert!(serde_json::from_value::<RepairOptions>(json!({"onPendingApproval": "ask"})).is_err());
}

fn store_with(messages: Vec<Value>) -> crate::state::Store {
    let mut store = crate::state::Store::new(crate::state::StoreOptions::default()).unwrap();
    store.apply(&cmd(messages), 0).unwrap();
    store
}

fn cmd(messages: Vec<Value>) -> crate::state::Command {
    crate::state::Command {
        author: "a".into(),
        expected_version: None,
        update: json!({"messages": messages}).as_object().cloned().unwrap(),
        correlation_id: None,
        causation_id: None,
    }
}

#[test]
fn the_store_takes_decisions_in_order_and_refuses_what_no_approval_allows() {
    let result = |status: &str| {
        let output = json!({"type": status, "value": "done"});
        json!({"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c1", "toolName": "del", "output": output}]})
    };
    let refused = |store: &mut crate::state::Store, messages: Vec<Value>| {
        let version = store.version();
        let before = store.messages("messages").unwrap().messages().len();
        let e = store.apply(&cmd(messages), 0).unwrap_err();
        assert_eq!(
            (store.version(), store.messages("messages").unwrap().messages().len()),
            (version, before),
            "unchanged"
        );
        e.code
    };
    let mut s = store_with(vec![user("clean up"), asks("c1", "ap1")]);
    assert_eq!(refused(&mut s, vec![result("text")]), ErrorCode::ApprovalPending);
    assert_eq!(refused(&mut s, vec![decides("ap9", true, None)]), ErrorCode::UnknownToolCall);
    s.apply(&cmd(vec![decides("ap1", false, None)]), 0).unwrap();
    assert_eq!(refused(&mut s, vec![decides("ap1", true, None)]), ErrorCode::InvalidTransition);
    assert_eq!(refused(&mut s, vec![result("text")]), ErrorCode::ApprovalRejected);
    s.apply(&cmd(vec![result("error-text")]), 0).unwrap();
    assert!(s.messages("messages").unwrap().unanswered().is_empty());

    let mut s = store_with(vec![user("clean up"), asks("c1", "ap1"), decides("ap1", true, None)]);
    s.apply(&cmd(vec![result("text")]), 0).unwrap();
    let held: Vec<Message> = s.messages("messages").unwrap().messages().iter().map(|m| (**m).clone()).collect();
    let ai = encode_messages(&held, Format::AiSdk);
    assert_eq!(ai.len(), 3, "the decision and the result share one tool message: {ai:?}");
}

#[test]
fn the_approvals_channel_is_fed_from_the_messages_and_the_run_waits_for_it() {
    let mut s = store_with(vec![user("clean up")]);
    let run = |s: &crate::state::Store| s.get("run").unwrap()["status"].clone();
    s.apply(
        &crate::state::Command {
            author: "app".into(),
            expected_version: None,
            update: json!({"run": {"status": "running"}}).as_object().cloned().unwrap(),
            correlation_id: None,
            causation_id: None,
        },
        0,
    )
    .unwrap();
    s.apply(&cmd(vec![asks("c1", "ap1")]), 5).unwrap();
    assert_eq!(s.get("approvals").unwrap(), json!({"ap1": {"tool_call_id": "c1", "status": "pending"}}));
    assert_eq!(run(&s), json!("waiting_approval"), "a running run waits for the approval its messages ask for");
    let decide = |approved, reason: Option<&str>| crate::state::Decide {
        approval_id: "ap1".into(),
        approved,
        reason: reason.map(str::to_string),
        author: "alice".into(),
        expected_version: None,
    };
    let version = s.version();
    assert_eq!(
        s.decide(&crate::state::Decide { approval_id: "ap9".into(), ..decide(true, None) }, 9).unwrap_err().code,
        ErrorCode::UnknownToolCall
    );
    assert_eq!(s.version(), version, "a refused decision changes nothing");
    assert_eq!(s.get("approvals").unwrap()["ap1"]["status"], json!("pending"));
    s.decide(&decide(false, Some("not today")), 9).unwrap();
    assert_eq!(
        s.get("approvals").unwrap(),
        json!({"ap1": {"tool_call_id": "c1", "status": "rejected", "reason": "not today", "decided_by": "alice", "decided_at": 9}})
    );
    assert_eq!(run(&s), json!("running"), "and runs again once the last is decided");
    assert_eq!(s.decide(&decide(true, None), 10).unwrap_err().code, ErrorCode::InvalidTransition);
    // Replayed from its log, the store derives the same approvals and run.
    let replayed = crate::state::Store::replay(crate::state::StoreOptions::default(), &s.events().to_vec()).unwrap();
    assert_eq!((replayed.get("approvals").unwrap(), run(&replayed)), (s.get("approvals").unwrap(), run(&s)));
    // The decision is a message, so the AI SDK sees it.
    let held: Vec<Message> = s.messages("messages").unwrap().messages().iter().map(|m| (**m).clone()).collect();
    let ai = encode_messages(&held, Format::AiSdk);
    assert_eq!(
        ai.last().unwrap()["content"][0],
        json!({"type": "tool-approval-response", "approvalId": "ap1", "approved": false, "reason": "not today"})
    );

    // A request and its decision in one command (a UIMessage in approval-responded): both fed.
    let mut s = store_with(vec![user("clean up")]);
    s.apply(&cmd(vec![asks("c1", "ap1"), decides("ap1", true, None)]), 3).unwrap();
    assert_eq!(s.get("approvals").unwrap()["ap1"]["status"], json!("approved"));
    assert_eq!(run(&s), json!("created"), "a run not running is left as it is");
}
