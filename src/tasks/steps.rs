//! A task operation run one synchronous step at a time (DESIGN §7: effects as data), so the
//! caller's event loop — not an executor linked into the core — performs the server calls.
//!
//! [`Steps::new`] wraps an operation ([`super::call`], [`super::poll`], [`super::untracked`]) over
//! a [`Mailbox`] transport. [`Steps::advance`] runs it until it waits for server answers and
//! hands out the requests it made meanwhile, each with an id; the caller performs them (in any
//! order, at the same time if it likes: a poll asks about every task at once) and gives each
//! answer back with [`Steps::answer`]; the next `advance` goes on from there. When the operation
//! has finished, [`Steps::finish`] yields its output. Nothing here waits or does I/O.

use super::protocol::{ProtocolRequest, ProtocolResponse, Transport};
use crate::error::{Error, ErrorCode, Result};
use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

/// What a request was answered with: the server's response, or why it could not be reached.
pub type Answer = std::result::Result<ProtocolResponse, String>;

#[derive(Default)]
struct Slots {
    /// Requests made since the last [`Steps::advance`], with their ids.
    outbox: Vec<(u32, ProtocolRequest)>,
    /// Ids handed out and not yet answered.
    waiting: Vec<u32>,
    /// Answers given and not yet read by the operation.
    answers: Vec<(u32, Answer)>,
    next: u32,
}

/// The transport of a stepped operation: a request is queued for the caller, and its answer is
/// read when the caller has given it.
#[derive(Clone, Default)]
pub struct Mailbox(Rc<RefCell<Slots>>);

impl Transport for Mailbox {
    async fn send(&self, request: &ProtocolRequest) -> Answer {
        let id = {
            let mut s = self.0.borrow_mut();
            let id = s.next;
            s.next = s.next.wrapping_add(1);
            s.outbox.push((id, request.clone()));
            s.waiting.push(id);
            id
        };
        std::future::poll_fn(|_| {
            let mut s = self.0.borrow_mut();
            match s.answers.iter().position(|(i, _)| *i == id) {
                Some(at) => Poll::Ready(s.answers.swap_remove(at).1),
                None => Poll::Pending,
            }
        })
        .await
    }
}

/// An operation under way (see the module doc).
pub struct Steps<T> {
    work: Option<Pin<Box<dyn Future<Output = T>>>>,
    mail: Mailbox,
    out: Option<T>,
}

impl<T: 'static> Steps<T> {
    /// The operation `start(mailbox)`, not yet started.
    pub fn new<F: Future<Output = T> + 'static>(start: impl FnOnce(Mailbox) -> F) -> Steps<T> {
        let mail = Mailbox::default();
        Steps { work: Some(Box::pin(start(mail.clone()))), mail, out: None }
    }

    /// Runs the operation as far as it goes without new answers. `Some(requests)`: it waits, and
    /// these are the requests it made since the last call (empty while earlier ones are still
    /// unanswered); `None`: it has finished ([`Steps::finish`]).
    pub fn advance(&mut self) -> Option<Vec<(u32, ProtocolRequest)>> {
        if let Some(work) = self.work.as_mut() {
            if let Poll::Ready(v) = work.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
                self.out = Some(v);
                self.work = None;
            }
        }
        let made = std::mem::take(&mut self.mail.0.borrow_mut().outbox);
        if self.work.is_none() {
            None
        } else {
            Some(made)
        }
    }

    /// Gives the answer to request `id`. Errors: `INVALID_OPTION` for an id that was not handed
    /// out or was answered already.
    pub fn answer(&mut self, id: u32, answer: Answer) -> Result<()> {
        let mut s = self.mail.0.borrow_mut();
        let at = s.waiting.iter().position(|i| *i == id).ok_or_else(|| {
            Error::new(ErrorCode::InvalidOption, format!("request {id} is not waiting for an answer")).field("id")
        })?;
        s.waiting.swap_remove(at);
        s.answers.push((id, answer));
        Ok(())
    }

    /// The operation's output. Errors: `INVALID_OPTION` while it has not finished.
    pub fn finish(&mut self) -> Result<T> {
        self.out.take().ok_or_else(|| Error::new(ErrorCode::InvalidOption, "the operation has not finished"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Map};

    fn request(call: &'static str) -> ProtocolRequest {
        ProtocolRequest { call, method: "GET", url: format!("http://s/{call}"), headers: Map::new(), body: None }
    }

    #[test]
    fn requests_come_out_and_answers_go_in_in_any_order() {
        let mut steps = Steps::new(|t: Mailbox| async move {
            let (a, b) = (request("a"), request("b"));
            // Two calls at once, as a poll makes them.
            let (x, y) = (t.send(&a), t.send(&b));
            let (mut x, mut y) = (Box::pin(x), Box::pin(y));
            let (mut rx, mut ry) = (None, None);
            std::future::poll_fn(|cx| {
                if rx.is_none() {
                    if let Poll::Ready(v) = x.as_mut().poll(cx) {
                        rx = Some(v);
                    }
                }
                if ry.is_none() {
                    if let Poll::Ready(v) = y.as_mut().poll(cx) {
                        ry = Some(v);
                    }
                }
                if rx.is_some() && ry.is_some() {
                    Poll::Ready(())
                } else {
                    Poll::Pending
                }
            })
            .await;
            let then = t.send(&request("c")).await;
            (rx.unwrap(), ry.unwrap(), then)
        });
        let first = steps.advance().unwrap();
        assert_eq!(first.iter().map(|(i, r)| (*i, r.call)).collect::<Vec<_>>(), vec![(0, "a"), (1, "b")]);
        assert_eq!(steps.finish().unwrap_err().code, ErrorCode::InvalidOption);
        steps.answer(1, Err("down".into())).unwrap();
        assert_eq!(steps.advance().unwrap(), vec![], "still waiting for request 0");
        assert_eq!(steps.answer(1, Err("again".into())).unwrap_err().code, ErrorCode::InvalidOption);
        assert_eq!(steps.answer(7, Err("unknown".into())).unwrap_err().code, ErrorCode::InvalidOption);
        steps.answer(0, Ok(ProtocolResponse { status: 200, body: json!({"ok": 1}) })).unwrap();
        let next = steps.advance().unwrap();
        assert_eq!(next.iter().map(|(i, r)| (*i, r.call)).collect::<Vec<_>>(), vec![(2, "c")]);
        steps.answer(2, Ok(ProtocolResponse { status: 404, body: json!(null) })).unwrap();
        assert!(steps.advance().is_none());
        let (a, b, c) = steps.finish().unwrap();
        assert_eq!(a.unwrap().body, json!({"ok": 1}));
        assert_eq!(b.unwrap_err(), "down");
        assert_eq!(c.unwrap().status, 404);
        assert!(steps.advance().is_none());
        assert!(steps.finish().is_err(), "the output is taken once");
    }
}
