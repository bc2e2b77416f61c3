//! Transition tables of the status machines (DESIGN §3, §7): the run, a plan step, an approval and
//! an async subagent task.
//!
//! Each status is an enum with its wire name (`snake_case`, as stored in state) and a
//! `can_become` table. Terminal statuses never change. The store checks every status change of a
//! command against these tables and refuses the command with `INVALID_TRANSITION` otherwise.

use crate::error::{Error, ErrorCode, Result};
use serde::{Deserialize, Serialize};

#[cfg(target_arch = "wasm32")]
use tsify::Tsify;

/// Declares a status enum with its wire names and parse/name helpers.
macro_rules! status_enum {
    ($(#[$doc:meta])* $name:ident, $what:literal { $($(#[$vdoc:meta])* $variant:ident = $wire:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[cfg_attr(target_arch = "wasm32", derive(Tsify))]
        #[serde(rename_all = "snake_case")]
        pub enum $name {
            $($(#[$vdoc])* $variant),+
        }

        impl $name {
            /// Every status, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The wire name, e.g. `"waiting_approval"`.
            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $wire),+ }
            }

            /// Parses a wire name; anything else is `INVALID_UPDATE` naming the allowed values.
            pub fn parse(s: &str) -> Result<Self> {
                match s {
                    $($wire => Ok($name::$variant),)+
                    _ => Err(Error::new(
                        ErrorCode::InvalidUpdate,
                        format!(concat!("unknown ", $what, " status; expected one of: {}"), [$($wire),+].join(", ")),
                    )
                    .field("status")),
                }
            }
        }
    };
}

status_enum!(
    /// Status of the run (seed table, DESIGN §3). `completed`, `failed`, `cancelled` are terminal.
    RunStatus, "run" {
        /// Created, not started.
        Created = "created",
        /// The agent loop is running.
        Running = "running",
        /// Waiting for tool results.
        WaitingTool = "waiting_tool",
        /// Waiting for a human to decide an approval.
        WaitingApproval = "waiting_approval",
        /// Paused by the app.
        Paused = "paused",
        /// Finished with a final answer.
        Completed = "completed",
        /// Finished with an error.
        Failed = "failed",
        /// Stopped by the user or the app.
        Cancelled = "cancelled",
    }
);

impl RunStatus {
    /// True for `completed`, `failed`, `cancelled`: no tool call and no model message after them.
    pub fn is_terminal(self) -> bool {
        matches!(self, RunStatus::Completed | RunStatus::Failed | RunStatus::Cancelled)
    }

    /// The seed transition table: created → running; running → waiting_tool | waiting_approval |
    /// paused | completed | failed | cancelled; waiting_* → running | failed | cancelled;
    /// paused → running | cancelled. Staying in the same status is not a transition.
    pub fn can_become(self, to: RunStatus) -> bool {
        use RunStatus::*;
        match self {
            Created => matches!(to, Running),
            Running => matches!(to, WaitingTool | WaitingApproval | Paused | Completed | Failed | Cancelled),
            WaitingTool | WaitingApproval => matches!(to, Running | Failed | Cancelled),
            Paused => matches!(to, Running | Cancelled),
            Completed | Failed | Cancelled => false,
        }
    }
}

status_enum!(
    /// Status of one plan step. `succeeded` and `skipped` are terminal; a `failed` step may be
    /// retried (back to `pending`), as planners that re-plan after a failure expect.
    StepStatus, "plan step" {
        /// Not started.
        Pending = "pending",
        /// In progress; only once every dependency succeeded or was skipped.
        Running = "running",
        /// Done.
        Succeeded = "succeeded",
        /// Failed; may go back to pending for a retry.
        Failed = "failed",
        /// Will not run.
        Skipped = "skipped",
    }
);

impl StepStatus {
    /// pending → running | skipped | failed; running → succeeded | failed | skipped;
    /// failed → pending (retry). `succeeded` and `skipped` are terminal.
    pub fn can_become(self, to: StepStatus) -> bool {
        use StepStatus::*;
        match self {
            Pending => matches!(to, Running | Skipped | Failed),
            Running => matches!(to, Succeeded | Failed | Skipped),
            Failed => matches!(to, Pending),
            Succeeded | Skipped => false,
        }
    }

    /// True when a step depending on this one may start.
    pub fn unblocks(self) -> bool {
        matches!(self, StepStatus::Succeeded | StepStatus::Skipped)
    }
}

status_enum!(
    /// Status of a human approval of a tool call (human-in-the-loop).
    ApprovalStatus, "approval" {
        /// Waiting for a decision: the call may not get a result yet.
        Pending = "pending",
        /// The call may run.
        Approved = "approved",
        /// The call must not run; only an error result (the rejection notice) may answer it.
        Rejected = "rejected",
        /// Nobody decided in time; treated like a rejection.
        Expired = "expired",
    }
);

impl ApprovalStatus {
    /// pending → approved | rejected | expired; every decision is final.
    pub fn can_become(self, to: ApprovalStatus) -> bool {
        self == ApprovalStatus::Pending && to != ApprovalStatus::Pending
    }
}

status_enum!(
    /// Status of an async subagent task in the ledger (DESIGN §7; deepagents'
    /// `async_subagents.py` vocabulary). `success`, `error`, `cancelled` and `timeout` are
    /// terminal.
    TaskStatus, "async task" {
        /// Launched or queued; no run is executing it yet (also: a retry is scheduled).
        Pending = "pending",
        /// A run is executing it.
        Running = "running",
        /// The subagent waits for a human (an `interrupt()` on its own thread).
        Waiting = "waiting",
        /// Finished with a final answer.
        Success = "success",
        /// Failed, with no retry left.
        Error = "error",
        /// Cancelled by the model, the app, or outside the tools.
        Cancelled = "cancelled",
        /// Ran past its `timeout_ms` and was stopped.
        Timeout = "timeout",
    }
);

impl TaskStatus {
    /// True for `success`, `error`, `cancelled`, `timeout`: the record never changes status again.
    pub fn is_terminal(self) -> bool {
        matches!(self, TaskStatus::Success | TaskStatus::Error | TaskStatus::Cancelled | TaskStatus::Timeout)
    }

    /// Every unfinished status may become any other status (a run starts, is queued behind a
    /// follow-up or a retry, waits for a human, is resumed, ends); terminal statuses never
    /// change (deepagents keeps a cancelled task cancelled even if its thread is resumed).
    pub fn can_become(self, to: TaskStatus) -> bool {
        !self.is_terminal() && self != to
    }

    /// Statuses that produce a notification for the parent (deepagents `TaskEvent.status`).
    pub fn notifies(self) -> bool {
        !matches!(self, TaskStatus::Pending | TaskStatus::Running)
    }
}

/// Checks one status change against a table; `what` names the machine in the error.
pub(crate) fn check_transition<S: Copy + PartialEq>(
    what: &str,
    from: S,
    to: S,
    can_become: fn(S, S) -> bool,
    name: fn(S) -> &'static str,
) -> Result<()> {
    if from == to || can_become(from, to) {
        return Ok(());
    }
    Err(Error::new(ErrorCode::InvalidTransition, format!("{what} cannot go from {} to {}", name(from), name(to)))
        .field("status"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_table_matches_the_seed() {
        use RunStatus::*;
        let allowed: Vec<(RunStatus, RunStatus)> = RunStatus::ALL
            .iter()
            .flat_map(|&a| RunStatus::ALL.iter().map(move |&b| (a, b)))
            .filter(|&(a, b)| a.can_become(b))
            .collect();
        assert_eq!(
            allowed,
            vec![
                (Created, Running),
                (Running, WaitingTool),
                (Running, WaitingApproval),
                (Running, Paused),
                (Running, Completed),
                (Running, Failed),
                (Running, Cancelled),
                (WaitingTool, Running),
                (WaitingTool, Failed),
                (WaitingTool, Cancelled),
                (WaitingApproval, Running),
                (WaitingApproval, Failed),
                (WaitingApproval, Cancelled),
                (Paused, Running),
                (Paused, Cancelled),
            ]
        );
        assert!(RunStatus::ALL
            .iter()
            .filter(|s| s.is_terminal())
            .all(|s| RunStatus::ALL.iter().all(|t| !s.can_become(*t))));
    }

    #[test]
    fn parse_names_the_allowed_values() {
        assert_eq!(RunStatus::parse("waiting_approval").unwrap(), RunStatus::WaitingApproval);
        let e = RunStatus::parse("done").unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidUpdate);
        assert!(e.message.contains("created, running, waiting_tool"), "{}", e.message);
        assert!(ApprovalStatus::Pending.can_become(ApprovalStatus::Expired));
        assert!(!ApprovalStatus::Approved.can_become(ApprovalStatus::Rejected));
        assert!(StepStatus::Failed.can_become(StepStatus::Pending));
        assert!(!StepStatus::Succeeded.can_become(StepStatus::Running));
    }

    #[test]
    fn task_table_keeps_terminal_statuses() {
        use TaskStatus::*;
        let terminal: Vec<TaskStatus> = TaskStatus::ALL.iter().copied().filter(|s| s.is_terminal()).collect();
        assert_eq!(terminal, vec![Success, Error, Cancelled, Timeout]);
        for &from in TaskStatus::ALL {
            for &to in TaskStatus::ALL {
                assert_eq!(from.can_become(to), !from.is_terminal() && from != to, "{from:?} -> {to:?}");
            }
        }
        assert!(Running.can_become(Pending), "a follow-up or a retry queues the task again");
        assert!(Waiting.can_become(Running), "a resumed or updated task runs again");
        let notifying: Vec<TaskStatus> = TaskStatus::ALL.iter().copied().filter(|s| s.notifies()).collect();
        assert_eq!(notifying, vec![Waiting, Success, Error, Cancelled, Timeout]);
        assert_eq!(TaskStatus::parse("timeout").unwrap(), Timeout);
    }
}
