//! Native tests of sync subagents and multi-agent isolation (issue 7's cases).

use super::*;
use crate::error::ErrorCode;
use crate::log::EventType;
use crate::project::tokens::Estimate;
use crate::project::ProjectOptions;
use serde_json::json;

fn cmd(author: &str, update: Value) -> Command {
    Command { author: author.into(), expected_version: None, update: update.as_object().cloned().unwrap(), correlation_id: None, causation_id: None }
}

fn input(description: &str, agent: &str) -> SubagentInputOptions {
    serde_json::from_value(json!({"description": description, "agent": agent})).unwrap()
}

/// A parent with a private `skills_metadata` (owned by the skills middleware), files, a todo
/// list, a task ledger entry, and an assistant turn calling `task` twice.
fn parent() -> (Store, String) {
    let mut p = Store::new(StoreOptions { run_id: Some("parent".into()), ..Default::default() }).unwrap();
    let key = p
        .register_channel(ChannelSpec::new("skills_metadata", Reducer::Replace).with(|c| { c.visibility = Visibility::Private; c.owner = Some("skills".into()); }), None, || "k-skills".into())
        .unwrap()
        .unwrap();
    p.apply(&cmd("skills", json!({"skills_metadata": ["lead"]})), 1).unwrap();
    p.apply(&cmd("app", json!({
        "files": {"notes.md": "draft"},
        "todos": [{"content": "ship", "status": "pending"}],
        "async_tasks": {"t9": {"task_id": "t9", "agent_name": "r", "thread_id": "t9", "run_id": "r9", "status": "running"}},
        "messages": [{"role": "user", "content": "Research A and B."}],
    })), 2).unwrap();
    p.apply(&cmd("model", json!({"messages": [{"type": "ai", "content": "", "tool_calls": [
        {"id": "task_a", "name": "task", "args": {"description": "research A", "subagent_type": "a"}},
        {"id": "task_b", "name": "task", "args": {"description": "research B", "subagent_type": "b"}}]}]})), 3).unwrap();
    (p, key)
}

/// A child that runs a few turns: its own private skills list, an inner tool call, a file, an
/// answer.
fn run_child(child: &mut Store, name: &str, secret_arg: &str) {
    child
        .register_channel(ChannelSpec::new("skills_metadata", Reducer::Replace).with(|c| { c.visibility = Visibility::Private; c.owner = Some("skills".into()); }), None, || format!("k-{name}"))
        .unwrap();
    child.apply(&cmd("skills", json!({"skills_metadata": [format!("skill-of-{name}")]})), 5).unwrap();
    child.apply(&cmd("model", json!({"messages": [{"type": "ai", "content": "looking", "tool_calls": [{"id": format!("{name}_c1"), "name": "search", "args": {"q": secret_arg}}]}]})), 6).unwrap();
    child.apply(&cmd("tool", json!({"messages": [{"type": "tool", "tool_call_id": format!("{name}_c1"), "content": format!("found {secret_arg}")}], "files": {format!("{name}.md"): format!("notes of {name}")}})), 7).unwrap();
    child.apply(&cmd("model", json!({"messages": [{"type": "ai", "content": format!("  {name} is done.  ")}, {"type": "ai", "content": "   "}]})), 8).unwrap();
}

#[test]
fn isolated_input_filters_private_ledger_todos_and_what_the_caller_excludes() {
    let (mut p, _) = parent();
    let child = subagent_input(&mut p, &input("research A", "a"), 4).unwrap();
    let view = child.system_view();
    assert_eq!(view["files"], json!({"notes.md": "draft"}));
    assert_eq!(view["todos"], json!([]));
    assert_eq!(view["async_tasks"], json!({}));
    assert!(!view.contains_key("skills_metadata"), "a private channel of the parent never reaches the child");
    let msgs = child.messages("messages").unwrap().messages();
    assert_eq!((msgs.len(), msgs[0].role, msgs[0].content.text()), (1, Role::User, "research A".to_string()));
    assert_eq!(child.run_id(), "parent/a");
    let mut opts = input("x", "a");
    opts.exclude = vec!["files".into()];
    assert_eq!(subagent_input(&mut p, &opts, 4).unwrap().get("files").unwrap(), json!({}));
    opts.allow = Some(vec!["todos".into()]);
    assert_eq!(subagent_input(&mut p, &opts, 4).unwrap_err().code, ErrorCode::InvalidOption);
    opts.allow = Some(vec!["skills_metadata".into()]);
    let e = subagent_input(&mut p, &opts, 4).unwrap_err();
    assert!(!e.message.contains("lead") && e.message.contains("private"), "{}", e.message);
}

#[test]
fn two_subagents_in_one_superstep_return_two_results_and_leave_the_parents_private_skills() {
    let (mut p, key) = parent();
    let mut a = subagent_input(&mut p, &input("research A", "a"), 4).unwrap();
    let mut b = subagent_input(&mut p, &input("research B", "b"), 4).unwrap();
    run_child(&mut a, "a", "q-a");
    run_child(&mut b, "b", "q-b");
    let ra = subagent_result(&mut a, "task_a", &SubagentResultOptions::default()).unwrap();
    let rb = subagent_result(&mut b, "task_b", &SubagentResultOptions::default()).unwrap();
    assert_eq!(ra.author, "a");
    assert_eq!(ra.update.keys().collect::<Vec<_>>(), vec!["messages", "files"], "only the changed inherited channel comes back");
    assert_eq!(ra.update["files"], json!({"a.md": "notes of a"}), "only the change, not the whole channel");
    p.apply_batch(&[ra, rb], 9).unwrap();
    assert_eq!(p.private_view(&key).unwrap()["skills_metadata"], json!(["lead"]));
    let results: Vec<(String, String)> = p
        .messages("messages")
        .unwrap()
        .messages()
        .iter()
        .filter(|m| m.role == Role::Tool)
        .map(|m| (m.tool_call_id.clone().unwrap(), m.content.text()))
        .collect();
    assert_eq!(results, vec![("task_a".into(), "a is done.".into()), ("task_b".into(), "b is done.".into())]);
    assert_eq!(p.get("files").unwrap(), json!({"notes.md": "draft", "a.md": "notes of a", "b.md": "notes of b"}));
}

#[test]
fn a_canary_in_a_childs_inner_tool_call_reaches_nothing_of_the_parent() {
    let canary = "CANARY-7f3e9a-do-not-leak";
    let (mut p, key) = parent();
    let mut a = subagent_input(&mut p, &input("research A", "a"), 4).unwrap();
    run_child(&mut a, "a", canary);
    let r = subagent_result(&mut a, "task_a", &SubagentResultOptions::default()).unwrap();
    p.apply(&r, 9).unwrap();
    // A refused write-back (wrong call id) must not carry it in its error either.
    let err = p.apply(&subagent_result(&mut a, "no_such_call", &SubagentResultOptions::default()).unwrap(), 10).unwrap_err();
    let view = p.model_view(&ProjectOptions::default(), &mut Estimate, "estimate").unwrap();
    let everything = serde_json::to_string(&json!({
        "system": p.system_view(), "private": p.private_view(&key).unwrap(), "events": p.events(),
        "view": view.encoded, "error": err.to_string(),
    }))
    .unwrap();
    assert!(everything.contains("a is done."), "the answer did arrive");
    assert!(!everything.contains(canary), "the canary leaked into the parent");
}

#[test]
fn a_fork_starts_from_the_parents_view_without_the_trailing_unanswered_call() {
    let (mut p, _) = parent();
    let mut opts = input("research A", "a");
    opts.mode = Mode::Fork;
    let child = subagent_input(&mut p, &opts, 4).unwrap();
    let ours: Vec<Value> = encode_messages(child.messages("messages").unwrap().messages(), Format::Langchain);
    let view = p.model_view(&ProjectOptions { budget: opts.budget, sections: false, format: Format::Langchain, ..Default::default() }, &mut Estimate, "estimate").unwrap();
    // The parent's view ends with the launching turn (repaired with placeholder results).
    let launch = view.encoded.iter().position(|m| m["tool_calls"].as_array().is_some_and(|c| !c.is_empty())).unwrap();
    assert_eq!(ours[..ours.len() - 1], view.encoded[..launch]);
    assert_eq!(ours.last().unwrap()["content"], format!("{FORK_PREAMBLE}research A"));
}

#[test]
fn conflicting_writes_of_parallel_subagents_name_both() {
    let (mut p, _) = parent();
    let mut a = subagent_input(&mut p, &input("A", "a"), 4).unwrap();
    let mut b = subagent_input(&mut p, &input("B", "b"), 4).unwrap();
    for (c, name) in [(&mut a, "a"), (&mut b, "b")] {
        c.apply(&cmd("tool", json!({"files": {"notes.md": format!("rewritten by {name}")}})), 5).unwrap();
        c.apply(&cmd("model", json!({"messages": [{"type": "ai", "content": "ok"}]})), 6).unwrap();
    }
    let before = p.version();
    let ra = subagent_result(&mut a, "task_a", &SubagentResultOptions::default()).unwrap();
    let rb = subagent_result(&mut b, "task_b", &SubagentResultOptions::default()).unwrap();
    let e = p.apply_batch(&[ra, rb], 9).unwrap_err();
    assert_eq!((e.code, e.authors.clone()), (ErrorCode::ConcurrentWrite, vec!["a".to_string(), "b".to_string()]));
    assert_eq!(p.version(), before);
}

#[test]
fn structured_response_wins_and_additive_channels_return_only_their_change() {
    let spec = |n: &str, r: Reducer| ChannelSpec::new(n, r);
    let mut p = Store::new(StoreOptions { channels: vec![spec("log", Reducer::Append), spec("hits", Reducer::Counter), spec("tags", Reducer::Union)], ..Default::default() }).unwrap();
    p.apply(&cmd("app", json!({"log": ["start"], "hits": 2, "tags": ["x"], "messages": [{"role": "user", "content": "go"}, {"type": "ai", "content": "", "tool_calls": [{"id": "t", "name": "task", "args": {}}]}]})), 1).unwrap();
    let mut c = subagent_input(&mut p, &input("count", "counter"), 2).unwrap();
    c.apply(&cmd("n", json!({"log": ["child"], "hits": 3, "tags": ["x", "y"], "structured_response": {"count": 5}})), 3).unwrap();
    let r = subagent_result(&mut c, "t", &SubagentResultOptions::default()).unwrap();
    assert_eq!(r.update["messages"][0]["content"], "{\"count\":5}");
    assert_eq!((&r.update["log"], &r.update["hits"], &r.update["tags"]), (&json!(["child"]), &json!(3), &json!(["y"])));
    p.apply(&r, 4).unwrap();
    assert_eq!((p.get("log").unwrap(), p.get("hits").unwrap(), p.get("tags").unwrap()), (json!(["start", "child"]), json!(5), json!(["x", "y"])));
    let only = subagent_result(&mut c, "t", &SubagentResultOptions { allow: Some(vec!["hits".into()]) }).unwrap();
    assert_eq!(only.update.keys().collect::<Vec<_>>(), vec!["messages", "hits"]);
    let mut silent = subagent_input(&mut p, &input("nothing", "quiet"), 5).unwrap();
    assert_eq!(subagent_result(&mut silent, "t", &SubagentResultOptions::default()).unwrap().update["messages"][0]["content"], NO_OUTPUT);
    assert_eq!(subagent_result(&mut p, "t", &SubagentResultOptions::default()).unwrap_err().code, ErrorCode::InvalidOption, "the parent is no subagent");
}

#[test]
fn agent_local_channels_are_invisible_to_others_and_refuse_other_writers() {
    let mut s = Store::new(StoreOptions::default()).unwrap();
    let key = s
        .register_channel(ChannelSpec::new("scratch", Reducer::Merge).with(|c| { c.visibility = Visibility::Private; c.owner = Some("researcher".into()); }), None, || "k-r".into())
        .unwrap()
        .unwrap();
    s.apply(&cmd("researcher", json!({"scratch": {"lead": "hypothesis-42-secret"}})), 1).unwrap();
    let e = s.apply(&cmd("writer", json!({"scratch": {"lead": "mine"}})), 2).unwrap_err();
    assert_eq!(e.code, ErrorCode::NotOwner);
    assert!(!s.system_view().contains_key("scratch"));
    let view = s.model_view(&ProjectOptions { agent: Some("writer".into()), ..Default::default() }, &mut Estimate, "estimate").unwrap();
    assert!(!serde_json::to_string(&view.encoded).unwrap().contains("hypothesis-42"));
    assert_eq!(s.private_view(&key).unwrap()["scratch"], json!({"lead": "hypothesis-42-secret"}));
}

#[test]
fn a_handoff_is_an_event_and_other_agents_turns_are_context_in_the_receivers_view() {
    let mut s = Store::new(StoreOptions::default()).unwrap();
    s.apply(&cmd("user", json!({"messages": [{"role": "user", "content": "Book a flight to Lisbon."}]})), 1).unwrap();
    s.apply(&cmd("triage", json!({"messages": [{"type": "ai", "name": "triage", "content": "Handing over.", "tool_calls": [{"id": "h1", "name": "transfer_to_booker", "args": {"reason": "flights"}}]}]})), 2).unwrap();
    let handoff = Command {
        author: "triage".into(),
        expected_version: None,
        update: json!({"active_agent": "booker", "messages": [{"type": "tool", "tool_call_id": "h1", "content": "Transferred to booker"}]}).as_object().cloned().unwrap(),
        correlation_id: Some("h1".into()),
        causation_id: Some("run:2".into()),
    };
    s.apply(&handoff, 3).unwrap();
    let e = s.events().last().unwrap().clone();
    assert_eq!((e.kind, e.author.as_str(), e.payload["active_agent"].as_str()), (EventType::Handoff, "triage", Some("booker")));
    assert_eq!((e.correlation_id.as_deref(), e.causation_id.as_deref()), (Some("h1"), Some("run:2")));
    s.apply(&cmd("booker", json!({"messages": [{"type": "ai", "name": "booker", "content": "Which date?"}]})), 4).unwrap();
    let view = s.model_view(&ProjectOptions { agent: Some("booker".into()), format: Format::Openai, ..Default::default() }, &mut Estimate, "estimate").unwrap();
    let roles: Vec<&str> = view.encoded.iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["user", "user", "user", "assistant"]);
    assert_eq!(view.encoded[1]["content"], "For context:\n[triage] said: Handing over.\n[triage] called tool `transfer_to_booker` with parameters: {\"reason\":\"flights\"}");
    assert_eq!(view.encoded[2]["content"], "For context:\n[triage] `transfer_to_booker` tool returned result: Transferred to booker");
    assert_eq!(view.encoded[3]["content"], "Which date?");
    let custom = s.model_view(&ProjectOptions { agent: Some("booker".into()), context_prefix: "Earlier, from a colleague:".into(), ..Default::default() }, &mut Estimate, "estimate").unwrap();
    assert!(custom.encoded[1]["content"].as_str().unwrap().starts_with("Earlier, from a colleague:\n[triage] said"));
    let triage = s.model_view(&ProjectOptions { agent: Some("triage".into()), format: Format::Openai, ..Default::default() }, &mut Estimate, "estimate").unwrap();
    assert_eq!(triage.encoded[1]["role"], "assistant", "an agent's own turns stay its own");
}
