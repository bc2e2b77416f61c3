//! Writes the seed corpora under fuzz/seeds/ from the real transcripts in tests/fixtures/:
//!
//! - `messages/`   windows of each transcript run, in every format (decode, validate_repair, project)
//! - `repair/`     `{opts, messages}` inputs with `RepairOptions` (validate_repair)
//! - `project/`    `{opts, messages}` inputs with `ProjectOptions` (project)
//! - `store/`      JSON Lines of store steps: a transcript run as commands, plus every channel kind
//! - `replay/`     the event logs those steps produce, and checkpoint + tail logs
//! - `transcript/` the fixtures shrunk (arrays cut to a few items, strings to a few hundred chars)
//!
//! Run from anywhere: `cargo run --release --manifest-path fuzz/Cargo.toml --example seedgen`.
//! The store and replay seeds are run through their harnesses here (the logs come from the store);
//! a seed that trips a harness assertion is reported and kept.

use serde_json::{json, Value};
use stategate::message::formats::{encode_messages, Format};
use stategate::message::Message;
use stategate::project::ProjectOptions;
use stategate::repair::{Provider, Reason, RepairOptions};
use stategate::state::{ChannelSpec, Command, Reducer, Visibility};
use stategate::transcript::read_transcript;
use stategate_fuzz::{shrink, Op, Step};
use std::fs;
use std::path::{Path, PathBuf};

/// Largest seed written (libFuzzer's `-max_len` in scripts/fuzz.sh is above it).
const MAX_SEED: usize = 12 * 1024;

struct Out {
    dir: PathBuf,
    bytes: usize,
    files: usize,
}

impl Out {
    fn new(root: &Path, name: &str) -> Out {
        let dir = root.join(name);
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("create seed dir");
        Out { dir, bytes: 0, files: 0 }
    }

    fn put(&mut self, name: &str, data: &[u8]) -> bool {
        if data.len() > MAX_SEED {
            return false;
        }
        fs::write(self.dir.join(name), data).expect("write seed");
        self.bytes += data.len();
        self.files += 1;
        true
    }

    fn report(&self) {
        println!("{:<40} {:>4} files {:>8} bytes", self.dir.display(), self.files, self.bytes);
    }
}

/// Runs a harness on a seed; a failed assertion is reported, not fatal (the seed is still useful).
fn checked(name: &str, f: impl FnOnce() + std::panic::UnwindSafe) {
    if std::panic::catch_unwind(f).is_err() {
        println!("  {name}: this seed trips a harness assertion (see the panic above); kept");
    }
}

fn cmd(author: &str, update: Value) -> Command {
    Command {
        author: author.into(),
        expected_version: None,
        update: update.as_object().cloned().unwrap_or_default(),
        correlation_id: None,
        causation_id: None,
    }
}

fn line(step: &Step) -> String {
    serde_json::to_string(step).expect("a step serialises")
}

/// Windows of `run` whose every encoding stays under `MAX_SEED`.
fn windows(run: &[Message], n: usize) -> Vec<Vec<Message>> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < run.len() && out.len() < n {
        let mut len = 12.min(run.len() - start);
        loop {
            let w = &run[start..start + len];
            let fits = Format::ALL
                .iter()
                .all(|f| serde_json::to_vec(&encode_messages(w, *f)).map_or(0, |b| b.len()) <= MAX_SEED);
            if fits || len == 1 {
                if fits {
                    out.push(w.to_vec());
                }
                break;
            }
            len /= 2;
        }
        start += len.max(1) * 2;
    }
    out
}

/// A transcript run as store steps: one command per message in OpenAI format, with a few
/// other channels written on the way.
fn run_as_steps(run: &[Message]) -> Vec<String> {
    let mut steps = vec![line(&Step::One(cmd("app", json!({"run": {"status": "running", "task": "fixture run"}}))))];
    for (i, m) in run.iter().enumerate().take(40) {
        let v = encode_messages(std::slice::from_ref(m), Format::Openai);
        let author = match m.role {
            stategate::Role::Tool => "tool",
            stategate::Role::Assistant => "model",
            _ => "user",
        };
        let mut update = json!({"messages": v});
        if i % 7 == 3 {
            update["facts"] = json!({format!("f{i}"): i});
        }
        steps.push(line(&Step::One(cmd(author, update))));
    }
    steps.push(line(&Step::Op(Op::View(ProjectOptions { budget: 500, ..ProjectOptions::default() }))));
    steps.push(line(&Step::Op(Op::Repair(RepairOptions::default()))));
    steps
}

/// Steps touching every kind of channel and every store operation (from the crate's tests).
fn channel_steps() -> Vec<Vec<String>> {
    let ai = |id: &str, calls: &[&str]| {
        let tc: Vec<Value> = calls
            .iter()
            .map(|c| json!({"id": c, "type": "function", "function": {"name": "t", "arguments": "{}"}}))
            .collect();
        json!({"id": id, "role": "assistant", "content": null, "tool_calls": tc})
    };
    let result = |c: &str| json!({"role": "tool", "tool_call_id": c, "content": "ok"});
    let mut private = ChannelSpec::new("memory", Reducer::Merge);
    private.visibility = Visibility::Private;
    private.owner = Some("vault".into());
    let mut notes = ChannelSpec::new("notes", Reducer::Append);
    notes.writers = Some(vec!["scribe".into()]);
    vec![
        vec![
            line(&Step::Op(Op::Register(ChannelSpec::new("n", Reducer::Counter)))),
            line(&Step::Op(Op::Register(ChannelSpec::new("tags", Reducer::Union)))),
            line(&Step::Op(Op::Register(notes))),
            line(&Step::Op(Op::Register(private))),
            line(&Step::One(cmd("w", json!({"n": 3, "tags": ["a", "b"]})))),
            line(&Step::One(cmd("scribe", json!({"notes": ["x", {"k": 1}]})))),
            line(&Step::One(cmd("intruder", json!({"notes": ["y"]})))),
            line(&Step::One(cmd("vault", json!({"memory": {"AGENTS.md": "a private canary value"}})))),
            line(&Step::One(cmd("w", json!({"n": -1, "tags": ["c"]})))),
            line(&Step::Op(Op::View(ProjectOptions::default()))),
        ],
        vec![
            line(&Step::One(cmd(
                "app",
                json!({"run": {"status": "running"}, "messages": [{"role": "user", "content": "go"}, ai("a1", &["c1", "c2"])]}),
            ))),
            line(&Step::One(cmd(
                "hitl",
                json!({"approvals": {"ap1": {"tool_call_id": "c1", "status": "pending"}}, "run": {"status": "waiting_approval"}}),
            ))),
            line(&Step::One(cmd("t", json!({"messages": [result("c1")]})))),
            line(&Step::One(cmd(
                "hitl",
                json!({"approvals": {"ap1": {"status": "rejected"}}, "run": {"status": "running"}}),
            ))),
            line(&Step::One(cmd(
                "t",
                json!({"messages": [{"type": "tool", "tool_call_id": "c1", "content": "rejected", "status": "error"}]}),
            ))),
            line(&Step::Op(Op::Repair(RepairOptions {
                reasons: [("c2".to_string(), Reason::Interrupted)].into(),
                ..Default::default()
            }))),
            line(&Step::One(cmd("app", json!({"run": {"status": "completed"}})))),
            line(&Step::One(cmd("u", json!({"messages": [{"role": "user", "content": "thanks"}]})))),
        ],
        vec![
            line(&Step::One(cmd(
                "planner",
                json!({"plan": {"s1": {"title": "read"}, "s2": {"title": "write", "depends_on": ["s1"]}}}),
            ))),
            line(&Step::One(cmd("planner", json!({"plan": {"s1": {"status": "running"}}})))),
            line(&Step::One(cmd("planner", json!({"plan": {"s1": {"status": "succeeded"}}})))),
            line(&Step::One(cmd("planner", json!({"plan": {"s2": {"status": "running"}}})))),
            line(&Step::One(cmd("planner", json!({"plan": {"s3": {"title": "x", "depends_on": ["nope"]}}})))),
            line(&Step::One(cmd(
                "w",
                json!({"todos": [{"content": "x", "status": "pending"}], "files": {"/a.txt": {"content": ["a"]}}}),
            ))),
            line(&Step::Batch(vec![
                cmd("w1", json!({"files": {"/a.txt": {"content": ["x"]}}})),
                cmd("w2", json!({"files": {"/b.txt": {"content": ["y"]}}})),
            ])),
            line(&Step::Batch(vec![cmd("w1", json!({"facts": {"k": 1}})), cmd("w2", json!({"facts": {"k": 2}}))])),
            line(&Step::Op(Op::At(2))),
        ],
        vec![
            line(&Step::One(cmd(
                "app",
                json!({"budget": {"limits": {"max_turns": 3, "max_tool_calls": 2, "max_tokens": 100, "deadline_ms": 1_700_000_100_000u64}}}),
            ))),
            line(&Step::One(cmd("m", json!({"messages": [{"role": "user", "content": "q"}, ai("a1", &["c1"])]})))),
            line(&Step::One(cmd("t", json!({"messages": [result("c1")]})))),
            line(&Step::One(cmd(
                "m",
                json!({"messages": [{"type": "ai", "content": "hi", "usage_metadata": {"input_tokens": 50, "output_tokens": 10, "total_tokens": 60}}]}),
            ))),
            line(&Step::Op(Op::Clock(1_700_000_200_000))),
            line(&Step::One(cmd("m", json!({"messages": [{"type": "ai", "content": "late"}]})))),
            line(&Step::Op(Op::Check(cmd("m", json!({"messages": [{"type": "ai", "content": "in time"}]}))))),
        ],
        vec![
            line(&Step::One(cmd(
                "tool",
                json!({"messages": [{"role": "user", "content": "research this"}, ai("a1", &["s1"])]}),
            ))),
            line(&Step::One(cmd(
                "tool",
                json!({"messages": [{"role": "tool", "tool_call_id": "s1", "content": "task t-42 started"}], "async_tasks": {"t-42": {"task_id": "t-42", "agent_name": "researcher", "thread_id": "t-42", "run_id": "r1", "status": "running"}}}),
            ))),
            line(&Step::One(cmd("app", json!({"async_tasks": {"t-42": {"status": "success"}}})))),
            line(&Step::One(cmd(
                "app",
                json!({"active_agent": "researcher", "unresolved_questions": {"q1": "which file?"}, "structured_response": {"ok": true}}),
            ))),
            line(&Step::One(cmd("app", json!({"last_error": "boom", "artifacts": ["artifact:x"]})))),
            line(&Step::Op(Op::View(ProjectOptions {
                budget: 300,
                max_tool_result_tokens: Some(5),
                format: Format::Anthropic,
                ..ProjectOptions::default()
            }))),
        ],
        vec![
            line(&Step::One(cmd(
                "u",
                json!({"messages": [{"type": "human", "id": "1", "content": "Hello"}, {"type": "ai", "id": "2", "content": "Hi"}]}),
            ))),
            line(&Step::One(cmd(
                "u",
                json!({"messages": [{"type": "human", "id": "1", "content": "Updated hello"}, {"remove": "2"}, {"type": "system", "id": "3", "content": "S"}]}),
            ))),
            line(&Step::One(cmd(
                "u",
                json!({"messages": [{"replace": {"id": "1", "role": "user", "content": "edited"}}]}),
            ))),
            line(&Step::One(cmd(
                "u",
                json!({"messages": [{"type": "human", "id": "4", "content": "x"}, {"type": "remove", "id": "__remove_all__"}, {"type": "human", "id": "5", "content": "y"}]}),
            ))),
            line(&Step::One(cmd(
                "u",
                json!({"messages": [{"role": "assistant", "content": "two"}, {"role": "user", "content": "three"}, {"role": "assistant", "content": "four"}]}),
            ))),
            line(&Step::Op(Op::Compact { summary: "the story so far".into(), keep: 2 })),
            line(&Step::Op(Op::View(ProjectOptions { budget: 60, ..ProjectOptions::default() }))),
            line(&Step::One(cmd("u", json!({"messages": [{"removeAll": true}]})))),
        ],
    ]
}

fn main() {
    let fuzz_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let fixtures = fuzz_dir.join("../tests/fixtures/transcripts");
    let seeds = fuzz_dir.join("seeds");
    let names = [
        "claudecode-coverage-test-fix.jsonl",
        "openhands-basic-gui-mode.json",
        "sweagent-marshmallow-1867-fc.traj",
        "taubench-gpt4o-airline-historical.json",
    ];
    let texts: Vec<(&str, String)> =
        names.iter().map(|n| (*n, fs::read_to_string(fixtures.join(n)).expect("read fixture"))).collect();

    // Runs of every transcript (tau-bench: the first three), strings shortened so windows are long.
    let mut runs: Vec<(String, Vec<Message>)> = Vec::new();
    for (name, text) in &texts {
        let t = read_transcript(text).expect("the readers read their fixtures");
        for (r, run) in t.runs.into_iter().take(3).enumerate() {
            let short: Vec<Message> = run
                .into_iter()
                .map(|m| {
                    let v = serde_json::to_value(&m).expect("a message serialises");
                    serde_json::from_value(shrink(&v, 64, 240)).unwrap_or(m)
                })
                .collect();
            runs.push((format!("{}-{r}", name.split('-').next().unwrap_or("t")), short));
        }
    }

    let mut messages = Out::new(&seeds, "messages");
    let mut repair_out = Out::new(&seeds, "repair");
    let mut project_out = Out::new(&seeds, "project");
    for (name, run) in &runs {
        for (w, window) in windows(run, 3).iter().enumerate() {
            for f in Format::ALL {
                let v = encode_messages(window, f);
                let bytes = serde_json::to_vec(&v).expect("json");
                messages.put(&format!("{name}-w{w}-{}.json", f.as_str()), &bytes);
            }
            // With options chosen by the input (one format each, to stay small).
            let f = Format::ALL[w % Format::ALL.len()];
            let v = encode_messages(window, f);
            let ropts = RepairOptions {
                provider: Some([Provider::Openai, Provider::Anthropic, Provider::Gemini][w % 3]),
                keep_orphans: w % 2 == 0,
                text: Some("[{name} {id}: {reason}]".into()),
                ..Default::default()
            };
            let bytes = serde_json::to_vec(&json!({"opts": ropts, "messages": v})).expect("json");
            repair_out.put(&format!("{name}-w{w}.json",), &bytes);
            let popts = ProjectOptions {
                budget: [60, 300, 2_000][w % 3],
                format: f,
                max_tool_result_tokens: Some(10),
                system: Some("rules".into()),
                start_on_user: w % 2 == 0,
                agent: (w == 1).then(|| "main".into()),
                ..ProjectOptions::default()
            };
            let bytes = serde_json::to_vec(&json!({"opts": popts, "messages": v})).expect("json");
            project_out.put(&format!("{name}-w{w}.json"), &bytes);
        }
    }
    messages.report();
    repair_out.report();
    project_out.report();

    // Store steps, and the logs they leave for replay.
    let mut store = Out::new(&seeds, "store");
    let mut replay = Out::new(&seeds, "replay");
    let mut programs: Vec<(String, Vec<String>)> =
        runs.iter().map(|(name, run)| (name.clone(), run_as_steps(run))).collect();
    programs.extend(channel_steps().into_iter().enumerate().map(|(i, s)| (format!("channels-{i}"), s)));
    for (name, steps) in &programs {
        // Halve long programs until they fit.
        let mut steps = steps.clone();
        let mut text = steps.join("\n") + "\n";
        while text.len() > MAX_SEED && steps.len() > 4 {
            steps.truncate(steps.len() * 3 / 4);
            text = steps.join("\n") + "\n";
        }
        store.put(&format!("{name}.jsonl"), text.as_bytes());
        checked(name, || stategate_fuzz::store(text.as_bytes()));
        let Ok((mut s, registered, _)) = std::panic::catch_unwind(|| stategate_fuzz::run_steps(&text)) else {
            continue;
        };
        let applied = s.version();
        let events = s.events().to_vec();
        let log: String = events.iter().map(|e| serde_json::to_string(e).expect("event") + "\n").collect();
        checked(name, || stategate_fuzz::replay(log.as_bytes()));
        replay.put(&format!("{name}.log.jsonl"), log.as_bytes());
        // Checkpoint of the first half, then the whole log as tail.
        let k = events.len() / 2;
        let Ok(mut prefix) = stategate::Store::replay(
            stategate::StoreOptions { run_id: None, channels: registered, ..Default::default() },
            &events[..k],
        ) else {
            continue;
        };
        let cp = String::from_utf8(prefix.checkpoint()).expect("utf-8 checkpoint");
        let tail: String = events[k..].iter().map(|e| serde_json::to_string(e).expect("event") + "\n").collect();
        let both = format!("{cp}\n{tail}");
        checked(name, || stategate_fuzz::replay(both.as_bytes()));
        replay.put(&format!("{name}.cp{k}.jsonl"), both.as_bytes());
        println!("  {name}: {} steps, {applied} applied", steps.len());
    }
    store.report();
    replay.report();

    // Transcripts, shrunk but still readable.
    let mut transcript = Out::new(&seeds, "transcript");
    for (name, text) in &texts {
        let mut tried = Vec::new();
        for (items, chars) in [(8, 200), (4, 120), (3, 60), (2, 40)] {
            let shrunk = if name.ends_with(".jsonl") {
                text.lines()
                    .take(items * 3)
                    .filter_map(|l| serde_json::from_str::<Value>(l).ok())
                    .map(|v| serde_json::to_string(&shrink(&v, items, chars)).expect("json") + "\n")
                    .collect::<String>()
            } else {
                let v: Value = serde_json::from_str(text).expect("fixture json");
                serde_json::to_string(&shrink(&v, items, chars)).expect("json")
            };
            if shrunk.len() <= MAX_SEED && read_transcript(&shrunk).is_ok() {
                transcript.put(&format!("{name}.{items}-{chars}"), shrunk.as_bytes());
                break;
            }
            tried.push(shrunk.len());
        }
        if tried.len() == 4 {
            println!("  {name}: no shrunk version is readable (sizes {tried:?})");
        }
    }
    transcript.report();
}
