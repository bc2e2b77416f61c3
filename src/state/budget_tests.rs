//! Native tests of the budget the store keeps: turns, tool calls and token usage counted from
//! the run's messages, the deadline, and counters restored when a batch fails.
//! Compiled only under #[cfg(test)] (see the module declaration).

use super::tests::{ai_calls, result, snapshot, store};
use super::*;
use crate::error::ErrorCode;
use serde_json::json;

#[test]
fn budget_counts_turns_tool_calls_tokens_and_deadline() {
    let mut s = store();
    s.apply(&cmd("app", json!({"budget": {"limits": {"max_turns": 2, "max_tool_calls": 2, "max_tokens": 100, "deadline_ms": 1000}}})), 0).unwrap();
    s.apply(&cmd("m", json!({"messages": [ai_calls("a1", &["c1"])]})), 10).unwrap();
    s.apply(&cmd("t", json!({"messages": [result("c1")]})), 10).unwrap();
    let e = s.apply(&cmd("m", json!({"messages": [ai_calls("a2", &["c2", "c3"])]})), 10).unwrap_err();
    assert_eq!((e.code, e.field.as_deref()), (ErrorCode::BudgetExceeded, Some("max_tool_calls")));
    s.apply(&cmd("m", json!({"messages": [{"type": "ai", "content": "hi", "usage_metadata": {"input_tokens": 50, "output_tokens": 10, "total_tokens": 60}}]})), 10).unwrap();
    assert_eq!(s.get("budget").unwrap()["used"], json!({"turns": 2, "tokens": 60, "tool_calls": 1}));
    let e = s.apply(&cmd("app", json!({"budget": {"used": {"tokens": 41}}})), 10).unwrap_err();
    assert_eq!((e.code, e.field.as_deref()), (ErrorCode::BudgetExceeded, Some("max_tokens")));
    assert_eq!(
        s.apply(&cmd("m", json!({"messages": [{"type": "ai", "content": "x"}]})), 10).unwrap_err().code,
        ErrorCode::BudgetExceeded
    );
    s.apply(&cmd("app", json!({"budget": {"limits": {"max_turns": null}}})), 10).unwrap();
    assert_eq!(
        s.apply(&cmd("m", json!({"messages": [{"type": "ai", "content": "late"}]})), 2000)
            .unwrap_err()
            .field
            .as_deref(),
        Some("deadline_ms")
    );
    s.apply(&cmd("m", json!({"messages": [{"type": "ai", "content": "in time"}]})), 999).unwrap();
}

#[test]
fn final_output_and_provider_token_usage() {
    let mut s = store();
    s.apply(&cmd("app", json!({"run": {"status": "running"}})), 0).unwrap();
    let anthropic = json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "claude", "content": [{"type": "text", "text": "done"}], "stop_reason": "end_turn", "usage": {"input_tokens": 30, "output_tokens": 12}});
    s.apply(&cmd("m", json!({"messages": [anthropic], "run": {"status": "completed"}})), 0).unwrap();
    assert_eq!(s.events().last().unwrap().kind, crate::log::EventType::FinalOutput);
    assert_eq!(s.get("budget").unwrap()["used"]["tokens"], 42);
    assert_eq!(s.get("messages").unwrap()[0]["origin"], "anthropic");
}

#[test]
fn a_failed_batch_restores_counters_an_earlier_command_moved() {
    // Found by the JS sweep (issue 14): command 1 counts a turn and tokens, command 2 writes the
    // budget and fails; the budget snapshot taken at command 2 held command 1's counts and won.
    let mut s = store();
    s.apply(&cmd("u", json!({"messages": [{"role": "user", "content": "hi"}]})), 0).unwrap();
    let before = snapshot(&mut s);
    let turn = cmd("m", json!({"messages": [{"role": "assistant", "content": "x", "usage": {"total_tokens": 5}}]}));
    let bad = cmd("b", json!({"budget": {"used": {"tokens": "many"}}}));
    assert_eq!(s.apply_batch(&[turn, bad], 0).unwrap_err().code, ErrorCode::InvalidUpdate);
    assert_eq!(snapshot(&mut s), before);
}

/// A model response written as items (Responses / Agents: reasoning, text, each parallel call
/// an item of its own) is one turn, as the same response in a message format is (found by the
/// fresh-eyes pass of issue 16: two parallel calls counted two turns).
#[test]
fn a_run_of_assistant_items_is_one_turn() {
    let mut s = store();
    s.apply(&cmd("app", json!({"budget": {"limits": {"max_turns": 1}}})), 0).unwrap();
    s.apply(&cmd("u", json!({"messages": [{"type": "message", "role": "user", "content": "x"}]})), 0).unwrap();
    let call = |id: &str| json!({"type": "function_call", "callId": id, "name": "w", "arguments": "{}", "status": "completed"});
    s.apply(&cmd("m", json!({"messages": [call("c1"), call("c2")]})), 0).unwrap();
    assert_eq!(s.get("budget").unwrap()["used"]["turns"], json!(1));
    assert_eq!(s.get("budget").unwrap()["used"]["tool_calls"], json!(2));
}

/// A streamed answer put early and put again by id once it completes spends its usage then: the
/// budget counts what the new usage adds over the one it replaces (counters only grow: a smaller
/// usage takes nothing back).
#[test]
fn a_replaced_answer_counts_the_usage_it_adds() {
    let mut s = store();
    let put = |tokens: Option<u64>| {
        let mut m = json!({"type": "ai", "id": "a1", "content": "the answer"});
        if let Some(t) = tokens {
            m["usage_metadata"] = json!({"input_tokens": t - 5, "output_tokens": 5, "total_tokens": t});
        }
        cmd("model", json!({"messages": [m]}))
    };
    s.apply(&put(None), 1).unwrap();
    assert_eq!(s.get("budget").unwrap()["used"]["tokens"], 0);
    s.apply(&put(Some(40)), 2).unwrap();
    assert_eq!(s.get("budget").unwrap()["used"], json!({"turns": 1, "tokens": 40, "tool_calls": 0}));
    s.apply(&put(Some(55)), 3).unwrap();
    assert_eq!(s.get("budget").unwrap()["used"]["tokens"], 55, "what the new usage adds over the old");
    s.apply(&put(Some(30)), 4).unwrap();
    assert_eq!(s.get("budget").unwrap()["used"]["tokens"], 55, "a smaller usage takes nothing back");
    let r = Store::replay(StoreOptions::default(), &s.events()).unwrap();
    assert_eq!(r.get("budget").unwrap(), s.get("budget").unwrap());
}
