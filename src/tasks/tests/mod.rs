//! Native tests of the task ledger's transitions, against a fake Agent Protocol server that
//! behaves like the LangGraph in-memory server (AGENT_PROTOCOL_SERVER.md): the harness here, the
//! tools' cases in `tools.rs`, the poll's in `poll.rs`. The real server is driven by the Node
//! integration tests. Compiled only under #[cfg(test)] (see the module declaration).

use super::*;
use crate::error::ErrorCode;
use crate::lifecycle::TaskStatus;
use crate::state::{Command, Store, StoreOptions};
use serde_json::{json, Map, Value};
use std::cell::{Cell, RefCell};
use std::future::Future;

mod poll;
mod tools;

/// Runs an operation as the TypeScript `AsyncTasks` does, one synchronous step at a time
/// ([`Steps`]), each request answered by the fake server in the order they were made.
pub(super) fn stepped<T: 'static, F: Future<Output = T> + 'static>(fake: &Fake, start: impl FnOnce(Mailbox) -> F) -> T {
    let mut steps = Steps::new(start);
    while let Some(requests) = steps.advance() {
        assert!(!requests.is_empty(), "an operation waits without a request to answer");
        for (id, r) in requests {
            steps.answer(id, block_on(fake.send(&r))).unwrap();
        }
    }
    steps.finish().unwrap()
}

/// Runs a future whose I/O is the fake server (always ready) to completion.
pub(super) fn block_on<F: Future>(f: F) -> F::Output {
    let mut f = std::pin::pin!(f);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    loop {
        if let std::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

#[derive(Default)]
pub(super) struct Fake {
    pub(super) threads: RefCell<Map<String, Value>>,
    /// Runs in creation order.
    pub(super) runs: RefCell<Vec<Value>>,
    pub(super) requests: RefCell<Vec<ProtocolRequest>>,
    pub(super) down: Cell<bool>,
    pub(super) next: Cell<u32>,
    /// Answers 2xx to a cancel of a run that already finished (and leaves the run as it is).
    pub(super) lenient_cancel: Cell<bool>,
}

impl Fake {
    pub(super) fn id(&self, prefix: &str) -> String {
        self.next.set(self.next.get() + 1);
        format!("{prefix}-{}", self.next.get())
    }
    pub(super) fn run(&self, id: &str) -> Value {
        self.runs.borrow().iter().find(|r| r["run_id"] == id).cloned().unwrap()
    }
    pub(super) fn set_run(&self, id: &str, status: &str) {
        for r in self.runs.borrow_mut().iter_mut().filter(|r| r["run_id"] == id) {
            r["status"] = json!(status);
        }
    }
    pub(super) fn thread_mut(&self, id: &str, f: impl FnOnce(&mut Value)) {
        f(self.threads.borrow_mut().get_mut(id).unwrap())
    }
    /// The run ends with a final answer.
    pub(super) fn succeed(&self, run: &str, answer: &str) {
        self.set_run(run, "success");
        let t = self.run(run)["thread_id"].as_str().unwrap().to_string();
        self.thread_mut(&t, |t| {
            t["status"] = json!("idle");
            t["values"]["messages"].as_array_mut().unwrap().push(json!({"type": "ai", "content": answer}));
        });
    }
    /// The graph raised.
    pub(super) fn fail(&self, run: &str) {
        self.set_run(run, "error");
        let t = self.run(run)["thread_id"].as_str().unwrap().to_string();
        self.thread_mut(&t, |t| {
            t["status"] = json!("error");
            t["error"] = json!({"error": "RuntimeError", "message": "fail graph: boom"});
        });
    }
    /// The graph called `interrupt()`: the run succeeds, the thread waits.
    pub(super) fn ask(&self, run: &str) {
        self.set_run(run, "success");
        let t = self.run(run)["thread_id"].as_str().unwrap().to_string();
        self.thread_mut(&t, |t| {
            t["status"] = json!("interrupted");
            t["interrupts"] = json!({"node": [{"id": "i1", "value": {"question": "Approve?"}}]});
        });
    }
    pub(super) fn calls(&self, call: &str) -> Vec<ProtocolRequest> {
        self.requests.borrow().iter().filter(|r| r.call == call).cloned().collect()
    }
    pub(super) fn answer(&self, r: &ProtocolRequest) -> ProtocolResponse {
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
                ok(Value::Array(
                    self.threads
                        .borrow()
                        .values()
                        .filter(|t| want.as_object().unwrap().iter().all(|(k, v)| &t["metadata"][k] == v))
                        .cloned()
                        .collect(),
                ))
            }
            ("POST", ["threads", t, "runs"]) => {
                if !self.threads.borrow().contains_key(*t) {
                    return missing;
                }
                let strategy =
                    r.body.as_ref().unwrap().get("multitask_strategy").and_then(Value::as_str).unwrap_or("reject");
                let busy = self
                    .runs
                    .borrow()
                    .iter()
                    .any(|x| x["thread_id"] == *t && matches!(x["status"].as_str(), Some("pending" | "running")));
                if strategy == "interrupt" {
                    for x in
                        self.runs.borrow_mut().iter_mut().filter(|x| {
                            x["thread_id"] == *t && matches!(x["status"].as_str(), Some("pending" | "running"))
                        })
                    {
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
            ("GET", ["threads", t, "runs", "limit=1"]) => ok(Value::Array(
                self.runs.borrow().iter().rev().filter(|x| x["thread_id"] == *t).take(1).cloned().collect(),
            )),
            ("GET", ["threads", _, "runs", id]) => {
                self.runs.borrow().iter().find(|x| x["run_id"] == *id).cloned().map(ok).unwrap_or(missing)
            }
            ("POST", ["threads", t, "runs", id, "cancel"]) => {
                let live = self
                    .runs
                    .borrow()
                    .iter()
                    .any(|x| x["run_id"] == *id && matches!(x["status"].as_str(), Some("pending" | "running")));
                if !live {
                    return if self.lenient_cancel.get() { ok(json!({})) } else { missing };
                }
                self.set_run(id, "interrupted");
                self.thread_mut(t, |th| {
                    th["status"] = json!("interrupted");
                    th["interrupts"] = json!({});
                    th["error"] = json!({"error": "UserInterrupt"});
                });
                ok(json!({}))
            }
            ("GET", ["threads", t, "state"]) => {
                self.threads.borrow().get(*t).map(|th| ok(json!({"values": th["values"]}))).unwrap_or(missing)
            }
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

pub(super) fn agent(name: &str, extra: Value) -> SubagentSpec {
    let mut v = json!({"name": name, "description": format!("{name} agent"), "graph_id": name});
    v.as_object_mut().unwrap().extend(extra.as_object().cloned().unwrap_or_default());
    serde_json::from_value(v).unwrap()
}

pub(super) fn config(agents: Vec<SubagentSpec>) -> TasksConfig {
    let c: TasksConfig = serde_json::from_value(json!({"agents": agents, "url": "http://server"})).unwrap();
    c.validate().unwrap();
    c
}

/// A parent store, the fake server, the config and a clock.
pub(super) struct World {
    pub(super) store: Store,
    pub(super) fake: Fake,
    pub(super) config: TasksConfig,
    pub(super) now: u64,
    pub(super) turns: usize,
}

impl World {
    pub(super) fn new(agents: Vec<SubagentSpec>) -> World {
        World {
            store: Store::new(StoreOptions::default()).unwrap(),
            fake: Fake::default(),
            config: config(agents),
            now: 1_000_000,
            turns: 0,
        }
    }

    pub(super) fn apply(&mut self, update: Value) {
        let cmd = Command {
            author: "model".into(),
            expected_version: None,
            update: update.as_object().cloned().unwrap(),
            correlation_id: None,
            causation_id: None,
        };
        self.store.apply(&cmd, self.now).unwrap();
    }

    /// The model makes these calls in one assistant turn; each is run and its Command applied.
    pub(super) fn turn(&mut self, calls: &[(&str, Value)]) -> Vec<Outcome> {
        self.turns += 1;
        let calls: Vec<ToolCall> = calls
            .iter()
            .enumerate()
            .map(|(k, (name, args))| ToolCall {
                id: format!("c{}_{k}", self.turns),
                name: name.to_string(),
                args: args.clone(),
                raw_args: None,
                extra: Map::new(),
                approval: None,
            })
            .collect();
        let tc: Vec<Value> = calls.iter().map(|c| json!({"id": c.id, "name": c.name, "args": c.args})).collect();
        self.apply(json!({"messages": [{"type": "ai", "content": "", "tool_calls": tc}]}));
        calls
            .iter()
            .map(|c| {
                let ctx = context(&mut self.store, &self.config, Some(c), self.now).unwrap();
                let c2 = c.clone();
                let out = stepped(&self.fake, move |t| async move { call(&ctx, &t, &c2).await }).unwrap();
                let cmd = out
                    .command(&self.store.get("async_tasks").unwrap(), &self.store.get("notifications").unwrap())
                    .unwrap();
                self.store.apply(&cmd, self.now).unwrap();
                out
            })
            .collect()
    }

    pub(super) fn one(&mut self, name: &str, args: Value) -> Outcome {
        self.turn(&[(name, args)]).remove(0)
    }

    pub(super) fn poll(&mut self) -> (Outcome, Vec<PollError>) {
        let ctx = context(&mut self.store, &self.config, None, self.now).unwrap();
        let (out, errors) = stepped(&self.fake, move |t| async move { poll(&ctx, &t).await });
        if let Some(cmd) =
            out.command(&self.store.get("async_tasks").unwrap(), &self.store.get("notifications").unwrap())
        {
            self.store.apply(&cmd, self.now).unwrap();
        }
        (out, errors)
    }

    pub(super) fn task(&self, id: &str) -> Task {
        Task::read(&self.store.get("async_tasks").unwrap()[id]).unwrap()
    }

    pub(super) fn start(&mut self, agent: &str, description: &str) -> String {
        let out = self.one("start_async_task", json!({"description": description, "subagent_type": agent}));
        out.content
            .strip_prefix("Launched async subagent. task_id: ")
            .unwrap_or_else(|| panic!("{}", out.content))
            .to_string()
    }

    /// The last tool result in the store: (content, status).
    pub(super) fn last_result(&self) -> (String, String) {
        let m = self.store.messages("messages").unwrap().messages().last().unwrap().clone();
        (m.content.text(), format!("{:?}", m.status.unwrap()).to_lowercase())
    }
}
