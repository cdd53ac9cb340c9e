"""Drives Zulip's Python bindings (PyPI `zulip`) for python-bindings.test.ts.

Credentials come from ZULIP_SITE, ZULIP_EMAIL and ZULIP_API_KEY; the plan, a
JSON object on stdin:

    {"calls": [["update_message", {"message_id": 1, "content": "x"}],
               ["get_subscribers", {"kwargs": {"stream": "devel"}}], ...],
     "event_types": ["update_message"], "expected_events": 1}

An argument {"file": {"name": "a.png", "base64": "..."}} is passed as an open
file of that name (upload_file, upload_custom_emoji); the pseudo-method
["download", "/user_uploads/..."] GETs a path of the site with the bindings'
own session and credentials and replies {"status", "content_type", "base64"}.

When `event_types` is given, `call_on_each_event` listens from before the
first call. Prints one JSON object, {"replies": [...], "events": [...]}: the
reply of each call, in order, and the events heard until `expected_events`
arrived, a call failed (the events it would cause will not come) or
TIMEOUT_SECONDS passed.
"""

import base64
import json
import os
import sys
import tempfile
import threading
from typing import Callable

import zulip

# For the queue's registration and for the events: below the jest test's
# timeout, so that what does not come shows as a failed assertion, not a hang.
TIMEOUT_SECONDS = 20


def main() -> None:
    plan = json.load(sys.stdin)
    client = zulip.Client(
        email=os.environ["ZULIP_EMAIL"],
        api_key=os.environ["ZULIP_API_KEY"],
        site=os.environ["ZULIP_SITE"],
    )
    events: list = []
    all_arrived = threading.Event()
    expected_events = plan.get("expected_events", 0)

    def on_event(event: dict) -> None:
        events.append(event)
        if len(events) >= expected_events:
            all_arrived.set()

    if plan.get("event_types"):
        listen(client, plan["event_types"], on_event)

    replies = [call(client, method, args) for method, *args in plan["calls"]]
    if expected_events and all(reply.get("result") == "success" for reply in replies):
        all_arrived.wait(TIMEOUT_SECONDS)
    print(json.dumps({"replies": replies, "events": list(events)}), flush=True)
    # The listening thread is parked in a long-poll that nothing interrupts.
    os._exit(0)


def call(client: zulip.Client, method: str, args: list) -> dict:
    """One call; a last argument {"kwargs": {...}} is passed as keyword arguments
    (methods such as get_subscribers take only those; call_endpoint's `files` is a list)."""
    kwargs: dict = {}
    if args and isinstance(args[-1], dict) and set(args[-1]) == {"kwargs"}:
        kwargs = {
            name: [as_file(v) for v in value] if isinstance(value, list) else as_file(value)
            for name, value in args.pop()["kwargs"].items()
        }
    if method == "download":
        return download(client, args[0])
    return getattr(client, method)(*[as_file(arg) for arg in args], **kwargs)


def as_file(arg: object) -> object:
    """A {"file": {"name", "base64"}} argument as an open file of that name."""
    if not (isinstance(arg, dict) and set(arg) == {"file"}):
        return arg
    path = os.path.join(tempfile.mkdtemp(), arg["file"]["name"])
    with open(path, "wb") as f:
        f.write(base64.b64decode(arg["file"]["base64"]))
    return open(path, "rb")


def download(client: zulip.Client, path: str) -> dict:
    """What a client does with an uploaded file's URL: GET it with its own credentials."""
    client.ensure_session()
    assert client.session is not None
    res = client.session.get(os.environ["ZULIP_SITE"] + path)
    return {
        "status": res.status_code,
        "content_type": res.headers.get("content-type"),
        "base64": base64.b64encode(res.content).decode(),
    }


def listen(
    client: zulip.Client, event_types: list, on_event: Callable[[dict], None]
) -> None:
    """Runs call_on_each_event in a thread; returns once its queue is registered.

    call_on_each_event registers its queue itself and says nothing when it has:
    the client's own register is wrapped to hear it, so that no event of the
    calls that follow can come before the queue exists.
    """
    registered = threading.Event()
    register = client.register

    def register_then_signal(*args, **kwargs):
        reply = register(*args, **kwargs)
        if reply.get("result") == "success":
            registered.set()
        return reply

    client.register = register_then_signal
    threading.Thread(
        target=client.call_on_each_event,
        args=(on_event,),
        kwargs={"event_types": event_types},
        daemon=True,
    ).start()
    if not registered.wait(TIMEOUT_SECONDS):
        sys.exit(f"call_on_each_event registered no queue within {TIMEOUT_SECONDS} s")


if __name__ == "__main__":
    main()
