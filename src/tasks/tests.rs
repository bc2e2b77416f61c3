//! Native tests of the task ledger's transitions, against a fake Agent Protocol server that
//! behaves like the LangGraph in-memory server (AGENT_PROTOCOL_SERVER.md). The real server is
//! driven by the Node integration tests.

use super::*;
use crate::error::ErrorCode;
use crate::lifecycle::TaskStatus;
use crate::state::{Command, Store, StoreOptions};
use serde_json::{json, Map, Value};
use std::cell::{Cell, RefCell};
use std::future::Future;

/// Runs a future whose I/O is the fake server (always ready) to completion.
fn block_on<F: Future>(f: F) -> F::Output {
    let mut f = std::pin::pin!(f);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    loop {
        if let std::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

#[derive(Default)]
struct Fake {
    threads: RefCell<Map<String, Value>>,
    /// Runs in creation order.
    runs: RefCell<Vec<Value>>,
    requests: RefCell<Vec<ProtocolRequest>>,
    down: Cell<bool>,
    next: Cell<u32>,
}

impl Fake {
    fn id(&self, prefix: &str) -> String {
        self.next.set(self.next.get() + 1);
        format!("{prefix}-{}", self.next.get())
    }
    fn run(&self, id: &str) -> Value {
        self.runs.borrow().iter().find(|r| r["run_id"] == id).cloned().unwrap()
    }
    fn set_run(&self, id: &str, status: &str) {
        for r in self.runs.borrow_mut().iter_mut().filter(|r| r["run_id"] == id) {
            r["status"] = json!(status);
        }
    }
    fn thread_mut(&self, id: &str, f: impl FnOnce(&mut Value)) {
        f(self.threads.borrow_mut().get_mut(id).unwrap())
    }
    /// The run ends with a final answer.
    fn succeed(&self, run: &str, answer: &str) {
        self.set_run(run, "success");
        let t = self.run(run)["thread_id"].as_str().unwrap().to_string();
        self.thread_mut(&t, |t| {
            t["status"] = json!("idle");
            t["values"]["messages"].as_array_mut().unwrap().push(json!({"type": "ai", "content": answer}));
        });
    }
    /// The graph raised.
    fn fail(&self, run: &str) {
        self.set_run(run, "error");
        let t = self.run(run)["thread_id"].as_str().unwrap().to_string();
        self.thread_mut(&t, |t| {
            t["status"] = json!("error");
            t["error"] = json!({"error": "RuntimeError", "message": "fail graph: boom"});
        });
    }
    /// The graph called `interrupt()`: the run succeeds, the thread waits.
    fn ask(&self, run: &str) {
        self.set_run(run, "success");
        let t = self.run(run)["thread_id"].as_str().unwrap().to_string();
        self.thread_mut(&t, |t| {
            t["status"] = json!("interrupted");
            t["interrupts"] = json!({"node": [{"id": "i1", "value": {"question": "Approve?"}}]});
        });
    }
    fn calls(&self, call: &str) -> Vec<ProtocolRequest> {
        self.requests.borrow().iter().filter(|r| r.call == call).cloned().collect()
    }
    fn answer(&self, r: &ProtocolRequest) -> ProtocolResponse {
        let path = r.url.trim_start_matches("http://server");
        let parts: Vec<&str> = path.split(['/', '?']).filter(|s| !s.is_empty()).collect();
        let ok = |body: Value| ProtocolResponse { status: 200, body };
        let missing = ProtocolResponse { status: 404, body: json!({"detail": "not found"}) };
        match (r.method, parts.as_slice()) {
            ("POST", ["threads"]) => {
                let id = self.id("th");
                let t = json!({"thread_id": id, "status": "idle", "metadata": r.body.as_ref().unwrap()["metadata"], "interrupts": {}, "values": {"messages": []}});
                self.threads.borrow_mut().insert(id, t.clone());
                ok(t)
            }
            ("POST", ["threads", "search"]) => {
                let want = &r.body.as_ref().unwrap()["metadata"];
                ok(Value::Array(self.threads.borrow().values().filter(|t| want.as_object().unwrap().iter().all(|(k, v)| &t["metadata"][k] == v)).cloned().collect()))
            }
            ("POST", ["threads", t, "runs"]) => {
                if !self.threads.borrow().contains_key(*t) {
                    return missing;
                }
                let strategy = r.body.as_ref().unwrap().get("multitask_strategy").and_then(Value::as_str).unwrap_or("reject");
                let busy = self.runs.borrow().iter().any(|x| x["thread_id"] == *t && matches!(x["status"].as_str(), Some("pending" | "running")));
                if strategy == "interrupt" {
                    for x in self.runs.borrow_mut().iter_mut().filter(|x| x["thread_id"] == *t && matches!(x["status"].as_str(), Some("pending" | "running"))) {
                        x["status"] = json!("interrupted");
                    }
                }
                let status = if busy && strategy == "enqueue" { "pending" } else { "running" };
                let run = json!({"run_id": self.id("run"), "thread_id": t, "status": status});
                self.runs.borrow_mut().push(run.clone());
                self.thread_mut(t, |th| {
                    th["status"] = json!("busy");
                    th["interrupts"] = json!({});
                });
                ok(run)
            }
            ("GET", ["threads", t, "runs", "limit=1"]) => ok(Value::Array(self.runs.borrow().iter().rev().filter(|x| x["thread_id"] == *t).take(1).cloned().collect())),
            ("GET", ["threads", _, "runs", id]) => self.runs.borrow().iter().find(|x| x["run_id"] == *id).cloned().map(ok).unwrap_or(missing),
            ("POST", ["threads", t, "runs", id, "cancel"]) => {
                let live = self.runs.borrow().iter().any(|x| x["run_id"] == *id && matches!(x["status"].as_str(), Some("pending" | "running")));
                if !live {
                    return missing;
                }
                self.set_run(id, "interrupted");
                self.thread_mut(t, |th| {
                    th["status"] = json!("interrupted");
                    th["interrupts"] = json!({});
                    th["error"] = json!({"error": "UserInterrupt"});
                });
                ok(json!({}))
            }
            ("GET", ["threads", t, "state"]) => self.threads.borrow().get(*t).map(|th| ok(json!({"values": th["values"]}))).unwrap_or(missing),
            ("GET", ["threads", t]) => self.threads.borrow().get(*t).cloned().map(ok).unwrap_or(missing),
            _ => ProtocolResponse { status: 422, body: json!({"detail": format!("no route {} {path}", r.method)}) },
        }
    }
}

impl Transport for Fake {
    async fn send(&self, request: &ProtocolRequest) -> std::result::Result<ProtocolResponse, String> {
        self.requests.borrow_mut().push(request.clone());
        if self.down.get() {
            return Err("connection refused".into());
        }
        Ok(self.answer(request))
    }
}

fn agent(name: &str, extra: Value) -> SubagentSpec {
    let mut v = json!({"name": name, "description": format!("{name} agent"), "graph_id": name});
    v.as_object_mut().unwrap().extend(extra.as_object().cloned().unwrap_or_default());
    serde_json::from_value(v).unwrap()
}

fn config(agents: Vec<SubagentSpec>) -> TasksConfig {
    let c: TasksConfig = serde_json::from_value(json!({"agents": agents, "url": "http://server"})).unwrap();
    c.validate().unwrap();
    c
}

/// A parent store, the fake server, the config and a clock.
struct World {
    store: Store,
    fake: Fake,
    config: TasksConfig,
    now: u64,
    turns: usize,
}

impl World {
    fn new(agents: Vec<SubagentSpec>) -> World {
        World { store: Store::new(StoreOptions::default()).unwrap(), fake: Fake::default(), config: config(agents), now: 1_000_000, turns: 0 }
    }

    fn apply(&mut self, update: Value) {
        let cmd = Command { author: "model".into(), expected_version: None, update: update.as_object().cloned().unwrap(), correlation_id: None, causation_id: None };
        self.store.apply(&cmd, self.now).unwrap();
    }

    /// The model makes these calls in one assistant turn; each is run and its Command applied.
    fn turn(&mut self, calls: &[(&str, Value)]) -> Vec<Outcome> {
        self.turns += 1;
        let calls: Vec<ToolCall> = calls
            .iter()
            .enumerate()
            .map(|(k, (name, args))| ToolCall { id: format!("c{}_{k}", self.turns), name: name.to_string(), args: args.clone(), raw_args: None, extra: Map::new() })
            .collect();
        let tc: Vec<Value> = calls.iter().map(|c| json!({"id": c.id, "name": c.name, "args": c.args})).collect();
        self.apply(json!({"messages": [{"type": "ai", "content": "", "tool_calls": tc}]}));
        calls
            .iter()
            .map(|c| {
                let ctx = context(&mut self.store, &self.config, Some(c), self.now).unwrap();
                let out = block_on(call(&ctx, &self.fake, c)).unwrap();
                let cmd = out.command(&self.store.get("async_tasks").unwrap(), &self.store.get("notifications").unwrap()).unwrap();
                self.store.apply(&cmd, self.now).unwrap();
                out
            })
            .collect()
    }

    fn one(&mut self, name: &str, args: Value) -> Outcome {
        self.turn(&[(name, args)]).remove(0)
    }

    fn poll(&mut self) -> (Outcome, Vec<PollError>) {
        let ctx = context(&mut self.store, &self.config, None, self.now).unwrap();
        let (out, errors) = block_on(poll(&ctx, &self.fake));
        if let Some(cmd) = out.command(&self.store.get("async_tasks").unwrap(), &self.store.get("notifications").unwrap()) {
            self.store.apply(&cmd, self.now).unwrap();
        }
        (out, errors)
    }

    fn task(&self, id: &str) -> Task {
        Task::read(&self.store.get("async_tasks").unwrap()[id]).unwrap()
    }

    fn start(&mut self, agent: &str, description: &str) -> String {
        let out = self.one("start_async_task", json!({"description": description, "subagent_type": agent}));
        out.content.strip_prefix("Launched async subagent. task_id: ").unwrap_or_else(|| panic!("{}", out.content)).to_string()
    }

    /// The last tool result in the store: (content, status).
    fn last_result(&self) -> (String, String) {
        let m = self.store.messages("messages").unwrap().messages().last().unwrap().clone();
        (m.content.text(), format!("{:?}", m.status.unwrap()).to_lowercase())
    }
}

#[test]
fn start_records_a_running_task_and_returns_its_id_at_once() {
    let mut w = World::new(vec![agent("echo", json!({}))]);
    let id = w.start("echo", "say hi");
    let t = w.task(&id);
    assert_eq!((t.task_id.as_str(), t.thread_id.as_str(), t.run_id.as_str(), t.status), ("th-1", "th-1", "run-2", TaskStatus::Running));
    assert_eq!((t.created_at.as_str(), t.last_updated_at.as_str(), t.attempts), ("1970-01-01T00:16:40.000Z", "1970-01-01T00:16:40.000Z", 1));
    let create = &w.fake.calls("create_thread")[0];
    assert_eq!(create.body.as_ref().unwrap()["metadata"], json!({"parent_thread_id": "run", "subagent_name": "echo"}));
    let run = &w.fake.calls("create_run")[0];
    assert_eq!(run.url, "http://server/threads/th-1/runs");
    assert_eq!(run.body.as_ref().unwrap()["input"], json!({"messages": [{"role": "user", "content": "say hi"}]}));
    assert_eq!(run.body.as_ref().unwrap()["assistant_id"], "echo");
    assert_eq!(w.last_result(), ("Launched async subagent. task_id: th-1".to_string(), "success".to_string()));

    let out = w.one("start_async_task", json!({"description": "x", "subagent_type": "nope"}));
    assert_eq!(out.content, "Unknown async subagent type `nope`. Available types: `echo`");
    assert_eq!(out.status, crate::message::ToolStatus::Error);
    assert_eq!(w.store.get("async_tasks").unwrap().as_object().unwrap().len(), 1);
}

#[test]
fn check_reports_live_status_and_moves_last_updated_at_only_on_change() {
    let mut w = World::new(vec![agent("echo", json!({}))]);
    let id = w.start("echo", "hi");
    w.now += 5_000;
    let out = w.one("check_async_task", json!({"task_id": format!("  {id} ")}));
    assert_eq!(serde_json::from_str::<Value>(&out.content).unwrap(), json!({"status": "running", "thread_id": id}));
    let t = w.task(&id);
    assert_eq!((t.last_checked_at.as_str(), t.last_updated_at.as_str()), ("1970-01-01T00:16:45.000Z", "1970-01-01T00:16:40.000Z"));
    w.fake.succeed("run-2", "echo: hi");
    w.now += 5_000;
    let out = w.one("check_async_task", json!({"task_id": id}));
    assert_eq!(serde_json::from_str::<Value>(&out.content).unwrap(), json!({"status": "success", "thread_id": id, "result": "echo: hi"}));
    let t = w.task(&id);
    assert_eq!((t.status, t.last_updated_at.as_str()), (TaskStatus::Success, "1970-01-01T00:16:50.000Z"));
    let out = w.one("check_async_task", json!({"task_id": "th-404"}));
    assert_eq!((out.content.as_str(), out.error.unwrap().code), ("No tracked task found for task_id: 'th-404'", ErrorCode::UnknownTask));
}

#[test]
fn update_interrupts_or_queues_and_refuses_a_second_queued_follow_up_in_one_turn() {
    let mut w = World::new(vec![agent("slow", json!({})), agent("queue", json!({"update_strategy": "enqueue"}))]);
    let a = w.start("slow", "sleep=30");
    let out = w.one("update_async_task", json!({"task_id": a, "message": "faster"}));
    assert_eq!(out.content, format!("Updated async subagent. task_id: {a}"));
    let t = w.task(&a);
    assert_eq!((t.task_id.as_str(), t.run_id.as_str(), t.status, t.instruction.as_str()), (a.as_str(), "run-3", TaskStatus::Running, "faster"));
    assert_eq!(w.fake.calls("create_run")[1].body.as_ref().unwrap()["multitask_strategy"], "interrupt");
    assert_eq!(w.fake.run("run-2")["status"], "interrupted");

    let b = w.start("queue", "sleep=30");
    let before = w.store.get("async_tasks").unwrap();
    let outs = w.turn(&[("update_async_task", json!({"task_id": b, "message": "then A"})), ("update_async_task", json!({"task_id": b, "message": "then B"}))]);
    assert_eq!(outs[0].content, format!("Queued follow-up to async subagent without interrupting its current run. task_id: {b}"));
    assert!(outs[1].content.starts_with("Not sent: an earlier `update_async_task` call in this turn already queues a follow-up for task"), "{}", outs[1].content);
    assert_eq!(outs[1].status, crate::message::ToolStatus::Error);
    assert!(outs[1].effects.is_empty(), "the refused follow-up reaches no server");
    let t = w.task(&b);
    assert_eq!((t.status, t.superseded_run_ids.clone(), t.instruction.as_str()), (TaskStatus::Pending, vec!["run-5".to_string()], "then A"));
    // Only the first follow-up changed the ledger: the second one's Command writes no task.
    assert!(outs[1].command(&before, &Value::Null).unwrap().update.get("async_tasks").is_none());
    // A later turn may queue again.
    let out = w.one("update_async_task", json!({"task_id": b, "message": "then C"}));
    assert!(out.content.starts_with("Queued follow-up"), "{}", out.content);
}

#[test]
fn cancel_stops_the_run_needs_no_call_when_waiting_and_reports_a_finished_task() {
    let mut w = World::new(vec![agent("slow", json!({})), agent("ask", json!({}))]);
    let a = w.start("slow", "sleep=30");
    let out = w.one("cancel_async_task", json!({"task_id": a}));
    assert_eq!(out.content, format!("Cancelled async subagent task: {a}"));
    assert_eq!((w.task(&a).status, w.fake.run("run-2")["status"].as_str()), (TaskStatus::Cancelled, Some("interrupted")));
    let out = w.one("cancel_async_task", json!({"task_id": a}));
    assert_eq!(out.content, format!("Task {a} already finished with status cancelled; nothing to cancel."));

    let q = w.start("ask", "approve?");
    w.fake.ask(&w.task(&q).run_id.clone());
    w.poll();
    assert_eq!(w.task(&q).status, TaskStatus::Waiting);
    let n = w.fake.requests.borrow().len();
    w.one("cancel_async_task", json!({"task_id": q}));
    assert_eq!((w.task(&q).status, w.fake.requests.borrow().len()), (TaskStatus::Cancelled, n), "no server call for a waiting task");

    let s = w.start("slow", "sleep=1");
    w.fake.succeed(&w.task(&s).run_id.clone(), "slow done");
    let out = w.one("cancel_async_task", json!({"task_id": s}));
    assert_eq!(out.content, format!("Task {s} had already finished with status success; nothing was cancelled."));
    assert_eq!(w.task(&s).status, TaskStatus::Success);
}

#[test]
fn list_serves_terminal_tasks_from_the_ledger_and_refreshes_the_rest() {
    let mut w = World::new(vec![agent("echo", json!({}))]);
    assert_eq!(w.one("list_async_tasks", json!({})).content, "No async subagent tasks tracked.");
    let a = w.start("echo", "one");
    let b = w.start("echo", "two");
    w.fake.succeed(&w.task(&a).run_id.clone(), "echo: one");
    w.one("check_async_task", json!({"task_id": a}));
    let n = w.fake.requests.borrow().len();
    let out = w.one("list_async_tasks", json!({}));
    assert_eq!(out.content, format!("2 tracked task(s):\n- task_id: {a}  agent: echo  status: success\n- task_id: {b}  agent: echo  status: running"));
    let urls: Vec<String> = w.fake.requests.borrow()[n..].iter().map(|r| r.url.clone()).collect();
    assert_eq!(urls, vec![format!("http://server/threads/{b}/runs/run-4")], "only the unfinished task is asked about");
    let out = w.one("list_async_tasks", json!({"status_filter": "success"}));
    assert_eq!(out.content, format!("1 tracked task(s):\n- task_id: {a}  agent: echo  status: success"));
    assert_eq!(w.one("list_async_tasks", json!({"status_filter": "timeout"})).content, "No async subagent tasks with status timeout.");
    assert!(w.one("list_async_tasks", json!({"status_filter": "done"})).content.contains("`status_filter` is one of running, pending"));
}

#[test]
fn poll_notifies_each_status_change_once_and_delivery_is_exactly_once_at_a_safe_point() {
    let mut w = World::new(vec![agent("echo", json!({})), agent("quiet", json!({"notify_parent": false}))]);
    let a = w.start("echo", "hi");
    let q = w.start("quiet", "hi");
    w.fake.succeed(&w.task(&a).run_id.clone(), "echo: <hi> & bye");
    w.fake.succeed(&w.task(&q).run_id.clone(), "quiet");
    let (out, errors) = w.poll();
    assert!(errors.is_empty());
    assert_eq!(out.notifications.keys().cloned().collect::<Vec<_>>(), vec![format!("{a}:run-2:success")]);
    assert_eq!(w.task(&q).status, TaskStatus::Success, "a quiet subagent's task is still updated");
    let (again, _) = w.poll();
    assert!(again.notifications.is_empty() && again.tasks.is_empty(), "nothing changed, nothing written");
    assert_eq!(undelivered(&w.store).len(), 1);

    // An assistant turn waiting for its tool result: delivery waits.
    w.apply(json!({"messages": [{"type": "ai", "content": "", "tool_calls": [{"id": "x1", "name": "t", "args": {}}]}]}));
    let d = deliver(&mut w.store, w.now, None).unwrap();
    assert_eq!((d.delivered.len(), d.deferred), (0, 1));
    w.apply(json!({"messages": [{"type": "tool", "tool_call_id": "x1", "content": "ok"}]}));
    let d = deliver(&mut w.store, w.now, None).unwrap();
    assert_eq!((d.delivered.clone(), d.deferred), (vec![format!("{a}:run-2:success")], 0));
    let m = w.store.messages("messages").unwrap().messages().last().unwrap().clone();
    assert_eq!(m.role, crate::message::Role::User);
    let text = m.content.text();
    assert!(text.contains(&format!("<task-id>{a}</task-id>")) && text.contains("<status>success</status>"), "{text}");
    assert!(text.contains("echo: &lt;hi&gt; &amp; bye"), "subagent text is escaped: {text}");
    let encoded = crate::message::formats::encode_messages(&[m], crate::message::formats::Format::Langchain);
    assert_eq!(encoded[0]["additional_kwargs"]["deepagents_notification"], json!({"task_id": a, "agent_name": "echo", "status": "success", "run_id": "run-2"}));
    let d = deliver(&mut w.store, w.now, None).unwrap();
    assert!(d.delivered.is_empty(), "delivered once only");
    assert!(undelivered(&w.store).is_empty());
}

#[test]
fn a_failed_task_with_attempts_left_is_re_run_after_the_backoff_then_errors() {
    let mut w = World::new(vec![agent("fail", json!({"retry": {"max_attempts": 2, "backoff_ms": 1000}}))]);
    let a = w.start("fail", "boom");
    w.fake.fail("run-2");
    let (out, _) = w.poll();
    let t = w.task(&a);
    assert_eq!((t.status, t.retry_at_ms, t.error.as_deref()), (TaskStatus::Pending, Some(w.now + 1000), Some("RuntimeError: fail graph: boom")));
    assert!(out.notifications.is_empty(), "a scheduled retry is not a notification");
    w.now += 500;
    w.poll();
    assert_eq!(w.fake.calls("create_run").len(), 1, "not before the backoff");
    w.now += 500;
    w.poll();
    let t = w.task(&a);
    assert_eq!((t.status, t.attempts, t.run_id.as_str(), t.retry_at_ms), (TaskStatus::Running, 2, "run-3", None));
    assert_eq!(w.fake.calls("create_run")[1].body.as_ref().unwrap()["input"]["messages"][0]["content"], "boom");
    w.fake.fail("run-3");
    let (out, _) = w.poll();
    assert_eq!(w.task(&a).status, TaskStatus::Error);
    assert_eq!(out.notifications[&format!("{a}:run-3:error")]["error"], "RuntimeError: fail graph: boom");
    assert_eq!(Retry { max_attempts: 5, backoff_ms: 100 }.delay_ms(4), 400);
}

#[test]
fn a_run_past_its_timeout_is_cancelled_and_marked_timeout() {
    let mut w = World::new(vec![agent("slow", json!({"timeout_ms": 3000}))]);
    let a = w.start("slow", "sleep=30");
    w.now += 2_999;
    w.poll();
    assert_eq!(w.task(&a).status, TaskStatus::Running);
    w.now += 1;
    let (out, _) = w.poll();
    assert_eq!((w.task(&a).status, w.fake.run("run-2")["status"].as_str()), (TaskStatus::Timeout, Some("interrupted")));
    assert!(out.notifications.contains_key(&format!("{a}:run-2:timeout")));
}

#[test]
fn a_resumed_waiting_task_succeeds_and_notifies() {
    let mut w = World::new(vec![agent("ask", json!({}))]);
    let a = w.start("ask", "deploy");
    w.fake.ask("run-2");
    let (out, _) = w.poll();
    assert_eq!(out.notifications[&format!("{a}:run-2:waiting")]["interrupts"], json!([{"id": "i1", "value": {"question": "Approve?"}}]));
    let check = w.one("check_async_task", json!({"task_id": a}));
    let body: Value = serde_json::from_str(&check.content).unwrap();
    assert_eq!((body["status"].as_str(), body["interrupts"][0]["id"].as_str()), (Some("waiting"), Some("i1")));
    // The human answers on the child thread (a resume run the parent never made).
    let resume = block_on(w.fake.send(&ProtocolRequest { call: "create_run", method: "POST", url: format!("http://server/threads/{a}/runs"), headers: Map::new(), body: Some(json!({"command": {"resume": "yes"}})) })).unwrap();
    let (out, _) = w.poll();
    assert_eq!(w.task(&a).status, TaskStatus::Running, "the thread is busy with the resume run");
    assert!(out.notifications.is_empty());
    w.fake.succeed(resume.body["run_id"].as_str().unwrap(), "answer: yes");
    let (out, _) = w.poll();
    let n = &out.notifications[&format!("{a}:{}:success", resume.body["run_id"].as_str().unwrap())];
    assert_eq!(n["result"], "answer: yes");
}

#[test]
fn server_failures_become_error_results_and_leave_the_ledger_unchanged() {
    let mut w = World::new(vec![agent("echo", json!({}))]);
    let a = w.start("echo", "hi");
    let before = w.store.get("async_tasks").unwrap();
    w.fake.down.set(true);
    let out = w.one("check_async_task", json!({"task_id": a}));
    assert_eq!(out.error.as_ref().unwrap().code, ErrorCode::NetworkError);
    assert!(out.content.starts_with("Failed to get run status: get_run GET http://server/threads/th-1/runs/run-2: connection refused"), "{}", out.content);
    assert_eq!(w.store.get("async_tasks").unwrap(), before);
    let out = w.one("start_async_task", json!({"description": "x", "subagent_type": "echo"}));
    assert!(out.content.starts_with("Failed to launch async subagent 'echo':"), "{}", out.content);
    let (_, errors) = w.poll();
    assert_eq!((errors.len(), errors[0].error.code), (1, ErrorCode::NetworkError));
    assert_eq!(w.store.get("async_tasks").unwrap(), before);
    // The server lost the thread: a non-2xx answer is a SERVER_ERROR with the HTTP status.
    w.fake.down.set(false);
    w.fake.threads.borrow_mut().clear();
    let out = w.one("update_async_task", json!({"task_id": a, "message": "more"}));
    assert_eq!(out.error.as_ref().unwrap().code, ErrorCode::ServerError);
    assert!(out.content.contains("HTTP 404"), "{}", out.content);
    assert_eq!(w.store.get("async_tasks").unwrap()[&a], before[&a]);
}

#[test]
fn two_task_updates_in_one_superstep_both_survive() {
    let mut w = World::new(vec![agent("echo", json!({}))]);
    let a = w.start("echo", "one");
    let b = w.start("echo", "two");
    w.fake.succeed(&w.task(&a).run_id.clone(), "echo: one");
    w.fake.succeed(&w.task(&b).run_id.clone(), "echo: two");
    w.apply(json!({"messages": [{"type": "ai", "content": "", "tool_calls": [
        {"id": "k1", "name": "check_async_task", "args": {"task_id": a}}, {"id": "k2", "name": "check_async_task", "args": {"task_id": b}}]}]}));
    let ledger = w.store.get("async_tasks").unwrap();
    let cmds: Vec<Command> = ["k1", "k2"]
        .iter()
        .map(|id| {
            let c = ToolCall { id: id.to_string(), name: "check_async_task".into(), args: json!({"task_id": if *id == "k1" { &a } else { &b }}), raw_args: None, extra: Map::new() };
            let ctx = context(&mut w.store, &w.config, Some(&c), w.now).unwrap();
            block_on(call(&ctx, &w.fake, &c)).unwrap().command(&ledger, &Value::Null).unwrap()
        })
        .collect();
    w.store.apply_batch(&cmds, w.now).unwrap();
    assert_eq!((w.task(&a).status, w.task(&b).status), (TaskStatus::Success, TaskStatus::Success));
}

#[test]
fn the_ledger_refuses_reopening_a_finished_task_and_a_slow_call_does_not_reopen_it() {
    let mut w = World::new(vec![agent("echo", json!({}))]);
    let a = w.start("echo", "hi");
    // A check begins while the task runs …
    let c = ToolCall { id: "k".into(), name: "check_async_task".into(), args: json!({"task_id": a}), raw_args: None, extra: Map::new() };
    w.apply(json!({"messages": [{"type": "ai", "content": "", "tool_calls": [{"id": "k", "name": "check_async_task", "args": {"task_id": a}}]}]}));
    let ctx = context(&mut w.store, &w.config, Some(&c), w.now).unwrap();
    let out = block_on(call(&ctx, &w.fake, &c)).unwrap();
    // … and the task is cancelled before its Command is applied.
    w.one("cancel_async_task", json!({"task_id": a}));
    let cmd = out.command(&w.store.get("async_tasks").unwrap(), &Value::Null).unwrap();
    w.store.apply(&cmd, w.now).unwrap();
    assert_eq!(w.task(&a).status, TaskStatus::Cancelled);
    // Written directly, a terminal status cannot change and a task cannot be deleted.
    let reopen = Command { author: "app".into(), expected_version: None, update: json!({"async_tasks": {a.clone(): {"status": "running"}}}).as_object().cloned().unwrap(), correlation_id: None, causation_id: None };
    assert_eq!(w.store.apply(&reopen, w.now).unwrap_err().code, ErrorCode::InvalidTransition);
    let delete = Command { update: json!({"async_tasks": {a.clone(): null}}).as_object().cloned().unwrap(), ..reopen };
    assert_eq!(w.store.apply(&delete, w.now).unwrap_err().code, ErrorCode::InvalidUpdate);
}

#[test]
fn a_task_started_150_turns_ago_survives_compaction() {
    let mut w = World::new(vec![agent("slow", json!({}))]);
    w.apply(json!({"messages": [{"role": "user", "content": "start the research"}]}));
    let a = w.start("slow", "sleep=30 research");
    for k in 0..150 {
        w.apply(json!({"messages": [{"role": "user", "content": format!("question {k}")}, {"role": "assistant", "content": format!("answer {k}")}]}));
    }
    let cut = w.store.compaction_plan(4).unwrap();
    w.store.compact("The user asked 150 questions; a research task runs in the background.", cut, "summarizer", w.now).unwrap();
    let mut counter = crate::project::tokens::Estimate;
    let view = w.store.model_view(&crate::project::ProjectOptions::default(), &mut counter, "estimate").unwrap();
    let text = serde_json::to_string(&view.encoded).unwrap();
    assert!(!text.contains("Launched async subagent"), "the launch is compacted away");
    assert!(text.contains(&format!("- task {a} (slow): running")), "the active tasks section shows it: {text}");
    let out = w.one("list_async_tasks", json!({}));
    assert_eq!(out.content, format!("1 tracked task(s):\n- task_id: {a}  agent: slow  status: running"));
    let out = w.one("check_async_task", json!({"task_id": a}));
    assert_eq!(serde_json::from_str::<Value>(&out.content).unwrap()["status"], "running");
    let out = w.one("cancel_async_task", json!({"task_id": a}));
    assert_eq!(out.content, format!("Cancelled async subagent task: {a}"));
    assert_eq!(w.task(&a).status, TaskStatus::Cancelled);
}

#[test]
fn a_fork_start_sends_the_parents_view_without_the_launching_turn() {
    let mut w = World::new(vec![agent("fork", json!({"mode": "fork"}))]);
    w.apply(json!({"messages": [{"role": "system", "content": "parent rules"}, {"role": "user", "content": "plan a trip"}, {"role": "assistant", "content": "Where to?"}, {"role": "user", "content": "Lisbon"}]}));
    w.start("fork", "find hotels");
    let input = w.fake.calls("create_run")[0].body.as_ref().unwrap()["input"]["messages"].clone();
    let texts: Vec<&str> = input.as_array().unwrap().iter().map(|m| m["content"].as_str().unwrap()).collect();
    assert_eq!(texts[..3], ["plan a trip", "Where to?", "Lisbon"]);
    assert_eq!(texts.len(), 4);
    assert!(texts[3].starts_with(FORK_PREAMBLE) && texts[3].ends_with("find hotels"));
    assert_eq!(input[0]["type"], "human", "LangChain dicts");
}

#[test]
fn config_validation_names_the_problem() {
    let bad = |v: Value| serde_json::from_value::<TasksConfig>(v).map_err(|e| e.to_string()).and_then(|c| c.validate().map_err(|e| e.message));
    assert!(bad(json!({"agents": [], "url": "http://x"})).unwrap_err().contains("at least one"));
    let dup = bad(json!({"agents": [{"name": "a", "description": "", "graph_id": "g"}, {"name": "a", "description": "", "graph_id": "g"}], "url": "http://x"}));
    assert!(dup.unwrap_err().contains("duplicated: a"));
    assert!(bad(json!({"agents": [{"name": "a", "description": "", "graph_id": "g"}]})).unwrap_err().contains("has no url"));
    for url in ["http://", "ftp://x", "http://admin:s3cr3t@host", "http://x/?token=1", "http://x/#f", "http://x y"] {
        let e = bad(json!({"agents": [{"name": "a", "description": "", "graph_id": "g"}], "url": url})).unwrap_err();
        assert!(e.contains("without credentials") && !e.contains("s3cr3t"), "{url}: {e}");
    }
    let e = bad(json!({"agents": [{"name": "a", "description": "", "graph_id": "g", "headers": {"x": "a\r\nInjected: 1"}}], "url": "http://x"})).unwrap_err();
    assert!(e.contains("without control characters"), "{e}");
    assert!(bad(json!({"agents": [{"name": "a", "description": "", "graph_id": "g", "retry": {"max_attempts": 0}}], "url": "http://x"})).unwrap_err().contains("at least 1"));
    assert!(bad(json!({"agents": [{"name": "a", "description": "", "graph_id": "g", "colour": 1}], "url": "http://x"})).unwrap_err().contains("unknown field"));
    let defs = definitions(&config(vec![agent("echo", json!({}))]));
    assert_eq!(defs.iter().map(|d| d.name).collect::<Vec<_>>(), TOOL_NAMES);
    assert!(defs[1].description.contains("always stale") && defs[4].description.contains("full task_id"));
    assert_eq!(defs[0].parameters["properties"]["subagent_type"]["enum"], json!(["echo"]));
}

#[test]
fn a_poll_that_raced_a_follow_up_does_not_pin_the_new_run_to_the_old_status() {
    let mut w = World::new(vec![agent("slow", json!({}))]);
    let a = w.start("slow", "sleep=30");
    w.fake.succeed("run-2", "old answer");
    // The poll reads the ledger and the server …
    let ctx = context(&mut w.store, &w.config, None, w.now).unwrap();
    let (polled, _) = block_on(poll(&ctx, &w.fake));
    assert_eq!(polled.notifications.len(), 1);
    // … while the model's follow-up starts run-3 …
    w.one("update_async_task", json!({"task_id": a, "message": "more"}));
    // … then the poll's Command is built against the ledger as it is now.
    let cmd = polled.command(&w.store.get("async_tasks").unwrap(), &w.store.get("notifications").unwrap());
    assert!(cmd.is_none(), "a stale observation writes nothing and queues no stale success: {cmd:?}");
    let t = w.task(&a);
    assert_eq!((t.status, t.run_id.as_str()), (TaskStatus::Running, "run-3"));
}

#[test]
fn notifications_the_model_saw_or_that_went_stale_are_dropped_not_delivered() {
    let mut w = World::new(vec![agent("echo", json!({})), agent("ask", json!({}))]);
    let a = w.start("echo", "hi");
    let q = w.start("ask", "deploy?");
    w.fake.succeed("run-2", "echo: hi");
    w.fake.ask("run-4");
    w.poll();
    assert_eq!(undelivered(&w.store).len(), 2);
    // The model checks one task and cancels the other before the notifications go out.
    w.turn(&[("check_async_task", json!({"task_id": a})), ("cancel_async_task", json!({"task_id": q}))]);
    assert!(undelivered(&w.store).is_empty(), "both were shown to the model by its own tools");
    let d = deliver(&mut w.store, w.now, None).unwrap();
    assert!(d.delivered.is_empty());
    // A notification whose task moved on since it was queued (outside the model's tools) is
    // dropped at delivery, not delivered as news.
    let c = w.start("ask", "second");
    w.fake.ask(&w.task(&c).run_id.clone());
    w.poll();
    assert_eq!(undelivered(&w.store)[0]["status"], "waiting");
    block_on(w.fake.send(&ProtocolRequest { call: "create_run", method: "POST", url: format!("http://server/threads/{c}/runs"), headers: Map::new(), body: Some(json!({"command": {"resume": "yes"}})) })).unwrap();
    w.poll();
    assert_eq!(w.task(&c).status, TaskStatus::Running);
    let d = deliver(&mut w.store, w.now, None).unwrap();
    assert_eq!((d.delivered.len(), d.dropped.len()), (0, 1));
    assert!(undelivered(&w.store).is_empty());
}

#[test]
fn a_run_that_ends_just_before_its_timeout_cancel_keeps_its_real_outcome() {
    struct EndsFirst<'a>(&'a Fake);
    impl Transport for EndsFirst<'_> {
        async fn send(&self, r: &ProtocolRequest) -> std::result::Result<ProtocolResponse, String> {
            if r.call == "cancel_run" {
                self.0.succeed("run-2", "made it");
            }
            self.0.send(r).await
        }
    }
    let mut w = World::new(vec![agent("slow", json!({"timeout_ms": 10}))]);
    let a = w.start("slow", "sleep=1");
    w.now += 10;
    let ctx = context(&mut w.store, &w.config, None, w.now).unwrap();
    let (out, _) = block_on(poll(&ctx, &EndsFirst(&w.fake)));
    let cmd = out.command(&w.store.get("async_tasks").unwrap(), &w.store.get("notifications").unwrap()).unwrap();
    w.store.apply(&cmd, w.now).unwrap();
    assert_eq!(w.task(&a).status, TaskStatus::Success);
    assert_eq!(undelivered(&w.store)[0]["result"], "made it");
}

#[test]
fn a_retry_whose_record_was_lost_is_adopted_not_started_again() {
    let mut w = World::new(vec![agent("fail", json!({"retry": {"max_attempts": 3, "backoff_ms": 0}}))]);
    let a = w.start("fail", "boom");
    w.fake.fail("run-2");
    w.poll();
    // A poll starts the re-run, but its Command never reaches the store (e.g. onEvents threw).
    let ctx = context(&mut w.store, &w.config, None, w.now).unwrap();
    let _lost = block_on(poll(&ctx, &w.fake));
    assert_eq!(w.fake.calls("create_run").len(), 2);
    let (out, _) = w.poll();
    assert_eq!(w.fake.calls("create_run").len(), 2, "the next poll adopts the run instead of starting a third");
    assert_eq!((w.task(&a).run_id.as_str(), w.task(&a).attempts), ("run-3", 2));
    assert_eq!(out.tasks.len(), 1);
}

#[test]
fn a_private_value_never_leaves_for_a_server() {
    let mut w = World::new(vec![agent("echo", json!({})), agent("fork", json!({"mode": "fork"}))]);
    w.store
        .register_channel(crate::state::ChannelSpec::new("memory", crate::state::Reducer::Replace).with(|c| { c.visibility = crate::state::Visibility::Private; c.owner = Some("memory".into()); }), None, || "k".into())
        .unwrap();
    w.store.apply(&Command { author: "memory".into(), expected_version: None, update: json!({"memory": "DB_PASSWORD=hunter2-prod"}).as_object().cloned().unwrap(), correlation_id: None, causation_id: None }, w.now).unwrap();
    let out = w.one("start_async_task", json!({"description": "log in with DB_PASSWORD=hunter2-prod", "subagent_type": "echo"}));
    assert_eq!(out.error.as_ref().unwrap().code, ErrorCode::PrivateLeak);
    assert!(out.content.contains("'memory'") && !out.content.contains("hunter2"), "{}", out.content);
    assert!(w.fake.requests.borrow().is_empty(), "nothing was sent");
    w.apply(json!({"messages": [{"role": "user", "content": "the password is DB_PASSWORD=hunter2-prod"}]}));
    let out = w.one("start_async_task", json!({"description": "summarise", "subagent_type": "fork"}));
    assert_eq!(out.error.unwrap().code, ErrorCode::PrivateLeak, "a fork carrying it is refused too");
}

#[test]
fn tool_calls_are_read_in_every_provider_shape() {
    let want = ToolCall { id: "c1".into(), name: "check_async_task".into(), args: json!({"task_id": "t"}), raw_args: None, extra: Map::new() };
    for v in [
        json!({"id": "c1", "name": "check_async_task", "args": {"task_id": "t"}}),
        json!({"id": "c1", "type": "function", "function": {"name": "check_async_task", "arguments": "{\"task_id\": \"t\"}"}}),
        json!({"type": "tool_use", "id": "c1", "name": "check_async_task", "input": {"task_id": "t"}}),
        json!({"type": "tool-call", "toolCallId": "c1", "toolName": "check_async_task", "input": {"task_id": "t"}}),
        json!({"functionCall": {"id": "c1", "name": "check_async_task", "args": {"task_id": "t"}}}),
    ] {
        let c = tool_call_of(&v).unwrap_or_else(|e| panic!("{v}: {e}"));
        assert_eq!((c.id, c.name, c.args), (want.id.clone(), want.name.clone(), want.args.clone()), "{v}");
    }
    for v in [json!({"id": "", "name": "x", "args": {}}), json!({"id": "c", "name": "x", "args": [1]}), json!(null), json!({"id": "c", "type": "function", "function": {"name": "x", "arguments": "{oops"}})] {
        assert_eq!(tool_call_of(&v).unwrap_err().code, ErrorCode::InvalidToolCall, "{v}");
    }
}

#[test]
fn the_ledger_and_the_queue_refuse_forged_records() {
    let mut w = World::new(vec![agent("echo", json!({}))]);
    let ghost = Command { author: "someone".into(), expected_version: None, update: json!({"async_tasks": {"ghost": {"agent_name": "echo", "status": "running"}}}).as_object().cloned().unwrap(), correlation_id: None, causation_id: None };
    assert_eq!(w.store.apply(&ghost, w.now).unwrap_err().code, ErrorCode::InvalidUpdate);
    let forged = Command { update: json!({"notifications": {"n": {"id": "n", "task_id": "x", "status": "success"}}}).as_object().cloned().unwrap(), ..ghost };
    assert_eq!(w.store.apply(&forged, w.now).unwrap_err().code, ErrorCode::NotAuthorized);
}

#[test]
fn check_writes_json_as_deepagents_python_does() {
    let mut w = World::new(vec![agent("echo", json!({}))]);
    let a = w.start("echo", "hi");
    w.fake.succeed("run-2", "héllo");
    let out = w.one("check_async_task", json!({"task_id": a}));
    assert_eq!(out.content, format!(r#"{{"status": "success", "thread_id": "{a}", "result": "h\u00e9llo"}}"#));
}
