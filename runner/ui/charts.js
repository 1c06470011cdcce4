// SVG charts for the experiment and trial pages: hand-written, no dependency. Each chart is an
// <svg role="img"> whose aria-label names it ("learning curves", "best so far", ...).
'use strict';

const Charts = (() => {
  const NS = 'http://www.w3.org/2000/svg';
  const PALETTE = ['#2f6fdb', '#e8590c', '#12805c', '#ae3ec9', '#c4320a', '#0b7285', '#5c940d',
                   '#d6336c', '#495057', '#f08c00'];

  function el(name, attrs, parent) {
    const node = document.createElementNS(NS, name);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (parent) parent.appendChild(node);
    return node;
  }

  function fmt(v) {
    if (v === null || v === undefined) return '–';
    if (typeof v === 'string') return v;
    if (!isFinite(v)) return String(v);
    const a = Math.abs(v);
    if (a !== 0 && (a < 1e-3 || a >= 1e6)) return v.toExponential(3);
    return String(Number(v.toPrecision(5)));
  }

  function finite(values) { return values.filter((v) => typeof v === 'number' && isFinite(v)); }

  // A linear (or log) scale from a domain to a pixel range, with "nice" ticks.
  function scale(lo, hi, from, to, log) {
    if (log) { lo = Math.log10(lo); hi = Math.log10(hi); }
    if (!(hi > lo)) { const pad = lo === 0 ? 1 : Math.abs(lo) * 0.1; lo -= pad; hi += pad; }
    const f = (v) => from + ((log ? Math.log10(v) : v) - lo) / (hi - lo) * (to - from);
    f.invert = (p) => { const v = lo + (p - from) / (to - from) * (hi - lo); return log ? 10 ** v : v; };
    f.ticks = (n) => {
      if (log) {
        const out = [];
        for (let e = Math.ceil(lo); e <= Math.floor(hi); e++) out.push(10 ** e);
        return out.length >= 2 ? out : [10 ** lo, 10 ** hi];
      }
      const step0 = (hi - lo) / n;
      const mag = 10 ** Math.floor(Math.log10(step0));
      const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= step0) || step0;
      const out = [];
      for (let t = Math.ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) out.push(Number(t.toPrecision(12)));
      return out;
    };
    return f;
  }

  function extent(values, log) {
    let v = finite(values);
    if (log) v = v.filter((x) => x > 0);
    if (!v.length) return [0, 1];
    let lo = v[0], hi = v[0];
    for (const x of v) { if (x < lo) lo = x; if (x > hi) hi = x; }
    return [lo, hi];
  }

  // The frame of an x/y chart: the svg, its scales and axes.
  function frame(container, opts) {
    const W = opts.width || 560, H = opts.height || 300;
    const m = { l: 58, r: 14, t: 10, b: 38 };
    const svg = el('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart', role: 'img', 'aria-label': opts.label });
    el('title', {}, svg).textContent = opts.label;
    delegate(svg);
    const x = scale(opts.x[0], opts.x[1], m.l, W - m.r, opts.xLog);
    const y = scale(opts.y[0], opts.y[1], H - m.b, m.t, opts.yLog);
    const axes = el('g', { class: 'axis' }, svg);
    for (const t of opts.yTicks === false ? [] : y.ticks(5)) {
      el('line', { x1: m.l, x2: W - m.r, y1: y(t), y2: y(t), class: 'gridline' }, axes);
      el('text', { x: m.l - 6, y: y(t) + 4, 'text-anchor': 'end' }, axes).textContent = fmt(t);
    }
    for (const t of x.ticks(6)) {
      el('line', { x1: x(t), x2: x(t), y1: H - m.b, y2: H - m.b + 4 }, axes);
      el('text', { x: x(t), y: H - m.b + 16, 'text-anchor': 'middle' }, axes).textContent = fmt(t);
    }
    el('line', { x1: m.l, x2: W - m.r, y1: H - m.b, y2: H - m.b }, axes);
    el('line', { x1: m.l, x2: m.l, y1: m.t, y2: H - m.b }, axes);
    el('text', { x: (m.l + W - m.r) / 2, y: H - 4, 'text-anchor': 'middle' }, axes).textContent = opts.xLabel || '';
    const yl = el('text', { x: 12, y: (m.t + H - m.b) / 2, 'text-anchor': 'middle',
                            transform: `rotate(-90 12 ${(m.t + H - m.b) / 2})` }, axes);
    yl.textContent = opts.yLabel || '';
    container.replaceChildren(svg);
    return { svg, x, y, W, H, m };
  }

  // Tooltips and links: data-tip and data-href on the marks, one listener per chart (a chart
  // of a large experiment has a thousand marks).
  const tooltip = () => document.getElementById('tooltip');
  function delegate(svg) {
    svg.addEventListener('mousemove', (e) => {
      const t = tooltip();
      const text = e.target.getAttribute && e.target.getAttribute('data-tip');
      if (!text) { t.hidden = true; return; }
      t.hidden = false; t.textContent = text;
      t.style.left = (e.clientX + 12) + 'px'; t.style.top = (e.clientY + 12) + 'px';
    });
    svg.addEventListener('mouseleave', () => { tooltip().hidden = true; });
    svg.addEventListener('click', (e) => {
      const href = e.target.getAttribute && e.target.getAttribute('data-href');
      if (href) location.hash = href;
    });
  }
  function hover(node, text) { node.setAttribute('data-tip', text); }
  function link(node, href) { if (href) node.setAttribute('data-href', href); }

  // series: [{name, points: [[x, y]], color, href}]; markers: x values drawn as dashed lines.
  function lines(container, opts) {
    const xs = [], ys = [];
    for (const s of opts.series) for (const [a, b] of s.points) { xs.push(a); ys.push(b); }
    const f = frame(container, { ...opts, x: extent(xs, opts.xLog), y: extent(ys, opts.yLog) });
    for (const mk of opts.markers || []) {
      el('line', { x1: f.x(mk), x2: f.x(mk), y1: f.m.t, y2: f.H - f.m.b, class: 'rung' }, f.svg);
    }
    opts.series.forEach((s, i) => {
      const pts = s.points.filter(([a, b]) => isFinite(a) && isFinite(b));
      if (!pts.length) return;
      const color = s.color || PALETTE[i % PALETTE.length];
      const d = pts.map(([a, b], k) => `${k ? 'L' : 'M'}${f.x(a).toFixed(1)},${f.y(b).toFixed(1)}`).join('');
      const path = el('path', { d: opts.step ? stepPath(pts, f) : d, class: 'curve', stroke: color }, f.svg);
      if (s.name) hover(path, s.name);
      link(path, s.href);
      if (pts.length === 1 || opts.dots) {
        for (const [a, b] of pts) el('circle', { cx: f.x(a), cy: f.y(b), r: 2.2, fill: color, class: 'dot' }, f.svg);
      }
    });
    return f;
  }

  function stepPath(pts, f) {
    let d = `M${f.x(pts[0][0]).toFixed(1)},${f.y(pts[0][1]).toFixed(1)}`;
    for (let k = 1; k < pts.length; k++) {
      d += `H${f.x(pts[k][0]).toFixed(1)}V${f.y(pts[k][1]).toFixed(1)}`;
    }
    return d;
  }

  // points: [{x, y, label, color, href}]
  function scatter(container, opts) {
    const f = frame(container, { ...opts, x: extent(opts.points.map((p) => p.x), opts.xLog),
                                 y: extent(opts.points.map((p) => p.y), opts.yLog) });
    const dots = [];
    for (const p of opts.points) {
      if (!isFinite(p.x) || !isFinite(p.y)) { dots.push(null); continue; }
      const c = el('circle', { cx: f.x(p.x), cy: f.y(p.y), r: 2.6, fill: p.color || PALETTE[0],
                               'fill-opacity': 0.65, class: 'dot' }, f.svg);
      if (p.label) hover(c, p.label);
      link(c, p.href);
      dots.push(c);
    }
    return { ...f, dots };
  }

  // bars: [{label, value}] drawn horizontally.
  function bars(container, opts) {
    const W = opts.width || 560, rowH = 22, m = { l: 130, r: 60, t: 6, b: 6 };
    const H = m.t + m.b + rowH * Math.max(1, opts.bars.length);
    const svg = el('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart', role: 'img', 'aria-label': opts.label });
    el('title', {}, svg).textContent = opts.label;
    const max = Math.max(...opts.bars.map((b) => b.value), opts.max || 0, 1e-12);
    opts.bars.forEach((b, i) => {
      const y = m.t + i * rowH;
      el('text', { x: m.l - 8, y: y + 15, 'text-anchor': 'end' }, svg).textContent = b.label;
      const w = (W - m.l - m.r) * (b.value / max);
      el('rect', { x: m.l, y: y + 4, width: Math.max(0, w), height: rowH - 8, fill: b.color || PALETTE[0], rx: 2 }, svg);
      el('text', { x: m.l + w + 6, y: y + 15 }, svg).textContent = b.text !== undefined ? b.text : fmt(b.value);
    });
    container.replaceChildren(svg);
    return svg;
  }

  // axes: [{name, values (per line), type: numeric|categorical}]; lines colored by `color[i]`.
  // Dragging on an axis brushes a range; lines outside every brush are dimmed; onBrush(selected
  // indices or null).
  function parallel(container, opts) {
    const W = opts.width || 1100, H = opts.height || 320, m = { l: 40, r: 40, t: 24, b: 26 };
    const svg = el('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart', role: 'img', 'aria-label': opts.label });
    el('title', {}, svg).textContent = opts.label;
    delegate(svg);
    const n = opts.axes.length;
    const step = n > 1 ? (W - m.l - m.r) / (n - 1) : 0;
    const ys = opts.axes.map((axis) => {
      if (axis.type === 'categorical') {
        const cats = [...new Set(axis.values.map((v) => String(v)))].sort();
        const s = scale(0, Math.max(1, cats.length - 1), H - m.b, m.t, false);
        const f = (v) => s(cats.indexOf(String(v)));
        f.invert = s.invert; f.cats = cats;
        return f;
      }
      const log = axis.log && finite(axis.values).every((v) => v > 0);
      return scale(...extent(axis.values, log), H - m.b, m.t, log);
    });
    const count = opts.axes.length ? opts.axes[0].values.length : 0;
    const paths = [];
    for (let i = 0; i < count; i++) {
      let d = '';
      opts.axes.forEach((axis, k) => {
        const v = axis.values[i];
        if (v === null || v === undefined || (typeof v === 'number' && !isFinite(v))) return;
        d += `${d ? 'L' : 'M'}${(m.l + k * step).toFixed(1)},${ys[k](v).toFixed(1)}`;
      });
      const p = el('path', { d, class: 'pc-line', stroke: opts.color[i], 'stroke-opacity': 0.55 }, svg);
      if (opts.labels) hover(p, opts.labels[i]);
      if (opts.hrefs) link(p, opts.hrefs[i]);
      paths.push(p);
    }
    const brushes = new Map();  // axis index -> [lo, hi] in pixels
    const apply = () => {
      let selected = null;
      if (brushes.size) {
        selected = [];
        for (let i = 0; i < count; i++) {
          let keep = true;
          for (const [k, [a, b]] of brushes) {
            const v = opts.axes[k].values[i];
            const py = v === null || v === undefined ? NaN : ys[k](v);
            if (!(py >= a && py <= b)) { keep = false; break; }
          }
          paths[i].classList.toggle('dim', !keep);
          if (keep) selected.push(i);
        }
      } else {
        for (const p of paths) p.classList.remove('dim');
      }
      if (opts.onBrush) opts.onBrush(selected);
    };
    opts.axes.forEach((axis, k) => {
      const x = m.l + k * step;
      const g = el('g', { class: 'axis' }, svg);
      el('line', { x1: x, x2: x, y1: m.t, y2: H - m.b }, g);
      el('text', { x, y: 14, 'text-anchor': 'middle' }, g).textContent = axis.name;
      if (ys[k].cats) {
        ys[k].cats.forEach((c, j) => {
          el('text', { x: x + 4, y: ys[k](c) + 4 }, g).textContent = c;
        });
      } else {
        for (const t of ys[k].ticks(4)) {
          el('text', { x: x + 4, y: ys[k](t) + 4 }, g).textContent = fmt(t);
        }
      }
      // The brush: a wide invisible strip over the axis; drag to select, click to clear.
      const strip = el('rect', { x: x - 12, y: m.t, width: 24, height: H - m.t - m.b, fill: 'transparent',
                                 cursor: 'crosshair', 'data-axis': axis.name }, svg);
      let rect = null, start = null;
      const toY = (e) => {
        const pt = svg.createSVGPoint(); pt.x = e.clientX; pt.y = e.clientY;
        return Math.min(H - m.b, Math.max(m.t, pt.matrixTransform(svg.getScreenCTM().inverse()).y));
      };
      strip.addEventListener('pointerdown', (e) => {
        start = toY(e); strip.setPointerCapture(e.pointerId);
        if (rect) rect.remove();
        rect = el('rect', { x: x - 8, y: start, width: 16, height: 0, class: 'brush' }, svg);
        svg.appendChild(strip);
      });
      strip.addEventListener('pointermove', (e) => {
        if (start === null) return;
        const y = toY(e);
        rect.setAttribute('y', Math.min(start, y)); rect.setAttribute('height', Math.abs(y - start));
      });
      strip.addEventListener('pointerup', (e) => {
        const y = toY(e);
        if (Math.abs(y - start) < 3) { rect.remove(); rect = null; brushes.delete(k); }
        else brushes.set(k, [Math.min(start, y), Math.max(start, y)]);
        start = null; apply();
      });
    });
    container.replaceChildren(svg);
    return { svg, brush: (k, a, b) => { brushes.set(k, [a, b]); apply(); }, apply };
  }

  // Bars on lanes: spans {start, end, lane, color, label, href, outline}. With laneName, each
  // lane is a band (class "lane") named on the left when there is room.
  function timeline(container, opts) {
    const lanes = Math.max(1, opts.lanes);
    const laneH = Math.max(2, Math.min(12, 240 / lanes));
    const H = 50 + lanes * laneH;
    const ends = opts.spans.map((s) => s.end), starts = opts.spans.map((s) => s.start);
    const f = frame(container, { ...opts, height: H, x: [Math.min(0, ...starts), Math.max(1, ...ends)], y: [0, lanes],
                                 yTicks: !opts.laneName });
    if (opts.laneName) {
      const bands = el('g', { class: 'lanes' }, f.svg);
      for (let k = 0; k < lanes; ++k) {
        const band = el('rect', { x: f.m.l, y: f.y(k + 1), width: f.W - f.m.r - f.m.l, height: Math.max(1, f.y(k) - f.y(k + 1)),
                                  class: `lane${k % 2 ? ' odd' : ''}`, 'data-lane': k }, bands);
        hover(band, opts.laneName(k));
        if (laneH >= 9) {
          el('text', { x: f.m.l - 6, y: (f.y(k) + f.y(k + 1)) / 2 + 4, 'text-anchor': 'end', class: 'lane-name' }, bands)
            .textContent = opts.laneName(k);
        }
      }
    }
    for (const s of opts.spans) {
      const r = el('rect', { x: f.x(s.start), y: f.y(s.lane + 1), width: Math.max(1, f.x(s.end) - f.x(s.start)),
                             height: Math.max(1, f.y(s.lane) - f.y(s.lane + 1) - 1), fill: s.color,
                             class: s.outline ? 'span outlined' : 'span' }, f.svg);
      if (s.label) hover(r, s.label);
      link(r, s.href);
    }
    return f;
  }

  // A color for a metric value between lo and hi, better values bluer.
  function metricColor(v, lo, hi, smallerIsBetter) {
    if (!isFinite(v)) return '#98a2b3';
    let t = hi > lo ? (v - lo) / (hi - lo) : 0.5;
    if (!smallerIsBetter) t = 1 - t;
    const c0 = [47, 111, 219], c1 = [232, 89, 12];
    const c = c0.map((a, i) => Math.round(a + (c1[i] - a) * t));
    return `rgb(${c[0]},${c[1]},${c[2]})`;
  }

  return { lines, scatter, bars, parallel, timeline, fmt, metricColor, extent, PALETTE };
})();
