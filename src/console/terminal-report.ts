/**
 * Whether `input` is the terminal answering the guest rather than the reader typing: the
 * replies a terminal sends by itself to a query in the guest's output. Busybox's shell asks
 * for the cursor's position (`ESC [ 6 n`) at every prompt, so the terminal "types" a cursor
 * position report (`ESC [ row ; col R`) with no key pressed. Also device attributes
 * (`ESC [ ? … c`, `ESC [ > … c`), mode reports (`ESC [ ? … $ y`), focus in and out
 * (`ESC [ I`, `ESC [ O`), and string replies (OSC `ESC ] … BEL|ST`, DCS `ESC P … ST`).
 * (Shift+F3 is `ESC [ 1 ; 2 R` on some keyboards, the same bytes as a report: it counts as one.)
 */
export function isTerminalReport(input: string): boolean {
  return /^\x1b(?:\[(?:\??\d+;\d+R|[?>][\d;]*c|\??[\d;]*\$y|[IO])|\][^\x07\x1b]*(?:\x07|\x1b\\)|P[^\x1b]*\x1b\\)$/.test(input);
}
