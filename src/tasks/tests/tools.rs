//! The five tools' transitions, configuration and tool-call shapes.
//! Compiled only under #[cfg(test)] (see the module declaration).

use super::*;

#[test]
fn start_records_a_running_task_and_returns_its_id_at_once() {
    let mut w = World::new(vec![agent("echo", json!({}))]);
    let id = w.start("echo", "say hi");
    let t = w.task(&id);
    assert_eq!(
        (t.task_id.as_str(), t.thread_id.as_str(), t.run_id.as_str(), t.status),
        ("th-1", "th-1", "run-2", TaskStatus::Running)
    );
    assert_eq!(
        (t.created_at.as_str(), t.last_updated_at.as_str(), t.attempts),
        ("1970-01-01T00:16:40.000Z", "1970-01-01T00:16:40.000Z", 1)
    );
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
    assert_eq!(
        (t.last_checked_at.as_str(), t.last_updated_at.as_str()),
        ("1970-01-01T00:16:45.000Z", "1970-01-01T00:16:40.000Z")
    );
    w.fake.succeed("run-2", "echo: hi");
    w.now += 5_000;
    let out = w.one("check_async_task", json!({"task_id": id}));
    assert_eq!(
        serde_json::from_str::<Value>(&out.content).unwrap(),
        json!({"status": "success", "thread_id": id, "result": "echo: hi"})
    );
    let t = w.task(&id);
    assert_eq!((t.status, t.last_updated_at.as_str()), (TaskStatus::Success, "1970-01-01T00:16:50.000Z"));
    let out = w.one("check_async_task", json!({"task_id": "th-404"}));
    assert_eq!(
        (out.content.as_str(), out.error.unwrap().code),
        ("No tracked task found for task_id: 'th-404'", ErrorCode::UnknownTask)
    );
}

#[test]
fn update_interrupts_or_queues_and_refuses_a_second_queued_follow_up_in_one_turn() {
    let mut w = World::new(vec![agent("slow", json!({})), agent("queue", json!({"update_strategy": "enqueue"}))]);
    let a = w.start("slow", "sleep=30");
    let out = w.one("update_async_task", json!({"task_id": a, "message": "faster"}));
    assert_eq!(out.content, format!("Updated async subagent. task_id: {a}"));
    let t = w.task(&a);
    assert_eq!(
        (t.task_id.as_str(), t.run_id.as_str(), t.status, t.instruction.as_str()),
        (a.as_str(), "run-3", TaskStatus::Running, "faster")
    );
    assert_eq!(w.fake.calls("create_run")[1].body.as_ref().unwrap()["multitask_strategy"], "interrupt");
    assert_eq!(w.fake.run("run-2")["status"], "interrupted");

    let b = w.start("queue", "sleep=30");
    let before = w.store.get("async_tasks").unwrap();
    let outs = w.turn(&[
        ("update_async_task", json!({"task_id": b, "message": "then A"})),
        ("update_async_task", json!({"task_id": b, "message": "then B"})),
    ]);
    assert_eq!(
        outs[0].content,
        format!("Queued follow-up to async subagent without interrupting its current run. task_id: {b}")
    );
    assert!(
        outs[1].content.starts_with(
            "Not sent: an earlier `update_async_task` call in this turn already queues a follow-up for task"
        ),
        "{}",
        outs[1].content
    );
    assert_eq!(outs[1].status, crate::message::ToolStatus::Error);
    assert!(outs[1].effects.is_empty(), "the refused follow-up reaches no server");
    let t = w.task(&b);
    assert_eq!(
        (t.status, t.superseded_run_ids.clone(), t.instruction.as_str()),
        (TaskStatus::Pending, vec!["run-5".to_string()], "then A")
    );
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
    assert_eq!(
        (w.task(&a).status, w.fake.run("run-2")["status"].as_str()),
        (TaskStatus::Cancelled, Some("interrupted"))
    );
    let out = w.one("cancel_async_task", json!({"task_id": a}));
    assert_eq!(out.content, format!("Task {a} already finished with status cancelled; nothing to cancel."));

    let q = w.start("ask", "approve?");
    w.fake.ask(&w.task(&q).run_id.clone());
    w.poll();
    assert_eq!(w.task(&q).status, TaskStatus::Waiting);
    let n = w.fake.requests.borrow().len();
    w.one("cancel_async_task", json!({"task_id": q}));
    assert_eq!(
        (w.task(&q).status, w.fake.requests.borrow().len()),
        (TaskStatus::Cancelled, n),
        "no server call for a waiting task"
    );

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
    assert_eq!(
        w.one("list_async_tasks", json!({"status_filter": "timeout"})).content,
        "No async subagent tasks with status timeout."
    );
    assert!(w
        .one("list_async_tasks", json!({"status_filter": "done"}))
        .content
        .contains("`status_filter` is one of running, pending"));
}

#[test]
fn server_failures_become_error_results_and_leave_the_ledger_unchanged() {
    let mut w = World::new(vec![agent("echo", json!({}))]);
    let a = w.start("echo", "hi");
    let before = w.store.get("async_tasks").unwrap();
    w.fake.down.set(true);
    let out = w.one("check_async_task", json!({"task_id": a}));
    assert_eq!(out.error.as_ref().unwrap().code, ErrorCode::NetworkError);
    assert!(
        out.content.starts_with(
            "Failed to get run status: get_run GET http://server/threads/th-1/runs/run-2: connection refused"
        ),
        "{}",
        out.content
    );
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
            let c = ToolCall {
                id: id.to_string(),
                name: "check_async_task".into(),
                args: json!({"task_id": if *id == "k1" { &a } else { &b }}),
                raw_args: None,
                extra: Map::new(),
                approval: None,
            };
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
    let c = ToolCall {
        id: "k".into(),
        name: "check_async_task".into(),
        args: json!({"task_id": a}),
        raw_args: None,
        extra: Map::new(),
        approval: None,
    };
    w.apply(json!({"messages": [{"type": "ai", "content": "", "tool_calls": [{"id": "k", "name": "check_async_task", "args": {"task_id": a}}]}]}));
    let ctx = context(&mut w.store, &w.config, Some(&c), w.now).unwrap();
    let out = block_on(call(&ctx, &w.fake, &c)).unwrap();
    // … and the task is cancelled before its Command is applied.
    w.one("cancel_async_task", json!({"task_id": a}));
    let cmd = out.command(&w.store.get("async_tasks").unwrap(), &Value::Null).unwrap();
    w.store.apply(&cmd, w.now).unwrap();
    assert_eq!(w.task(&a).status, TaskStatus::Cancelled);
    // Written directly, a terminal status cannot change and a task cannot be deleted.
    let reopen = Command {
        author: "app".into(),
        expected_version: None,
        update: json!({"async_tasks": {a.clone(): {"status": "running"}}}).as_object().cloned().unwrap(),
        correlation_id: None,
        causation_id: None,
    };
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
    w.store
        .compact("The user asked 150 questions; a research task runs in the background.", cut, "summarizer", w.now)
        .unwrap();
    let mut counter = crate::project::tokens::Estimate;
    let view = crate::project::Projector::default()
        .model_view(&w.store, &crate::project::ProjectOptions::default(), &mut counter, "estimate")
        .unwrap();
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
    let bad = |v: Value| {
        serde_json::from_value::<TasksConfig>(v)
            .map_err(|e| e.to_string())
            .and_then(|c| c.validate().map_err(|e| e.message))
    };
    assert!(bad(json!({"agents": [], "url": "http://x"})).unwrap_err().contains("at least one"));
    let dup = bad(
        json!({"agents": [{"name": "a", "description": "", "graph_id": "g"}, {"name": "a", "description": "", "graph_id": "g"}], "url": "http://x"}),
    );
    assert!(dup.unwrap_err().contains("duplicated: a"));
    assert!(bad(json!({"agents": [{"name": "a", "description": "", "graph_id": "g"}]}))
        .unwrap_err()
        .contains("has no url"));
    for url in ["http://", "ftp://x", "http://admin:s3cr3t@host", "http://x/?token=1", "http://x/#f", "http://x y"] {
        let e = bad(json!({"agents": [{"name": "a", "description": "", "graph_id": "g"}], "url": url})).unwrap_err();
        assert!(e.contains("without credentials") && !e.contains("s3cr3t"), "{url}: {e}");
    }
    let e = bad(json!({"agents": [{"name": "a", "description": "", "graph_id": "g", "headers": {"x": "a\r\nInjected: 1"}}], "url": "http://x"})).unwrap_err();
    assert!(e.contains("no control characters"), "{e}");
    assert!(bad(json!({"agents": [{"name": "a", "description": "", "graph_id": "g", "retry": {"max_attempts": 0}}], "url": "http://x"})).unwrap_err().contains("at least 1"));
    assert!(bad(
        json!({"agents": [{"name": "a", "description": "", "graph_id": "g", "colour": 1}], "url": "http://x"})
    )
    .unwrap_err()
    .contains("unknown field"));
    let defs = definitions(&config(vec![agent("echo", json!({}))]));
    assert_eq!(defs.iter().map(|d| d.name).collect::<Vec<_>>(), TOOL_NAMES);
    assert!(defs[1].description.contains("always stale") && defs[4].description.contains("full task_id"));
    assert_eq!(defs[0].parameters["properties"]["subagent_type"]["enum"], json!(["echo"]));
}

#[test]
fn a_private_value_never_leaves_for_a_server() {
    let mut w = World::new(vec![agent("echo", json!({})), agent("fork", json!({"mode": "fork"}))]);
    w.store
        .register_channel(
            crate::state::ChannelSpec::new("memory", crate::state::Reducer::Replace).with(|c| {
                c.visibility = crate::state::Visibility::Private;
                c.owner = Some("memory".into());
            }),
            None,
            || "k".into(),
        )
        .unwrap();
    w.store
        .apply(
            &Command {
                author: "memory".into(),
                expected_version: None,
                update: json!({"memory": "DB_PASSWORD=hunter2-prod"}).as_object().cloned().unwrap(),
                correlation_id: None,
                causation_id: None,
            },
            w.now,
        )
        .unwrap();
    let out = w.one(
        "start_async_task",
        json!({"description": "log in with DB_PASSWORD=hunter2-prod", "subagent_type": "echo"}),
    );
    assert_eq!(out.error.as_ref().unwrap().code, ErrorCode::PrivateLeak);
    assert!(out.content.contains("'memory'") && !out.content.contains("hunter2"), "{}", out.content);
    assert!(w.fake.requests.borrow().is_empty(), "nothing was sent");
    w.apply(json!({"messages": [{"role": "user", "content": "the password is DB_PASSWORD=hunter2-prod"}]}));
    let out = w.one("start_async_task", json!({"description": "summarise", "subagent_type": "fork"}));
    assert_eq!(out.error.unwrap().code, ErrorCode::PrivateLeak, "a fork carrying it is refused too");
}

#[test]
fn tool_calls_are_read_in_every_provider_shape() {
    let want = ToolCall {
        id: "c1".into(),
        name: "check_async_task".into(),
        args: json!({"task_id": "t"}),
        raw_args: None,
        extra: Map::new(),
        approval: None,
    };
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
    for v in
        [json!({"id": "", "name": "x", "args": {}}), json!(null), json!({"functionCall": {"name": "x", "args": {}}})]
    {
        assert_eq!(tool_call_of(&v).unwrap_err().code, ErrorCode::InvalidToolCall, "{v}");
    }
    // Arguments that are not an object are the model's mistake: answered, not refused.
    for v in [
        json!({"id": "c", "name": "x", "args": [1]}),
        json!({"id": "c", "type": "function", "function": {"name": "x", "arguments": "{oops"}}),
    ] {
        assert_eq!(tool_call_of(&v).unwrap().args, Value::Null, "{v}");
    }
}

#[test]
fn the_ledger_and_the_queue_refuse_forged_records() {
    let mut w = World::new(vec![agent("echo", json!({}))]);
    let ghost = Command {
        author: "someone".into(),
        expected_version: None,
        update: json!({"async_tasks": {"ghost": {"agent_name": "echo", "status": "running"}}})
            .as_object()
            .cloned()
            .unwrap(),
        correlation_id: None,
        causation_id: None,
    };
    assert_eq!(w.store.apply(&ghost, w.now).unwrap_err().code, ErrorCode::InvalidUpdate);
    let forged = Command {
        update: json!({"notifications": {"n": {"id": "n", "task_id": "x", "status": "success"}}})
            .as_object()
            .cloned()
            .unwrap(),
        ..ghost
    };
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

#[test]
fn preflight_refuses_what_the_store_would_refuse_and_writes_nothing() {
    let mut w = World::new(vec![agent("echo", json!({}))]);
    w.apply(json!({"messages": [{"role": "user", "content": "go"}, {"type": "ai", "content": "", "tool_calls": [{"id": "c1", "name": "start_async_task", "args": {}}]}]}));
    let version = w.store.version();
    preflight(&mut w.store, Some("c1"), w.now).unwrap();
    preflight(&mut w.store, None, w.now).unwrap();
    assert_eq!(preflight(&mut w.store, Some("nope"), w.now).unwrap_err().code, ErrorCode::UnknownToolCall);
    w.apply(json!({"approvals": {"a1": {"tool_call_id": "c1", "status": "pending"}}}));
    assert_eq!(preflight(&mut w.store, Some("c1"), w.now).unwrap_err().code, ErrorCode::ApprovalPending);
    assert_eq!(w.store.version(), version + 1, "only the approval was written");
    let mut past = w.store.at(1).unwrap();
    assert_eq!(preflight(&mut past, None, w.now).unwrap_err().code, ErrorCode::ReadOnly);
}

#[test]
fn a_2xx_answer_to_cancel_never_marks_a_finished_task_cancelled() {
    // Issue 14: a server answering 2xx to cancel_run for a run that had already succeeded.
    let mut w = World::new(vec![agent("slow", json!({}))]);
    w.fake.lenient_cancel.set(true);
    let s = w.start("slow", "sleep=1");
    w.fake.succeed(&w.task(&s).run_id.clone(), "slow done");
    let out = w.one("cancel_async_task", json!({"task_id": s}));
    assert_eq!(out.content, format!("Task {s} had already finished with status success; nothing was cancelled."));
    assert_eq!(w.task(&s).status, TaskStatus::Success);
    // A live run is still cancelled (the refresh sees it interrupted).
    let a = w.start("slow", "sleep=30");
    w.one("cancel_async_task", json!({"task_id": a}));
    assert_eq!(w.task(&a).status, TaskStatus::Cancelled);
}
