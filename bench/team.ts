/**
 * A team with a busy channel, as the cold start and the steady state need it: an organization of
 * its own whose members share one channel of `history` messages from its owner, the newest
 * `unread` of which they have not read (seeded through bench/seed.ts).
 */
import { say, type ColdCase } from "./config";
import { ok, pool } from "./http";
import { openOrg, type NewOrg, type User } from "./org";
import { bulkSeed } from "./seed";
import type { System } from "./system";

const CHANNEL = "team";

export interface Team {
  org: NewOrg;
  members: User[];
  /** the team channel's narrow */
  narrow: unknown[];
  /** the members' first unread message, where their first_unread page starts */
  firstUnreadId: number;
  seedSeconds: number;
  /** of which writing in bulk */
  bulkSeconds: number;
  /** documents written in bulk: the messages and the members' read states */
  seededRows: number;
}

/** Creates organization `subdomain` and fills it as `c` says. */
export async function seedTeam(sys: System, subdomain: string, c: ColdCase): Promise<Team> {
  const tag = `[${subdomain}]`;
  say(`${tag} ${c.members} members in channel ${CHANNEL}: ${c.history} messages, the newest ${c.unread} unread...`);
  const s0 = performance.now();
  const org = await openOrg(sys, subdomain);
  const members = await org.createUsers("member", c.members);
  await org.createChannel(CHANNEL, [org.owner.creds.id, ...members.map((u) => u.id)]);
  const narrow = [{ operator: "channel", operand: CHANNEL }];
  // The owner sends them all: the first through the API (the template of the bulk path), the rest in bulk.
  const content = (n: number) => `message ${n}`;
  const topic = (n: number) => `topic ${n % 20}`;
  const templateId = ok(
    `${tag} POST /messages (the channel's first message)`,
    await org.owner.post("/messages", { type: "stream", to: CHANNEL, topic: topic(1), content: content(1) }),
  ).id as number;
  // the channel's creation notice and the template, the only messages sent so far
  const [notice] = ok(
    `${tag} GET /messages (the channel's oldest message)`,
    await org.owner.get("/messages", { anchor: "oldest", num_before: 0, num_after: 1, narrow }),
  ).messages as Array<{ id: number }>;
  const readBefore = c.history - c.unread;
  if (readBefore > 0) {
    say(`${tag} the members mark the channel's first messages read...`);
    await pool(members, 4, async (u) =>
      ok(
        `${tag} POST /messages/flags (${u.email} reads the first messages)`,
        await org.as(u).post("/messages/flags", { messages: [notice!.id, templateId], op: "add", flag: "read" }),
      ),
    );
  }
  let bulk = { firstId: templateId + 1, lastId: templateId };
  const b0 = performance.now();
  if (c.history > 1) {
    bulk = await bulkSeed({
      mongoUrl: sys.mongoUrl,
      searchUrl: sys.searchUrl,
      dbName: `${sys.dbPrefix}_messaging`,
      templateMessageId: templateId,
      count: c.history - 1,
      // bulk message n is the history's message n + 1
      content: (n) => content(n + 1),
      // plain text: one paragraph
      rendered: (n) => `<p>${content(n + 1)}</p>`,
      topic: (n) => topic(n + 1),
      // the members have read all but the newest `unread` (the sender's own are read without it)
      readThrough: () => Math.max(0, readBefore - 1),
      progress: say,
    });
  }
  // with nothing read, the page starts at the creation notice; else at history message readBefore + 1
  const firstUnreadId = readBefore > 0 ? bulk.firstId + readBefore - 1 : notice!.id;
  const bulkSeconds = (performance.now() - b0) / 1000;
  const seedSeconds = (performance.now() - s0) / 1000;
  const seededRows = bulk.lastId - bulk.firstId + 1 + c.members;
  say(`${tag} seeded in ${seedSeconds.toFixed(0)} s`);
  return { org, members, narrow, firstUnreadId, seedSeconds, bulkSeconds, seededRows };
}
