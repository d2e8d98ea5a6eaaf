/** One text value the page keeps in this browser (a feature's progress). */
export interface TextStore {
  read(): string | null;
  write(text: string): boolean;
}

/** localStorage behind `TextStore`: it throws in some sandboxes and private modes, read as "nothing kept". */
export function localTextStore(key: string): TextStore {
  return {
    read: () => {
      try {
        return globalThis.localStorage?.getItem(key) ?? null;
      } catch {
        return null;
      }
    },
    write: (text) => {
      try {
        globalThis.localStorage?.setItem(key, text);
        return true;
      } catch {
        return false;
      }
    },
  };
}
