// <linux-in-a-tab lesson="https://docs.example/lessons/x.yaml#sha256=…" step="1"></linux-in-a-tab>
// or <linux-in-a-tab scenario="2"></linux-in-a-tab>, after
// <script src="https://YOUR-PLAYGROUND-HOST/linux-in-a-tab.js"></script> (a classic script: a
// module from another site would need CORS from every static host).
// Builds the player's iframe beside this script (800×500, allow="loopback-network", this page
// as its embedder) and re-dispatches each message the player posts (docs/lessons.md, "Embedding")
// on the element as a DOM event of the same type ("lesson.step-passed", …), its detail the message.
{
  const PLAYGROUND = new URL("./", document.currentScript.src);

  class LinuxInATab extends HTMLElement {
    static observedAttributes = ["lesson", "step", "scenario"];
    #frame = null;
    #onMessage = (event) => {
      if (this.#frame === null || event.source !== this.#frame.contentWindow || event.origin !== PLAYGROUND.origin) return;
      const data = event.data;
      if (data === null || typeof data !== "object" || data.source !== "linux-in-a-tab" || typeof data.type !== "string") return;
      this.dispatchEvent(new CustomEvent(data.type, { detail: data, bubbles: true }));
    };

    connectedCallback() {
      addEventListener("message", this.#onMessage);
      this.#render();
    }

    disconnectedCallback() {
      removeEventListener("message", this.#onMessage);
    }

    attributeChangedCallback() {
      if (this.isConnected) this.#render();
    }

    /** The player's address for the element's attributes, or null when it names nothing to show. */
    src() {
      const url = new URL(PLAYGROUND);
      url.searchParams.set("embed", "1");
      const lesson = this.getAttribute("lesson");
      const scenario = this.getAttribute("scenario");
      if (lesson) {
        url.searchParams.set("lesson", lesson);
        const step = this.getAttribute("step");
        if (step) url.searchParams.set("step", step);
      } else if (scenario) url.searchParams.set("scenario", scenario);
      else return null;
      url.searchParams.set("embedder", location.origin);
      return url.href;
    }

    #render() {
      const src = this.src();
      if (src === null) return;
      if (this.#frame === null) {
        const frame = document.createElement("iframe");
        frame.width = this.getAttribute("width") ?? "800";
        frame.height = this.getAttribute("height") ?? "500";
        frame.style.border = "0";
        frame.setAttribute("allow", "loopback-network");
        frame.title = this.getAttribute("title") ?? "Linux in a tab";
        this.#frame = frame;
        this.replaceChildren(frame);
      }
      if (this.#frame.src !== src) this.#frame.src = src;
    }
  }

  if (!customElements.get("linux-in-a-tab")) customElements.define("linux-in-a-tab", LinuxInATab);
}
