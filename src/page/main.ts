import "./style.css";
import { startPlayground } from "./playground";

startPlayground(document.getElementById("app") as HTMLElement).catch((error: unknown) => {
  console.error(error);
});
