use super::*;
use crate::message::formats::decode_messages;
use crate::message::Role;
use serde_json::{json, Value};

fn msgs(v: Value) -> Vec<Message> {
    decode_messages(v.as_array().unwrap(), None).unwrap().messages
}

/// Validates by input index, as the JS API does (one input message may hold several results).
fn rules_in(input: &Value, p: Provider) -> Vec<(Rule, usize, Option<String>)> {
    validate_values(input.as_array().unwrap(), p)
        .unwrap()
        .into_iter()
        .map(|v| (v.rule, v.index, v.tool_call_id))
        .collect()
}

fn rules(ms: &[Message], p: Provider) -> Vec<(Rule, usize, Option<String>)> {
    validate(ms, p).into_iter().map(|v| (v.rule, v.index, v.tool_call_id)).collect()
}

fn call(id: &str, name: &str) -> Value {
    json!({"id": id, "type": "function", "function": {"name": name, "arguments": "{}"}})
}

fn assert_clean_and_idempotent(out: &[Message], opts: &RepairOptions) {
    for p in [Provider::Openai, Provider::Anthropic, Provider::Gemini] {
        let enc = crate::encode_messages(out, p.format());
        let back = decode_messages(&enc, Some(p.format())).unwrap();
        let v = validate_shapes(&shapes_of(&back.messages, &back.source, &back.formats), p);
        assert!(v.is_empty(), "{p:?}: {v:?}");
    }
    let (again, report) = repair(out, opts);
    assert_eq!(again, out, "a second repair changes nothing");
    assert!(report.is_empty(), "{report:?}");
}

#[test]
fn rejected_call_gets_error_result_before_the_real_one() {
    let ms = msgs(json!([
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": null, "tool_calls": [call("c1", "gated"), call("c2", "free")]},
        {"role": "tool", "tool_call_id": "c2", "content": "ok"}
    ]));
    assert_eq!(rules(&ms, Provider::Openai), vec![(Rule::MissingToolResult, 1, Some("c1".into()))]);
    let opts = RepairOptions { reasons: [("c1".to_string(), Reason::Rejected)].into(), ..Default::default() };
    let (out, report) = repair(&ms, &opts);
    assert_eq!(out.len(), 4);
    assert_eq!(out[2].tool_call_id.as_deref(), Some("c1"));
    assert_eq!(out[2].status, Some(ToolStatus::Error));
    assert!(out[2].content.text().contains("rejected"), "{:?}", out[2].content);
    assert_eq!(out[3], ms[2], "c2's result untouched");
    assert_eq!(
        report,
        vec![Fix {
            kind: FixKind::Rejected,
            action: Action::Inserted,
            index: 1,
            tool_call_id: Some("c1".into()),
            approval_id: None
        }]
    );
    assert_clean_and_idempotent(&out, &opts);
}

#[test]
fn whole_history_is_scanned_not_only_the_last_assistant() {
    let ms = msgs(json!([
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": null, "tool_calls": [call("c1", "search")]},
        {"role": "assistant", "content": "You interrupted me — what next?"},
        {"role": "user", "content": "go on"}
    ]));
    let (out, report) = repair(&ms, &RepairOptions::default());
    assert_eq!(out[2].role, Role::Tool);
    assert_eq!(out[2].tool_call_id.as_deref(), Some("c1"));
    assert_eq!(out[3].content.text(), "You interrupted me — what next?");
    assert_eq!(report.len(), 1);
    assert_eq!(report[0].kind, FixKind::MissingResult);
    assert_clean_and_idempotent(&out, &RepairOptions::default());
}

#[test]
fn invalid_arguments_get_their_own_reason_and_no_cancel_claim() {
    let ms = msgs(json!([
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": "", "tool_calls": [call("c1", "ok"), {"id": "c2", "type": "function", "function": {"name": "bad", "arguments": "{bad"}}]}
    ]));
    let (out, report) = repair(&ms, &RepairOptions::default());
    let kinds: Vec<_> = report.iter().map(|f| (f.kind, f.tool_call_id.clone().unwrap())).collect();
    assert_eq!(kinds, vec![(FixKind::MissingResult, "c1".to_string()), (FixKind::InvalidArgs, "c2".to_string())]);
    for m in &out[2..] {
        assert_eq!(m.status, Some(ToolStatus::Error));
        let t = m.content.text().to_lowercase();
        assert!(!t.contains("cancel") && !t.contains("user"), "{t}");
    }
    assert!(out[3].content.text().contains("malformed"));
    assert_clean_and_idempotent(&out, &RepairOptions::default());
}

#[test]
fn duplicate_results_keep_exactly_one() {
    let ms = msgs(json!([
        {"role": "user", "content": "rm"},
        {"role": "assistant", "content": null, "tool_calls": [call("c1", "rm")]},
        {"role": "tool", "tool_call_id": "c1", "content": "deleted"},
        {"role": "tool", "tool_call_id": "c1", "content": "deleted"}
    ]));
    assert_eq!(rules(&ms, Provider::Openai), vec![(Rule::DuplicateToolResult, 3, Some("c1".into()))]);
    let (out, report) = repair(&ms, &RepairOptions::default());
    assert_eq!(out.iter().filter(|m| m.role == Role::Tool).count(), 1);
    assert_eq!(report[0].kind, FixKind::DuplicateResult);
    assert_clean_and_idempotent(&out, &RepairOptions::default());
}

#[test]
fn real_result_wins_over_placeholder_and_misplaced_is_moved() {
    let ph = Reason::Missing.text("f", "c1");
    let ms = msgs(json!([
        {"role": "user", "content": "x"},
        {"role": "assistant", "content": null, "tool_calls": [call("c1", "f")]},
        {"role": "tool", "tool_call_id": "c1", "content": ph},
        {"role": "user", "content": "later"},
        {"role": "tool", "tool_call_id": "c1", "content": "the real answer"}
    ]));
    let (out, report) = repair(&ms, &RepairOptions::default());
    assert_eq!(out.len(), 4);
    assert_eq!(out[2].content.text(), "the real answer");
    assert!(report.iter().any(|f| f.kind == FixKind::MisplacedResult && f.index == 4 && f.action == Action::Moved));
    assert!(report.iter().any(|f| f.kind == FixKind::DuplicateResult && f.index == 2));
    assert_clean_and_idempotent(&out, &RepairOptions::default());
}

#[test]
fn empty_anthropic_text_block_is_dropped_and_empty_assistant_removed() {
    let ms = msgs(json!([
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "text", "text": ""}, {"type": "tool_use", "id": "t1", "name": "f", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "r"}]},
        {"role": "assistant", "content": [{"type": "text", "text": ""}]},
        {"role": "user", "content": "next"}
    ]));
    let v = rules(&ms, Provider::Anthropic);
    assert!(v.contains(&(Rule::EmptyTextBlock, 1, None)), "{v:?}");
    assert!(v.contains(&(Rule::EmptyMessage, 3, None)), "{v:?}");
    let (out, report) = repair(&ms, &RepairOptions { provider: Some(Provider::Anthropic), ..Default::default() });
    assert_eq!(out.len(), 4);
    assert_eq!(out[1].tool_calls[0].id, "t1");
    assert_eq!(out[1].content, Content::Parts(vec![]));
    assert!(report.iter().any(|f| f.kind == FixKind::EmptyText && f.index == 1));
    assert!(report.iter().any(|f| f.kind == FixKind::EmptyMessage && f.index == 3 && f.action == Action::Dropped));
}

#[test]
fn tool_content_for_text_only_providers() {
    let ms = msgs(json!([
        {"type": "human", "content": "x"},
        {"type": "ai", "content": "", "tool_calls": [{"id": "a", "name": "f", "args": {}}, {"id": "b", "name": "f", "args": {}}, {"id": "c", "name": "f", "args": {}}]},
        {"type": "tool", "tool_call_id": "a", "content": []},
        {"type": "tool", "tool_call_id": "b", "content": [{"type": "text", "text": "x"}, {"type": "text", "text": "y"}]},
        {"type": "tool", "tool_call_id": "c", "content": [{"type": "image", "url": "https://x/y.png"}]}
    ]));
    let v = rules(&ms, Provider::Openai);
    assert!(v.contains(&(Rule::ToolContentNotText, 2, Some("a".into()))), "{v:?}");
    assert!(v.contains(&(Rule::NonTextToolResult, 4, Some("c".into()))), "{v:?}");
    assert!(rules(&ms, Provider::Anthropic).is_empty());
    let opts = RepairOptions { provider: Some(Provider::Openai), ..Default::default() };
    let (out, _) = repair(&ms, &opts);
    assert_eq!(out[2].content, Content::Text("[]".into()));
    assert_eq!(out[3].content, Content::Text("x\ny".into()), "text blocks one per line, never run together");
    assert!(out[4].content.text().contains("image omitted"));
    assert_clean_and_idempotent(&out, &opts);
}

#[test]
fn anthropic_results_after_text_and_split_results() {
    let input = json!([
        {"role": "user", "content": "x"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "f", "input": {}}, {"type": "tool_use", "id": "b", "name": "f", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a", "content": "1"}]},
        {"role": "user", "content": [{"type": "text", "text": "hm"}, {"type": "tool_result", "tool_use_id": "b", "content": "2"}]}
    ]);
    let v = rules_in(&input, Provider::Anthropic);
    assert_eq!(v, vec![(Rule::ResultAfterText, 3, Some("b".into()))]);
    let opts = RepairOptions { provider: Some(Provider::Anthropic), ..Default::default() };
    let (out, report) = repair_values(input.as_array().unwrap(), &opts).unwrap();
    assert_eq!(out.len(), 4);
    assert_eq!(out[0], input[0], "untouched messages come back as they were");
    assert_eq!(out[1], input[1]);
    assert_eq!(out[2]["content"].as_array().unwrap().len(), 2, "{:?}", out[2]);
    assert_eq!(out[3], json!({"role": "user", "content": [{"type": "text", "text": "hm"}]}));
    assert_eq!(
        report,
        vec![Fix {
            kind: FixKind::MisplacedResult,
            action: Action::Moved,
            index: 3,
            tool_call_id: Some("b".into()),
            approval_id: None
        }]
    );
    assert!(validate_values(&out, Provider::Anthropic).unwrap().is_empty());
    // results of one turn split over two Anthropic messages
    let split = json!([input[0], input[1], input[2], {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "b", "content": "2"}]}]);
    assert_eq!(rules_in(&split, Provider::Anthropic), vec![(Rule::ResultsSplit, 3, Some("b".into()))]);
    assert!(rules_in(&split, Provider::Openai).is_empty());
}

#[test]
fn orphans_dropped_or_kept_and_gemini_counts() {
    let ms = msgs(json!([
        {"role": "tool", "tool_call_id": "ghost", "content": "boo"},
        {"role": "user", "content": "x"},
        {"role": "assistant", "content": null, "tool_calls": [call("a", "f"), call("b", "g")]},
        {"role": "tool", "tool_call_id": "a", "content": "1"}
    ]));
    let g = rules(&ms, Provider::Gemini);
    assert!(g.contains(&(Rule::OrphanToolResult, 0, Some("ghost".into()))));
    assert!(g.contains(&(Rule::CallResponseCountMismatch, 2, None)));
    assert!(g.contains(&(Rule::MissingToolResult, 2, Some("b".into()))));
    let (out, report) = repair(&ms, &RepairOptions::default());
    assert_eq!(out[0].content.text(), "x");
    assert!(report.iter().any(|f| f.kind == FixKind::OrphanResult && f.action == Action::Dropped));
    let (kept, _) = repair(&ms, &RepairOptions { keep_orphans: true, ..Default::default() });
    assert_eq!(kept[0].tool_call_id.as_deref(), Some("ghost"));
}

#[test]
fn call_ids_reused_across_turns_are_answered_per_turn() {
    // tau-bench reuses one call id in two assistant turns, each answered in its own block.
    let ms = msgs(json!([
        {"role": "user", "content": "x"},
        {"role": "assistant", "content": null, "tool_calls": [call("c1", "f")]},
        {"role": "tool", "tool_call_id": "c1", "content": "1"},
        {"role": "assistant", "content": null, "tool_calls": [call("c1", "g")]},
        {"role": "tool", "tool_call_id": "c1", "content": "2"},
        {"role": "assistant", "content": null, "tool_calls": [call("c1", "h")]}
    ]));
    assert_eq!(rules(&ms, Provider::Openai), vec![(Rule::MissingToolResult, 5, Some("c1".into()))]);
    let (out, report) = repair(&ms, &RepairOptions::default());
    assert_eq!(out[2].content.text(), "1");
    assert_eq!(out[4].content.text(), "2");
    assert_eq!(out[6].status, Some(ToolStatus::Error));
    assert_eq!(report.len(), 1);
    assert_clean_and_idempotent(&out, &RepairOptions::default());
}

/// An id-less Gemini turn (older models send no ids; calls pair with responses by order) stays
/// id-less when repair rewrites its responses: no response carries an id its call lacks, and the
/// responses follow the calls' order, so Gemini pairs each with its own call.
#[test]
fn an_id_less_gemini_turn_is_repaired_id_less_in_call_order() {
    let input = [
        json!({"role": "user", "parts": [{"text": "weather in Paris and Rome"}]}),
        json!({"role": "model", "parts": [{"functionCall": {"name": "weather", "args": {"city": "Paris"}}}, {"functionCall": {"name": "weather", "args": {"city": "Rome"}}}]}),
        json!({"role": "user", "parts": [{"functionResponse": {"name": "weather", "response": {"t": 18}}}]}),
    ];
    let (out, report) = super::repair_outputs(&input, &RepairOptions::default()).unwrap();
    assert_eq!(report.len(), 1);
    let turn = match out.last() {
        Some(super::Output::New(v)) => v.clone(),
        other => panic!("the response turn is rewritten: {other:?}"),
    };
    let responses: Vec<&Value> = turn["parts"].as_array().unwrap().iter().map(|p| &p["functionResponse"]).collect();
    assert_eq!(responses.len(), 2);
    assert!(responses.iter().all(|r| r.get("id").is_none()), "{turn}");
    assert_eq!(responses[0]["response"], json!({"t": 18}), "Paris's result first, as its call is");
    assert!(responses[1]["response"]["error"].as_str().unwrap().contains("no result was recorded"), "{turn}");
    assert!(matches!(out[1], super::Output::Original(1)), "the calls are untouched");
    // Read back, it pairs as it was meant to, and needs nothing more.
    let again: Vec<Value> = out
        .iter()
        .map(|o| match o {
            super::Output::Original(i) => input[*i].clone(),
            super::Output::New(v) => v.clone(),
        })
        .collect();
    assert_eq!(super::validate_values(&again, Provider::Gemini).unwrap(), Vec::new());
    let d = crate::message::formats::decode_messages(&again, None).unwrap();
    assert_eq!(d.messages[2].content, crate::message::Content::Text("{\"t\":18}".into()));
    assert_eq!(d.messages[2].tool_call_id.as_deref(), Some("gemini-1-0"));
}

#[test]
fn a_placeholder_template_is_filled_in_one_pass() {
    // A name or id holding a field is written as it is: replacing field after field printed a
    // tool named `{id}` as its id, and let a name of many `{id}`s multiply the id.
    let s = Synthetic {
        id: "c{name}1".into(),
        name: "{id}{id}".into(),
        reason: Reason::Rejected,
        after: 0,
        text: None,
        approval: None,
    };
    let opts = RepairOptions { text: Some("{name} / {id} / {reason} / {x} {".into()), ..RepairOptions::default() };
    assert_eq!(opts.placeholder(&s), "{id}{id} / c{name}1 / rejected / {x} {");
    assert_eq!(opts.placeholder_len(&s), opts.placeholder(&s).len());
    let plain = RepairOptions::default();
    assert_eq!(
        plain.placeholder(&s),
        "Tool call {id}{id} with id c{name}1 was rejected by a reviewer and did not run."
    );
    let unnamed = Synthetic { name: String::new(), ..s };
    assert_eq!(plain.placeholder(&unnamed), Reason::Rejected.text("", "c{name}1"));
    assert!(plain.placeholder(&unnamed).starts_with("Tool call unknown with id"));
    assert_eq!(plain.placeholder_len(&unnamed), plain.placeholder(&unnamed).len());
}

#[test]
fn placeholders_past_their_bound_are_refused_before_any_is_made() {
    // As many placeholders as fit the bound, then one more: a template of 1,024 4-byte characters.
    let text = "😀".repeat(1024);
    let opts = RepairOptions { text: Some(text.clone()), ..RepairOptions::default() };
    let per = text.len();
    let synthetic = |k: usize| {
        Item::Synthetic(Box::new(Synthetic {
            id: format!("c{k}"),
            name: "f".into(),
            reason: Reason::Missing,
            after: 0,
            text: None,
            approval: None,
        }))
    };
    let fits: Vec<Item> = (0..MAX_PLACEHOLDER_BYTES / per).map(synthetic).collect();
    assert!(check_placeholders(&fits, &opts).is_ok());
    let over: Vec<Item> = (0..=MAX_PLACEHOLDER_BYTES / per).map(synthetic).collect();
    let e = check_placeholders(&over, &opts).unwrap_err();
    assert_eq!((e.code, e.field.as_deref()), (ErrorCode::TooLarge, Some("text")));
    assert!(e.message.contains(&format!("{} placeholder results", over.len())), "{}", e.message);
    // Through repair_outputs: 33,000 dangling calls with that template ask for 135 MB.
    let calls: Vec<Value> = (0..33_000).map(|k| json!({"id": format!("c{k}"), "name": "f", "args": {}})).collect();
    let values = vec![json!({"type": "ai", "content": "", "tool_calls": calls})];
    let e = repair_outputs(&values, &opts).unwrap_err();
    assert_eq!(e.code, ErrorCode::TooLarge);
    let (out, report) = repair_outputs(&values, &RepairOptions::default()).unwrap();
    assert_eq!((out.len(), report.len()), (33_001, 33_000));
}
