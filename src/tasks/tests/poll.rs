//! The poll: notifications, retries, time-outs, resumed waits, and races with the tools.
//! Compiled only under #[cfg(test)] (see the module declaration).

use super::*;

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
    w.apply(
        json!({"messages": [{"type": "ai", "content": "", "tool_calls": [{"id": "x1", "name": "t", "args": {}}]}]}),
    );
    let d = deliver(&mut w.store, w.now).unwrap();
    assert_eq!((d.delivered.len(), d.deferred), (0, 1));
    w.apply(json!({"messages": [{"type": "tool", "tool_call_id": "x1", "content": "ok"}]}));
    let d = deliver(&mut w.store, w.now).unwrap();
    assert_eq!((d.delivered.clone(), d.deferred), (vec![format!("{a}:run-2:success")], 0));
    let m = (**w.store.messages("messages").unwrap().messages().last().unwrap()).clone();
    assert_eq!(m.role, crate::message::Role::User);
    let text = m.content.text();
    assert!(text.contains(&format!("<task-id>{a}</task-id>")) && text.contains("<status>success</status>"), "{text}");
    assert!(text.contains("echo: &lt;hi&gt; &amp; bye"), "subagent text is escaped: {text}");
    let encoded = crate::message::formats::encode_messages(&[m], crate::message::formats::Format::Langchain);
    assert_eq!(
        encoded[0]["additional_kwargs"]["deepagents_notification"],
        json!({"task_id": a, "agent_name": "echo", "status": "success", "run_id": "run-2"})
    );
    let d = deliver(&mut w.store, w.now).unwrap();
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
    assert_eq!(
        (t.status, t.retry_at_ms, t.error.as_deref()),
        (TaskStatus::Pending, Some(w.now + 1000), Some("RuntimeError: fail graph: boom"))
    );
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
    assert_eq!(
        out.notifications[&format!("{a}:run-2:waiting")]["interrupts"],
        json!([{"id": "i1", "value": {"question": "Approve?"}}])
    );
    let check = w.one("check_async_task", json!({"task_id": a}));
    let body: Value = serde_json::from_str(&check.content).unwrap();
    assert_eq!((body["status"].as_str(), body["interrupts"][0]["id"].as_str()), (Some("waiting"), Some("i1")));
    // The human answers on the child thread (a resume run the parent never made).
    let resume = block_on(w.fake.send(&ProtocolRequest {
        call: "create_run",
        method: "POST",
        url: format!("http://server/threads/{a}/runs"),
        headers: Map::new(),
        body: Some(json!({"command": {"resume": "yes"}})),
    }))
    .unwrap();
    let (out, _) = w.poll();
    assert_eq!(w.task(&a).status, TaskStatus::Running, "the thread is busy with the resume run");
    assert!(out.notifications.is_empty());
    w.fake.succeed(resume.body["run_id"].as_str().unwrap(), "answer: yes");
    let (out, _) = w.poll();
    let n = &out.notifications[&format!("{a}:{}:success", resume.body["run_id"].as_str().unwrap())];
    assert_eq!(n["result"], "answer: yes");
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
    let left: Vec<String> = undelivered(&w.store).iter().map(|n| n["status"].as_str().unwrap().to_string()).collect();
    assert_eq!(left, vec!["waiting"], "the success the check showed is dropped at once");
    let d = deliver(&mut w.store, w.now).unwrap();
    assert_eq!((d.delivered.len(), d.dropped.len()), (0, 1), "the wait is stale: the model cancelled the task");
    // A notification whose task moved on since it was queued (outside the model's tools) is
    // dropped at delivery, not delivered as news.
    let c = w.start("ask", "second");
    w.fake.ask(&w.task(&c).run_id.clone());
    w.poll();
    assert_eq!(undelivered(&w.store)[0]["status"], "waiting");
    block_on(w.fake.send(&ProtocolRequest {
        call: "create_run",
        method: "POST",
        url: format!("http://server/threads/{c}/runs"),
        headers: Map::new(),
        body: Some(json!({"command": {"resume": "yes"}})),
    }))
    .unwrap();
    w.poll();
    assert_eq!(w.task(&c).status, TaskStatus::Running);
    let d = deliver(&mut w.store, w.now).unwrap();
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
fn a_check_that_saw_an_older_status_keeps_the_newer_notification() {
    let mut w = World::new(vec![agent("echo", json!({}))]);
    let a = w.start("echo", "hi");
    w.apply(json!({"messages": [{"type": "ai", "content": "", "tool_calls": [{"id": "k", "name": "check_async_task", "args": {"task_id": a}}]}]}));
    let c = ToolCall {
        id: "k".into(),
        name: "check_async_task".into(),
        args: json!({"task_id": a}),
        raw_args: None,
        extra: Map::new(),
        approval: None,
    };
    let ctx = context(&mut w.store, &w.config, Some(&c), w.now).unwrap();
    let checked = block_on(call(&ctx, &w.fake, &c)).unwrap(); // saw "running"
    w.fake.succeed("run-2", "done");
    w.poll(); // recorded success, queued its notification
    let cmd = checked.command(&w.store.get("async_tasks").unwrap(), &w.store.get("notifications").unwrap()).unwrap();
    assert!(cmd.update.get("notifications").is_none(), "the model saw running, not the success");
    w.store.apply(&cmd, w.now).unwrap();
    assert_eq!(undelivered(&w.store).len(), 1);
}

#[test]
fn a_follow_up_sent_while_the_task_finished_tells_the_model_it_is_not_tracked() {
    let mut w = World::new(vec![agent("slow", json!({}))]);
    let a = w.start("slow", "sleep=5");
    w.apply(json!({"messages": [{"type": "ai", "content": "", "tool_calls": [{"id": "u", "name": "update_async_task", "args": {"task_id": a, "message": "more"}}]}]}));
    let c = ToolCall {
        id: "u".into(),
        name: "update_async_task".into(),
        args: json!({"task_id": a, "message": "more"}),
        raw_args: None,
        extra: Map::new(),
        approval: None,
    };
    let ctx = context(&mut w.store, &w.config, Some(&c), w.now).unwrap();
    let updated = block_on(call(&ctx, &w.fake, &c)).unwrap();
    assert!(updated.content.starts_with("Updated"));
    // Meanwhile a poll recorded that the first run had finished.
    let mut stored = w.store.get("async_tasks").unwrap();
    stored[&a]["status"] = json!("success");
    let cmd = updated.command(&stored, &Value::Null).unwrap();
    let msg = &cmd.update["messages"][0];
    assert_eq!(msg["status"], "error");
    assert!(
        msg["content"].as_str().unwrap().starts_with(&format!("Not tracked: task {a} finished with status success")),
        "{msg}"
    );
}

#[test]
fn tools_report_a_due_retry_and_leave_starting_it_to_the_poll() {
    let mut w = World::new(vec![agent("fail", json!({"retry": {"max_attempts": 2, "backoff_ms": 0}}))]);
    let a = w.start("fail", "boom");
    w.fake.fail("run-2");
    w.poll();
    let out = w.one("check_async_task", json!({"task_id": a}));
    assert!(out.content.contains("run 2 of 2 is scheduled"), "{}", out.content);
    assert_eq!(w.fake.calls("create_run").len(), 1, "a check starts no run");
    w.poll();
    assert_eq!(w.fake.calls("create_run").len(), 2);
}

#[test]
fn a_time_out_whose_record_was_lost_is_still_a_time_out_and_a_vanished_run_an_error() {
    let mut w = World::new(vec![agent("slow", json!({"timeout_ms": 100})), agent("echo", json!({}))]);
    let a = w.start("slow", "sleep=30");
    w.now += 100;
    let ctx = context(&mut w.store, &w.config, None, w.now).unwrap();
    let _lost = block_on(poll(&ctx, &w.fake)); // cancelled the run; its write never landed
    assert_eq!(w.fake.run("run-2")["status"], "interrupted");
    w.poll();
    assert_eq!(w.task(&a).status, TaskStatus::Timeout);
    let b = w.start("echo", "hi");
    w.fake.runs.borrow_mut().retain(|r| r["thread_id"] != json!(b));
    w.poll();
    let t = w.task(&b);
    assert_eq!(
        (t.status, t.error.as_deref()),
        (TaskStatus::Error, Some("The subagent's run is no longer on its server (deleted or expired)."))
    );
}

#[test]
fn a_new_question_on_a_new_run_is_a_new_notification() {
    let mut w = World::new(vec![agent("ask", json!({}))]);
    let a = w.start("ask", "deploy?");
    w.fake.ask("run-2");
    w.poll();
    // The human answers on the subagent's thread; the subagent asks again on the new run.
    let resume = block_on(w.fake.send(&ProtocolRequest {
        call: "create_run",
        method: "POST",
        url: format!("http://server/threads/{a}/runs"),
        headers: Map::new(),
        body: Some(json!({"command": {"resume": "yes"}})),
    }))
    .unwrap();
    let second = resume.body["run_id"].as_str().unwrap().to_string();
    w.fake.ask(&second);
    let (out, _) = w.poll();
    assert_eq!(w.task(&a).run_id, second);
    assert!(
        out.notifications.contains_key(&format!("{a}:{second}:waiting")),
        "{:?}",
        out.notifications.keys().collect::<Vec<_>>()
    );
}

#[test]
fn a_subagent_answer_carrying_a_private_value_is_redacted_on_the_way_in() {
    // Issue 14: the answer landed unscanned in the ledger, the notifications and the model view.
    let mut w = World::new(vec![agent("echo", json!({}))]);
    let spec: crate::state::ChannelSpec =
        serde_json::from_value(json!({"name": "vault", "reducer": "replace", "visibility": "private", "owner": "mem"}))
            .unwrap();
    w.store.register_channel(spec, None, || "key".into()).unwrap();
    let cmd = crate::state::Command {
        author: "mem".into(),
        expected_version: None,
        update: json!({"vault": "CANARY-priv-31337x"}).as_object().cloned().unwrap(),
        correlation_id: None,
        causation_id: None,
    };
    w.store.apply(&cmd, w.now).unwrap();
    let a = w.start("echo", "hi");
    w.fake.succeed(&w.task(&a).run_id.clone(), "the secret is CANARY-priv-31337x, as asked");
    w.poll();
    let shown = serde_json::to_string(&w.store.system_view()).unwrap();
    assert!(!shown.contains("CANARY-priv-31337x"), "{shown}");
    assert!(shown.contains("the secret is [redacted], as asked"), "{shown}");
    deliver(&mut w.store, w.now).unwrap();
    let view = crate::project::Projector::default()
        .model_view(&w.store, &Default::default(), &mut crate::project::tokens::Estimate, "estimate")
        .unwrap();
    assert!(!serde_json::to_string(&view.messages).unwrap().contains("CANARY"));
}

#[test]
fn a_poll_the_store_refuses_whole_is_recorded_task_by_task() {
    let mut w = World::new(vec![agent("echo", json!({}))]);
    let a = w.start("echo", "one");
    let b = w.start("echo", "two");
    w.fake.succeed(&w.task(&a).run_id.clone(), "first");
    w.fake.succeed(&w.task(&b).run_id.clone(), "second");
    let ctx = context(&mut w.store, &w.config, None, w.now).unwrap();
    let (out, failed) = block_on(poll(&ctx, &w.fake));
    assert!(failed.is_empty());
    let (ledger, queue) = (w.store.get("async_tasks").unwrap(), w.store.get("notifications").unwrap());
    let version = w.store.version();
    // A gate that refuses any command touching task `a` (as the store refuses a record it cannot keep).
    let (store, now, refused) = (&mut w.store, w.now, a.clone());
    let mut apply = |cmd: &Command| {
        if cmd.update.get("async_tasks").and_then(|t| t.get(&refused)).is_some() {
            return Err(crate::error::Error::new(ErrorCode::TooLarge, "refused"));
        }
        store.apply(cmd, now)
    };
    let r = record_poll(&out, failed, &ledger, &queue, version, &mut apply);
    assert_eq!(r.changed, vec![b.clone()]);
    assert_eq!(r.notifications.len(), 1);
    assert_eq!(r.version, version + 1);
    assert_eq!(
        r.errors,
        vec![PollFailure { task_id: a.clone(), code: ErrorCode::TooLarge, message: "refused".into() }]
    );
    assert_eq!(w.task(&a).status, TaskStatus::Running, "the refused task keeps its record");
    assert_eq!(w.task(&b).status, TaskStatus::Success);
}
