/** Zulip's presence decisions (zerver/actions/presence.py) at chosen times. */
import {
  legacyPresence,
  modernPresence,
  presenceForSetting,
  reportPresence,
  selectPresences,
} from "../src/presence/presence";

const S = 1000;
const T = 1_800_000_000 * S;
const joined = new Date(T - 3600 * S);

describe("reportPresence", () => {
  it("a first report is stored and announced; idle leaves the last activity unset", () => {
    expect(reportPresence(undefined, T, true)).toEqual({ next: { activeAt: T, connectedAt: T }, announce: true });
    expect(reportPresence(undefined, T, false)).toEqual({ next: { activeAt: null, connectedAt: T }, announce: true });
  });

  it("reports within 55 s of the stored ones change nothing", () => {
    const stored = { activeAt: T, connectedAt: T };
    expect(reportPresence(stored, T + 55 * S, true)).toEqual({ next: null, announce: false });
    expect(reportPresence(stored, T + 56 * S, false)).toEqual({
      next: { activeAt: T, connectedAt: T + 56 * S },
      announce: false,
    });
    expect(reportPresence(stored, T + 56 * S, true)).toEqual({
      next: { activeAt: T + 56 * S, connectedAt: T + 56 * S },
      announce: false,
    });
  });

  it("active after more than 130 s away (offline threshold - ping interval - 10) is announced", () => {
    const stored = { activeAt: T, connectedAt: T + 100 * S };
    expect(reportPresence(stored, T + 130 * S, true).announce).toBe(false);
    expect(reportPresence(stored, T + 131 * S, true)).toEqual({
      next: { activeAt: T + 131 * S, connectedAt: T + 131 * S },
      announce: true,
    });
    expect(reportPresence(stored, T + 131 * S, false).announce).toBe(false);
  });
});

describe("formats", () => {
  it("legacy says active while the last activity is within 70 s of the last connection, else idle", () => {
    expect(legacyPresence({ activeAt: T - 70 * S, connectedAt: T }, joined).website).toEqual({
      client: "website",
      status: "active",
      timestamp: T / S - 70,
      pushable: false,
    });
    expect(legacyPresence({ activeAt: T - 71 * S, connectedAt: T }, joined).aggregated).toEqual({
      client: "website",
      status: "idle",
      timestamp: T / S,
    });
  });

  it("a never active user counts as active when they joined", () => {
    expect(modernPresence({ activeAt: null, connectedAt: T }, joined)).toEqual({
      active_timestamp: joined.getTime() / S,
      idle_timestamp: T / S,
    });
  });

  it("presence turned off is a report older than the offline threshold and more", () => {
    expect(presenceForSetting(false, T)).toEqual({ activeAt: T - 320 * S, connectedAt: T - 320 * S });
    expect(presenceForSetting(true, T)).toEqual({ activeAt: T, connectedAt: T });
  });
});

describe("selectPresences", () => {
  const day = 24 * 3600 * S;
  const rows = [
    { activeAt: T, connectedAt: T, revision: 5 },
    { activeAt: null, connectedAt: T - 20 * day, revision: 3 },
    { activeAt: T, connectedAt: T - 2 * day, revision: 9 },
  ];
  const revisions = (q: Parameters<typeof selectPresences>[1]) => {
    const { selected, lastUpdateId } = selectPresences(rows, q, T);
    return [selected.map((r) => r.revision), lastUpdateId];
  };

  it("a first fetch reaches back 14 days unless told; history_limit_days 0 gives nothing", () => {
    expect(revisions({})).toEqual([[5, 9], 9]);
    expect(revisions({ lastUpdateId: -1, historyLimitDays: 30 })).toEqual([[5, 3, 9], 9]);
    expect(revisions({ lastUpdateId: -1, historyLimitDays: 1 })).toEqual([[5], 5]);
    expect(revisions({ historyLimitDays: 0 })).toEqual([[], -1]);
  });

  it("a later fetch gets what changed since, whatever its age, and keeps its id when nothing did", () => {
    expect(revisions({ lastUpdateId: 4, historyLimitDays: 1 })).toEqual([[5, 9], 9]);
    expect(revisions({ lastUpdateId: 2 })).toEqual([[5, 3, 9], 9]);
    expect(revisions({ lastUpdateId: 9 })).toEqual([[], 9]);
  });
});
