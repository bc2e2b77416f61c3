//! Fuzz harnesses for the stategate core (issue 14): each function takes libFuzzer's bytes,
//! drives one public entry point of the crate, and asserts only "no panic" plus invariants that the
//! crate's own docs state (each assertion names the doc it comes from).
//!
//! `STATEGATE_FUZZ_STRICT=1` also asserts properties the docs do not promise (an encoded list
//! decodes again; `repair_values` output validates), to look for them on purpose; off by default.
//! `STATEGATE_FUZZ_ALLOW=EmptyMessage,DuplicateToolResult,Undecodable` ignores violations of those
//! validator rules (and, for `Undecodable`, projections that do not decode again) in the invariant
//! checks: known, reported gaps, so that fuzzing can go on past them.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use stategate::log::{parse_jsonl, Chain, Checkpoint, Event, GENESIS_HASH};
use stategate::message::formats::{decode_messages, encode_messages, Format};
use stategate::project::tokens::Estimate;
use stategate::project::{max_sent, project_tail, provider_of, ProjectOptions};
use stategate::repair::{self, shapes_of, validate_shapes, Provider, RepairOptions};
use stategate::state::{ChannelSpec, Command, Store, StoreOptions};
use stategate::Role;
use std::sync::OnceLock;

/// Providers, in a fixed order.
pub const PROVIDERS: [Provider; 3] = [Provider::Openai, Provider::Anthropic, Provider::Gemini];

/// Steps and events read from one input at most (keeps every execution short).
pub const MAX_STEPS: usize = 64;

/// Whether the undocumented properties are asserted too.
pub fn strict() -> bool {
    static STRICT: OnceLock<bool> = OnceLock::new();
    *STRICT.get_or_init(|| std::env::var("STATEGATE_FUZZ_STRICT").is_ok_and(|v| v == "1"))
}

/// Whether `STATEGATE_FUZZ_ALLOW` lists `name`: a validator rule (as in `Rule`'s Debug), or
/// `Undecodable` for a projection whose encoded output does not decode again.
pub fn allowed(name: &str) -> bool {
    static ALLOW: OnceLock<Vec<String>> = OnceLock::new();
    let allow = ALLOW.get_or_init(|| {
        std::env::var("STATEGATE_FUZZ_ALLOW")
            .unwrap_or_default()
            .split(',')
            .map(|r| r.trim().to_string())
            .filter(|r| !r.is_empty())
            .collect()
    });
    allow.iter().any(|a| a == name)
}

/// Violations of rules not listed in `STATEGATE_FUZZ_ALLOW`.
pub fn unexpected(violations: Vec<repair::Violation>) -> Vec<repair::Violation> {
    violations.into_iter().filter(|v| !allowed(&format!("{:?}", v.rule))).collect()
}

/// A budget (or token limit) the wasm build can receive: `usize` is 32 bits there, so larger
/// numbers from JS fail to deserialise and never reach the core.
fn wasm_usize(n: usize) -> bool {
    n <= u32::MAX as usize
}

/// `[messages]`, or `{"opts": {...}, "messages": [...]}` so the fuzzer can choose options too.
#[derive(Deserialize)]
#[serde(untagged)]
pub enum WithOptions<O> {
    /// Just the messages: the harness picks the options.
    Plain(Vec<Value>),
    /// Options chosen by the input.
    Opts {
        /// The options.
        opts: O,
        /// The messages.
        messages: Vec<Value>,
    },
}

// ---------------------------------------------------------------------------------------------
// decode

/// bytes → JSON array → `decode_messages(&values, None)` (and with a format hint); when that
/// succeeds, encode into every [`Format`] and decode each result again. No documented invariant
/// beyond "errors, not panics"; strict mode asserts that every encoding decodes again.
pub fn decode(data: &[u8]) {
    let Ok(values) = serde_json::from_slice::<Vec<Value>>(data) else { return };
    let hint = Format::ALL[data.len() % Format::ALL.len()];
    let _ = decode_messages(&values, Some(hint));
    let Ok(decoded) = decode_messages(&values, None) else { return };
    for f in Format::ALL {
        let encoded = encode_messages(&decoded.messages, f);
        let again = decode_messages(&encoded, Some(f));
        if strict() {
            let again =
                again.unwrap_or_else(|e| panic!("strict: encoding to {f:?} does not decode again: {e:?}\n{encoded:?}"));
            let _ = encode_messages(&again.messages, f);
        } else if let Ok(again) = again {
            let _ = encode_messages(&again.messages, f);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// validate_repair

/// JSON array (or `{opts, messages}`) → `validate_values` for every provider and `repair_values`
/// (default options, a per-provider variant, and the input's own options).
///
/// Asserted, from `repair::repair`'s doc ("The output passes [`validate`] for `opts.provider`
/// (OpenAI when unset), and repairing it again changes nothing"): on the canonical messages,
/// `repair` output has no violation and a second repair is a no-op with an empty report. Not
/// with `keep_orphans` (kept orphans are violations by definition; the doc does not say so).
pub fn validate_repair(data: &[u8]) {
    let Ok(input) = serde_json::from_slice::<WithOptions<RepairOptions>>(data) else { return };
    let (values, extra) = match input {
        WithOptions::Plain(v) => (v, None),
        WithOptions::Opts { opts, messages } => (messages, Some(opts)),
    };
    for p in PROVIDERS {
        let _ = repair::validate_values(&values, p);
    }
    let per_provider = RepairOptions {
        provider: Some(PROVIDERS[data.len() % 3]),
        keep_orphans: data.len() % 2 == 1,
        ..Default::default()
    };
    let mut all = vec![RepairOptions::default(), per_provider];
    all.extend(extra);
    let decoded = decode_messages(&values, None).ok();
    for opts in &all {
        let provider = opts.provider.unwrap_or(Provider::Openai);
        if let Ok((out, _report)) = repair::repair_values(&values, opts) {
            let v = repair::validate_values(&out, provider);
            if strict() && !opts.keep_orphans {
                let v = unexpected(v.unwrap_or_else(|e| panic!("strict: repair_values output does not decode: {e:?}")));
                let v: Vec<_> = v.into_iter().filter(|x| x.rule != repair::Rule::ApprovalPending).collect();
                assert!(v.is_empty(), "strict: repair_values output has violations for {provider:?}: {v:?}");
            }
        }
        if let Some(d) = decoded.as_ref().filter(|_| !opts.keep_orphans) {
            let (out, _report) = repair::repair(&d.messages, opts);
            let v = unexpected(repair::validate(&out, provider));
            // A call waiting for its approval at the end is left alone: it stays APPROVAL_PENDING,
            // and only a call the input already had so may be.
            let waiting = |v: &[repair::Violation]| -> Vec<Option<String>> {
                v.iter().filter(|x| x.rule == repair::Rule::ApprovalPending).map(|x| x.tool_call_id.clone()).collect()
            };
            let before = waiting(&repair::validate(&d.messages, provider));
            let (left, v): (Vec<_>, Vec<_>) = v.into_iter().partition(|x| x.rule == repair::Rule::ApprovalPending);
            assert!(
                waiting(&left).iter().all(|c| before.contains(c)),
                "documented (repair::repair): only a call the input had waiting for its approval is left waiting; got {left:?}"
            );
            assert!(v.is_empty(), "documented (repair::repair): output passes validate for {provider:?}; got {v:?}");
            let (again, report) = repair::repair(&out, opts);
            assert!(
                report.is_empty(),
                "documented (repair::repair): repairing again changes nothing; report {report:?}"
            );
            assert!(again == out, "documented (repair::repair): repairing again changes nothing (messages differ)");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// project

/// The budgets the harness tries on a plain array (the input's own options come on top).
pub const BUDGETS: [usize; 4] = [0, 40, 400, 8_000];

/// What `projectMessages` (src/js/mod.rs) does with a caller's array, natively: only the last
/// [`max_sent`] messages (plus a leading system message) are decoded, then
/// [`project_tail`] with the estimate tokenizer.
pub fn project_like_js(values: &[Value], opts: &ProjectOptions) -> Option<(Vec<Value>, stategate::project::Report)> {
    let most = max_sent(opts.budget);
    let n = values.len();
    let (slice, skipped, lead): (Vec<&Value>, usize, bool) = if n > most + 1 {
        let head = values.first()?;
        let lead = decode_messages(std::slice::from_ref(head), None)
            .ok()
            .is_some_and(|d| d.messages.first().is_some_and(|m| m.role == Role::System));
        let mut tail: Vec<&Value> = values.get(n - most..)?.iter().collect();
        if lead {
            tail.insert(0, head);
        }
        (tail, n - most - usize::from(lead), lead)
    } else {
        (values.iter().collect(), 0, false)
    };
    let history = decode_messages(&slice, None).ok()?.messages;
    project_tail(history, lead, skipped, opts, &mut Estimate, "estimate").ok()
}

/// JSON array (or `{opts, messages}` with `ProjectOptions`) → the projector as `projectMessages`
/// calls it, under several budgets and every format.
///
/// Asserted, from the docs of `project` / the model view: the output passes the provider's
/// validator (src/project/mod.rs module doc), never starts with a tool result (same), uses no more
/// than the budget (tests' "used never passes the budget"), and the same input and options give the
/// same bytes.
pub fn project(data: &[u8]) {
    let Ok(input) = serde_json::from_slice::<WithOptions<ProjectOptions>>(data) else { return };
    let (values, mut all) = match input {
        WithOptions::Plain(v) => (v, Vec::new()),
        WithOptions::Opts { opts, messages } => (messages, vec![opts]),
    };
    let flip = data.len() % 2 == 1;
    for (i, budget) in BUDGETS.into_iter().enumerate() {
        for (j, format) in Format::ALL.into_iter().enumerate() {
            let odd = (i + j) % 2 == 1;
            all.push(ProjectOptions {
                budget,
                format,
                system: (odd && flip).then(|| "You are a careful agent.".to_string()),
                max_tool_result_tokens: odd.then_some(8),
                start_on_user: !(odd ^ flip),
                agent: (j == 4 && flip).then(|| "main".to_string()),
                ..ProjectOptions::default()
            });
        }
    }
    for (k, opts) in all.iter().enumerate() {
        if !wasm_usize(opts.budget) || !opts.max_tool_result_tokens.is_none_or(wasm_usize) {
            continue;
        }
        let Some((encoded, report)) = project_like_js(&values, opts) else { continue };
        assert!(report.used <= opts.budget, "used {} passes the budget {}", report.used, opts.budget);
        let provider = provider_of(opts.format);
        // Validated as the crate's tests do (`assert_clean_and_idempotent`): decode, then the shapes.
        match decode_messages(&encoded, Some(opts.format)) {
            Err(e) => assert!(
                allowed("Undecodable"),
                "documented (project): output passes the {provider:?} validator, but it does not even decode: {e:?}"
            ),
            Ok(back) => {
                let v = unexpected(validate_shapes(&shapes_of(&back.messages, &back.source, &back.formats), provider));
                assert!(v.is_empty(), "documented (project): output passes the {provider:?} validator; got {v:?}");
                assert!(
                    back.messages.first().is_none_or(|m| m.role != Role::Tool),
                    "documented (project): the output never starts with a tool result"
                );
            }
        }
        if k == 0 {
            let again = project_like_js(&values, opts).expect("the same input projected once already");
            assert!(again.0 == encoded, "documented (project): same input and options, same bytes out");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// store

/// One line of a `store` input (JSON Lines; lines that are none of these are skipped).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Step {
    /// `store.apply(cmd, now)`.
    One(Command),
    /// `store.apply_batch(cmds, now)`.
    Batch(Vec<Command>),
    /// Anything else the store does.
    Op(Op),
}

/// The store operations beyond `apply` / `apply_batch`, as `{"name": argument}`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Op {
    /// Sets the clock (ms) for the following steps (it otherwise advances 1 s per step).
    Clock(u64),
    /// `store.check(cmd, now)`.
    Check(Command),
    /// `store.repair(opts, "fuzz", now)`.
    Repair(RepairOptions),
    /// `store.register_channel(spec, key of its owner, new key)`.
    Register(ChannelSpec),
    /// `Projector::model_view(store, opts, Estimate)` then `record_artifacts`.
    View(ProjectOptions),
    /// `store.compaction_plan(keep)` then `store.compact(summary, cut, "fuzz", now)`.
    Compact {
        /// The summary text.
        summary: String,
        /// How many messages to keep.
        keep: usize,
    },
    /// `store.at(sequence)` (a past view).
    At(u64),
}

/// What must not change when a command fails: version, log length, the system view and each
/// private view.
fn fingerprint(store: &mut Store, keys: &[(String, String)]) -> String {
    let private: Vec<Value> =
        keys.iter().map(|(_, k)| store.private_view(k).map(Value::Object).unwrap_or(Value::Null)).collect();
    let n = store.events().len();
    serde_json::to_string(&(store.version(), n, store.system_view(), private)).unwrap_or_default()
}

/// Everything a replayed or restored store must share with the original: version, system view
/// and (keys claimed again) each owner's private view.
fn assert_same_state(what: &str, original: &mut Store, copy: &mut Store, keys: &[(String, String)]) {
    assert_eq!(copy.version(), original.version(), "{what}: version differs");
    assert!(
        copy.system_view() == original.system_view(),
        "{what}: system view differs\n original {:?}\n     copy {:?}",
        original.system_view(),
        copy.system_view()
    );
    let mut seen = std::collections::HashSet::new();
    // An owner of several private channels has one key, listed once per channel registered.
    for (owner, key) in keys.iter().filter(|(o, _)| seen.insert(o.clone())) {
        let claimed = copy
            .claim_owner_key(owner, || key.clone())
            .unwrap_or_else(|e| panic!("{what}: owner {owner} cannot claim its key: {e:?}"));
        let (a, b) = (original.private_view(key), copy.private_view(&claimed));
        assert!(a.as_ref().ok() == b.as_ref().ok(), "{what}: private view of {owner} differs");
    }
}

/// Applies the steps of `text` to a fresh store; returns it with the channels registered on the
/// way and the private keys handed out (owner, key).
/// Salts from a counter: private writes take the salted path (distinct salts; not random).
struct CounterSalt(std::cell::Cell<u64>);

impl stategate::state::Entropy for CounterSalt {
    fn salt(&self) -> stategate::error::Result<String> {
        self.0.set(self.0.get() + 1);
        Ok(format!("{:032x}", self.0.get()))
    }
}

pub fn run_steps(text: &str) -> (Store, Vec<ChannelSpec>, Vec<(String, String)>) {
    let mut store = Store::new(StoreOptions::default()).expect("the default store");
    store.set_entropy(Some(std::rc::Rc::new(CounterSalt(std::cell::Cell::new(0)))));
    let mut now: u64 = 1_700_000_000_000;
    let mut registered: Vec<ChannelSpec> = Vec::new();
    let mut keys: Vec<(String, String)> = Vec::new();
    for line in text.lines().take(MAX_STEPS) {
        let Ok(step) = serde_json::from_str::<Step>(line) else { continue };
        now = now.saturating_add(1_000);
        match step {
            Step::One(cmd) => {
                let before = fingerprint(&mut store, &keys);
                if store.apply(&cmd, now).is_err() {
                    assert!(
                        fingerprint(&mut store, &keys) == before,
                        "documented (Store::apply): the store is unchanged on error"
                    );
                }
            }
            Step::Batch(cmds) => {
                let before = fingerprint(&mut store, &keys);
                if store.apply_batch(&cmds, now).is_err() {
                    assert!(
                        fingerprint(&mut store, &keys) == before,
                        "documented (Store::apply_batch): all or nothing"
                    );
                }
            }
            Step::Op(Op::Clock(t)) => now = t,
            Step::Op(Op::Check(cmd)) => {
                let before = fingerprint(&mut store, &keys);
                let _ = store.check(&cmd, now);
                assert!(
                    fingerprint(&mut store, &keys) == before,
                    "documented (Store::check): the store, its version and its log are unchanged either way"
                );
            }
            Step::Op(Op::Repair(opts)) => {
                let _ = store.repair(&opts, "fuzz", now);
            }
            Step::Op(Op::Register(spec)) => {
                let owner = spec.owner.clone().unwrap_or_default();
                let held = keys.iter().find(|(o, _)| *o == owner).map(|(_, k)| k.clone());
                let fresh = format!("key-{}", keys.len());
                if let Ok(key) = store.register_channel(spec.clone(), held.as_deref(), || fresh) {
                    registered.push(spec);
                    if let Some(k) = key {
                        keys.push((owner, k));
                    }
                }
            }
            Step::Op(Op::View(opts)) => {
                if !wasm_usize(opts.budget) || !opts.max_tool_result_tokens.is_none_or(wasm_usize) {
                    continue;
                }
                if let Ok(p) =
                    stategate::project::Projector::default().model_view(&store, &opts, &mut Estimate, "estimate")
                {
                    assert!(
                        p.report.used <= opts.budget,
                        "model view: used {} passes the budget {}",
                        p.report.used,
                        opts.budget
                    );
                    let _ = stategate::project::record_artifacts(&mut store, &p, now);
                }
            }
            Step::Op(Op::Compact { summary, keep }) => {
                if let Ok(cut) = store.compaction_plan(keep) {
                    let _ = store.compact(&summary, cut, "fuzz", now);
                }
            }
            Step::Op(Op::At(seq)) => {
                let _ = store.at(seq);
            }
        }
    }
    (store, registered, keys)
}

/// JSON Lines of [`Step`]s applied to `Store::new(Default::default())`; failed steps must leave
/// the store as it was. At the end, asserted from the docs of `Store` / `history.rs`:
/// `version == events().len()`; the log, written as JSONL and parsed back, replays to the same
/// version, system view and private views; so does `restore` of `checkpoint()` (alone and with
/// the whole log as tail), and of a checkpoint of the first half plus the log; `at(k)` equals a
/// replay of the first `k` events.
pub fn store(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (mut store, registered, keys) = run_steps(text);
    check_history(&mut store, &registered, &keys);
}

/// The history invariants of [`store`].
pub fn check_history(store: &mut Store, registered: &[ChannelSpec], keys: &[(String, String)]) {
    let events: Vec<Event> = store.events().to_vec();
    assert_eq!(store.version(), events.len() as u64, "documented (Store): version == events().len()");
    let jsonl: String = events.iter().map(|e| serde_json::to_string(e).expect("an event serialises") + "\n").collect();
    let parsed = parse_jsonl(&jsonl).unwrap_or_else(|e| panic!("the store's own log does not parse: {e:?}"));
    assert!(parsed == events, "the log changes through JSONL");
    let opts = StoreOptions { run_id: None, channels: registered.to_vec(), ..Default::default() };
    let mut replayed =
        Store::replay(opts.clone(), &parsed).unwrap_or_else(|e| panic!("the store's own log does not replay: {e:?}"));
    assert_same_state("replay", store, &mut replayed, keys);

    let cp = store.checkpoint();
    let mut restored = Store::restore(&cp, &[], Vec::new(), None)
        .unwrap_or_else(|e| panic!("the store's own checkpoint does not restore: {e:?}"));
    assert_same_state("restore(checkpoint)", store, &mut restored, keys);
    let mut restored = Store::restore(&cp, &events, Vec::new(), None)
        .unwrap_or_else(|e| panic!("checkpoint + whole log does not restore: {e:?}"));
    assert_same_state("restore(checkpoint, whole log)", store, &mut restored, keys);

    let k = events.len() / 2;
    let mut prefix =
        Store::replay(opts, &events[..k]).unwrap_or_else(|e| panic!("the first {k} events do not replay: {e:?}"));
    let past = store.at(k as u64).unwrap_or_else(|e| panic!("at({k}) fails: {e:?}"));
    assert_eq!(past.version(), k as u64, "at({k}): version");
    assert!(past.system_view() == prefix.system_view(), "at({k}) differs from a replay of the first {k} events");
    let half = prefix.checkpoint();
    let mut resumed = Store::restore(&half, &events, Vec::new(), None)
        .unwrap_or_else(|e| panic!("checkpoint at {k} + log does not restore: {e:?}"));
    assert_same_state("restore(checkpoint at k, log)", store, &mut resumed, keys);

    // A follower (Store::follow + ingest of transport events): from the export of the first k
    // events, the rest of the transport log brings it to the store's public state and last hash.
    // (A private value copied into public state is refused at the edge: PRIVATE_LEAK.)
    let sent = store.transport_events(&stategate::state::EventFilter::default());
    if let (Ok(export), Ok(sent)) = (prefix.export_for_transport(), sent) {
        let mut follower = Store::follow(&export, None)
            .unwrap_or_else(|e| panic!("the export at {k} does not start a follower: {e:?}"));
        let done = follower
            .ingest(&sent)
            .unwrap_or_else(|e| panic!("the transport log does not ingest into a follower: {e:?}"));
        assert_eq!(done.hash_checked, done.applied, "follower: every salted event's hash is checked");
        assert_eq!(follower.version(), store.version(), "follower: version");
        assert!(follower.system_view() == store.system_view(), "follower: system view differs from the store's");
        assert_eq!(follower.last_hash(), store.last_hash(), "follower: last hash");
    }
    // Preview then ingest is apply: the prefix catches up on the store's own events.
    let caught_up = prefix.ingest(&events).unwrap_or_else(|e| panic!("the prefix does not ingest the log: {e:?}"));
    assert_eq!(caught_up.version, store.version(), "ingest: version");
    assert_same_state("replay of k events, then ingest of the log", store, &mut prefix, &[]);
}

// ---------------------------------------------------------------------------------------------
// replay

/// `events` made to chain after `anchor` (sequence, hash): renumbered, re-linked and re-hashed
/// so a mutated payload reaches the replay instead of stopping at the hash check.
pub fn reseal(events: &mut [Event], anchor: (u64, &str), run_id: &str) {
    let mut prev = anchor.1.to_string();
    for (i, e) in events.iter_mut().enumerate() {
        e.sequence = anchor.0 + i as u64 + 1;
        e.run_id = run_id.to_string();
        e.event_id = format!("{run_id}:{}", e.sequence);
        e.prev_hash = prev;
        e.hash = e.compute_hash(&Chain::Plain).unwrap();
        prev = e.hash.clone();
    }
}

/// After a successful replay of `events` (documented: `apply_event` "checks that the event this
/// produces is the very same"): the store's version is the last sequence, its log is `events`,
/// and its checkpoint restores to the same state.
fn check_replayed(what: &str, s: &mut Store, events: &[Event], base: u64) {
    assert_eq!(s.version(), base + events.len() as u64, "{what}: version after replay");
    assert!(s.events() == events, "{what}: the replayed store's log differs from the log replayed");
    let cp = s.checkpoint();
    let mut r = Store::restore(&cp, &[], Vec::new(), None)
        .unwrap_or_else(|e| panic!("{what}: the replayed store's checkpoint does not restore: {e:?}"));
    assert_same_state(what, s, &mut r, &[]);
}

/// Bytes as a log and as a checkpoint: `Store::restore(bytes)`, `parse_jsonl` + `Store::replay`
/// as given, then the same lines resealed (first line, if it is a [`Checkpoint`], re-digested and
/// restored with the resealed rest as its tail) so the fuzzer's payload mutations are replayed.
pub fn replay(data: &[u8]) {
    let _ = Store::restore(data, &[], Vec::new(), None);
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(events) = parse_jsonl(text) {
        if let Ok(mut s) = Store::replay(StoreOptions::default(), &events) {
            check_replayed("replay", &mut s, &events, 0);
        }
    }
    let mut checkpoint: Option<Checkpoint> = None;
    let mut events: Vec<Event> = Vec::new();
    for (i, line) in text.lines().filter(|l| !l.trim().is_empty()).take(MAX_STEPS).enumerate() {
        if i == 0 {
            if let Ok(cp) = serde_json::from_str::<Checkpoint>(line) {
                checkpoint = Some(cp);
                continue;
            }
        }
        if let Ok(e) = serde_json::from_str::<Event>(line) {
            events.push(e);
        }
    }
    match checkpoint {
        None => {
            let run_id = events.first().map(|e| e.run_id.clone()).unwrap_or_else(|| "run".into());
            reseal(&mut events, (0, GENESIS_HASH), &run_id);
            if let Ok(mut s) = Store::replay(StoreOptions::default(), &events) {
                check_replayed("resealed replay", &mut s, &events, 0);
            }
        }
        Some(cp) => {
            let (base, hash, run_id) = (cp.last_sequence, cp.last_hash.clone(), cp.run_id.clone());
            if base > u64::MAX / 2 {
                return;
            }
            let bytes = cp.encode(&Chain::Plain);
            reseal(&mut events, (base, &hash), &run_id);
            if let Ok(mut s) = Store::restore(&bytes, &events, Vec::new(), None) {
                assert_eq!(s.version(), base + events.len() as u64, "restore: version after the tail");
                let again = s.checkpoint();
                let mut r = Store::restore(&again, &[], Vec::new(), None)
                    .unwrap_or_else(|e| panic!("a restored store's checkpoint does not restore: {e:?}"));
                assert_same_state("restore, checkpoint, restore", &mut s, &mut r, &[]);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// transcript

/// Text → `transcript::read_transcript` (what `readTranscript` calls) → each run encoded in every
/// format. No invariant beyond "no panic".
pub fn transcript(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(t) = stategate::transcript::read_transcript(text) else { return };
    for run in &t.runs {
        for f in Format::ALL {
            let _ = encode_messages(run, f);
        }
    }
}

/// Shrinks a JSON value for a seed: arrays to `max_items`, strings to `max_chars` characters.
pub fn shrink(v: &Value, max_items: usize, max_chars: usize) -> Value {
    match v {
        Value::Array(a) => Value::Array(a.iter().take(max_items).map(|x| shrink(x, max_items, max_chars)).collect()),
        Value::Object(o) => {
            Value::Object(o.iter().map(|(k, x)| (k.clone(), shrink(x, max_items, max_chars))).collect::<Map<_, _>>())
        }
        Value::String(s) if s.chars().count() > max_chars => Value::String(s.chars().take(max_chars).collect()),
        other => other.clone(),
    }
}
