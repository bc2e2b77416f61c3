//! The repair plan and the validation as they were before they were indexed by position (at
//! cb69b05): the oracle the property tests (`props.rs`) compare [`super::plan`] and
//! [`super::validate_shapes`] with on random histories. Test-only; the code is the old one but
//! for reading each message's calls through [`Shapes::calls`].

use super::{
    Action, ContentFix, Fix, FixKind, Item, Provider, Reason, RepairOptions, Rule, Shape, Shapes, Synthetic,
    ToolContent, Violation,
};
use crate::message::formats::{same_turn, Format};
use crate::message::Role;
use rustc_hash::{FxHashMap, FxHashSet};

fn v(rule: Rule, index: usize, id: Option<&str>, message: String) -> Violation {
    Violation { rule, index, tool_call_id: id.map(str::to_string), message }
}

/// Computes the repaired order of messages and the report.
pub fn plan(shapes: &Shapes, opts: &RepairOptions) -> (Vec<Item>, Vec<Fix>) {
    let provider = opts.provider.unwrap_or(Provider::Openai);
    let mut report = Vec::new();
    let fix = |kind, action, index, id: Option<&str>| Fix {
        kind,
        action,
        index,
        tool_call_id: id.map(str::to_string),
        approval_id: None,
    };

    // Which result answers which call occurrence: real results first, then placeholders, each in
    // input order, and each result at most once. Calls are numbered by position (`base[a] + k`
    // for call `k` of message `a`), so what is known per call or per message is a vector.
    let n_calls: usize = shapes.iter().map(|s| shapes.calls(s).len()).sum();
    let mut results: FxHashMap<&str, Vec<usize>> = FxHashMap::default();
    results.reserve(n_calls);
    for (i, s) in shapes.iter().enumerate().filter(|(_, s)| !s.aside) {
        if let (Role::Tool, Some(id)) = (s.role, s.tool_call_id) {
            results.entry(id).or_default().push(i);
        }
    }
    for list in results.values_mut().filter(|l| l.len() > 1) {
        crate::order::sort_stable_by_key(list, |&i| u64::from(shapes.get(i).is_some_and(|s| s.synthetic)));
    }
    let mut called: FxHashSet<&str> = FxHashSet::default();
    called.reserve(n_calls);
    called.extend(shapes.iter().flat_map(|s| shapes.calls(s).iter().map(|c| c.id)));
    let mut base = Vec::with_capacity(shapes.len());
    let mut next = 0;
    for s in shapes {
        base.push(next);
        next += shapes.calls(s).len();
    }
    let call_index = |a: usize, k: usize| base.get(a).map_or(usize::MAX, |b| b + k);
    let owner = block_owner(shapes);
    let leaders = turn_leaders(shapes);
    let leader = |a: usize| leaders.get(a).copied().unwrap_or(a);
    // The last message of each turn, by the turn's first: its results go after it.
    let mut turn_end: Vec<usize> = (0..shapes.len()).collect();
    for (i, &l) in leaders.iter().enumerate() {
        if let Some(end) = turn_end.get_mut(l) {
            *end = i;
        }
    }
    let mut used = vec![false; shapes.len()];
    let is_used = |used: &[bool], r: usize| used.get(r).copied().unwrap_or(true);
    // Pass 0: each call takes a real result already in its own result block (ids can repeat
    // across turns, as in tau-bench); pass 1: any unused real result; pass 2: a placeholder.
    let assistants: Vec<usize> =
        shapes.iter().enumerate().filter(|(_, s)| s.role == Role::Assistant).map(|(a, _)| a).collect();
    // A call id repeated within one turn (a `function_call` item given twice) is one call: the
    // repeats take no result of their own. (Within one message the decoder refuses repeats.)
    let mut first_in_turn: FxHashSet<(usize, &str)> = FxHashSet::default();
    first_in_turn.reserve(n_calls);
    let mut repeated = vec![false; n_calls];
    for &a in &assistants {
        for (k, c) in shapes.get(a).map(|s| shapes.calls(s)).unwrap_or_default().iter().enumerate() {
            if !first_in_turn.insert((leader(a), c.id)) {
                if let Some(r) = repeated.get_mut(call_index(a, k)) {
                    *r = true;
                }
            }
        }
    }
    let is_repeated = |a: usize, k: usize| repeated.get(call_index(a, k)).copied().unwrap_or(false);
    let mut picked: Vec<Option<usize>> = vec![None; n_calls];
    let picked_of = |picked: &[Option<usize>], a: usize, k: usize| picked.get(call_index(a, k)).copied().flatten();
    for pass in 0..3 {
        for &a in &assistants {
            let Some(s) = shapes.get(a) else { continue };
            for (k, c) in shapes.calls(s).iter().enumerate() {
                if picked_of(&picked, a, k).is_some() || is_repeated(a, k) {
                    continue;
                }
                let candidates = results.get(c.id).map(Vec::as_slice).unwrap_or_default();
                let real = |r: usize| shapes.get(r).is_some_and(|t| !t.synthetic);
                let pick = candidates.iter().copied().find(|&r| {
                    !is_used(&used, r)
                        && match pass {
                            0 => real(r) && owner.get(r) == Some(&Some(leader(a))),
                            1 => real(r),
                            _ => true,
                        }
                });
                if let Some(r) = pick {
                    if let Some(u) = used.get_mut(r) {
                        *u = true;
                    }
                    if let Some(p) = picked.get_mut(call_index(a, k)) {
                        *p = Some(r);
                    }
                }
            }
        }
    }
    // Per turn (by its first message): the placeholders, in call order, then the real results.
    let mut synthetic_of: Vec<Vec<Item>> = vec![Vec::new(); shapes.len()];
    let mut real_of: Vec<Vec<usize>> = vec![Vec::new(); shapes.len()];
    for &a in &assistants {
        let Some(s) = shapes.get(a) else { continue };
        let (Some(synthetic), Some(real)) = (synthetic_of.get_mut(leader(a)), real_of.get_mut(leader(a))) else {
            continue;
        };
        for (k, c) in shapes.calls(s).iter().enumerate() {
            if is_repeated(a, k) {
                continue;
            }
            match picked_of(&picked, a, k) {
                Some(r) => {
                    real.push(r);
                    if owner.get(r) != Some(&Some(leader(a))) {
                        report.push(fix(
                            FixKind::MisplacedResult,
                            Action::Moved,
                            shapes.get(r).map_or(0, |t| t.source),
                            Some(c.id),
                        ));
                    }
                }
                None => {
                    let reason = opts.reasons.get(c.id).copied().unwrap_or(if c.invalid {
                        Reason::InvalidArgs
                    } else {
                        Reason::Missing
                    });
                    let kind = match reason {
                        Reason::Missing => FixKind::MissingResult,
                        Reason::InvalidArgs => FixKind::InvalidArgs,
                        Reason::Interrupted => FixKind::Interrupted,
                        Reason::Rejected => FixKind::Rejected,
                    };
                    report.push(fix(kind, Action::Inserted, s.source, Some(c.id)));
                    synthetic.push(Item::Synthetic(Box::new(Synthetic {
                        id: c.id.to_string(),
                        name: c.name.to_string(),
                        reason,
                        after: a,
                        text: None,
                        approval: None,
                    })));
                }
            }
        }
    }
    let mut answers: Vec<Vec<Item>> = vec![Vec::new(); shapes.len()];
    for (l, (synthetic, mut real)) in synthetic_of.into_iter().zip(real_of).enumerate() {
        real.sort_unstable();
        if let Some(slot) = turn_end.get(l).and_then(|&end| answers.get_mut(end)) {
            slot.extend(synthetic);
            slot.extend(real.into_iter().map(|r| Item::Keep(r, tool_fix(shapes.get(r), provider))));
        }
    }

    let mut items = Vec::with_capacity(shapes.len());
    for (i, s) in shapes.iter().enumerate() {
        match s.role {
            Role::Tool if is_used(&used, i) => {} // placed after its call
            // An approval response stays where it is (it answers no call), after the turn it
            // answers; before any assistant turn it answers nothing and goes, as an orphan does.
            Role::Tool if s.aside => {
                if shapes.get(..i).unwrap_or_default().iter().any(|p| p.role == Role::Assistant) {
                    items.push(Item::Keep(i, ContentFix { drop_empty_text: false, tool_content_to_text: false }))
                } else {
                    report.push(fix(FixKind::OrphanResult, Action::Dropped, s.source, s.tool_call_id));
                }
            }
            Role::Tool => {
                let id = s.tool_call_id;
                if id.is_some_and(|id| called.contains(id)) {
                    report.push(fix(FixKind::DuplicateResult, Action::Dropped, s.source, id));
                } else if opts.keep_orphans {
                    report.push(fix(FixKind::OrphanResult, Action::Kept, s.source, id));
                    items.push(Item::Keep(i, tool_fix(Some(s), provider)));
                } else {
                    report.push(fix(FixKind::OrphanResult, Action::Dropped, s.source, id));
                }
            }
            _ => {
                let content_fix = ContentFix { drop_empty_text: s.empty_text_part, tool_content_to_text: false };
                // An empty assistant message goes for every provider; an empty user message
                // where the provider refuses one (Anthropic, Gemini: EMPTY_MESSAGE), so the
                // output always validates.
                let refused_empty = s.role == Role::Assistant
                    || (s.role == Role::User && matches!(provider, Provider::Anthropic | Provider::Gemini));
                if refused_empty && s.empty_for(provider) && shapes.calls(s).is_empty() {
                    report.push(fix(FixKind::EmptyMessage, Action::Dropped, s.source, None));
                } else {
                    if s.empty_text_part {
                        report.push(fix(FixKind::EmptyText, Action::Dropped, s.source, None));
                    }
                    items.push(Item::Keep(i, content_fix));
                }
                // The turn's results, even when its last message was dropped.
                if let Some(slot) = answers.get_mut(i) {
                    items.append(slot);
                }
            }
        }
    }
    for item in &items {
        if let Item::Keep(i, f) = item {
            if f.tool_content_to_text {
                let s = shapes.get(*i);
                report.push(fix(
                    FixKind::ToolContent,
                    Action::Rewritten,
                    s.map_or(0, |s| s.source),
                    s.and_then(|s| s.tool_call_id),
                ));
            }
        }
    }
    crate::order::sort_stable_by_key(&mut report, |f| f.index as u64);
    (items, report)
}

fn tool_fix(s: Option<&Shape>, provider: Provider) -> ContentFix {
    let needs = s.is_some_and(|s| provider.text_only_results_of(s.format) && s.tool_content != ToolContent::Text);
    ContentFix { drop_empty_text: false, tool_content_to_text: needs }
}

/// For each message, the first assistant message of its turn: itself, or for an assistant item
/// that continues a run of assistant items ([`same_turn`]), the first of the run. Other messages
/// are their own.
fn turn_leaders(shapes: &[Shape]) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::with_capacity(shapes.len());
    for (i, s) in shapes.iter().enumerate() {
        let prev = i.checked_sub(1).and_then(|p| shapes.get(p));
        let leader = match prev {
            Some(p) if same_turn((p.role, Some(p.format)), (s.role, Some(s.format))) => {
                out.last().copied().unwrap_or(i)
            }
            _ => i,
        };
        out.push(leader);
    }
    out
}

/// For each tool result, the turn whose result block it sits in, named by the turn's first
/// assistant message ([`turn_leaders`]): the nearest preceding assistant turn with only tool
/// results between them.
fn block_owner(shapes: &[Shape]) -> Vec<Option<usize>> {
    let leaders = turn_leaders(shapes);
    let mut owner = None;
    shapes
        .iter()
        .enumerate()
        .map(|(i, s)| match s.role {
            Role::Tool => owner,
            Role::Assistant => {
                owner = Some(leaders.get(i).copied().unwrap_or(i));
                None
            }
            _ => {
                owner = None;
                None
            }
        })
        .collect()
}

/// Lists every violation of `provider`'s rules in message order, by input index.
pub fn validate(shapes: &Shapes, provider: Provider) -> Vec<Violation> {
    // An AI SDK approval response is not part of what a provider is sent: it answers nothing and
    // breaks nothing (each shape keeps its input index).
    let kept: Shapes;
    let shapes = if shapes.iter().any(|s| s.aside) {
        kept = shapes.filtered(|s| !s.aside);
        &kept
    } else {
        shapes
    };
    let mut out = Vec::new();
    let n_calls: usize = shapes.iter().map(|s| shapes.calls(s).len()).sum();
    let mut calls_by_id: FxHashMap<&str, Vec<usize>> = FxHashMap::default();
    calls_by_id.reserve(n_calls);
    let mut results_by_id: FxHashMap<&str, Vec<usize>> = FxHashMap::default();
    results_by_id.reserve(n_calls);
    for (i, s) in shapes.iter().enumerate() {
        for c in shapes.calls(s) {
            calls_by_id.entry(c.id).or_default().push(i);
        }
        if let (Role::Tool, Some(id)) = (s.role, s.tool_call_id) {
            results_by_id.entry(id).or_default().push(i);
        }
    }
    let owner = block_owner(shapes);
    let leaders = turn_leaders(shapes);
    // The calls of each turn, by the turn's first message.
    let mut turn_calls: FxHashSet<(usize, &str)> = FxHashSet::default();
    turn_calls.reserve(n_calls);
    let mut turn_size = vec![0usize; shapes.len()];
    for (i, s) in shapes.iter().enumerate() {
        let leader = leaders.get(i).copied().unwrap_or(i);
        // A call id repeated within a turn is one call.
        let new = shapes.calls(s).iter().filter(|c| turn_calls.insert((leader, c.id))).count();
        if let Some(n) = turn_size.get_mut(leader) {
            *n += new;
        }
    }
    // How many results sit in each assistant message's result block (counted once: linear).
    let mut block_size = vec![0usize; shapes.len()];
    for o in owner.iter().flatten() {
        if let Some(n) = block_size.get_mut(*o) {
            *n += 1;
        }
    }
    // A result is in place when it sits in the result block of an assistant turn that made its call.
    let in_place = |t: usize, id: &str| owner.get(t).copied().flatten().is_some_and(|o| turn_calls.contains(&(o, id)));
    let in_place_count = |id: &str| results_by_id.get(id).map_or(0, |r| r.iter().filter(|&&t| in_place(t, id)).count());
    let last = shapes.len().saturating_sub(1);
    for (i, s) in shapes.iter().enumerate() {
        match s.role {
            Role::Assistant => {
                let leader = leaders.get(i).copied().unwrap_or(i);
                for c in shapes.calls(s) {
                    let results = results_by_id.get(c.id).map(Vec::as_slice).unwrap_or_default();
                    let answered_here = results.iter().any(|&t| owner.get(t) == Some(&Some(leader)));
                    // Unanswered here, and no stray result that could be moved here.
                    if !answered_here && results.len() == in_place_count(c.id) {
                        out.push(v(
                            Rule::MissingToolResult,
                            s.source,
                            Some(c.id),
                            format!("tool call {} ({}) has no result", c.id, c.name),
                        ));
                    }
                }
                // Counted once per turn, at its first message.
                let results_in_block = block_size.get(i).copied().unwrap_or(0);
                let calls = if leader == i { turn_size.get(i).copied().unwrap_or(0) } else { 0 };
                if provider == Provider::Gemini && calls > 0 && results_in_block != calls {
                    out.push(v(
                        Rule::CallResponseCountMismatch,
                        s.source,
                        None,
                        format!("{calls} function calls but {results_in_block} function responses in the next turn"),
                    ));
                }
            }
            Role::Tool => {
                let id = s.tool_call_id.unwrap_or_default();
                let Some(call_sites) = calls_by_id.get(id) else {
                    out.push(v(
                        Rule::OrphanToolResult,
                        s.source,
                        Some(id),
                        format!("tool result for {id} answers no tool call"),
                    ));
                    continue;
                };
                let results = results_by_id.get(id).map(Vec::as_slice).unwrap_or_default();
                let my_owner = owner.get(i).copied().flatten();
                if in_place(i, id) {
                    if results.iter().any(|&t| t < i && owner.get(t).copied().flatten() == my_owner) {
                        out.push(v(
                            Rule::DuplicateToolResult,
                            s.source,
                            Some(id),
                            format!("tool call {id} already has a result"),
                        ));
                        continue;
                    }
                    let prev = i.checked_sub(1).and_then(|p| shapes.get(p));
                    if let (Provider::Anthropic, Some(p)) = (provider, prev) {
                        if p.role == Role::Tool
                            && p.source != s.source
                            && s.format == Format::Anthropic
                            && p.format == Format::Anthropic
                        {
                            out.push(v(
                                Rule::ResultsSplit,
                                s.source,
                                Some(id),
                                format!("the result for {id} is in another message than the other results of its turn"),
                            ));
                        }
                    }
                } else if in_place_count(id) >= call_sites.len() || results.iter().any(|&t| t < i && !in_place(t, id)) {
                    out.push(v(
                        Rule::DuplicateToolResult,
                        s.source,
                        Some(id),
                        format!("tool call {id} already has a result"),
                    ));
                    continue;
                } else {
                    let prev = i.checked_sub(1).and_then(|p| shapes.get(p));
                    let after_text = prev.is_some_and(|p| p.role == Role::User && p.source == s.source);
                    if provider == Provider::Anthropic && after_text {
                        out.push(v(
                            Rule::ResultAfterText,
                            s.source,
                            Some(id),
                            format!("the result for {id} comes after text in the same message; results go first"),
                        ));
                    } else {
                        out.push(v(
                            Rule::MisplacedToolResult,
                            s.source,
                            Some(id),
                            format!("the result for {id} is not directly after the message that made the call"),
                        ));
                    }
                }
                if provider.text_only_results_of(s.format) {
                    match s.tool_content {
                        ToolContent::EmptyParts | ToolContent::Json => out.push(v(
                            Rule::ToolContentNotText,
                            s.source,
                            Some(id),
                            format!("the result for {id} is not text"),
                        )),
                        ToolContent::Media => out.push(v(
                            Rule::NonTextToolResult,
                            s.source,
                            Some(id),
                            format!("the result for {id} carries media, which this provider takes only as text"),
                        )),
                        ToolContent::Text | ToolContent::TextParts => {}
                    }
                }
            }
            Role::User | Role::System => {}
        }
        if matches!(provider, Provider::Anthropic | Provider::Gemini) && s.role != Role::Tool {
            let empty_message = s.empty_for(provider) && shapes.calls(s).is_empty();
            if s.empty_text_part && !empty_message {
                out.push(v(Rule::EmptyTextBlock, s.source, None, "an empty text block".to_string()));
            }
            let final_assistant = i == last && s.role == Role::Assistant;
            if empty_message && !final_assistant && s.role != Role::System {
                out.push(v(Rule::EmptyMessage, s.source, None, "a message with no content".to_string()));
            }
        }
    }
    out
}
