"""Writes third_party/zulip-emoji/emoji_names.json from Zulip's tools/setup/emoji/emoji_names.py.

Zulip names its built-in emoji with its own table, EMOJI_NAME_MAPS: for each emoji code, a
canonical name and aliases. Its build_emoji derives name_to_codepoint and codepoint_to_name from
that table alone (iamcal's emoji data only orders the emoji picker), so the table is all the server
needs to name emoji as Zulip does. The table is a Python literal; it is read with ast, never run.

Usage: python3 scripts/zulip-emoji-names.py <Zulip's tools/setup/emoji/emoji_names.py>
(for instance `git -C zulip show <commit>:tools/setup/emoji/emoji_names.py > /tmp/emoji_names.py`).
"""

import ast
import json
import re
import sys
from pathlib import Path

OUTPUT = Path(__file__).resolve().parent.parent / "third_party" / "zulip-emoji" / "emoji_names.json"
# Zulip's emoji codes: lowercase hex code points joined by "-" (emoji_utils.emoji_to_hex_codepoint).
EMOJI_CODE = re.compile(r"[0-9a-f]{4,}(-[0-9a-f]{4,})*")


def read_table(source: str) -> dict:
    for node in ast.parse(source).body:
        if isinstance(node, ast.AnnAssign):
            target = node.target
        elif isinstance(node, ast.Assign):
            target = node.targets[0]
        else:
            continue
        if isinstance(target, ast.Name) and target.id == "EMOJI_NAME_MAPS":
            return ast.literal_eval(node.value)
    sys.exit("EMOJI_NAME_MAPS not found")


def check(table: dict) -> None:
    """Refuses a table the server could not read as Zulip does: a name given twice would make
    name_to_codepoint depend on the table's order."""
    seen: set[str] = set()
    for code, names in table.items():
        if not EMOJI_CODE.fullmatch(code) or set(names) != {"canonical_name", "aliases"}:
            sys.exit(f"unexpected entry {code!r}: {names!r}")
        for name in [names["canonical_name"], *names["aliases"]]:
            if name in seen:
                sys.exit(f"name {name!r} is given twice")
            seen.add(name)


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    table = read_table(Path(sys.argv[1]).read_text(encoding="utf-8"))
    check(table)
    # one emoji per line, in Zulip's order, so that a newer table's changes read as a short diff
    lines = [f"  {json.dumps(code)}: {json.dumps(names, ensure_ascii=False)}" for code, names in table.items()]
    OUTPUT.write_text("{\n" + ",\n".join(lines) + "\n}\n", encoding="utf-8")
    print(f"{len(table)} emoji, {sum(1 + len(n['aliases']) for n in table.values())} names -> {OUTPUT}")


if __name__ == "__main__":
    main()
