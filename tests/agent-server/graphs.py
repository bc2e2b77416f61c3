"""Four LangGraph graphs that need no LLM, served by `langgraph dev` for the ledger's tests.

Each graph's state is langgraph's MessagesState (`{"messages": add_messages}`), and each reply
is an AIMessage with plain string content. Together they cover every run and thread status
the async task ledger has to tell apart: success (echo), a long run that can be cancelled or
interrupted by a newer run (slow), error (fail), and waiting on a human (ask).
"""

import asyncio
import re
import time

from langchain_core.messages import AIMessage, HumanMessage
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.types import interrupt

DEFAULT_SLOW_SECONDS = 5.0
SLOW_STEP_SECONDS = 0.1


def last_user_text(state: MessagesState) -> str:
    """The text of the newest human message, or "" when there is none."""
    for message in reversed(state["messages"]):
        if isinstance(message, HumanMessage):
            content = message.content
            if isinstance(content, str):
                return content
            # A list of content blocks: join their text parts.
            return "".join(
                block if isinstance(block, str) else str(block.get("text", ""))
                for block in content
            )
    return ""


def single_node(name: str, node) -> object:
    """Compiles START -> node -> END over MessagesState; the graph takes the node's docstring."""
    builder = StateGraph(MessagesState)
    builder.add_node(name, node)
    builder.add_edge(START, name)
    builder.add_edge(name, END)
    graph = builder.compile()
    graph.__doc__ = node.__doc__
    return graph


def _echo(state: MessagesState) -> dict:
    """echo: replies "echo: <last user text>" at once; the run ends in status success."""
    return {"messages": [AIMessage(content=f"echo: {last_user_text(state)}")]}


async def _slow(state: MessagesState) -> dict:
    """slow: sleeps in 0.1 s async steps for N seconds, N from `sleep=<number>` in the last
    user text (default 5), then replies "slow done: <last user text>". Used to cancel a running run
    and to test multitask strategies (interrupt, enqueue) on a busy thread."""
    text = last_user_text(state)
    match = re.search(r"sleep=([0-9]+(?:\.[0-9]+)?)", text)
    seconds = float(match.group(1)) if match else DEFAULT_SLOW_SECONDS
    deadline = time.monotonic() + seconds
    # Small steps, so a cancel or an interrupting run stops it within one step.
    while (left := deadline - time.monotonic()) > 0:
        await asyncio.sleep(min(SLOW_STEP_SECONDS, left))
    return {"messages": [AIMessage(content=f"slow done: {text}")]}


def _fail(state: MessagesState) -> dict:
    """fail: raises RuntimeError("fail graph: <last user text>"); the run and the thread end in
    status error."""
    raise RuntimeError(f"fail graph: {last_user_text(state)}")


def _ask(state: MessagesState) -> dict:
    """ask: calls interrupt({"question": "Approve: <last user text>?"}); the run ends in status
    success and the thread shows status interrupted with a non-empty `interrupts`. Resumed with
    {"command": {"resume": VALUE}}, it replies "answer: VALUE"."""
    answer = interrupt({"question": f"Approve: {last_user_text(state)}?"})
    return {"messages": [AIMessage(content=f"answer: {answer}")]}


# The graphs named in langgraph.json.
echo = single_node("echo", _echo)
slow = single_node("slow", _slow)
fail = single_node("fail", _fail)
ask = single_node("ask", _ask)
