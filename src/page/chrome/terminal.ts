import { FitAddon } from "@xterm/addon-fit";
import { Terminal } from "@xterm/xterm";
import "@xterm/xterm/css/xterm.css";
import { isTerminalReport, parseOsc133 } from "../../console";
import { createEmitter } from "../../platform";

export interface GuestTerminal {
  terminal: Terminal;
  write(text: string): void;
  onInput(listener: (text: string) => void): void;
  onResize(listener: (cols: number, rows: number) => void): void;
  focus(): void;
}

/**
 * The xterm terminal on the guest's serial console: fitted to its box and refitted when the
 * box changes; Ctrl+Shift+C / Ctrl+Shift+V copy and paste (plain Ctrl+C goes to the guest).
 */
export function createTerminal(container: HTMLElement): GuestTerminal {
  const terminal = new Terminal({
    convertEol: false,
    // Blinking only while the reader types (keepBlinkingWhileActive): a blinking cursor is a
    // restyle every frame for as long as it blinks.
    cursorBlink: false,
    fontFamily: "ui-monospace, 'DejaVu Sans Mono', Menlo, Consolas, monospace",
    fontSize: 14,
    // xterm draws each row as tall as the font's ascent + descent, and clips it there: at 1×
    // DejaVu Sans Mono's underscore fell on the clipped line (`full_name` read `full name`).
    // A little leading puts every ASCII glyph, `_` included, inside its row at 1× and 2×.
    lineHeight: 1.2,
    scrollback: 5000,
    theme: { background: "#0b0e14", foreground: "#d7dae0" },
  });
  const fit = new FitAddon();
  terminal.loadAddon(fit);
  terminal.open(container);
  const refit = () => {
    if (container.clientWidth > 0 && container.clientHeight > 0) fit.fit();
  };
  new ResizeObserver(refit).observe(container);
  refit();

  // The shell's OSC 133 marks are the page's protocol, never part of the screen. (The console
  // reads the same marks from the byte stream, in order with the text around them; xterm
  // parses asynchronously, so its handler only keeps them off the screen.)
  terminal.parser.registerOscHandler(133, (data) => parseOsc133(data) !== null);

  const inputListeners = createEmitter<string>();
  terminal.attachCustomKeyEventHandler((e) => {
    if (e.type !== "keydown" || !e.ctrlKey || !e.shiftKey) return true;
    if (e.code === "KeyC") {
      const selection = terminal.getSelection();
      if (selection) void navigator.clipboard?.writeText(selection);
      return false;
    }
    if (e.code === "KeyV") {
      void navigator.clipboard?.readText().then((text) => terminal.paste(text));
      return false;
    }
    return true;
  });
  const active = keepBlinkingWhileActive(terminal);
  terminal.onData((text) => {
    // The terminal's own answers to the guest (a cursor position report at every busybox
    // prompt) are not the reader typing: they left the cursor blinking 10 s after each prompt.
    if (!isTerminalReport(text)) active();
    inputListeners.emit(text);
  });

  return {
    terminal,
    // The guest's output does not start the blink: after the first prompt nothing would happen
    // for 10 s but xterm's blink, which is a CSS animation restyled every frame (~60 a second,
    // ~0.1 CPU-s/s in a Chrome trace of an idle playground; docs/performance.md, "Idle").
    write: (text) => terminal.write(text),
    onInput: (listener) => {
      inputListeners.subscribe(listener);
    },
    onResize: (listener) => terminal.onResize(({ cols, rows }) => listener(cols, rows)),
    focus: () => terminal.focus(),
  };
}

/** How long the cursor blinks after the reader's last key. */
export const CURSOR_BLINK_MS = 10_000;

/**
 * The cursor blinks while the reader types, and stops (a steady block) CURSOR_BLINK_MS after
 * the last key, so an idle terminal repaints nothing, whatever the guest wrote: an idle
 * playground's cost was mostly xterm's blink (docs/performance.md, "Idle"). Returns the
 * function that marks activity.
 */
function keepBlinkingWhileActive(terminal: Terminal): () => void {
  let lastActive = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const check = () => {
    const quiet = performance.now() - lastActive;
    if (quiet >= CURSOR_BLINK_MS) {
      timer = undefined;
      terminal.options.cursorBlink = false;
    } else timer = setTimeout(check, CURSOR_BLINK_MS - quiet);
  };
  return () => {
    lastActive = performance.now();
    if (timer !== undefined) return;
    terminal.options.cursorBlink = true;
    timer = setTimeout(check, CURSOR_BLINK_MS);
  };
}
