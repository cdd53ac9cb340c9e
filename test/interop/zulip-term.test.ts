/**
 * The terminal client zulip-term 0.7, unmodified, in tmux (its screen read
 * with capture-pane): it starts against the server, its presence loop reports
 * the user active, it lists the other users, and a message sent meanwhile
 * shows up live. It needs Python 3.10: found on PATH or among pyenv's builds,
 * else built with pyenv (first run only); zulip-term goes into a venv in the
 * tool cache, tmux comes from Debian's package when missing.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ok } from "@teamchat/shared/src/testing/api";
import { ensureDebianCommand, ensurePythonVenv, TOOL_CACHE, type PythonVenvSpec } from "../../scripts/lib/infra";
import type { TestUser } from "../support/organization";
import { startSystem, type TestSystem } from "../support/system";

const ZULIP_TERM: PythonVenvSpec = {
  what: "the terminal client zulip-term (for its interop test)",
  dir: join(TOOL_CACHE, "zulip-term-venv"),
  packages: ["zulip-term==0.7.0"],
  // zulip-term 0.7.0 runs on Python 3.10 (its pinned dependencies do not install on later ones)
  pythonMinors: [10, 10],
  pyenvVersion: "3.10",
};
const SESSION = `zulip-term-test-${process.pid}`;

let sys: TestSystem;
let alice: TestUser, bob: TestUser;
let workDir: string;
let tmux: string;

const screen = (): string => spawnSync(tmux, ["capture-pane", "-p", "-t", SESSION], { encoding: "utf8" }).stdout ?? "";

/** Polls the screen until `done` holds; fails with the screen (and any traceback zulip-term logged) after `ms`. */
async function untilScreen(done: (text: string) => boolean, ms = 30_000): Promise<string> {
  const deadline = Date.now() + ms;
  for (;;) {
    const text = screen();
    if (done(text)) return text;
    if (Date.now() > deadline) {
      const traceback = join(workDir, "zulip-terminal-tracebacks.log");
      const logged = existsSync(traceback) ? readFileSync(traceback, "utf8") : "(no traceback logged)";
      throw new Error(`zulip-term's screen never matched:\n${text}\n${logged}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

beforeAll(async () => {
  const venv = ensurePythonVenv(ZULIP_TERM, {});
  const found = ensureDebianCommand("tmux", "tmux", {});
  if (!found) throw new Error("tmux is needed to drive zulip-term: install tmux");
  tmux = found;
  sys = await startSystem();
  [alice, bob] = [await sys.makeUser("alice", 400, "Alice Term"), await sys.makeUser("bob", 400, "Bob Peer")];
  ok(await sys.api(alice).post("/channels/create", { name: "terminal", subscribers: [alice.userId, bob.userId] }));
  // Bob is online, as his client would report
  ok(await sys.api(bob).post("/users/me/presence", { status: "active", new_user_input: true }));

  workDir = mkdtempSync(join(tmpdir(), "zulip-term-"));
  const zuliprc = join(workDir, "zuliprc");
  // zulip-term refuses a zuliprc others may read
  writeFileSync(zuliprc, `[api]\nemail=${alice.email}\nkey=${alice.apiKey}\nsite=${sys.baseUrl}\n`, { mode: 0o600 });
  // if zulip-term exits, its last words stay on the screen for the failure message
  zulipTerm = `${join(venv, "bin", "zulip-term")} -c ${zuliprc}; echo "zulip-term exited: $?"; sleep 600`;
  startZulipTerm();
}, 900_000);

let zulipTerm: string;
function startZulipTerm(): void {
  const started = spawnSync(
    tmux,
    ["new-session", "-d", "-s", SESSION, "-x", "160", "-y", "45", "-c", workDir, "sh", "-c", zulipTerm],
    { encoding: "utf8" },
  );
  if (started.status !== 0) throw new Error(`tmux could not start zulip-term: ${started.stderr}`);
}

/**
 * zulip-term 0.7's own start-up race: its user-list thread can write to the
 * main loop's pipe before the loop has made it, and that thread dies, printing
 * its traceback over the screen (seen in CI and when started by hand). What
 * stays readable varies: the assertion, or only the frame above it, cut by the
 * narrow users panel. A user starts it again; so does the test, up to three times.
 */
const START_UP_RACE = ['assert hasattr(self, "_update_pipe")', "self.view.controlle"];
const hitStartUpRace = (text: string) => START_UP_RACE.some((sign) => text.includes(sign));

afterAll(async () => {
  if (tmux) spawnSync(tmux, ["kill-session", "-t", SESSION]);
  await sys?.stop();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

it("starts, reports its user active through its presence loop, and lists the others online", async () => {
  let text = "";
  for (let attempt = 1; attempt <= 3; attempt++) {
    text = await untilScreen((t) => (t.includes("Alice Term") && t.includes("Bob Peer")) || hitStartUpRace(t));
    if (!hitStartUpRace(text) || attempt === 3) break;
    spawnSync(tmux, ["kill-session", "-t", SESSION]);
    startZulipTerm();
  }
  expect(hitStartUpRace(text)).toBe(false);
  expect(text).toContain("Bob Peer");
  expect(text).toContain("# terminal");
  // its presence loop posts from its own thread, not before the screen is drawn: wait for it, as Bob's client would
  const alicePresence = async () =>
    (ok(await sys.api(bob).get("/realm/presence")).presences as Record<string, unknown>)[alice.email];
  let presence = await alicePresence();
  for (const deadline = Date.now() + 30_000; presence === undefined && Date.now() < deadline;) {
    await new Promise((r) => setTimeout(r, 250));
    presence = await alicePresence();
  }
  expect(presence).toMatchObject({ aggregated: { status: "active" } });
  expect(existsSync(join(workDir, "zulip-terminal-tracebacks.log"))).toBe(false);
});

it("shows a message sent by another user as it arrives", async () => {
  ok(
    await sys.api(bob).post("/messages", { type: "stream", to: "terminal", topic: "live", content: "hello terminal" }),
  );
  const text = await untilScreen((t) => t.includes("hello terminal"));
  expect(text).toContain("live");
});

it("p narrows to the next unread direct message's conversation (its pm_with narrow)", async () => {
  ok(await sys.api(bob).post("/messages", { type: "stream", to: "terminal", topic: "live", content: "channel noise" }));
  ok(await sys.api(bob).post("/messages", { type: "private", to: `[${alice.userId}]`, content: "direct for p" }));
  await untilScreen((t) => t.includes("channel noise") && t.includes("direct for p"));
  spawnSync(tmux, ["send-keys", "-t", SESSION, "p"]);
  // the conversation alone: the channel's messages leave the screen
  const text = await untilScreen((t) => t.includes("direct for p") && !t.includes("channel noise"));
  expect(text).not.toContain("hello terminal");
  expect(existsSync(join(workDir, "zulip-terminal-tracebacks.log"))).toBe(false);
});

/** Presses a key and fails if zulip-term shows a server error in its footer (it shows one for 3 s). */
async function pressExpectingNoError(key: string): Promise<void> {
  spawnSync(tmux, ["send-keys", "-t", SESSION, key]);
  for (const until = Date.now() + 3_500; Date.now() < until;) {
    expect(screen()).not.toMatch(/Invalid narrow|Bad narrow/);
    await new Promise((r) => setTimeout(r, 100));
  }
}

it("z and s on a direct message switch between all direct messages and its conversation, with no server error", async () => {
  // in the conversation p opened: z narrows to all direct messages ([["is", "private"]]), z again back to it
  await pressExpectingNoError("z");
  await untilScreen((t) => t.includes("direct for p") && t.includes("All private messages"));
  await pressExpectingNoError("z");
  await untilScreen((t) => t.includes("Private conversation"));
  // s on a direct message: its conversation ([["pm_with", email]])
  await pressExpectingNoError("s");
  const text = await untilScreen((t) => t.includes("Private conversation"));
  expect(text).toContain("direct for p");
  expect(text).not.toContain("channel noise");
});
