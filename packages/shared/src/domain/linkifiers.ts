/**
 * Linkifier patterns and RFC 6570 URL templates, shared by realm-config (which
 * validates them as Zulip's RealmFilter.clean does) and messaging (which
 * applies them when it renders). Zulip checks patterns with re2 and applies
 * them with re2 (zerver/lib/markdown LinkifierPattern); here they run as
 * JavaScript RegExps, so each pattern is translated from the re2/Python syntax
 * Zulip accepts, and one that cannot run here is refused when it is saved.
 */

/** Zulip's RealmPlayground.MAX_PYGMENTS_LANGUAGE_LENGTH. */
export const MAX_PYGMENTS_LANGUAGE_LENGTH = 40;

/** A pattern translated to a RegExp source, with the names of its groups in order. */
export interface TranslatedPattern {
  source: string;
  /** RegExp flags taken from a leading inline flag group such as (?i) */
  flags: string;
  groups: string[];
}

/** Thrown with re2's wording where it is known; the caller prefixes "Bad regular expression: ". */
export class PatternError extends Error {}

/** Escapes JavaScript's `u` mode allows outside a character class (re2 allows any punctuation). */
const JS_SYNTAX_CHARS = new Set("^$\\.*+?()[]{}|/");
/** re2's POSIX classes inside brackets, as JavaScript class contents. */
const POSIX_CLASSES: Record<string, string> = {
  alnum: "0-9A-Za-z",
  alpha: "A-Za-z",
  ascii: "\\x00-\\x7F",
  blank: "\\t ",
  cntrl: "\\x00-\\x1F\\x7F",
  digit: "0-9",
  lower: "a-z",
  space: "\\t\\n\\v\\f\\r ",
  upper: "A-Z",
  word: "0-9A-Za-z_",
  xdigit: "0-9A-Fa-f",
};
/** Unicode general categories (\p{L}); any other \p name is a script in re2 (\p{Greek}). */
const GENERAL_CATEGORIES = new Set(
  "L Lu Ll Lt Lm Lo M Mn Mc Me N Nd Nl No P Pc Pd Ps Pe Pi Pf Po S Sm Sc Sk So Z Zs Zl Zp C Cc Cf Cs Co Cn".split(" "),
);
const GROUP_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const hexEscape = (ch: string) => `\\x${ch.charCodeAt(0).toString(16).padStart(2, "0")}`;

/**
 * Translates a pattern Zulip accepts into a RegExp source: `(?P<name>` named
 * groups, `\pL` and `\p{Greek}` classes, `\A` / `\z`, `\x{...}`, POSIX
 * classes, punctuation escapes and a leading `(?flags)` group. What re2
 * refuses (look-arounds, back-references) is refused with re2's message.
 */
export function translatePattern(pattern: string): TranslatedPattern {
  let flags = "";
  let rest = pattern;
  const leading = /^\(\?([imsU]+)\)/.exec(rest);
  if (leading) {
    if (leading[1]!.includes("U")) throw new PatternError("inline flag U is not supported here");
    flags = [...new Set(leading[1]!)].join("");
    rest = rest.slice(leading[0].length);
  }
  const groups: string[] = [];
  let out = "";
  let inClass = false;
  for (let i = 0; i < rest.length; i++) {
    const ch = rest[i]!;
    if (ch === "\\") {
      const next = rest[i + 1];
      if (next === undefined) throw new PatternError("trailing \\");
      i++;
      if (/[1-9]/.test(next)) throw new PatternError(`invalid escape sequence: \\${next}`);
      if (next === "p" || next === "P") {
        const named = /^\{(\^?)([A-Za-z_]+)\}/.exec(rest.slice(i + 1));
        const name = named ? named[2]! : rest[i + 1];
        if (!name || !/^[A-Za-z]/.test(name)) throw new PatternError(`invalid character class range: \\${next}`);
        const negated = named?.[1] === "^" ? (next === "p" ? "P" : "p") : next;
        out += `\\${negated}{${GENERAL_CATEGORIES.has(name) ? name : `Script=${name}`}}`;
        i += named ? named[0].length : 1;
        continue;
      }
      if (next === "x" && rest[i + 1] === "{") {
        const close = rest.indexOf("}", i);
        if (close < 0) throw new PatternError(`invalid escape sequence: \\x{`);
        out += `\\u{${rest.slice(i + 2, close)}}`;
        i = close;
        continue;
      }
      if (!inClass && next === "A") out += "^";
      else if (!inClass && next === "z") out += "$";
      else if (next === "a") out += "\\x07";
      else if (/[\p{P}\p{S} ]/u.test(next) && next.charCodeAt(0) < 0x80) {
        out += JS_SYNTAX_CHARS.has(next) || (inClass && next === "-") ? `\\${next}` : hexEscape(next);
      } else out += `\\${next}`;
      continue;
    }
    if (inClass) {
      const posix = /^\[:(\^?)([a-z]+):\]/.exec(rest.slice(i));
      if (posix) {
        const contents = POSIX_CLASSES[posix[2]!];
        if (!contents || posix[1]) throw new PatternError(`invalid character class range: ${posix[0]}`);
        out += contents;
        i += posix[0].length - 1;
        continue;
      }
      if (ch === "]") inClass = false;
      out += ch;
      continue;
    }
    if (ch === "[") {
      inClass = true;
      out += ch;
      // a "]" first in the class (or after ^) is literal in re2
      if (rest[i + 1] === "^") out += rest[++i];
      if (rest[i + 1] === "]") {
        out += "\\]";
        i++;
      }
      continue;
    }
    // re2 reads braces that make no repetition, and a lone "]", as literals; a `u` RegExp refuses them
    if (ch === "{") {
      const repetition = /^\{\d+(?:,\d*)?\}/.exec(rest.slice(i));
      out += repetition ? repetition[0] : "\\{";
      i += repetition ? repetition[0].length - 1 : 0;
      continue;
    }
    if (ch === "}" || ch === "]") {
      out += `\\${ch}`;
      continue;
    }
    if (ch === "(" && rest[i + 1] === "?") {
      const named = /^\(\?P?<([^>]*)>/.exec(rest.slice(i));
      if (named && !rest.slice(i).startsWith("(?<=") && !rest.slice(i).startsWith("(?<!")) {
        if (!GROUP_NAME.test(named[1]!)) throw new PatternError(`invalid named capture group: ${named[0]}`);
        if (groups.includes(named[1]!)) throw new PatternError(`duplicate capture group name: ${named[0]}`);
        groups.push(named[1]!);
        out += `(?<${named[1]}>`;
        i += named[0].length - 1;
        continue;
      }
      const operator = /^\(\?(<=|<!|=|!|P=)/.exec(rest.slice(i));
      if (operator) throw new PatternError(`invalid perl operator: ${operator[0]}`);
      if (rest[i + 2] !== ":") throw new PatternError(`invalid or unsupported Perl syntax: ${rest.slice(i, i + 3)}`);
    }
    out += ch;
  }
  return { source: out, flags, groups };
}

/** JavaScript's wording of common syntax errors, as re2 words them. */
const RE2_WORDING: Array<[RegExp, (pattern: string) => string]> = [
  [/Unterminated group/, (p) => `missing ): ${p}`],
  [/Unmatched '\)'/, (p) => `unexpected ): ${p}`],
  [/Unterminated character class/, (p) => `missing ]: ${p}`],
  [/Nothing to repeat/, () => "missing argument to repetition operator"],
];

/**
 * The RegExp a pattern runs as, or a PatternError. `wrap` builds the final
 * source around the translated one (messaging adds Zulip's word boundaries).
 */
export function compilePattern(
  pattern: string,
  wrap: (source: string) => string = (s) => s,
): { regex: RegExp; groups: string[] } {
  const translated = translatePattern(pattern);
  try {
    return { regex: new RegExp(wrap(translated.source), `${translated.flags}gu`), groups: translated.groups };
  } catch (err) {
    const reason = (err as Error).message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, "");
    const known = RE2_WORDING.find(([js]) => js.test(reason));
    throw new PatternError(known ? known[1](pattern) : reason);
  }
}

/** One RFC 6570 expression: its operator and variables. */
interface TemplateExpression {
  operator: string;
  variables: Array<{ name: string; prefix?: number; explode: boolean }>;
}
type TemplatePart = string | TemplateExpression;

const VARNAME = /^(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})(?:\.?(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2}))*$/;
const OPERATORS = "+#./;?&";

/** Parses an RFC 6570 template (levels 1-4, as Python's uri_template.validate accepts), or null if it is not one. */
export function parseUriTemplate(template: string): TemplatePart[] | null {
  const parts: TemplatePart[] = [];
  let at = 0;
  while (at < template.length) {
    const open = template.indexOf("{", at);
    const close = template.indexOf("}", at);
    if (open < 0) {
      if (close >= 0) return null;
      parts.push(template.slice(at));
      break;
    }
    if (close >= 0 && close < open) return null;
    if (open > at) parts.push(template.slice(at, open));
    const end = template.indexOf("}", open);
    if (end < 0) return null;
    let body = template.slice(open + 1, end);
    if (body.includes("{")) return null;
    const operator = OPERATORS.includes(body[0] ?? "") ? body[0]! : "";
    body = body.slice(operator.length);
    const variables: TemplateExpression["variables"] = [];
    for (const spec of body.split(",")) {
      const m = /^([^:*]+)(?:(\*)|:([1-9][0-9]{0,3}))?$/.exec(spec);
      if (!m || !VARNAME.test(m[1]!)) return null;
      variables.push({ name: m[1]!, explode: m[2] === "*", ...(m[3] ? { prefix: Number(m[3]) } : {}) });
    }
    parts.push({ operator, variables });
    at = end + 1;
  }
  return parts;
}

/** The variables a template names (uri_template's variable_names), or null if it is not a template. */
export function uriTemplateVariables(template: string): Set<string> | null {
  const parts = parseUriTemplate(template);
  if (!parts) return null;
  return new Set(parts.flatMap((p) => (typeof p === "string" ? [] : p.variables.map((v) => v.name))));
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;
const RESERVED = /[:/?#[\]@!$&'()*+,;=]/;

/** Percent-encodes what may not stand as is; reserved characters and %XX triplets stay when `allowReserved`. */
function encode(text: string, allowReserved: boolean): string {
  let out = "";
  for (let i = 0; i < text.length;) {
    const cp = text.codePointAt(i)!;
    const ch = String.fromCodePoint(cp);
    if (UNRESERVED.test(ch) || (allowReserved && RESERVED.test(ch))) out += ch;
    else if (allowReserved && ch === "%" && /^%[0-9A-Fa-f]{2}/.test(text.slice(i))) out += "%";
    else out += encodeURIComponent(ch).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
    i += ch.length;
  }
  return out;
}

const OPERATOR_RULES: Record<
  string,
  { first: string; sep: string; named: boolean; ifEmpty: string; reserved: boolean }
> = {
  "": { first: "", sep: ",", named: false, ifEmpty: "", reserved: false },
  "+": { first: "", sep: ",", named: false, ifEmpty: "", reserved: true },
  "#": { first: "#", sep: ",", named: false, ifEmpty: "", reserved: true },
  ".": { first: ".", sep: ".", named: false, ifEmpty: "", reserved: false },
  "/": { first: "/", sep: "/", named: false, ifEmpty: "", reserved: false },
  ";": { first: ";", sep: ";", named: true, ifEmpty: "", reserved: false },
  "?": { first: "?", sep: "&", named: true, ifEmpty: "=", reserved: false },
  "&": { first: "&", sep: "&", named: true, ifEmpty: "=", reserved: false },
};

/** RFC 6570 expansion with string values (undefined: the variable is not defined), as uri_template's expand. */
export function expandUriTemplate(parts: TemplatePart[], values: Record<string, string | undefined>): string {
  return parts
    .map((part) => {
      if (typeof part === "string") return encode(part, true);
      const rule = OPERATOR_RULES[part.operator]!;
      const expanded = part.variables.flatMap(({ name, prefix }) => {
        const value = values[name];
        if (value === undefined) return [];
        const text = encode(prefix === undefined ? value : [...value].slice(0, prefix).join(""), rule.reserved);
        if (!rule.named) return [text];
        return [text === "" ? `${name}${rule.ifEmpty}` : `${name}=${text}`];
      });
      return expanded.length ? rule.first + expanded.join(rule.sep) : "";
    })
    .join("");
}
