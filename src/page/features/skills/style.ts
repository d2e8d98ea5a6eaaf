/** The skills views' inline styles (they carry no stylesheet of their own). */
export const row = "display: flex; flex-wrap: wrap; gap: 6px; align-items: center";
export const mono = "font-family: ui-monospace, monospace; font-size: 12px";
