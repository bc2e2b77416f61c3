//! Property tests: [`super::plan`] and [`super::validate_shapes`], indexed by position, give
//! exactly what the code they replaced gives ([`super::reference`]) on random histories — ids
//! drawn from a small pool so that they repeat across turns, results that are misplaced,
//! duplicated, orphaned or placeholders, runs of Responses items (one turn of several messages),
//! Anthropic messages of several parts, AI SDK approval responses — under every provider and
//! the repair options.

use super::{plan, reference, validate_shapes, CallShape, Provider, Reason, RepairOptions, Shape, Shapes, ToolContent};
use crate::message::formats::Format;
use crate::message::Role;
use proptest::prelude::*;

const IDS: [&str; 7] = ["c0", "c1", "c2", "c3", "c4", "c5", ""];
const NAMES: [&str; 3] = ["search", "", "read_file"];
const FORMATS: [Format; 5] = [Format::Openai, Format::Langchain, Format::Anthropic, Format::Responses, Format::AiSdk];
const CONTENTS: [ToolContent; 5] =
    [ToolContent::Text, ToolContent::TextParts, ToolContent::EmptyParts, ToolContent::Json, ToolContent::Media];

/// One message drawn from small numbers: (role, format, same source as the one before, call ids
/// as a bit set with invalid ones, its result id, flags).
type Spec = (u8, u8, bool, u8, u8, u8, u8, u16);

fn history(specs: &[Spec]) -> Shapes<'static> {
    let mut out = Shapes::default();
    let mut source = 0;
    let mut part = 0;
    for (i, &(role, format, joined, calls, invalid, result, name, flags)) in specs.iter().enumerate() {
        if i > 0 {
            if joined {
                part += 1;
            } else {
                source += 1;
                part = 0;
            }
        }
        let role =
            [Role::User, Role::Assistant, Role::Tool, Role::Assistant, Role::Tool, Role::System][role as usize % 6];
        let format = FORMATS[format as usize % FORMATS.len()];
        let flag = |k: u16| flags & (1 << k) != 0;
        let tool_call_id = match (role, result as usize % 9) {
            (Role::Tool, 8) => None,
            (Role::Tool, k) => Some(IDS[k % IDS.len()]),
            _ => None,
        };
        let shape = Shape {
            source,
            part,
            format,
            role,
            calls_at: 0,
            n_calls: 0,
            tool_call_id,
            empty_text_part: flag(0),
            empty: flag(1),
            foreign_only: flag(2),
            nothing_for_anthropic: flag(3),
            tool_content: CONTENTS[(flags >> 4) as usize % CONTENTS.len()],
            error: flag(7),
            synthetic: role == Role::Tool && flag(8),
            aside: role == Role::Tool && format == Format::AiSdk && flag(9) && flag(10),
        };
        // Distinct ids within one message, as the decoder makes them.
        let ids = if role == Role::Assistant { calls } else { 0 };
        let list = (0..IDS.len()).filter(|k| ids & (1 << k) != 0).map(|k| CallShape {
            id: IDS[k],
            name: NAMES[(name as usize + k) % NAMES.len()],
            invalid: invalid & (1 << k) != 0,
            approval: None,
        });
        out.push(shape, list);
    }
    out
}

fn options(provider: u8, keep_orphans: bool, reasons: u8, text: bool) -> RepairOptions {
    let provider =
        [None, Some(Provider::Openai), Some(Provider::Anthropic), Some(Provider::Gemini)][provider as usize % 4];
    let kinds = [Reason::Missing, Reason::Interrupted, Reason::Rejected, Reason::InvalidArgs];
    let reasons = (0..4)
        .filter(|k| reasons & (1 << k) != 0)
        .map(|k| (IDS[k].to_string(), kinds[(k + reasons as usize / 16) % 4]))
        .collect();
    RepairOptions {
        provider,
        reasons,
        keep_orphans,
        text: text.then(|| "no result: {name} {id} {reason}".into()),
        ..RepairOptions::default()
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]
    #[test]
    fn plan_and_validate_answer_as_before(
        specs in proptest::collection::vec(any::<Spec>(), 0..24),
        provider in any::<u8>(),
        keep_orphans in any::<bool>(),
        reasons in any::<u8>(),
        text in any::<bool>(),
    ) {
        let shapes = history(&specs);
        let opts = options(provider, keep_orphans, reasons, text);
        prop_assert_eq!(plan(&shapes, &opts), reference::plan(&shapes, &opts));
        for p in [Provider::Openai, Provider::Anthropic, Provider::Gemini] {
            prop_assert_eq!(validate_shapes(&shapes, p), reference::validate(&shapes, p));
        }
    }
}

/// Histories of whole turns (a user message, an assistant turn, its results in some order), so
/// that most calls are answered in place, as in real histories, with a few defects.
fn turn_history(turns: &[(u8, u8, u8, u8)]) -> Shapes<'static> {
    let mut specs: Vec<Spec> = Vec::new();
    for &(calls, fate, order, extra) in turns {
        specs.push((0, 0, false, 0, 0, 0, 0, 0));
        let calls = calls & 0x3f;
        specs.push((1, extra % 2, false, calls, 0, 0, extra, 0));
        let mut ids: Vec<u8> = (0..6).filter(|k| calls & (1 << k) != 0).collect();
        if order % 2 == 1 {
            ids.reverse();
        }
        for (j, &k) in ids.iter().enumerate() {
            match (fate >> (j % 4)) & 3 {
                0 => {}                                                                          // dangling
                1 => specs.push((2, extra % 2, false, 0, 0, k, 0, 0)),                           // a result
                2 => specs.push((2, extra % 2, false, 0, 0, k, 0, 1 << 8)),                      // a placeholder
                _ => specs.extend([(2, 0, false, 0, 0, k, 0, 0), (2, 0, false, 0, 0, k, 0, 0)]), // twice
            }
        }
    }
    history(&specs)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]
    #[test]
    fn plan_and_validate_answer_as_before_on_whole_turns(
        turns in proptest::collection::vec(any::<(u8, u8, u8, u8)>(), 0..12),
        provider in any::<u8>(),
        keep_orphans in any::<bool>(),
    ) {
        let shapes = turn_history(&turns);
        let opts = options(provider, keep_orphans, 0, false);
        prop_assert_eq!(plan(&shapes, &opts), reference::plan(&shapes, &opts));
        for p in [Provider::Openai, Provider::Anthropic, Provider::Gemini] {
            prop_assert_eq!(validate_shapes(&shapes, p), reference::validate(&shapes, p));
        }
    }
}

#[test]
fn a_large_turn_matches_its_block_by_id() {
    // 40 calls, their results in reverse order with every seventh missing: past the size where
    // a turn's calls are matched with its block by a linear scan.
    let ids: Vec<String> = (0..40).map(|k| format!("call-{k}")).collect();
    let mut shapes = history(&[(0, 0, false, 0, 0, 0, 0, 0)]);
    let user = shapes.first().cloned().expect("one message");
    shapes.push(
        Shape { role: Role::Assistant, source: 1, ..user.clone() },
        ids.iter().map(|id| CallShape { id, name: "f", invalid: false, approval: None }),
    );
    for (k, id) in ids.iter().enumerate().rev().filter(|(k, _)| k % 7 != 3) {
        shapes.push(Shape { role: Role::Tool, source: 2 + k, tool_call_id: Some(id), ..user.clone() }, []);
    }
    for p in [Provider::Openai, Provider::Anthropic, Provider::Gemini] {
        let opts = RepairOptions { provider: Some(p), ..RepairOptions::default() };
        let (items, report) = plan(&shapes, &opts);
        assert_eq!((items.clone(), report.clone()), reference::plan(&shapes, &opts));
        assert_eq!(report.len(), 6, "one placeholder per unanswered call: {report:?}");
        assert_eq!(items.len(), 2 + 40);
        assert_eq!(validate_shapes(&shapes, p), reference::validate(&shapes, p));
    }
}
