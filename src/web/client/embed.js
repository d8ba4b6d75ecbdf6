// Signet's embed script, served at PUBLIC_URL/embed.js (README "Embedding"). A classic script any
// site may load: it defines <signet-signing url="…">, <signet-form slug="…"> and
// <signet-builder url="…">. Each makes an iframe of that Signet page with
// `embed=1&origin=<this page's origin>`, keeps the iframe as tall as its content (the page's
// `resize` messages), and re-dispatches every message of its own iframe, and only of it, as a DOM
// CustomEvent `signet:<type>` (bubbling, composed) whose `detail` is the message.
(() => {
  if (typeof window === 'undefined' || !window.customElements) return;
  // Where Signet is: the address this script was loaded from, without `/embed(.hash).js`.
  const script = document.currentScript;
  const scriptUrl = script?.src ? new URL(script.src) : null;
  const signetBase = scriptUrl
    ? `${scriptUrl.origin}${scriptUrl.pathname.replace(/\/embed(\.[0-9a-f]+)?\.js$/, '')}`
    : '';

  /** The iframe's address: the given page with `embed=1&origin=…` added; null when not http(s). */
  function frameUrl(address) {
    let url;
    try {
      url = new URL(address, signetBase || location.href);
    } catch {
      return null;
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
    url.searchParams.set('embed', '1');
    url.searchParams.set('origin', location.origin);
    return url;
  }

  class SignetFrame extends HTMLElement {
    static get observedAttributes() {
      return ['url', 'slug', 'base'];
    }

    /** The Signet page this element shows (each element says how it finds it). */
    address() {
      return this.getAttribute('url');
    }

    connectedCallback() {
      this.render();
    }

    disconnectedCallback() {
      if (this.listener) window.removeEventListener('message', this.listener);
      this.listener = null;
    }

    attributeChangedCallback() {
      if (this.isConnected) this.render();
    }

    render() {
      this.disconnectedCallback();
      const address = this.address();
      const url = address ? frameUrl(address) : null;
      this.replaceChildren();
      if (!url) return;
      const frame = document.createElement('iframe');
      frame.src = url.href;
      frame.title = this.getAttribute('title') || 'Signet';
      frame.setAttribute('allow', 'camera');
      frame.style.cssText = 'display:block;width:100%;border:0;height:480px;';
      this.style.display = this.style.display || 'block';
      this.appendChild(frame);
      this.frame = frame;
      const signetOrigin = url.origin;
      this.listener = (event) => {
        if (event.source !== frame.contentWindow || event.origin !== signetOrigin) return;
        const data = event.data;
        if (!data || typeof data !== 'object' || data.source !== 'signet') return;
        if (typeof data.type !== 'string' || !/^[a-z]{1,20}$/.test(data.type)) return;
        if (data.type === 'resize' && Number.isFinite(data.height) && data.height >= 0)
          frame.style.height = `${Math.ceil(data.height)}px`;
        this.dispatchEvent(
          new CustomEvent(`signet:${data.type}`, { detail: data, bubbles: true, composed: true }),
        );
      };
      window.addEventListener('message', this.listener);
    }
  }

  class SignetSigning extends SignetFrame {}

  class SignetBuilder extends SignetFrame {}

  class SignetForm extends SignetFrame {
    address() {
      const slug = this.getAttribute('slug');
      if (!slug) return null;
      const base = (this.getAttribute('base') || signetBase).replace(/\/+$/, '');
      return `${base}/c/${encodeURIComponent(slug)}`;
    }
  }

  const define = (name, type) => {
    if (!customElements.get(name)) customElements.define(name, type);
  };
  define('signet-signing', SignetSigning);
  define('signet-form', SignetForm);
  define('signet-builder', SignetBuilder);
})();
