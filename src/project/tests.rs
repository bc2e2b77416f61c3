//! Native tests of the projector and of the store's model view and compaction.

use super::tokens::{Estimate, TokenCache, TokenCounter};
use super::*;
use crate::message::formats::decode_messages;
use crate::repair::{validate, Provider};
use crate::state::{cmd, ChannelSpec, Reducer, Store, StoreOptions, Visibility};
use serde_json::{json, Value};

/// Every text costs 7 tokens, so every message costs 10.
struct Flat;
impl TokenCounter for Flat {
    fn count(&mut self, _: &str) -> crate::error::Result<usize> {
        Ok(7)
    }
}

fn msgs(v: Value) -> Vec<Message> {
    let mut out = decode_messages(v.as_array().unwrap(), None).unwrap().messages;
    for (i, m) in out.iter_mut().enumerate() {
        m.id.get_or_insert_with(|| format!("m{i}"));
    }
    out
}

fn run(history: &[Message], opts: &ProjectOptions) -> Projection {
    project(history, opts, &Context::default(), &mut Flat, "flat", &mut TokenCache::default()).unwrap()
}

fn texts(p: &Projection) -> Vec<String> {
    p.messages.iter().map(|m| format!("{:?}:{}", m.role, m.content.text())).collect()
}

fn call(id: &str, name: &str) -> Value {
    json!({"id": id, "type": "function", "function": {"name": name, "arguments": "{\"city\": \"Paris\"}"}})
}

#[test]
fn a_call_and_its_result_leave_together() {
    let h = msgs(json!([
        {"role": "system", "content": "You are helpful."},
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": null, "tool_calls": [call("c1", "get_weather")]},
        {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
        {"role": "user", "content": "ok"},
        {"role": "assistant", "content": "anything else?"},
        {"role": "user", "content": "no"},
        {"role": "assistant", "content": "bye"}
    ]));
    let p = run(&h, &ProjectOptions { budget: 55, ..ProjectOptions::default() });
    assert_eq!(
        texts(&p),
        vec!["System:You are helpful.", "User:ok", "Assistant:anything else?", "User:no", "Assistant:bye"]
    );
    assert_eq!(p.report.used, 50);
    assert_eq!(p.report.dropped, vec![Dropped { count: 3, reason: "budget".into() }]);
    assert!(validate(&p.messages, Provider::Anthropic).is_empty());
    // With room for the unit, it comes back whole.
    let p = run(&h, &ProjectOptions { budget: 80, ..ProjectOptions::default() });
    assert_eq!(p.messages.len(), 8);
}

#[test]
fn a_ten_call_unit_is_never_split() {
    let calls: Vec<Value> = (1..=10).map(|i| call(&format!("c{i}"), "fetch")).collect();
    let mut v = vec![
        json!({"role": "user", "content": "fetch ten"}),
        json!({"role": "assistant", "content": null, "tool_calls": calls}),
    ];
    v.extend((1..=10).map(|i| json!({"role": "tool", "tool_call_id": format!("c{i}"), "content": "page"})));
    let h = msgs(Value::Array(v));
    for budget in [30, 100, 110, 115, 119, 121, 200] {
        let opts = ProjectOptions { budget, start_on_user: false, ..ProjectOptions::default() };
        // A budget that keeps not even the unit is refused: a view of nothing is no conversation.
        let p = match project(&h, &opts, &Context::default(), &mut Flat, "flat", &mut TokenCache::default()) {
            Ok(p) => p,
            Err(e) => {
                assert_eq!(e.code, ErrorCode::BudgetTooSmall, "budget {budget}");
                assert!(budget < 120 && e.message.contains("keeps none of the 12 history messages"), "{}", e.message);
                continue;
            }
        };
        let results = p.messages.iter().filter(|m| m.role == Role::Tool).count();
        assert!(results == 0 || results == 10, "budget {budget}: {results} results");
        assert!(p.messages.first().is_none_or(|m| m.role != Role::Tool));
        assert!(p.report.used <= budget);
    }
}

#[test]
fn leading_system_always_kept_or_a_clear_error() {
    let h = msgs(json!([{"role": "system", "content": "rules"}, {"role": "user", "content": "hi"}]));
    let p = run(&h, &ProjectOptions { budget: 20, ..ProjectOptions::default() });
    assert_eq!(texts(&p), vec!["System:rules", "User:hi"]);
    // Room for the system message but for nothing of the conversation: refused, with the cost.
    let none = project(
        &h,
        &ProjectOptions { budget: 10, ..ProjectOptions::default() },
        &Context::default(),
        &mut Flat,
        "flat",
        &mut TokenCache::default(),
    )
    .unwrap_err();
    assert_eq!(none.code, ErrorCode::BudgetTooSmall);
    assert!(
        none.message.contains("keeps none of the 1 history messages") && none.message.contains("takes 10"),
        "{}",
        none.message
    );
    let e = project(
        &h,
        &ProjectOptions { budget: 9, ..ProjectOptions::default() },
        &Context::default(),
        &mut Flat,
        "flat",
        &mut TokenCache::default(),
    )
    .unwrap_err();
    assert_eq!(e.code, ErrorCode::BudgetTooSmall);
}

#[test]
fn start_on_user_and_dangling_calls_repaired() {
    let h = msgs(json!([
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": "thinking"},
        {"role": "assistant", "content": null, "tool_calls": [call("c1", "search")]},
        {"role": "user", "content": "stop"}
    ]));
    let p = run(&h, &ProjectOptions { budget: 30, ..ProjectOptions::default() });
    // The unit [ai(c1)] is incomplete: repair adds a placeholder; the window must start on a user turn.
    assert_eq!(p.messages.first().map(|m| m.role), Some(Role::User));
    assert!(validate(&p.messages, Provider::Anthropic).is_empty());
    let p = run(&h, &ProjectOptions { budget: 100, ..ProjectOptions::default() });
    assert_eq!(p.report.repairs.len(), 1);
    assert_eq!(p.messages.iter().filter(|m| m.role == Role::Tool).count(), 1);
}

#[test]
fn big_results_become_previews_and_output_is_deterministic() {
    let big = "line of output\n".repeat(400);
    let h = msgs(json!([
        {"role": "user", "content": "read the log"},
        {"role": "assistant", "content": null, "tool_calls": [call("c1", "read_file")]},
        {"role": "tool", "tool_call_id": "c1", "content": big}
    ]));
    let opts = ProjectOptions {
        budget: 400,
        max_tool_result_tokens: Some(100),
        format: Format::Anthropic,
        ..ProjectOptions::default()
    };
    let mut cache = TokenCache::default();
    let p = project(&h, &opts, &Context::default(), &mut Estimate, "estimate", &mut cache).unwrap();
    assert_eq!(p.report.truncated.len(), 1);
    let t = &p.report.truncated[0];
    assert_eq!((t.id.as_str(), t.tool_call_id.as_str(), t.artifact.as_str()), ("m2", "c1", "artifact:m2"));
    assert!(t.tokens > 1000 && t.preview_tokens < 150, "{t:?}");
    let tool = &p.messages[3 - 1];
    assert!(tool.content.text().contains("tokens omitted; the full result is artifact:m2"));
    let again = project(&h, &opts, &Context::default(), &mut Estimate, "estimate", &mut cache).unwrap();
    assert_eq!(serde_json::to_string(&p.encoded).unwrap(), serde_json::to_string(&again.encoded).unwrap());
}

#[test]
fn private_values_never_reach_the_model_view() {
    let mut s = Store::new(StoreOptions::default()).unwrap();
    let mut spec = ChannelSpec::new("secrets", Reducer::Merge);
    spec.visibility = Visibility::Private;
    spec.owner = Some("vault".into());
    s.register_channel(spec, None, || "k".into()).unwrap();
    s.apply(&cmd("vault", json!({"secrets": {"DB_PASSWORD": "hunter2-correct-horse"}})), 0).unwrap();
    s.apply(&cmd("app", json!({"facts": {"db_host": "db.internal", "api_key": "sk-live-0000"}, "run": {"status": "running", "task": "migrate the DB"}})), 0).unwrap();
    s.apply(&cmd("user", json!({"messages": [{"role": "user", "content": "migrate"}]})), 0).unwrap();
    let opts = ProjectOptions { budget: 2_000, redact: vec!["api_key".into()], ..ProjectOptions::default() };
    let p = crate::project::Projector::default().model_view(&s, &opts, &mut Estimate, "estimate").unwrap();
    let text = serde_json::to_string(&p.encoded).unwrap();
    assert!(!text.contains("hunter2") && !text.contains("sk-live"), "{text}");
    assert!(text.contains("db.internal") && text.contains("migrate the DB"));
    assert_eq!(p.report.redacted, vec!["facts.api_key"]);
    // A tool result that echoes the private value is refused, naming the channel only.
    s.apply(
        &cmd("model", json!({"messages": [{"role": "assistant", "content": null, "tool_calls": [call("c1", "env")]}]})),
        0,
    )
    .unwrap();
    s.apply(&cmd("tool", json!({"messages": [{"role": "tool", "tool_call_id": "c1", "content": "DB_PASSWORD=hunter2-correct-horse"}]})), 0).unwrap();
    let e = crate::project::Projector::default().model_view(&s, &opts, &mut Estimate, "estimate").unwrap_err();
    assert_eq!((e.code, e.channel.as_deref()), (ErrorCode::PrivateLeak, Some("secrets")));
    assert!(!e.message.contains("hunter2"));
}

#[test]
fn compaction_keeps_the_ledger_and_the_active_task_section() {
    let mut s = Store::new(StoreOptions::default()).unwrap();
    s.apply(&cmd("user", json!({"messages": [{"role": "system", "content": "rules"}, {"role": "user", "content": "start research"}]})), 0).unwrap();
    s.apply(&cmd("model", json!({"messages": [{"role": "assistant", "content": null, "tool_calls": [call("s1", "start_async_task")]}]})), 0).unwrap();
    s.apply(&cmd("tool", json!({"messages": [{"role": "tool", "tool_call_id": "s1", "content": "task t-42 started"}], "async_tasks": {"t-42": {"task_id": "t-42", "agent_name": "researcher", "thread_id": "t-42", "run_id": "r1", "status": "running"}}})), 0).unwrap();
    for i in 0..150 {
        s.apply(&cmd("user", json!({"messages": [{"role": "user", "content": format!("turn {i}")}, {"role": "assistant", "content": format!("answer {i}")}]})), 0).unwrap();
    }
    let cut = s.compaction_plan(10).unwrap();
    assert_eq!(s.messages("messages").unwrap().messages().len() - cut, 10);
    s.compact("The user started research task t-42, then chatted.", cut, "summarizer", 0).unwrap();
    let ledger = s.get("async_tasks").unwrap();
    assert_eq!(ledger["t-42"]["status"], "running");
    let p = crate::project::Projector::default()
        .model_view(&s, &ProjectOptions { budget: 4_000, ..ProjectOptions::default() }, &mut Estimate, "estimate")
        .unwrap();
    let roles: Vec<Role> = p.messages.iter().map(|m| m.role).collect();
    assert_eq!(&roles[..3], &[Role::System, Role::System, Role::User]);
    assert!(p.messages[1].content.text().contains("- task t-42 (researcher): running"));
    assert!(p.messages[2].content.text().starts_with("Here is a summary of the conversation to date:"));
    assert_eq!(p.messages.len(), 3 + 10);
    assert_eq!(p.report.dropped[0], Dropped { count: cut - 1, reason: "compacted".into() });
    // The full history is still there.
    assert_eq!(s.messages("messages").unwrap().messages().len(), 2 + 1 + 1 + 300);
    // A cut inside a unit is refused.
    let inside = s.messages("messages").unwrap().messages().iter().position(|m| m.role == Role::Tool).unwrap();
    assert_eq!(s.compact("x", inside, "summarizer", 0).unwrap_err().code, ErrorCode::InvalidOption);
    assert_eq!(s.compaction_plan(1_000).unwrap(), 1);
}

#[test]
fn token_counts_are_cached_by_message_id() {
    struct Counting(usize);
    impl TokenCounter for Counting {
        fn count(&mut self, text: &str) -> crate::error::Result<usize> {
            self.0 += 1;
            Ok(text.len() / 4)
        }
    }
    let mut s = Store::new(StoreOptions::default()).unwrap();
    for i in 0..50 {
        s.apply(&cmd("u", json!({"messages": [{"role": "user", "content": format!("message {i}")}]})), 0).unwrap();
    }
    let opts = ProjectOptions { budget: 100_000, sections: false, ..ProjectOptions::default() };
    let mut c = Counting(0);
    let mut projector = crate::project::Projector::default();
    projector.model_view(&s, &opts, &mut c, "counting").unwrap();
    let first = c.0;
    s.apply(&cmd("u", json!({"messages": [{"role": "user", "content": "one more"}]})), 0).unwrap();
    let mut c2 = Counting(0);
    projector.model_view(&s, &opts, &mut c2, "counting").unwrap();
    assert!(first >= 50 && c2.0 <= 2, "first {first}, then {}", c2.0);
}

#[test]
fn third_review_budget_report_and_leak_cases() {
    // Sections are priced as the one message that carries them: used never passes the budget,
    // and the report adds up.
    let mut s = Store::new(StoreOptions::default()).unwrap();
    s.apply(&cmd("u", json!({"run": {"status": "running", "task": "Fix the flaky test in CI"}, "facts": {"a": "b"}, "messages": [{"role": "user", "content": "hello"}]})), 0).unwrap();
    let mut viewed = 0;
    for budget in 0..60 {
        let p = match crate::project::Projector::default().model_view(
            &s,
            &ProjectOptions { budget, ..ProjectOptions::default() },
            &mut Estimate,
            "e",
        ) {
            Ok(p) => p,
            Err(e) => {
                assert_eq!(e.code, ErrorCode::BudgetTooSmall, "budget {budget}: {}", e.message);
                continue;
            }
        };
        viewed += 1;
        assert!(p.report.used <= budget, "budget {budget}: used {}", p.report.used);
        let sum = p.report.system_tokens
            + p.report.state_tokens
            + p.report.summary_tokens
            + p.report.messages.iter().map(|m| m.tokens).sum::<usize>();
        assert_eq!(sum, p.report.used);
    }
    assert!(viewed > 30, "only {viewed} budgets projected");
    // A compaction summary that does not fit is a clear error, not an overshoot.
    s.apply(
        &cmd("u", json!({"messages": [{"role": "assistant", "content": "two"}, {"role": "user", "content": "three"}]})),
        0,
    )
    .unwrap();
    s.compact(&"x".repeat(400), 2, "c", 0).unwrap();
    assert_eq!(
        crate::project::Projector::default()
            .model_view(&s, &ProjectOptions { budget: 20, ..ProjectOptions::default() }, &mut Estimate, "e")
            .unwrap_err()
            .code,
        ErrorCode::BudgetTooSmall
    );

    // A private value inside OpenAI tool arguments (JSON in a string, escaped) is found.
    let mut s = Store::new(StoreOptions::default()).unwrap();
    let mut spec = ChannelSpec::new("mem", Reducer::Merge);
    spec.visibility = Visibility::Private;
    spec.owner = Some("memory".into());
    s.register_channel(spec, None, || "k".into()).unwrap();
    s.apply(&cmd("memory", json!({"mem": {"a": "line one\nline \"two\""}})), 0).unwrap();
    let args = serde_json::to_string(&json!({"q": "line one\nline \"two\""})).unwrap();
    s.apply(&cmd("m", json!({"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": args}}]}, {"role": "tool", "tool_call_id": "c1", "content": "ok"}]})), 0).unwrap();
    for format in [Format::Openai, Format::Anthropic, Format::Langchain, Format::AiSdk, Format::Gemini] {
        let e = crate::project::Projector::default()
            .model_view(&s, &ProjectOptions { budget: 5_000, format, ..ProjectOptions::default() }, &mut Estimate, "e")
            .unwrap_err();
        assert_eq!(e.code, ErrorCode::PrivateLeak, "{format:?}");
    }
}

#[test]
fn previews_only_when_shorter_and_compaction_waits_for_pending_calls() {
    let h = msgs(json!([
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": null, "tool_calls": [call("c1", "f")]},
        {"role": "tool", "tool_call_id": "c1", "content": "ok"}
    ]));
    for max in 0..6 {
        let p = project(
            &h,
            &ProjectOptions { budget: 1_000, max_tool_result_tokens: Some(max), ..ProjectOptions::default() },
            &Context::default(),
            &mut Estimate,
            "e",
            &mut TokenCache::default(),
        )
        .unwrap();
        assert!(p.report.truncated.is_empty(), "max {max}");
        assert_eq!(p.messages[2].content.text(), "ok");
    }
    let mut s = Store::new(StoreOptions::default()).unwrap();
    s.apply(&cmd("m", json!({"messages": [{"role": "user", "content": "u0"}, {"role": "assistant", "content": null, "tool_calls": [call("c1", "f")]}, {"role": "user", "content": "u1"}, {"role": "assistant", "content": "a2"}]})), 0).unwrap();
    assert_eq!(s.compaction_plan(2).unwrap(), 1);
    assert_eq!(s.compact("S", 2, "c", 0).unwrap_err().code, ErrorCode::InvalidOption);
    assert_eq!(s.compaction_plan(0).unwrap(), 1);
}

#[test]
fn previews_are_recorded_once_and_tails_are_accounted() {
    let mut s = Store::new(StoreOptions::default()).unwrap();
    s.apply(&cmd("m", json!({"messages": [{"role": "user", "content": "read"}, {"role": "assistant", "content": null, "tool_calls": [call("c1", "read_file")]}]})), 0).unwrap();
    s.apply(&cmd("t", json!({"messages": [{"role": "tool", "tool_call_id": "c1", "content": "x".repeat(4_000)}]})), 0)
        .unwrap();
    let opts = ProjectOptions { budget: 2_000, max_tool_result_tokens: Some(100), ..ProjectOptions::default() };
    let p = crate::project::Projector::default().model_view(&s, &opts, &mut Estimate, "e").unwrap();
    let applied = crate::project::record_artifacts(&mut s, &p, 0).unwrap().unwrap();
    assert_eq!(applied.version, 3);
    assert_eq!(s.get("artifacts").unwrap()[0]["ref"], "artifact:run:2:0");
    assert!(crate::project::record_artifacts(&mut s, &p, 0).unwrap().is_none());
    let mut past = s.at(2).unwrap();
    let p = crate::project::Projector::default().model_view(&past, &opts, &mut Estimate, "e").unwrap();
    assert!(crate::project::record_artifacts(&mut past, &p, 0).unwrap().is_none());

    // A tail of 3 messages after a system message, 10 skipped: ids name whole-array positions,
    // the skipped ones count as dropped, the output keeps messages id-less.
    let tail = msgs(
        json!([{"role": "system", "content": "s"}, {"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}, {"role": "user", "content": "c"}]),
    );
    let tail: Vec<Message> = tail
        .into_iter()
        .map(|mut m| {
            m.id = None;
            m
        })
        .collect();
    let (encoded, report) =
        project_tail(tail, true, 10, &ProjectOptions { budget: 1_000, ..ProjectOptions::default() }, &mut Flat, "flat")
            .unwrap();
    assert_eq!(report.messages.iter().map(|m| m.id.as_str()).collect::<Vec<_>>(), vec!["#11", "#12", "#13"]);
    assert_eq!(report.dropped, vec![Dropped { count: 10, reason: "budget".into() }]);
    assert!(encoded.iter().all(|m| m.get("id").is_none()));
}

#[test]
fn the_leak_scan_reads_each_message_as_the_model_does() {
    // Issue 14: a private value split over two text parts passed the scan in every format.
    let private = vec![("vault".to_string(), "CANARY-priv-31337x".to_string())];
    let split = json!({"role": "user", "content": [{"type": "text", "text": "CANARY-priv"}, {"type": "text", "text": "-31337x"}]});
    let d = crate::message::formats::decode_messages(&[split], None).unwrap().messages;
    for f in crate::message::formats::Format::ALL {
        let encoded = crate::message::formats::encode_messages(&d, f);
        let e = check_leaks(&encoded, &private).unwrap_err();
        assert_eq!((e.code, e.channel.as_deref()), (crate::error::ErrorCode::PrivateLeak, Some("vault")), "{f:?}");
    }
    let apart = json!([{"role": "user", "content": "CANARY-priv"}, {"role": "user", "content": "-31337x"}]);
    assert!(check_leaks(apart.as_array().unwrap(), &private).is_ok(), "two messages are read apart");
}

#[test]
fn report_names_the_output_message_of_each_kept_message() {
    let h = msgs(json!([
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": "", "tool_calls": [call("a", "f"), call("b", "g")]},
        {"role": "tool", "tool_call_id": "a", "content": "r1"},
        {"role": "tool", "tool_call_id": "b", "content": "r2"},
        {"role": "user", "content": "thanks"}
    ]));
    let system = Some("rules".to_string());
    for (format, outputs) in [
        (Format::Openai, vec![1, 2, 3, 4, 5]),
        // Anthropic, Gemini and the AI SDK put a turn's results in one message.
        (Format::Anthropic, vec![1, 2, 3, 3, 4]),
        (Format::Gemini, vec![1, 2, 3, 3, 4]),
        (Format::AiSdk, vec![1, 2, 3, 3, 4]),
    ] {
        let p = run(&h, &ProjectOptions { budget: 1_000, format, system: system.clone(), ..ProjectOptions::default() });
        let got: Vec<usize> = p.report.messages.iter().map(|m| m.output).collect();
        assert_eq!(got, outputs, "{format:?}");
        assert_eq!(p.encoded.len(), outputs.last().unwrap() + 1, "{format:?}");
    }
}

#[test]
fn projecting_items_reports_the_first_item_of_each_message() {
    let chat = vec![
        json!({"role": "user", "content": "weather?"}),
        json!({"role": "assistant", "content": "Checking.", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "weather", "arguments": "{}"}},
            {"id": "c2", "type": "function", "function": {"name": "time", "arguments": "{}"}}]}),
    ];
    let history = decode_messages(&chat, None).unwrap().messages;
    let opts = ProjectOptions { format: Format::Responses, ..ProjectOptions::default() };
    let (encoded, report) = project_tail(history, false, 0, &opts, &mut Estimate, "estimate").unwrap();
    let kinds: Vec<&str> = encoded.iter().map(|v| v["type"].as_str().unwrap_or("message")).collect();
    assert_eq!(
        kinds,
        vec!["message", "message", "function_call", "function_call", "function_call_output", "function_call_output"]
    );
    assert_eq!(report.messages.iter().map(|m| m.output).collect::<Vec<_>>(), vec![0, 1, 4, 5]);
    assert_eq!(crate::repair::validate_values(&encoded, Provider::Openai).unwrap(), vec![]);
}

#[test]
fn projecting_an_sdk_history_elsewhere_merges_each_turn_and_back_into_items() {
    let items = crate::message::formats::values_from_json_text(include_str!(
        "../../tests/fixtures/responses/agents-history.json"
    ))
    .unwrap();
    let history = decode_messages(&items, None).unwrap().messages;
    for format in Format::ALL {
        let opts = ProjectOptions { format, ..ProjectOptions::default() };
        let (encoded, report) = project_tail(history.clone(), false, 0, &opts, &mut Estimate, "estimate").unwrap();
        let outputs: Vec<usize> = report.messages.iter().map(|m| m.output).collect();
        let want = match format {
            // Every item as it came.
            Format::OpenaiAgents => {
                assert_eq!(encoded, items);
                vec![0, 1, 2, 3, 4, 5, 6, 7]
            }
            Format::Responses => vec![0, 1, 2, 3, 4, 5, 6, 7],
            // [reasoning, call, call] is one assistant message; so is [web search, message].
            Format::AiSdk => vec![0, 1, 1, 1, 2, 2, 3, 3],
            // One UIMessage holds a turn and its results.
            Format::Ui => vec![0, 1, 1, 1, 1, 1, 2, 2],
            // The web search goes to Anthropic as a note naming it, in the turn's last message;
            // reasoning without an Anthropic signature says nothing to Anthropic.
            Format::Anthropic => vec![0, 1, 1, 2, 2, 3, 3],
            Format::Gemini => vec![0, 1, 1, 1, 2, 2, 3, 3],
            _ => vec![0, 1, 1, 1, 2, 3, 4, 4],
        };
        assert_eq!(outputs, want, "{format:?}");
        let back = decode_messages(&encoded, Some(format)).unwrap();
        let v = crate::repair::validate_shapes(
            &crate::repair::shapes_of(&back.messages, &back.source, &back.formats),
            provider_of(format),
        );
        assert_eq!(v, vec![], "{format:?}: {encoded:?}");
    }
}
