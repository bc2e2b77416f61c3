//! Native tests of the store: the issue's cases, reducers through the pipeline, rollback.

use super::*;
use crate::error::ErrorCode;
use serde_json::{json, Value};

pub(super) fn store() -> Store {
    Store::new(StoreOptions::default()).unwrap()
}

/// Everything a caller can observe: version, every channel (private too), the log.
pub(super) fn snapshot(s: &mut Store) -> String {
    let private: Vec<Value> = s.keys_for_tests().iter().map(|k| Value::Object(s.private_view(k).unwrap())).collect();
    serde_json::to_string(&json!({
        "version": s.version(),
        "system": s.system_view(),
        "private": private,
        "events": s.events(),
    }))
    .unwrap()
}

pub(super) fn ai_calls(id: &str, calls: &[&str]) -> Value {
    let tc: Vec<Value> = calls
        .iter()
        .map(|c| json!({"id": c, "type": "function", "function": {"name": "t", "arguments": "{}"}}))
        .collect();
    json!({"id": id, "role": "assistant", "content": null, "tool_calls": tc})
}

pub(super) fn result(call: &str) -> Value {
    json!({"role": "tool", "tool_call_id": call, "content": "ok"})
}

fn ids(s: &Store) -> Vec<String> {
    s.messages("messages").unwrap().messages().iter().map(|m| m.id.clone().unwrap()).collect()
}

#[test]
fn three_parallel_calls_merge_and_answer_in_one_superstep() {
    let mut s =
        Store::new(StoreOptions { channels: vec![ChannelSpec::new("flags", Reducer::Merge)], ..Default::default() })
            .unwrap();
    s.apply(
        &cmd("model", json!({"messages": [{"role": "user", "content": "go"}, ai_calls("a1", &["c1", "c2", "c3"])]})),
        0,
    )
    .unwrap();
    let batch: Vec<Command> = [("c1", "a"), ("c2", "b"), ("c3", "c")]
        .iter()
        .map(|(c, k)| cmd(&format!("tool:{c}"), json!({"flags": {*k: true}, "messages": [result(c)]})))
        .collect();
    let out = s.apply_batch(&batch, 0).unwrap();
    assert_eq!(out.version, 4);
    assert_eq!(s.get("flags").unwrap(), json!({"a": true, "b": true, "c": true}));
    let msgs = s.messages("messages").unwrap().messages();
    assert_eq!(msgs.len(), 5);
    assert_eq!(msgs.iter().filter_map(|m| m.tool_call_id.as_deref()).collect::<Vec<_>>(), vec!["c1", "c2", "c3"]);
    assert_eq!(out.ids, vec![vec!["run:2:0".to_string()], vec!["run:3:0".to_string()], vec!["run:4:0".to_string()]]);
}

#[test]
fn two_writes_to_a_replace_channel_conflict_naming_both() {
    let mut s =
        Store::new(StoreOptions { channels: vec![ChannelSpec::new("answer", Reducer::Replace)], ..Default::default() })
            .unwrap();
    let before = snapshot(&mut s);
    let e = s.apply_batch(&[cmd("alice", json!({"answer": 1})), cmd("bob", json!({"answer": 2}))], 0).unwrap_err();
    assert_eq!(e.code, ErrorCode::ConcurrentWrite);
    assert_eq!(e.authors, vec!["alice".to_string(), "bob".to_string()]);
    assert!(e.message.contains("'alice'") && e.message.contains("'bob'"), "{}", e.message);
    assert_eq!(e.command, Some(1));
    assert_eq!(snapshot(&mut s), before);
}

#[test]
fn files_at_different_paths_merge_same_path_conflicts() {
    let mut s = store();
    s.apply_batch(
        &[
            cmd("w1", json!({"files": {"/a.txt": {"content": ["a"]}}})),
            cmd("w2", json!({"files": {"/b.txt": {"content": ["b"]}}})),
        ],
        0,
    )
    .unwrap();
    assert_eq!(s.get("files").unwrap(), json!({"/a.txt": {"content": ["a"]}, "/b.txt": {"content": ["b"]}}));
    let before = snapshot(&mut s);
    let e = s
        .apply_batch(
            &[
                cmd("w1", json!({"files": {"/a.txt": {"content": ["x"]}}})),
                cmd("w2", json!({"files": {"/a.txt": {"content": ["y"]}}})),
            ],
            0,
        )
        .unwrap_err();
    assert_eq!((e.code, e.field.as_deref()), (ErrorCode::ConcurrentWrite, Some("/a.txt")));
    assert_eq!(snapshot(&mut s), before);
    // facts declare callOrder: the later call wins.
    s.apply_batch(&[cmd("w1", json!({"facts": {"k": 1}})), cmd("w2", json!({"facts": {"k": 2}}))], 0).unwrap();
    assert_eq!(s.get("facts").unwrap(), json!({"k": 2}));
}

#[test]
fn ids_are_assigned_at_intake_and_unknown_updates_are_refused() {
    let mut s = Store::new(StoreOptions { run_id: Some("r7".into()), ..Default::default() }).unwrap();
    let out = s.apply(&cmd("user", json!({"messages": {"role": "user", "content": "hi"}})), 0).unwrap();
    assert_eq!(out.ids, vec!["r7:1:0"]);
    assert_eq!(s.get("messages").unwrap()[0]["id"], "r7:1:0");
    let before = snapshot(&mut s);
    for update in [json!({"replace": {"id": "nope", "role": "user", "content": "x"}}), json!({"remove": "nope"})] {
        let e = s.apply(&cmd("user", json!({"messages": [update]})), 0).unwrap_err();
        assert_eq!(e.code, ErrorCode::UnknownMessageId);
        assert_eq!(snapshot(&mut s), before);
    }
    // Same id replaces in place; explicit replace works on an existing id.
    s.apply(&cmd("user", json!({"messages": [{"id": "r7:1:0", "role": "user", "content": "hello"}]})), 0).unwrap();
    s.apply(&cmd("user", json!({"messages": [{"replace": {"id": "r7:1:0", "role": "user", "content": "hey"}}]})), 0)
        .unwrap();
    let msgs = s.get("messages").unwrap();
    assert_eq!(
        (msgs.as_array().unwrap().len(), &msgs[0]["id"], &msgs[0]["content"]),
        (1, &json!("r7:1:0"), &json!("hey"))
    );
}

#[test]
fn add_messages_cases_from_langgraph() {
    let mut s = store();
    let h = |id: &str, c: &str| json!({"type": "human", "id": id, "content": c});
    let a = |id: &str, c: &str| json!({"type": "ai", "id": id, "content": c});
    s.apply(&cmd("u", json!({"messages": [h("1", "Hello"), a("2", "Hi")]})), 0).unwrap();
    // test_mixed_operations: [H1, AI2] + [H1 "Updated hello", Remove2, S3] → [H1 updated, S3]
    s.apply(&cmd("u", json!({"messages": [h("1", "Updated hello"), {"remove": "2"}, {"type": "system", "id": "3", "content": "S"}]})), 0).unwrap();
    assert_eq!(ids(&s), vec!["1", "3"]);
    // test_duplicates_in_input_with_remove: remove then re-add the same id → replaced in place.
    s.apply(&cmd("u", json!({"messages": [{"remove": "1"}, h("1", "again"), h("1", "again!")]})), 0).unwrap();
    assert_eq!(ids(&s), vec!["1", "3"]);
    assert_eq!(s.get("messages").unwrap()[0]["content"], "again!");
    // remove all: LangChain's sentinel and our op.
    s.apply(&cmd("u", json!({"messages": [h("4", "x"), {"type": "remove", "id": "__remove_all__"}, h("5", "y")]})), 0)
        .unwrap();
    assert_eq!(ids(&s), vec!["5"]);
    s.apply(&cmd("u", json!({"messages": [{"removeAll": true}]})), 0).unwrap();
    assert!(ids(&s).is_empty());
}

#[test]
fn version_lock_lets_only_the_first_writer_in() {
    let mut s = store();
    let mut first = cmd("alice", json!({"facts": {"owner": "alice"}}));
    first.expected_version = Some(0);
    let mut second = cmd("bob", json!({"facts": {"owner": "bob"}}));
    second.expected_version = Some(0);
    s.apply(&first, 0).unwrap();
    let before = snapshot(&mut s);
    let e = s.apply(&second, 0).unwrap_err();
    assert_eq!(e.code, ErrorCode::VersionConflict);
    assert_eq!(snapshot(&mut s), before);
    assert_eq!(s.get("facts").unwrap(), json!({"owner": "alice"}));
}

#[test]
fn tool_result_invariants() {
    let mut s = store();
    s.apply(&cmd("m", json!({"messages": [ai_calls("a1", &["c1"])]})), 0).unwrap();
    assert_eq!(
        s.apply(&cmd("t", json!({"messages": [result("zz")]})), 0).unwrap_err().code,
        ErrorCode::UnknownToolCall
    );
    let r = s.apply(&cmd("t", json!({"messages": [result("c1")]})), 0).unwrap();
    let e = s.apply(&cmd("t", json!({"messages": [result("c1")]})), 0).unwrap_err();
    assert_eq!(e.code, ErrorCode::AlreadyAnswered);
    // Replacing the result by its id is allowed.
    let mut again = result("c1");
    again["id"] = json!(r.ids[0]);
    again["content"] = json!("better");
    s.apply(&cmd("t", json!({"messages": [again]})), 0).unwrap();
    assert_eq!(s.get("messages").unwrap()[1]["content"], "better");
}

#[test]
fn run_machine_terminal_runs_and_approvals() {
    let mut s = store();
    assert_eq!(
        s.apply(&cmd("app", json!({"run": {"status": "completed"}})), 0).unwrap_err().code,
        ErrorCode::InvalidTransition
    );
    s.apply(&cmd("app", json!({"run": {"status": "running"}, "messages": [ai_calls("a1", &["c1", "c2"])]})), 0)
        .unwrap();
    s.apply(&cmd("hitl", json!({"approvals": {"ap1": {"tool_call_id": "c1", "status": "pending"}}, "run": {"status": "waiting_approval"}})), 0).unwrap();
    assert_eq!(s.events().last().unwrap().kind, crate::log::EventType::ApprovalRequest);
    // A result for a call whose approval is pending is refused; so is leaving waiting_approval.
    assert_eq!(
        s.apply(&cmd("t", json!({"messages": [result("c1")]})), 0).unwrap_err().code,
        ErrorCode::ApprovalPending
    );
    let e = s.apply(&cmd("app", json!({"run": {"status": "running"}})), 0).unwrap_err();
    assert_eq!((e.code, e.channel.as_deref()), (ErrorCode::InvalidTransition, Some("run")));
    // Decided in the same command → allowed.
    s.apply(&cmd("hitl", json!({"approvals": {"ap1": {"status": "rejected"}}, "run": {"status": "running"}})), 0)
        .unwrap();
    assert_eq!(
        s.apply(&cmd("t", json!({"messages": [result("c1")]})), 0).unwrap_err().code,
        ErrorCode::ApprovalRejected
    );
    s.apply(
        &cmd(
            "t",
            json!({"messages": [{"type": "tool", "tool_call_id": "c1", "content": "rejected", "status": "error"}]}),
        ),
        0,
    )
    .unwrap();
    assert_eq!(
        s.apply(&cmd("hitl", json!({"approvals": {"ap1": {"status": "approved"}}})), 0).unwrap_err().code,
        ErrorCode::InvalidTransition
    );
    s.apply(&cmd("app", json!({"run": {"status": "completed"}})), 0).unwrap();
    let before = snapshot(&mut s);
    let e = s.apply(&cmd("t", json!({"messages": [result("c2")]})), 0).unwrap_err();
    assert_eq!(e.code, ErrorCode::RunEnded);
    assert_eq!(snapshot(&mut s), before);
    // The user may still write (e.g. a follow-up the app turns into a new run).
    s.apply(&cmd("u", json!({"messages": [{"role": "user", "content": "thanks"}]})), 0).unwrap();
}

#[test]
fn plan_dependencies_and_cycles() {
    let mut s = store();
    s.apply(
        &cmd("planner", json!({"plan": {"s1": {"title": "read"}, "s2": {"title": "write", "depends_on": ["s1"]}}})),
        0,
    )
    .unwrap();
    assert_eq!(s.get("plan").unwrap()["s2"]["status"], "pending");
    let e = s.apply(&cmd("planner", json!({"plan": {"s3": {"title": "x", "depends_on": ["nope"]}}})), 0).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidPlan);
    let e = s.apply(&cmd("planner", json!({"plan": {"s1": {"depends_on": ["s2"]}}})), 0).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidPlan);
    assert!(e.message.contains("cycle"));
    let e = s.apply(&cmd("planner", json!({"plan": {"s2": {"status": "running"}}})), 0).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidTransition);
    s.apply(&cmd("planner", json!({"plan": {"s1": {"status": "running"}}})), 0).unwrap();
    s.apply(&cmd("planner", json!({"plan": {"s1": {"status": "succeeded"}}})), 0).unwrap();
    s.apply(&cmd("planner", json!({"plan": {"s2": {"status": "running"}}})), 0).unwrap();
    assert_eq!(
        s.apply(&cmd("planner", json!({"plan": {"s1": {"status": "pending"}}})), 0).unwrap_err().code,
        ErrorCode::InvalidTransition
    );
}

#[test]
fn private_channels_are_invisible_outside_their_owner() {
    let mut s = store();
    let mut spec = ChannelSpec::new("memory_contents", Reducer::Merge);
    spec.visibility = Visibility::Private;
    spec.owner = Some("memory".into());
    let key = s.register_channel(spec, None, || "k-123".into()).unwrap().unwrap();
    let canary = "CANARY-7f3a9b1c";
    s.apply(&cmd("memory", json!({"memory_contents": {"AGENTS.md": canary}})), 0).unwrap();
    assert_eq!(s.private_view(&key).unwrap()["memory_contents"], json!({"AGENTS.md": canary}));
    assert!(!serde_json::to_string(&s.system_view()).unwrap().contains(canary));
    let e = s.get("memory_contents").unwrap_err();
    assert_eq!(e.code, ErrorCode::PrivateChannel);
    let e = s.apply(&cmd("someone", json!({"memory_contents": {"x": canary}})), 0).unwrap_err();
    assert_eq!(e.code, ErrorCode::NotOwner);
    assert!(!format!("{e:?}").contains(canary));
    let mut typed = ChannelSpec::new("secret_n", Reducer::Replace);
    typed.visibility = Visibility::Private;
    typed.owner = Some("memory".into());
    typed.value_type = ValueType::Integer;
    assert_eq!(s.register_channel(typed.clone(), None, || "other".into()).unwrap_err().code, ErrorCode::NotOwner);
    s.register_channel(typed, Some(&key), || unreachable!()).unwrap();
    let e = s.apply(&cmd("memory", json!({"secret_n": canary})), 0).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidUpdate);
    assert!(!format!("{e:?}").contains(canary));
    assert_eq!(s.private_view("wrong").unwrap_err().code, ErrorCode::NotOwner);
}

#[test]
fn writers_and_unknown_channels() {
    let mut spec = ChannelSpec::new("notes", Reducer::Append);
    spec.writers = Some(vec!["scribe".into()]);
    let mut s = Store::new(StoreOptions { channels: vec![spec], ..Default::default() }).unwrap();
    assert_eq!(s.apply(&cmd("intruder", json!({"notes": ["x"]})), 0).unwrap_err().code, ErrorCode::NotAuthorized);
    s.apply(&cmd("scribe", json!({"notes": ["x"]})), 0).unwrap();
    assert_eq!(s.apply(&cmd("scribe", json!({"nope": 1})), 0).unwrap_err().code, ErrorCode::UnknownChannel);
    assert_eq!(
        Store::new(StoreOptions { channels: vec![ChannelSpec::new("todos", Reducer::Replace)], ..Default::default() })
            .unwrap_err()
            .code,
        ErrorCode::ChannelExists
    );
}

#[test]
fn a_failure_late_in_a_batch_restores_everything() {
    let mut s = store();
    s.apply(&cmd("m", json!({"messages": [{"role": "user", "content": "hi"}, ai_calls("a1", &["c1", "c2"])], "todos": [{"content": "x", "status": "pending"}]})), 0).unwrap();
    let before = snapshot(&mut s);
    let batch = [
        cmd("t1", json!({"messages": [result("c1")], "files": {"/a": "1"}, "facts": {"k": 1}})),
        cmd("t2", json!({"messages": [{"remove": "run:1:0"}]})),
        cmd("t3", json!({"todos": [{"content": "y", "status": "done"}]})),
    ];
    let e = s.apply_batch(&batch, 0).unwrap_err();
    assert_eq!((e.code, e.command), (ErrorCode::InvalidUpdate, Some(2)));
    assert_eq!(snapshot(&mut s), before);
    // Still usable, and equal to a twin that never saw the failure.
    let mut twin = store();
    twin.apply(&cmd("m", json!({"messages": [{"role": "user", "content": "hi"}, ai_calls("a1", &["c1", "c2"])], "todos": [{"content": "x", "status": "pending"}]})), 0).unwrap();
    for st in [&mut s, &mut twin] {
        st.apply(&cmd("t1", json!({"messages": [result("c1")]})), 0).unwrap();
    }
    assert_eq!(snapshot(&mut s), snapshot(&mut twin));
}

#[test]
fn repair_places_synthetic_results_after_their_calls() {
    let mut s = store();
    s.apply(&cmd("m", json!({"messages": [{"role": "user", "content": "q"}, ai_calls("a1", &["c1", "c2"])]})), 0)
        .unwrap();
    s.apply(&cmd("t", json!({"messages": [{"role": "user", "content": "interrupt!"}]})), 0).unwrap();
    s.apply(&cmd("t", json!({"messages": [result("c2")]})), 0).unwrap();
    let mut opts = crate::repair::RepairOptions::default();
    opts.reasons.insert("c1".into(), crate::repair::Reason::Interrupted);
    let out = s.repair(&opts, "repair", 5).unwrap();
    assert_eq!(out.version, 4);
    assert_eq!(out.ids, vec!["run:4:0"]);
    let msgs = s.get("messages").unwrap();
    let roles: Vec<(&str, &str)> = msgs
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["role"].as_str().unwrap(), m.get("tool_call_id").or(m.get("id")).and_then(Value::as_str).unwrap()))
        .collect();
    assert_eq!(
        roles,
        vec![("user", "run:1:0"), ("assistant", "a1"), ("tool", "c1"), ("tool", "c2"), ("user", "run:2:0")]
    );
    assert!(msgs[2]["content"].as_str().unwrap().contains("interrupted"));
    assert_eq!(msgs[2]["status"], "error");
    let held: Vec<crate::message::Message> =
        s.messages("messages").unwrap().messages().iter().map(|m| (**m).clone()).collect();
    assert!(crate::repair::validate(&held, crate::repair::Provider::Anthropic).is_empty());
    // Nothing left to repair: no command.
    assert_eq!(s.repair(&opts, "repair", 6).unwrap(), Repaired { version: 4, report: vec![], ids: vec![] });
    assert_eq!(s.events().len(), 4);
}

#[test]
fn repair_answers_calls_whose_id_a_later_turn_repeats() {
    // Ids repeat across turns (tau-bench): each dangling `same` gets its own result, as
    // repair_values gives them (a fresh-eyes round found ALREADY_ANSWERED here); with a result
    // for the later call already held, the earlier one is answered too.
    for tail in [vec![], vec![result("same")]] {
        let mut history =
            vec![ai_calls("a1", &["same"]), json!({"role": "user", "content": "again"}), ai_calls("a2", &["same"])];
        history.extend(tail);
        let mut s = store();
        s.apply(&cmd("m", json!({ "messages": history })), 0).unwrap();
        let out = s.repair(&crate::repair::RepairOptions::default(), "repair", 1).unwrap();
        let (_, want) = crate::repair::repair_values(&history, &crate::repair::RepairOptions::default()).unwrap();
        assert_eq!(out.report, want);
        let held: Vec<crate::message::Message> =
            s.messages("messages").unwrap().messages().iter().map(|m| (**m).clone()).collect();
        let roles: Vec<_> = held.iter().map(|m| m.role).collect();
        use crate::message::Role;
        assert_eq!(&roles[..4], [Role::Assistant, Role::Tool, Role::User, Role::Assistant]);
        assert!(crate::repair::validate(&held, crate::repair::Provider::Openai).is_empty());
        assert!(s.repair(&crate::repair::RepairOptions::default(), "repair", 2).unwrap().report.is_empty());
    }
}

#[test]
fn a_repair_needs_an_author_as_a_command_does() {
    let mut s = store();
    s.apply(&cmd("m", json!({"messages": [ai_calls("a1", &["c1"])]})), 0).unwrap();
    let before = snapshot(&mut s);
    let e = s.repair(&crate::repair::RepairOptions::default(), "", 1).unwrap_err();
    assert_eq!((e.code, e.field.as_deref()), (ErrorCode::InvalidUpdate, Some("author")));
    assert_eq!(snapshot(&mut s), before);
}

#[test]
fn events_record_types_ids_and_correlation() {
    let mut s = store();
    let mut c = cmd("m", json!({"messages": [ai_calls("a1", &["c1"])]}));
    c.correlation_id = Some("turn-1".into());
    s.apply(&c, 42).unwrap();
    let mut c = cmd("t", json!({"messages": [result("c1")]}));
    c.correlation_id = Some("c1".into());
    c.causation_id = Some("1".into());
    s.apply(&c, 43).unwrap();
    let ev = serde_json::to_value(s.events()).unwrap();
    assert_eq!(ev[0]["type"], "tool_call");
    assert_eq!(ev[0]["created_at"], 42);
    assert_eq!(ev[1]["type"], "tool_result");
    assert_eq!(ev[1]["payload"]["messages"][0]["id"], "run:2:0");
    assert_eq!((ev[1]["correlation_id"].as_str(), ev[1]["causation_id"].as_str()), (Some("c1"), Some("1")));
}

#[test]
fn message_operations_cannot_break_call_result_pairs() {
    let mut s = store();
    s.apply(&cmd("m", json!({"messages": [{"id": "u1", "role": "user", "content": "q"}, ai_calls("a1", &["c1"])]})), 0)
        .unwrap();
    let before = snapshot(&mut s);
    let e = s.apply(&cmd("m", json!({"messages": [ai_calls("a2", &["d", "d"])]})), 0).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidToolCall);
    let e = s.apply(&cmd("t", json!({"messages": [{"insertAfter": "u1", "message": {"id": "r1", "role": "tool", "tool_call_id": "c1", "content": "x"}}]})), 0).unwrap_err();
    assert_eq!(e.code, ErrorCode::UnknownToolCall);
    assert_eq!(snapshot(&mut s), before);
    s.apply(&cmd("t", json!({"messages": [{"id": "r1", "role": "tool", "tool_call_id": "c1", "content": "x"}]})), 0)
        .unwrap();
    let before = snapshot(&mut s);
    assert_eq!(
        s.apply(&cmd("m", json!({"messages": [{"remove": "a1"}]})), 0).unwrap_err().code,
        ErrorCode::UnknownToolCall
    );
    assert_eq!(
        s.apply(
            &cmd("m", json!({"messages": [{"replace": {"id": "a1", "role": "assistant", "content": "no calls"}}]})),
            0
        )
        .unwrap_err()
        .code,
        ErrorCode::UnknownToolCall
    );
    assert_eq!(snapshot(&mut s), before);
    // Removing the call with its result is fine.
    s.apply(&cmd("m", json!({"messages": [{"remove": "a1"}, {"remove": "r1"}]})), 0).unwrap();
    assert_eq!(ids(&s), vec!["u1"]);
}

#[test]
fn plan_steps_are_born_pending() {
    let mut s = store();
    let e = s.apply(&cmd("p", json!({"plan": {"s1": {"title": "x", "status": "succeeded"}}})), 0).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidTransition);
    s.apply(&cmd("p", json!({"plan": {"s1": {"title": "x"}, "s2": {"title": "y", "status": "running"}}})), 0).unwrap();
    let e = s.apply(&cmd("p", json!({"plan": {"s2": {"depends_on": ["s1"]}}})), 0).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidTransition);
}

#[test]
fn repair_works_on_an_ended_run_and_private_errors_say_nothing() {
    let mut s = store();
    s.apply(&cmd("app", json!({"run": {"status": "running"}, "budget": {"limits": {"deadline_ms": 10}}})), 0).unwrap();
    s.apply(&cmd("m", json!({"messages": [ai_calls("a1", &["c1"])]})), 5).unwrap();
    s.apply(&cmd("hitl", json!({"approvals": {"ap": {"tool_call_id": "c1", "status": "pending"}}})), 6).unwrap();
    s.apply(&cmd("app", json!({"run": {"status": "cancelled"}})), 7).unwrap();
    let out = s.repair(&crate::repair::RepairOptions::default(), "repair", 100).unwrap();
    assert_eq!(out.report.len(), 1);
    assert!(s.events().last().unwrap().system);
    // The repair event replays (it is marked as the store's own).
    let replayed = Store::replay(StoreOptions::default(), &s.events()).unwrap();
    assert_eq!(replayed.system_view(), s.system_view());

    let mut spec = ChannelSpec::new("pmsgs", Reducer::Messages);
    spec.visibility = Visibility::Private;
    spec.owner = Some("mem".into());
    s.register_channel(spec, None, || "k".into()).unwrap();
    for update in [
        json!({"pmsgs": [{"role": "CANARY-ROLE-xyz", "content": "x"}]}),
        json!({"pmsgs": [{"remove": "CANARY-ID-xyz"}]}),
        json!({"pmsgs": [{"role": "tool", "tool_call_id": "CANARY-CALL-xyz", "content": "x"}]}),
    ] {
        let e = s.apply(&cmd("mem", update), 0).unwrap_err();
        assert_eq!(e.channel.as_deref(), Some("pmsgs"));
        assert!(!format!("{e:?}").contains("CANARY"), "{e:?}");
    }
}

/// A sink that keeps what it saw, or fails every write.
#[derive(Default)]
struct Collect {
    events: std::cell::RefCell<Vec<crate::log::Event>>,
    fail: bool,
}

impl super::EventSink for Collect {
    fn write(&self, events: &super::Events<'_>) -> crate::error::Result<()> {
        if self.fail {
            return Err(crate::Error::new(ErrorCode::StorageError, "disk full"));
        }
        // The JSON the store writes for the sink is the JSON of the events it hands out.
        let made = events.to_vec();
        let json = events.to_json().unwrap();
        assert_eq!(json, serde_json::to_string(&made).unwrap());
        assert_eq!(serde_json::from_str::<Vec<crate::log::Event>>(&json).unwrap(), made);
        self.events.borrow_mut().extend(made);
        Ok(())
    }
}

#[test]
fn a_failing_sink_rolls_the_command_back() {
    let mut s = store();
    s.apply(&cmd("u", json!({"messages": [{"role": "user", "content": "first"}]})), 0).unwrap();
    s.set_sink(Some(std::rc::Rc::new(Collect { fail: true, ..Default::default() })));
    let before = snapshot(&mut s);
    let e = s.apply(&cmd("u", json!({"messages": [{"role": "user", "content": "hi"}]})), 0).unwrap_err();
    assert_eq!(e.code, ErrorCode::StorageError);
    assert_eq!(snapshot(&mut s), before);
    // A compaction is a change like any other: refused with the sink, nothing kept.
    let cut = s.compaction_plan(1).unwrap();
    assert_eq!(s.compact("summary", cut, "summariser", 0).unwrap_err().code, ErrorCode::StorageError);
    assert_eq!(snapshot(&mut s), before);
}

#[test]
fn every_change_goes_through_the_sink_and_replays() {
    // Issue 14: compact() bypassed the write-ahead sink. Every mutating method of the core, in
    // turn; the sink must see every event, and replaying what it saw must equal the store.
    let sink = std::rc::Rc::new(Collect::default());
    let mut s = store();
    s.set_sink(Some(sink.clone()));
    for k in 0..9 {
        s.apply(&cmd("u", json!({"messages": [{"role": if k % 2 == 0 { "user" } else { "assistant" }, "content": format!("m{k}")}]})), 0).unwrap();
    }
    s.apply_batch(
        &[cmd("a", json!({"todos": [{"content": "x", "status": "pending"}]})), cmd("b", json!({"facts": {"k": 1}}))],
        0,
    )
    .unwrap();
    s.apply(&cmd("m", json!({"messages": [ai_calls("a9", &["c1"])]})), 0).unwrap();
    s.repair(&Default::default(), "repair", 0).unwrap();
    let cut = s.compaction_plan(3).unwrap();
    s.compact("what happened", cut, "summariser", 0).unwrap();
    s.check(&cmd("u", json!({"messages": [{"role": "user", "content": "not kept"}]})), 0).unwrap();
    let seen = sink.events.borrow().clone();
    assert_eq!(seen.len() as u64, s.version());
    assert_eq!(seen.as_slice(), s.events());
    let mut again = Store::replay(Default::default(), &seen).unwrap();
    assert_eq!(snapshot(&mut again), snapshot(&mut s));
}

#[test]
fn replacing_a_result_with_another_role_reopens_its_call() {
    // Found by the property test: the call index went stale after such a replace, and a later
    // rollback (which rebuilds the index) made the store diverge from a twin.
    let mut s = store();
    s.apply(&cmd("m", json!({"messages": [ai_calls("a1", &["c1"])]})), 0).unwrap();
    s.apply(&cmd("t", json!({"messages": [{"id": "r1", "role": "tool", "tool_call_id": "c1", "content": "x"}]})), 0)
        .unwrap();
    s.apply(&cmd("u", json!({"messages": [{"replace": {"id": "r1", "role": "user", "content": "edited"}}]})), 0)
        .unwrap();
    assert_eq!(s.dangling_tool_calls().len(), 1);
    s.apply(&cmd("t", json!({"messages": [result("c1")]})), 0).unwrap();
    assert!(s.dangling_tool_calls().is_empty());
}

#[test]
fn store_repair_options_refuse_a_misspelt_option() {
    use crate::state::StoreRepairOptions;
    let ok: StoreRepairOptions =
        serde_json::from_value(json!({"author": "fixer", "keepOrphans": true, "provider": "anthropic"})).unwrap();
    assert_eq!(ok.author.as_deref(), Some("fixer"));
    assert!(ok.repair.keep_orphans);
    for bad in [json!({"keep_orphans": true}), json!({"author": "a", "reason": {}}), json!({"providers": "openai"})] {
        let e = serde_json::from_value::<StoreRepairOptions>(bad.clone()).unwrap_err().to_string();
        assert!(e.contains("unknown field"), "{bad}: {e}");
    }
    let e = serde_json::from_value::<crate::repair::RepairOptions>(json!({"author": "a"})).unwrap_err().to_string();
    assert!(e.contains("unknown field `author`"), "{e}");
}

#[test]
fn a_run_id_is_bounded_at_intake_and_a_longer_logged_one_still_replays() {
    for bad in [String::new(), "r".repeat(MAX_RUN_ID_CHARS + 1)] {
        let e = Store::new(StoreOptions { run_id: Some(bad), ..Default::default() }).unwrap_err();
        assert_eq!((e.code, e.field.as_deref()), (ErrorCode::InvalidOption, Some("runId")));
    }
    let ok = Store::new(StoreOptions { run_id: Some("é".repeat(MAX_RUN_ID_CHARS)), ..Default::default() });
    assert!(ok.is_ok());
    // A log written before the bound (or by a subagent of a long run id) is still read.
    let long = "r".repeat(MAX_RUN_ID_CHARS + 10);
    let mut s = Store::of(StoreOptions { run_id: Some(long.clone()), ..Default::default() }).unwrap();
    let c = Command {
        author: "user".into(),
        expected_version: None,
        update: json!({"messages": [{"role": "user", "content": "hi"}]}).as_object().cloned().unwrap(),
        correlation_id: None,
        causation_id: None,
    };
    s.apply(&c, 1).unwrap();
    let mut replayed = Store::replay(StoreOptions::default(), &s.events()).unwrap();
    assert_eq!(replayed.last_hash(), s.last_hash());
    assert_eq!(replayed.run_id(), long);
    let restored = Store::restore(&s.checkpoint(), &[], Vec::new(), None).unwrap();
    assert_eq!(restored.run_id(), long);
}

/// Event ids and generated message ids read as `format!("{base}:{n}")` would write them.
#[test]
fn numbered_ids_are_base_colon_decimal() {
    for n in [0u64, 1, 9, 10, 99, 100, 1_234_567, 9_007_199_254_740_991, u64::MAX] {
        assert_eq!(super::messages::numbered("run-1", n), format!("run-1:{n}"));
        assert_eq!(super::messages::numbered("", n), format!(":{n}"));
    }
}

/// An update of messages only (put in order without the op bookkeeping) gives the messages, ids
/// and order the same update gives beside an op (the general path): an Anthropic user turn with
/// two tool results is two messages, each in its place.
#[test]
fn messages_only_updates_put_what_the_general_path_puts() {
    let turn = |ops: Vec<Value>| {
        let mut s = store();
        s.apply(
            &cmd(
                "model",
                json!({"messages": [{"id": "x", "role": "user", "content": "go"}, ai_calls("a1", &["c1", "c2"])]}),
            ),
            0,
        )
        .unwrap();
        let mut items = ops;
        items.push(json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "c1", "content": "one"},
            {"type": "tool_result", "tool_use_id": "c2", "content": "two"},
        ]}));
        items.push(json!({"role": "assistant", "content": "done"}));
        let out = s.apply(&cmd("tool", json!({"messages": items})), 0).unwrap();
        let msgs = s.messages("messages").unwrap().messages();
        let seen: Vec<(Option<String>, String)> = msgs
            .iter()
            .skip_while(|m| m.id.as_deref() != Some("a1"))
            .map(|m| (m.tool_call_id.clone(), crate::message::formats::util::content_as_string(&m.content)))
            .collect();
        (out.ids, seen)
    };
    let (fast_ids, fast) = turn(vec![]);
    let (_, general) = turn(vec![json!({"remove": "x"})]);
    assert_eq!(fast_ids, vec!["run:2:0", "run:2:1", "run:2:2"]);
    assert_eq!(fast, general);
    assert_eq!(
        fast.iter().map(|(c, t)| (c.as_deref(), t.as_str())).collect::<Vec<_>>(),
        vec![(None, ""), (Some("c1"), "one"), (Some("c2"), "two"), (None, "done")]
    );
}
