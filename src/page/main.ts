import "./style.css";
import { placeholderUntilSeen } from "./embed-placeholder";

const app = document.getElementById("app") as HTMLElement;

async function start(): Promise<void> {
  // An embed loads nothing but a placeholder until the reader first sees it or clicks it
  // (embed-placeholder.ts): the playground's script (the terminal, the panels, the log, zod)
  // is a chunk of its own, loaded then. `?embed` read as features/index.ts's wantsEmbed does.
  if (new URLSearchParams(location.search).has("embed")) await placeholderUntilSeen(app);
  const { startPlayground } = await import("./playground");
  await startPlayground(app);
}

start().catch((error: unknown) => {
  console.error(error);
});
