/**
 * What a model writes back about a skill it used must not carry the skill's text to the
 * operator's transcript (the text reaches a run, never a view). `scrubSkillText`
 * replaces every stretch of `text` that also occurs in one of the skills' texts and is at
 * least `SCRUB_WINDOW` characters long, compared with case and runs of whitespace ignored, by
 * `SKILL_TEXT_WITHHELD`. Shorter overlaps (a word, a name) stay: they are not the text.
 */

export const SCRUB_WINDOW = 32;
export const SKILL_TEXT_WITHHELD = "[skill text withheld]";

interface Normalized {
  text: string;
  /** For each character of `text`, the index of the original character it came from. */
  at: number[];
}

/** Lower-cased, every run of whitespace one space; `at` maps back to the original. */
function normalize(input: string): Normalized {
  let text = "";
  const at: number[] = [];
  let space = false;
  for (let i = 0; i < input.length; i++) {
    const c = input[i]!;
    if (/\s/.test(c)) {
      if (!space && text.length > 0) {
        text += " ";
        at.push(i);
      }
      space = true;
      continue;
    }
    space = false;
    const lower = c.toLowerCase();
    text += lower.length === 1 ? lower : c;
    at.push(i);
  }
  return { text, at };
}

export function scrubSkillText(text: string, skillTexts: readonly string[], window = SCRUB_WINDOW): string {
  const sources = skillTexts.map((t) => normalize(t).text).filter((t) => t.length >= window);
  if (sources.length === 0 || text.length < window) return text;
  const shingles = new Set<string>();
  for (const source of sources) for (let i = 0; i + window <= source.length; i++) shingles.add(source.slice(i, i + window));
  const n = normalize(text);
  const covered: boolean[] = new Array<boolean>(n.text.length).fill(false);
  for (let i = 0; i + window <= n.text.length; i++) {
    if (!shingles.has(n.text.slice(i, i + window))) continue;
    for (let j = i; j < i + window; j++) covered[j] = true;
  }
  let out = "";
  let from = 0;
  for (let i = 0; i < n.text.length; ) {
    if (!covered[i]) {
      i++;
      continue;
    }
    let end = i;
    while (end < n.text.length && covered[end]) end++;
    // The whitespace at either end of a stretch stays: it separates the text from its neighbours.
    let first = i;
    let last = end - 1;
    while (first < last && n.text[first] === " ") first++;
    while (last > first && n.text[last] === " ") last--;
    const start = n.at[first]!;
    const stop = n.at[last]! + 1;
    out += text.slice(from, start) + SKILL_TEXT_WITHHELD;
    from = stop;
    i = end;
  }
  return out + text.slice(from);
}
