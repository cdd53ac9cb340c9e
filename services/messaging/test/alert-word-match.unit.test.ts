import { usersAlerted } from "../src/alert-words/alert-word-match";

const alerted = (content: string, words: string[]) => usersAlerted(content, [1], new Map([[1, words]])).has(1);

describe("usersAlerted (Zulip's alert word rule)", () => {
  it("matches whole words and phrases, case-insensitively", () => {
    expect(alerted("The Deploy failed", ["deploy"])).toBe(true);
    expect(alerted("release party tonight", ["Release Party"])).toBe(true);
    expect(alerted("deploy", ["DEPLOY"])).toBe(true);
  });

  it("needs Zulip's characters around the word", () => {
    expect(alerted("redeploy now", ["deploy"])).toBe(false);
    expect(alerted("deployment", ["deploy"])).toBe(false);
    for (const before of [" ", "\n", "(", '"', ".", ",", "'", ";", "[", "*", "`", ">"]) {
      expect(alerted(`x${before}deploy`, ["deploy"])).toBe(true);
    }
    for (const after of [" ", "\n", ")", "?", ":", ".", ",", "'", ";", "]", "!", "*", "`"]) {
      expect(alerted(`deploy${after}x`, ["deploy"])).toBe(true);
    }
    // Zulip's after-set has '",' (two characters), so a closing quote does not end a word
    expect(alerted('"deploy"', ["deploy"])).toBe(false);
    expect(alerted("deploy-x", ["deploy"])).toBe(false);
  });

  it("looks at every occurrence", () => {
    expect(alerted("redeploy, then deploy.", ["deploy"])).toBe(true);
  });

  it("flags only the users whose words appear", () => {
    const words = new Map([
      [1, ["lunch"]],
      [2, ["deploy", "ship"]],
      [3, []],
    ]);
    expect(usersAlerted("Ship it after lunch", [1, 2, 3, 4], words)).toEqual(new Set([1, 2]));
    expect(usersAlerted("Ship it after lunch", [2], words)).toEqual(new Set([2]));
  });
});
