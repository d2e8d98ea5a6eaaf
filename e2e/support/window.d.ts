// The page's test handle, `window.__tab`, typed for code that runs inside `page.evaluate`.
import type { PlaygroundHandle } from "../../src/page/handle";

declare global {
  interface Window {
    __tab?: PlaygroundHandle;
  }
}
