import type { StateCore, Token } from "markdown-it";

/** What a match in a text token becomes, and where the text resumes after it. */
export interface TextMatch {
  tokens: Token[];
  end: number;
}

/**
 * A text token split at the matches of `pattern` (global) that `found` turns
 * into tokens; the text between them stays text, at the token's level. The
 * token itself when nothing matched.
 */
export function splitText(
  token: Token,
  state: StateCore,
  pattern: RegExp,
  found: (m: RegExpExecArray) => TextMatch | null,
): Token[] {
  const out: Token[] = [];
  const text = (content: string) => {
    if (content === "") return;
    const t = new state.Token("text", "", 0);
    t.content = content;
    t.level = token.level;
    out.push(t);
  };
  let done = 0;
  pattern.lastIndex = 0;
  for (let m = pattern.exec(token.content); m; m = pattern.exec(token.content)) {
    const match = found(m);
    if (!match) continue;
    text(token.content.slice(done, m.index));
    out.push(...match.tokens);
    done = match.end;
  }
  if (done === 0) return [token];
  text(token.content.slice(done));
  return out;
}
