// The ink of the signature pad: strokes drawn with a finger, pen or mouse (Pointer Events), kept in
// fractions of the pad so a resize redraws them, and the tight PNG of them the signer adopts.

/** Strokes are kept in page-independent units (fractions of the pad) so a resize can redraw them. */
export class Ink {
  constructor(canvas, onChange) {
    this.canvas = canvas;
    this.onChange = onChange;
    this.strokes = [];
    this.current = null;
    canvas.addEventListener('pointerdown', (e) => this.#down(e));
    canvas.addEventListener('pointermove', (e) => this.#move(e));
    for (const type of ['pointerup', 'pointercancel', 'lostpointercapture'])
      canvas.addEventListener(type, () => this.#up());
  }

  get empty() {
    return this.strokes.length === 0;
  }

  clear() {
    this.strokes = [];
    this.redraw();
    this.onChange();
  }

  #point(e) {
    const r = this.canvas.getBoundingClientRect();
    return [(e.clientX - r.left) / r.width, (e.clientY - r.top) / r.height];
  }

  #down(e) {
    if (e.button !== 0 && e.pointerType === 'mouse') return;
    e.preventDefault();
    this.canvas.setPointerCapture(e.pointerId);
    this.current = [this.#point(e)];
    this.strokes.push(this.current);
    this.redraw();
    this.onChange();
  }

  #move(e) {
    if (!this.current) return;
    e.preventDefault();
    // Coalesced events carry the points the browser merged between frames: smoother fast strokes.
    const events = typeof e.getCoalescedEvents === 'function' ? e.getCoalescedEvents() : [];
    for (const ev of events.length ? events : [e]) this.current.push(this.#point(ev));
    this.redraw();
  }

  #up() {
    this.current = null;
  }

  /** Fits the backing store to the element (sharp on high-DPI screens) and repaints every stroke. */
  redraw() {
    const c = this.canvas;
    const ratio = window.devicePixelRatio || 1;
    const w = Math.round(c.clientWidth * ratio);
    const hgt = Math.round(c.clientHeight * ratio);
    if (c.width !== w || c.height !== hgt) {
      c.width = w;
      c.height = hgt;
    }
    paint(c.getContext('2d'), this.strokes, w, hgt, 1);
  }

  /** A tight PNG of the ink with a small margin, at least 2x the pad's CSS size for print. */
  toDataUrl() {
    const scale = Math.max(2, window.devicePixelRatio || 1);
    const w = Math.round(this.canvas.clientWidth * scale);
    const hgt = Math.round(this.canvas.clientHeight * scale);
    const full = document.createElement('canvas');
    full.width = w;
    full.height = hgt;
    paint(full.getContext('2d'), this.strokes, w, hgt, scale / (window.devicePixelRatio || 1));
    let minX = 1,
      minY = 1,
      maxX = 0,
      maxY = 0;
    for (const s of this.strokes) {
      for (const [x, y] of s) {
        minX = Math.min(minX, x);
        minY = Math.min(minY, y);
        maxX = Math.max(maxX, x);
        maxY = Math.max(maxY, y);
      }
    }
    const pad = 0.03;
    const x0 = Math.max(0, Math.floor((minX - pad) * w));
    const y0 = Math.max(0, Math.floor((minY - pad * 3) * hgt));
    const x1 = Math.min(w, Math.ceil((maxX + pad) * w));
    const y1 = Math.min(hgt, Math.ceil((maxY + pad * 3) * hgt));
    const out = document.createElement('canvas');
    out.width = Math.max(1, x1 - x0);
    out.height = Math.max(1, y1 - y0);
    out
      .getContext('2d')
      .drawImage(full, x0, y0, out.width, out.height, 0, 0, out.width, out.height);
    return out.toDataURL('image/png');
  }
}

function paint(ctx, strokes, w, hgt, weight) {
  ctx.clearRect(0, 0, w, hgt);
  ctx.strokeStyle = '#111827';
  ctx.fillStyle = '#111827';
  ctx.lineCap = 'round';
  ctx.lineJoin = 'round';
  ctx.lineWidth = Math.max(1.5, hgt * 0.014) * weight;
  for (const s of strokes) {
    const pts = s.map(([x, y]) => [x * w, y * hgt]);
    if (pts.length === 1) {
      ctx.beginPath();
      ctx.arc(pts[0][0], pts[0][1], ctx.lineWidth / 2, 0, Math.PI * 2);
      ctx.fill();
      continue;
    }
    // Quadratic curves through the midpoints: smooth lines without a spline library.
    ctx.beginPath();
    ctx.moveTo(pts[0][0], pts[0][1]);
    for (let i = 1; i < pts.length - 1; i++) {
      const mx = (pts[i][0] + pts[i + 1][0]) / 2;
      const my = (pts[i][1] + pts[i + 1][1]) / 2;
      ctx.quadraticCurveTo(pts[i][0], pts[i][1], mx, my);
    }
    const last = pts[pts.length - 1];
    ctx.lineTo(last[0], last[1]);
    ctx.stroke();
  }
}
