//! Tests of the Gemini reader and writer (`gemini.rs`): pairing of id-less calls and responses,
//! orphans, fields it does not read, and one kind of data a part.

use super::*;
use crate::message::Content;
use serde_json::json;

#[test]
fn gemini_id_less_calls_pair_by_order() {
    let input = vec![
        json!({"role": "model", "parts": [{"functionCall": {"name": "a", "args": {}}}, {"functionCall": {"name": "b", "args": {}}}]}),
        json!({"role": "user", "parts": [{"functionResponse": {"name": "b", "response": {"result": "B"}}}, {"functionResponse": {"name": "a", "response": {"result": "A"}}}]}),
    ];
    let ms = decode_messages(&input, None).unwrap().messages;
    assert_eq!(ms[0].tool_calls[0].id, "gemini-0-0");
    assert_eq!(ms[1].tool_call_id.as_deref(), Some("gemini-0-1"));
    assert_eq!(ms[2].tool_call_id.as_deref(), Some("gemini-0-0"));
}

#[test]
fn gemini_a_response_naming_its_call_is_paired_before_id_less_ones() {
    // fuzz project-12: two calls of one name, the first with an id; an id-less response must
    // answer the other call wherever it stands among the turn's responses.
    let call = json!({"role": "model", "parts": [{"functionCall": {"id": "to", "name": "Edit", "args": {}}}, {"functionCall": {"name": "Edit", "args": {}}}]});
    let named = json!({"functionResponse": {"id": "to", "name": "Edit", "response": {"result": "A"}}});
    let unnamed = json!({"functionResponse": {"name": "Edit", "response": {"result": "B"}}});
    for parts in [json!([named, unnamed]), json!([unnamed, named])] {
        let input = vec![call.clone(), json!({"role": "user", "parts": parts})];
        let ms = decode_messages(&input, None).unwrap().messages;
        let mut answers: Vec<(&str, String)> =
            ms[1..].iter().map(|m| (m.tool_call_id.as_deref().unwrap(), m.content.text())).collect();
        answers.sort();
        assert_eq!(answers, [("gemini-0-1", "B".to_string()), ("to", "A".to_string())], "{parts}");
        assert!(crate::repair::validate_values(&input, crate::repair::Provider::Gemini).unwrap().is_empty());
    }
}

#[test]
fn gemini_fields_it_does_not_read_are_refused() {
    // @google/genai's FunctionCall and FunctionResponse have fields beyond id, name, args /
    // response: dropping them would change what the history says.
    let cases = [
        (
            json!({"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}, "partialArgs": [{"jsonPath": "$.a"}]}}]}),
            "part 0",
            "`partialArgs`",
        ),
        (
            json!({"role": "user", "parts": [{"text": "see"}, {"functionResponse": {"name": "f", "response": {}, "parts": [{"inlineData": {"mimeType": "image/png", "data": "AA=="}}]}}]}),
            "part 1",
            "`parts`",
        ),
        (
            json!({"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {}, "willContinue": true, "scheduling": "SILENT"}}]}),
            "part 0",
            "`willContinue`, `scheduling`",
        ),
        (
            json!({"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {}, "k".repeat(5000): 1}}]}),
            "part 0",
            &format!("`{}…`", "k".repeat(40)),
        ),
    ];
    for (v, part, keys) in cases {
        let err = decode_messages(std::slice::from_ref(&v), None).unwrap_err();
        assert_eq!(
            (err.code, err.field.as_deref(), err.index),
            (ErrorCode::InvalidMessage, Some("parts"), Some(0)),
            "{v}"
        );
        assert!(err.message.starts_with(&format!("{part}: a Gemini")), "{}", err.message);
        assert!(err.message.contains(&format!(" with {keys} is not read")), "{}", err.message);
        assert!(err.message.len() < 400, "{}", err.message);
    }
    // A field whose value says nothing loses nothing: read as before.
    let quiet = json!({"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {"result": "ok"}, "id": "c1", "parts": [], "willContinue": false, "scheduling": null, "partialArgs": {}}}]});
    let ms = decode_messages(std::slice::from_ref(&quiet), None).unwrap().messages;
    assert_eq!((ms[0].tool_call_id.as_deref(), ms[0].content.text()), (Some("c1"), "ok".to_string()));
}

#[test]
fn gemini_a_part_with_two_kinds_of_data_is_refused() {
    // `Part.data` is a oneof: a part with text and a call became the call, and the text was kept
    // only for a Gemini request (converted to OpenAI it was gone); text beside inline data, the
    // same with the image.
    let cases = [
        (
            json!({"role": "model", "parts": [{"text": "calling", "functionCall": {"name": "f", "args": {"a": 1}}}]}),
            "part 0",
            "`text` and `functionCall`",
        ),
        (
            json!({"role": "user", "parts": [{"text": "hi"}, {"text": "look", "inlineData": {"mimeType": "image/png", "data": "AAAA"}}]}),
            "part 1",
            "`text` and `inlineData`",
        ),
        (
            json!({"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {}}, "fileData": {"fileUri": "gs://b/x.pdf"}, "executableCode": {"code": "1"}}]}),
            "part 0",
            "`functionResponse` and `fileData` and `executableCode`",
        ),
    ];
    for (v, part, fields) in cases {
        for format in [None, Some(Format::Gemini)] {
            let err = match format {
                None => decode_messages(std::slice::from_ref(&v), None),
                Some(f) => decode_messages_as(std::slice::from_ref(&v), f),
            }
            .unwrap_err();
            assert_eq!(
                (err.code, err.field.as_deref(), err.index),
                (ErrorCode::InvalidMessage, Some("parts"), Some(0)),
                "{v}"
            );
            assert_eq!(
                err.message,
                format!("{part}: a Gemini part holds one kind of data (`Part.data` is a oneof), and this one has {fields}; put each in a part of its own"),
            );
        }
    }
    // A field that says nothing beside the data, and a thought's text with its signature, are one kind.
    let quiet = json!({"role": "model", "parts": [
        {"text": "", "functionCall": {"name": "f", "args": {}}},
        {"text": "plan", "thought": true, "thoughtSignature": "c2ln"},
        {"inlineData": {"mimeType": "image/png", "data": "AAAA"}, "fileData": null},
    ]});
    let ms = decode_messages(std::slice::from_ref(&quiet), None).unwrap().messages;
    assert_eq!((ms.len(), ms[0].tool_calls.len()), (1, 1));
    assert!(matches!(&ms[0].content, Content::Parts(p) if p.len() == 2), "{:?}", ms[0].content);
}

#[test]
fn gemini_a_response_left_with_no_call_is_an_orphan() {
    // Every call answered by id, then one more id-less response: it answers no call (it was read
    // as a second result of the first call, and refused for an empty `tool_call_id` after that).
    let input = vec![
        json!({"role": "model", "parts": [{"functionCall": {"id": "a", "name": "w", "args": {}}}]}),
        json!({"role": "user", "parts": [{"functionResponse": {"id": "a", "name": "w", "response": {}}}, {"functionResponse": {"name": "w", "response": {}}}]}),
    ];
    let ms = decode_messages(&input, None).unwrap().messages;
    assert_eq!(ms[2].tool_call_id.as_deref(), Some("gemini-1-0"));
    let rules: Vec<_> = crate::repair::validate_values(&input, crate::repair::Provider::Gemini)
        .unwrap()
        .into_iter()
        .map(|v| (v.rule, v.index))
        .collect();
    assert_eq!(
        rules,
        [(crate::repair::Rule::CallResponseCountMismatch, 0), (crate::repair::Rule::OrphanToolResult, 1)]
    );
    let (_, report) = crate::repair::repair_outputs(&input, &crate::repair::RepairOptions::default()).unwrap();
    assert_eq!(
        report.iter().map(|f| (f.kind, f.action)).collect::<Vec<_>>(),
        [(crate::repair::FixKind::OrphanResult, crate::repair::Action::Dropped)]
    );
    // Written back as it came: the id it was given is not the API's.
    assert_eq!(encode_messages(&ms, Format::Gemini), input);
}

#[test]
fn gemini_results_are_named_after_their_call() {
    let values = vec![
        json!({"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "shot", "arguments": "{}"}}]}),
        json!({"role": "tool", "tool_call_id": "c1", "content": "ok"}),
    ];
    let d = decode_messages(&values, None).unwrap();
    let out = encode_messages(&d.messages, Format::Gemini);
    assert_eq!(out[1]["parts"][0]["functionResponse"]["name"], "shot");
}

#[test]
fn gemini_an_id_less_response_named_after_no_call_answers_none() {
    // It was paired with the first call left, by order: a guess at what it answers.
    let input = vec![
        json!({"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}}}, {"functionCall": {"name": "g", "args": {}}}]}),
        json!({"role": "user", "parts": [{"functionResponse": {"name": "h", "response": {"result": "H"}}}, {"functionResponse": {"name": "g", "response": {"result": "G"}}}]}),
    ];
    let ms = decode_messages(&input, None).unwrap().messages;
    let ids: Vec<_> = ms[1..].iter().map(|m| m.tool_call_id.as_deref().unwrap()).collect();
    assert_eq!(ids, ["gemini-1-0", "gemini-0-1"]);
    let rules: Vec<_> = crate::repair::validate_values(&input, crate::repair::Provider::Gemini)
        .unwrap()
        .into_iter()
        .map(|v| (v.rule, v.tool_call_id))
        .collect();
    assert_eq!(
        rules,
        [
            (crate::repair::Rule::MissingToolResult, Some("gemini-0-0".to_string())),
            (crate::repair::Rule::OrphanToolResult, Some("gemini-1-0".to_string()))
        ]
    );
    // A nameless response still pairs by order.
    let nameless = vec![
        input[0].clone(),
        json!({"role": "user", "parts": [{"functionResponse": {"response": {"result": "F"}}}, {"functionResponse": {"name": "g", "response": {"result": "G"}}}]}),
    ];
    let ms = decode_messages(&nameless, None).unwrap().messages;
    let ids: Vec<_> = ms[1..].iter().map(|m| m.tool_call_id.as_deref().unwrap()).collect();
    assert_eq!(ids, ["gemini-0-0", "gemini-0-1"]);
}
