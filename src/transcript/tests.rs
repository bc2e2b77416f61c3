use super::*;
use crate::message::{Role, ToolStatus};
use std::collections::HashSet;

const SWE: &str = include_str!("../../tests/fixtures/transcripts/sweagent-marshmallow-1867-fc.traj");
const CLAUDE: &str = include_str!("../../tests/fixtures/transcripts/claudecode-coverage-test-fix.jsonl");
const TAU: &str = include_str!("../../tests/fixtures/transcripts/taubench-gpt4o-airline-historical.json");
const OPENHANDS: &str = include_str!("../../tests/fixtures/transcripts/openhands-basic-gui-mode.json");
const UI_STREAM: &str = include_str!("../../tests/fixtures/transcripts/aisdk-uistream-langgraph-hitl-interrupt.json");
const LG_STREAM: &str = include_str!("../../tests/fixtures/transcripts/langgraph-lc-stream-supervisor.json");

fn one_run(t: Transcript) -> Vec<Message> {
    assert_eq!(t.runs.len(), 1);
    t.runs.into_iter().next().unwrap()
}

fn calls(ms: &[Message]) -> usize {
    ms.iter().map(|m| m.tool_calls.len()).sum()
}

fn all_results_match_calls(ms: &[Message]) {
    let ids: HashSet<&str> = ms.iter().flat_map(Message::call_ids).collect();
    for m in ms.iter().filter(|m| m.role == Role::Tool) {
        let id = m.tool_call_id.as_deref().unwrap();
        assert!(ids.contains(id), "tool result {id} answers no call");
    }
}

fn count(ms: &[Message], role: Role) -> usize {
    ms.iter().filter(|m| m.role == role).count()
}

#[test]
fn swe_agent_history() {
    let t = read_transcript(SWE).unwrap();
    assert_eq!(t.kind, TranscriptKind::SweAgent);
    let ms = one_run(t);
    // 28 records, every tool record lists exactly one id: 28 messages.
    assert_eq!(ms.len(), 28);
    assert_eq!(calls(&ms), 13);
    assert_eq!(count(&ms, Role::Tool), 13);
    assert_eq!(count(&ms, Role::Assistant), 13);
    assert_eq!(ms.first().unwrap().role, Role::System);
    assert_eq!(ms.last().unwrap().role, Role::Tool);
    assert_eq!(ms.last().unwrap().tool_call_id.as_deref(), Some("call_submit"));
    all_results_match_calls(&ms);
    let first_call = &ms[2].tool_calls[0];
    assert_eq!(first_call.name, "bash");
    assert_eq!(first_call.args, serde_json::json!({"command": "ls -F"}));
    // Unknown fields survive in `extra`; the id list does not.
    assert_eq!(ms[2].extra.get("action"), Some(&serde_json::json!("ls -F")));
    assert_eq!(ms[3].extra.get("message_type"), Some(&serde_json::json!("observation")));
    assert!(ms[3].extra.get("tool_call_ids").is_none());
}

#[test]
fn swe_agent_multi_id_tool_record_is_duplicated() {
    let text = r#"{"history": [
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}},
            {"id": "b", "type": "function", "function": {"name": "g", "arguments": "{\"x\":1}"}}]},
        {"role": "tool", "content": "out", "agent": "main", "tool_call_ids": ["a", "b"]}]}"#;
    let ms = one_run(read_transcript(text).unwrap());
    assert_eq!(ms.len(), 3);
    assert_eq!(ms[1].tool_call_id.as_deref(), Some("a"));
    assert_eq!(ms[2].tool_call_id.as_deref(), Some("b"));
    assert_eq!(ms[1].content, ms[2].content);
    assert_eq!(ms[2].extra.get("agent"), Some(&serde_json::json!("main")));
    let err = read_transcript(r#"{"history": [{"role": "tool", "content": "x", "tool_call_ids": []}]}"#).unwrap_err();
    assert_eq!(err.code, ErrorCode::MissingToolCallId);
    assert_eq!(err.index, Some(0));
}

#[test]
fn claude_code_session() {
    let t = read_transcript(CLAUDE).unwrap();
    assert_eq!(t.kind, TranscriptKind::ClaudeCode);
    let ms = one_run(t);
    // 38 records − 1 queue-operation, 14 assistant responses spread over 21 records.
    assert_eq!(ms.len(), 30);
    assert_eq!(calls(&ms), 13);
    assert_eq!(count(&ms, Role::Assistant), 14);
    assert_eq!(count(&ms, Role::Tool), 13);
    assert_eq!(count(&ms, Role::User), 3);
    // The two parallel groups are merged into one message each.
    assert_eq!(ms.iter().filter(|m| m.tool_calls.len() == 2).count(), 2);
    assert!(ms.iter().all(|m| m.tool_calls.len() <= 2));
    // Text + tool_use split over records 2 and 3 is one message with both.
    assert_eq!(ms[1].id.as_deref(), Some("msg_01FPWXTwsfd3wKFT1cfSakiA"));
    assert_eq!(ms[1].tool_calls.len(), 1);
    assert!(!ms[1].content.text().is_empty());
    let errors: Vec<&Message> = ms.iter().filter(|m| m.status == Some(ToolStatus::Error)).collect();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].role, Role::Tool);
    assert_eq!(errors[0].tool_call_id.as_deref(), Some("toolu_01LZHfE3DNUh3HBws9z8uhN2"));
    // Hook-injected (isMeta) records stay user messages.
    assert!(ms
        .iter()
        .filter(|m| m.role == Role::User)
        .skip(1)
        .all(|m| m.content.text().starts_with("Stop hook feedback")));
    assert_eq!(ms.first().unwrap().role, Role::User);
    assert_eq!(ms.last().unwrap().role, Role::Assistant);
    all_results_match_calls(&ms);
}

#[test]
fn claude_code_merges_only_consecutive_same_id() {
    let text = concat!(
        r#"{"type":"assistant","sessionId":"s","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"a"}]}}"#,
        "\n",
        r#"{"type":"queue-operation","sessionId":"s"}"#,
        "\n\n",
        r#"{"type":"assistant","sessionId":"s","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"x","input":{}}]}}"#,
        "\n",
        r#"{"type":"user","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}"#,
        "\n",
        r#"{"type":"assistant","sessionId":"s","message":{"id":"m1","role":"assistant","content":"again"}}"#,
    );
    let ms = one_run(read_transcript(text).unwrap());
    assert_eq!(ms.len(), 3);
    assert_eq!(ms[0].content.text(), "a");
    assert_eq!(ms[0].tool_calls.len(), 1);
    assert_eq!(ms[1].role, Role::Tool);
    assert_eq!(ms[2].content.text(), "again");
}

#[test]
fn tau_bench_runs() {
    let t = read_transcript(TAU).unwrap();
    assert_eq!(t.kind, TranscriptKind::TauBench);
    assert_eq!(t.runs.len(), 200);
    assert_eq!(t.runs.iter().map(Vec::len).sum::<usize>(), 5308);
    assert_eq!(t.runs.iter().map(|r| calls(r)).sum::<usize>(), 1164);
    for run in &t.runs {
        assert_eq!(run.first().unwrap().role, Role::System);
        all_results_match_calls(run);
    }
}

#[test]
fn openhands_events() {
    let t = read_transcript(OPENHANDS).unwrap();
    assert_eq!(t.kind, TranscriptKind::OpenHands);
    let ms = one_run(t);
    // user, 4 × (assistant + tool), assistant summary.
    assert_eq!(ms.len(), 10);
    assert_eq!(calls(&ms), 4);
    assert_eq!(count(&ms, Role::Tool), 4);
    all_results_match_calls(&ms);
    let first = ms.first().unwrap();
    assert_eq!(first.role, Role::User);
    assert!(first.content.text().starts_with("I want to create a VueJS app"));
    let last = ms.last().unwrap();
    assert_eq!(last.role, Role::Assistant);
    assert!(last.tool_calls.is_empty());
    assert!(last.content.text().starts_with("I've created a complete Vue.js todo application"));
    // Each call is answered right after it is made.
    for pair in ms[1..9].chunks(2) {
        assert_eq!(pair[1].tool_call_id.as_deref(), Some(pair[0].tool_calls[0].id.as_str()));
        assert_eq!(pair[1].name.as_deref(), Some(pair[0].tool_calls[0].name.as_str()));
    }
    // Empty `content` falls back to the observation's `message`.
    assert_eq!(ms[2].content.text(), "Command `mkdir -p /workspace/todo-app` executed with exit code 0.");
    assert_eq!(ms[2].status, Some(ToolStatus::Success));
    assert_eq!(ms[8].status, Some(ToolStatus::Error)); // the server that never returned (success: false)
}

#[test]
fn openhands_parallel_calls_emit_response_once() {
    let resp = r#"{"id":"r1","choices":[{"message":{"role":"assistant","content":"","tool_calls":[
        {"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}},
        {"id":"c2","type":"function","function":{"name":"f","arguments":"{}"}}]}}]}"#;
    let text = format!(
        r#"[{{"id":0,"source":"user","action":"message","args":{{"content":"go"}},"message":"go"}},
        {{"id":1,"source":"agent","action":"run","tool_call_metadata":{{"function_name":"f","tool_call_id":"c1","model_response":{resp}}}}},
        {{"id":2,"source":"agent","action":"run","tool_call_metadata":{{"function_name":"f","tool_call_id":"c2","model_response":{resp}}}}},
        {{"id":3,"source":"agent","observation":"run","cause":1,"content":"one","tool_call_metadata":{{"function_name":"f","tool_call_id":"c1","model_response":{resp}}}}},
        {{"id":4,"source":"agent","observation":"error","cause":2,"content":"","message":"boom","tool_call_metadata":{{"function_name":"f","tool_call_id":"c2","model_response":{resp}}}}},
        {{"id":5,"source":"environment","observation":"agent_state_changed","content":""}}]"#
    );
    let ms = one_run(read_transcript(&text).unwrap());
    assert_eq!(ms.len(), 4);
    assert_eq!(ms[1].tool_calls.len(), 2);
    assert_eq!(ms[3].content.text(), "boom");
    assert_eq!(ms[3].status, Some(ToolStatus::Error));
}

#[test]
fn plain_message_lists() {
    let t = read_transcript(r#"[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]"#).unwrap();
    assert_eq!(t.kind, TranscriptKind::OpenaiChat);
    assert_eq!(one_run(t).len(), 2);
    let t = read_transcript("{\"role\":\"user\",\"content\":\"hi\"}\n\n{\"role\":\"assistant\",\"content\":\"yo\"}\n")
        .unwrap();
    assert_eq!(t.kind, TranscriptKind::OpenaiChat);
    assert_eq!(one_run(t).len(), 2);
    assert_eq!(one_run(read_transcript("[]").unwrap()).len(), 0);
    // Decoding errors point at the JSONL line.
    let err = read_transcript("{\"role\":\"user\",\"content\":\"hi\"}\n\n{\"role\":\"critic\",\"content\":\"x\"}")
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::UnknownRole);
    assert_eq!(err.index, Some(2));
}

#[test]
fn forced_kind() {
    let t = read_transcript_kind(CLAUDE, TranscriptKind::ClaudeCode).unwrap();
    assert_eq!(calls(&t.runs[0]), 13);
    let err = read_transcript_kind("[]", TranscriptKind::SweAgent).unwrap_err();
    assert_eq!(err.code, ErrorCode::UnknownTranscriptFormat);
    let err = read_transcript_kind(r#"[{"traj": []}, {"x": 1}]"#, TranscriptKind::TauBench).unwrap_err();
    assert_eq!((err.code, err.index), (ErrorCode::UnknownTranscriptFormat, Some(1)));
    let err = read_transcript_kind(CLAUDE, TranscriptKind::OpenHands).unwrap_err();
    assert_eq!(err.code, ErrorCode::UnknownTranscriptFormat);
    assert_eq!(read_transcript_kind(SWE, TranscriptKind::SweAgent).unwrap().runs[0].len(), 28);
    // The same session as a JSON array of records is detected too.
    let records: Vec<serde_json::Value> = CLAUDE.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let t = read_transcript(&serde_json::to_string(&records).unwrap()).unwrap();
    assert_eq!((t.kind, t.runs[0].len()), (TranscriptKind::ClaudeCode, 30));
}

#[test]
fn bad_input() {
    for text in ["", "  \n\t", "{}", "42", "\"x\"", "null", "[1, 2]", r#"[{"foo": 1}]"#, r#"{"history": 3}"#] {
        let err = read_transcript(text).unwrap_err();
        assert_eq!(err.code, ErrorCode::UnknownTranscriptFormat, "{text:?}");
    }
    // JSONL whose third line (index 2) is broken.
    let text = "{\"sessionId\":\"s\",\"type\":\"queue-operation\"}\n{\"sessionId\":\"s\",\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n{\"sessionId\": \"s\", broken\n{\"sessionId\":\"s\"}\n";
    let err = read_transcript(text).unwrap_err();
    assert_eq!((err.code, err.index), (ErrorCode::InvalidJson, Some(2)));
    // A broken single document has no line index; the message never quotes input.
    let err = read_transcript("{\"history\": [secret").unwrap_err();
    assert_eq!((err.code, err.index), (ErrorCode::InvalidJson, None));
    assert!(!err.message.contains("secret"));
    // A record that is not an object in a Claude Code session.
    let err = read_transcript("{\"sessionId\":\"s\"}\n[1]\n").unwrap_err();
    assert_eq!((err.code, err.index), (ErrorCode::InvalidMessage, Some(1)));
}

#[test]
fn never_panics_on_truncations() {
    for text in [SWE, CLAUDE, OPENHANDS] {
        let mut cut = 0;
        while cut < text.len() {
            if text.is_char_boundary(cut) {
                let _ = read_transcript(&text[..cut]);
            }
            cut += 997;
        }
    }
}

#[test]
fn kind_names() {
    for kind in [
        TranscriptKind::OpenaiChat,
        TranscriptKind::SweAgent,
        TranscriptKind::TauBench,
        TranscriptKind::ClaudeCode,
        TranscriptKind::OpenHands,
        TranscriptKind::UiStream,
        TranscriptKind::LanggraphMessages,
    ] {
        assert_eq!(serde_json::to_value(kind).unwrap(), serde_json::json!(kind.as_str()));
    }
}

#[test]
fn recorded_streams_are_detected_by_shape_and_assembled_as_one_run() {
    let t = read_transcript(UI_STREAM).unwrap();
    assert_eq!(t.kind, TranscriptKind::UiStream);
    let ms = one_run(t);
    assert_eq!((ms.len(), calls(&ms)), (1, 1));
    assert_eq!(ms[0].tool_calls[0].name, "delete_file");
    let t = read_transcript(LG_STREAM).unwrap();
    assert_eq!(t.kind, TranscriptKind::LanggraphMessages);
    let ms = one_run(t);
    assert_eq!((ms.len(), calls(&ms)), (3, 2));
    assert_eq!(ms[2].content.text().split(' ').next(), Some("The"));
    // The other kinds keep theirs.
    for (text, kind) in [
        (SWE, TranscriptKind::SweAgent),
        (CLAUDE, TranscriptKind::ClaudeCode),
        (TAU, TranscriptKind::TauBench),
        (OPENHANDS, TranscriptKind::OpenHands),
    ] {
        assert_eq!(read_transcript(text).unwrap().kind, kind);
    }
    assert_eq!(read_transcript(r#"[{"type": "human", "content": "hi"}]"#).unwrap().kind, TranscriptKind::OpenaiChat);
}
