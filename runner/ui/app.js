// The web UI's pages: the experiments list, an experiment (trials table and charts), a trial
// (metrics, checkpoints, logs). Routes live in the URL's hash (#/experiments/3); every page
// polls the API every 2 s while it is shown, so a running experiment grows without a reload.
'use strict';

(() => {
  const POLL_MS = 2000;
  const PAGE = 50;
  const fmt = Charts.fmt;
  let generation = 0;  // bumped on every route change: a stale page's answers are dropped
  let timer = null;

  // The token arrives once in the link `searcher-run ui` prints (#token=...): kept for the
  // session, never sent except as the Authorization header of a POST.
  if (location.hash.startsWith('#token=')) {
    sessionStorage.setItem('hpsearch-token', location.hash.slice(7));
    history.replaceState(null, '', location.pathname + '#/');
  }
  const token = () => sessionStorage.getItem('hpsearch-token') || '';

  async function api(path, init) {
    const r = await fetch(path, init);
    const j = await r.json();
    if (!r.ok) throw new Error(j.error || `HTTP ${r.status}`);
    return j;
  }

  function h(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === 'class') node.className = v;
      else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v === true ? '' : v);
    }
    for (const c of children.flat()) {
      if (c === null || c === undefined || c === false) continue;
      node.append(c instanceof Node ? c : String(c));
    }
    return node;
  }

  const stateName = (s) => (s || '').replace(/^STATE_/, '');
  const badge = (s) => h('span', { class: `state ${stateName(s)}` }, stateName(s));
  function progressBar(p) {
    if (p === null || p === undefined) return '–';
    const bar = h('span', { class: 'bar', role: 'progressbar', 'aria-valuenow': Math.round(p * 100),
                            'aria-valuemin': 0, 'aria-valuemax': 100 }, h('span'));
    bar.firstChild.style.width = `${Math.min(100, Math.max(0, p * 100))}%`;
    return h('span', {}, bar, ` ${(p * 100).toFixed(0)}%`);
  }
  function duration(e) {
    if (e.simulation) return e.virtualSeconds !== null ? `${fmt(e.virtualSeconds)} s virtual` : '–';
    if (!e.startTime) return '–';
    const end = e.endTime ? Date.parse(e.endTime) : Date.now();
    let s = Math.max(0, Math.round((end - Date.parse(e.startTime)) / 1000));
    const hrs = Math.floor(s / 3600); s -= hrs * 3600;
    const mins = Math.floor(s / 60); s -= mins * 60;
    return hrs ? `${hrs}h ${mins}m` : mins ? `${mins}m ${s}s` : `${s}s`;
  }
  function crumbs(...parts) {
    const nav = document.getElementById('crumbs');
    nav.replaceChildren(...parts.flatMap((p, i) => (i ? [' / ', p] : [p])));
  }
  function live(text) { document.getElementById('live').textContent = text; }
  function setMain(...children) { document.getElementById('main').replaceChildren(...children); }

  // Runs `tick` now and every POLL_MS while this page is shown.
  function poll(tick) {
    const mine = generation;
    const loop = async () => {
      if (mine !== generation) return;
      try {
        await tick(mine);
        live(`live · ${new Date().toLocaleTimeString()}`);
      } catch (err) {
        live(`not updated: ${err.message}`);
      }
      if (mine === generation) timer = setTimeout(loop, POLL_MS);
    };
    loop();
  }

  // ----- the experiments list -----

  function listPage() {
    crumbs(h('span', {}, 'experiments'));
    const body = h('tbody');
    const table = h('table', { 'aria-label': 'experiments' },
      h('thead', {}, h('tr', {}, ['ID', 'Name', 'State', 'Progress', 'Best metric', 'Trials', 'Started', 'Duration']
        .map((c) => h('th', { scope: 'col' }, c)))), body);
    setMain(h('h1', {}, 'Experiments'), h('div', { class: 'card table-wrap' }, table));
    poll(async (mine) => {
      const j = await api('/api/v1/experiments');
      if (mine !== generation) return;
      const rows = j.experiments.slice().sort((a, b) => b.id - a.id).map((e) => {
        const link = h('a', { href: `#/experiments/${e.id}` }, String(e.id));
        if (e.error && e.numTrials === undefined) {
          return h('tr', { class: 'error', 'data-id': e.id }, h('td', {}, link),
            h('td', { colspan: 7 }, `cannot be read: ${e.error}`));
        }
        const damaged = e.damaged && e.damaged.length;
        return h('tr', { class: e.error || damaged ? 'error' : '', 'data-id': e.id },
          h('td', {}, link),
          h('td', {}, h('a', { href: `#/experiments/${e.id}` }, e.name || '–'),
            e.error ? h('div', {}, `error: ${e.error}`) : null,
            damaged ? h('div', {}, `damaged: ${e.damaged.join(', ')}`) : null),
          h('td', {}, badge(e.state)),
          h('td', {}, progressBar(e.progress)),
          h('td', {}, e.bestTrialSearcherMetric === null ? '–'
            : h('span', {}, fmt(e.bestTrialSearcherMetric), ` ${e.searcherMetric}`)),
          h('td', {}, String(e.numTrials)),
          h('td', {}, e.startTime || (e.simulation ? 'simulation' : '–')),
          h('td', {}, duration(e)));
      });
      body.replaceChildren(...(rows.length ? rows : [h('tr', {}, h('td', { colspan: 8 }, 'no experiment yet'))]));
    });
  }

  // ----- an experiment -----

  function experimentPage(id) {
    const header = h('div', { class: 'card' });
    const charts = {
      best: h('div'), curves: h('div'), importance: h('div'), rungs: h('div'),
      parallel: h('div'), scatter: h('div', { class: 'grid small' }), timeline: h('div'),
    };
    const notes = { best: h('p', { class: 'note' }), curves: h('p', { class: 'note' }), parallel: h('p', { class: 'note' }),
                    importance: h('p', { class: 'note' }), timeline: h('p', { class: 'note' }) };
    const trialsCard = h('div', { class: 'card table-wrap' });
    const card = (title, ...content) => h('section', { class: 'card' }, h('h2', {}, title), ...content);
    setMain(header,
      h('div', { class: 'grid' },
        card('Best so far', charts.best, notes.best),
        card('Learning curves', charts.curves, notes.curves),
        card('Hyperparameter importance', charts.importance, notes.importance),
        card('Rung occupancy', charts.rungs)),
      card('Parallel coordinates', charts.parallel, notes.parallel),
      card('Metric against each hyperparameter', charts.scatter),
      card('Worker timeline', charts.timeline, notes.timeline),
      h('h2', {}, 'Trials'), trialsCard);
    crumbs(h('a', { href: '#/' }, 'experiments'), h('span', {}, `experiment ${id}`));

    const sort = { by: 'id', desc: false, offset: 0 };
    let version = null, tick = 0, hparams = [], experiment = null, message = '';

    const renderHeader = (j) => {
      const e = j.experiment;
      experiment = e;
      const actions = e.simulation || !e.store ? null : h('div', { class: 'actions' },
        ['pause', 'activate', 'kill'].map((a) => h('button', { type: 'button', onclick: () => act(a) }, a)),
        h('span', { class: 'message', role: 'status' }, message));
      header.replaceChildren(...[
        h('h1', {}, `Experiment ${e.id}${e.name ? ' · ' + e.name : ''} `, badge(e.state)),
        h('div', { class: 'meta' },
          h('span', {}, 'searcher ', h('b', {}, e.searcherType || '–')),
          h('span', {}, 'metric ', h('b', {}, e.searcherMetric), e.smallerIsBetter ? ' (smaller is better)' : ' (larger is better)'),
          h('span', {}, 'progress ', progressBar(e.progress)),
          h('span', {}, 'trials ', h('b', {}, String(e.numTrials))),
          h('span', {}, 'best ', h('b', {}, fmt(e.bestTrialSearcherMetric)),
            e.bestTrialId ? h('span', {}, ' (', h('a', { href: `#/trials/${e.bestTrialId}` }, `trial ${e.bestTrialId}`), ')') : null),
          h('span', {}, 'duration ', h('b', {}, duration(e)))),
        e.reason ? h('p', { class: 'note' }, e.reason) : null,
        e.error ? h('p', { class: 'error-text', role: 'alert' }, e.error) : null,
        actions].filter(Boolean));
    };

    async function act(action) {
      if (!token()) {
        message = 'no token: open the link `searcher-run ui` printed (it carries the token)';
      } else {
        try {
          const r = await api(`/api/v1/experiments/${id}/${action}`,
            { method: 'POST', headers: { Authorization: `Bearer ${token()}` } });
          message = `${action}: ${r.message.trim()} (${stateName(r.state)})`;
        } catch (err) {
          message = `${action}: ${err.message}`;
        }
      }
      renderHeader({ experiment: await api(`/api/v1/experiments/${id}`).then((j) => j.experiment) });
    }

    const trialHref = (tid) => (tid === null ? null : `#/trials/${tid}`);

    const renderCharts = (c) => {
      const lower = c.smallerIsBetter;
      const metric = c.metric;
      Charts.lines(charts.best, { label: 'best so far', xLabel: c.timeUnit, yLabel: `best ${metric}`, step: true, dots: true,
        series: [{ name: 'best so far', points: c.bestSoFar.map((p) => [p[0], p[1]]) }] });
      notes.best.textContent = c.timeUnit === 'journal record'
        ? 'x: the journal\'s record number (this journal was written before its records carried a time)'
        : `x: ${c.timeUnit} since the experiment began`;
      const rungs = c.rungs.length > 1 ? c.rungs.map((r) => r.length) : [];
      const ranked = c.curves;
      Charts.lines(charts.curves, { label: 'learning curves', xLabel: 'length trained', yLabel: metric, markers: rungs,
        series: ranked.map((t, i) => ({ name: `trial ${t.id ?? t.trial}: best ${fmt((lower ? Math.min : Math.max)(...t.points.map((p) => p[1])))}`,
          points: t.points, href: trialHref(t.id),
          color: Charts.metricColor(i, 0, Math.max(1, ranked.length - 1), true) })).reverse() });
      notes.curves.textContent = `${ranked.length} of ${c.validatedTrials} validated trials (the best) · dashed: the lengths validated at (rungs)`;
      Charts.bars(charts.importance, { label: 'hyperparameter importance', max: 1,
        bars: c.importance.values.slice().sort((a, b) => b.importance - a.importance)
          .map((v) => ({ label: v.name, value: v.importance, text: fmt(v.importance) })) });
      notes.importance.textContent = `Method: ${c.importance.method}; ${c.importance.trials} trials.`;
      Charts.bars(charts.rungs, { label: 'rung occupancy',
        bars: c.rungs.map((r) => ({ label: `length ${r.length}`, value: r.validations, text: `${r.validations} trials` })) });

      // Parallel coordinates and the scatter plots share the sample and its colors (by rank).
      const pts = c.points;
      const order = pts.metric.map((v, i) => [v, i]).sort((a, b) => (lower ? a[0] - b[0] : b[0] - a[0]));
      const rank = new Array(pts.metric.length);
      order.forEach(([, i], r) => { rank[i] = r; });
      const colors = rank.map((r) => Charts.metricColor(r, 0, Math.max(1, rank.length - 1), true));
      const labels = pts.ids.map((tid, i) => `trial ${tid}: ${metric} ${fmt(pts.metric[i])} at length ${pts.length[i]}`);
      const hrefs = pts.ids.map(trialHref);
      const axes = c.hparams.map((hp) => ({ name: hp.name, type: hp.type, values: pts.hp[hp.name],
        log: hp.type === 'numeric' && Charts.extent(pts.hp[hp.name])[1] / Math.max(1e-300, Charts.extent(pts.hp[hp.name])[0]) > 1e3 }));
      axes.push({ name: metric, type: 'numeric', values: pts.metric });
      const scatterDots = [];
      const pc = Charts.parallel(charts.parallel, { label: 'parallel coordinates', axes, color: colors, labels, hrefs,
        onBrush: (selected) => {
          const keep = selected ? new Set(selected) : null;
          for (const dots of scatterDots) dots.forEach((d, i) => d && d.classList.toggle('dim', !!keep && !keep.has(i)));
          notes.parallel.textContent = sampleNote(c) + (keep ? ` · ${keep.size} selected by brushing` : ' · drag along an axis to brush, click it to clear');
        } });
      pc.apply();
      charts.scatter.replaceChildren(...c.hparams.map((hp) => {
        const box = h('div');
        const numeric = hp.type === 'numeric';
        const cats = numeric ? null : [...new Set(pts.hp[hp.name].map(String))].sort();
        const xs = pts.hp[hp.name].map((v) => (numeric ? v : cats.indexOf(String(v))));
        const f = Charts.scatter(box, { label: `${metric} against ${hp.name}`, xLabel: numeric ? hp.name : `${hp.name} (${cats.join(', ')})`,
          yLabel: metric, height: 240,
          points: xs.map((x, i) => ({ x, y: pts.metric[i], color: colors[i], label: labels[i], href: hrefs[i] })) });
        scatterDots.push(f.dots);
        return box;
      }));
      const stateColor = { ACTIVE: '#2f6fdb', COMPLETED: '#12805c', ERROR: '#c4320a', CANCELED: '#98a2b3' };
      const tl = c.timeline;
      if (tl.kind === 'workers') {
        const place = c.timeUnit === 'virtual seconds' ? 'worker' : 'slot';
        Charts.timeline(charts.timeline, { label: 'worker timeline', width: 1100, xLabel: c.timeUnit, yLabel: place,
          lanes: tl.lanes, laneName: (k) => `${place} ${k}`,
          spans: tl.spans.map((s) => ({ ...s, color: stateColor[s.state] || '#98a2b3', outline: !!s.crashed, href: trialHref(s.id),
            label: `trial ${s.id} on ${place} ${s.lane}: ${fmt(s.start)} to ${fmt(s.end)} (${s.state}${s.crashed ? ', crashed' : ''}${s.running ? ', running' : ''})` })) });
        notes.timeline.textContent = `One lane per ${place} (${tl.lanes}); each launch of a trial (its start, a restart, a resume after a pause) is a bar on the ${place} it ran in, coloured by the trial's state` +
          (c.timeUnit === 'virtual seconds' ? '; outlined: the launch crashed' : '') +
          (tl.shownFrom > 0 ? `; the latest ${tl.launches - tl.shownFrom} of ${tl.launches} launches shown` : '');
      } else {
        Charts.timeline(charts.timeline, { label: 'trial timeline', width: 1100, xLabel: c.timeUnit, yLabel: 'lane', lanes: tl.lanes,
          spans: tl.spans.map((s) => ({ ...s, color: stateColor[s.state] || '#98a2b3',
            label: `trial ${s.id}: ${fmt(s.start)} to ${fmt(s.end)} (${s.state})`, href: trialHref(s.id) })) });
        notes.timeline.textContent = 'This log does not say where trials ran (it was written before hpsearch recorded the slot of each launch): ' +
          `each trial from its creation to its close instead, packed into lanes (the most under way at once: ${tl.lanes})` +
          (tl.stride > 1 ? `; every ${tl.stride}th trial of ${c.totalTrials} shown` : '');
      }
    };
    const sampleNote = (c) => (c.points.shown < c.validatedTrials
      ? `${c.points.shown} of ${c.validatedTrials} validated trials shown (the best quarter, then an even sample)`
      : `${c.points.shown} validated trials`);

    const columns = () => [
      { key: 'id', title: 'ID' }, { key: 'state', title: 'State' },
      ...hparams.map((hp) => ({ key: `hp.${hp.name}`, title: hp.name })),
      { key: 'best', title: 'Best' }, { key: 'latest', title: 'Latest' },
      { key: 'length', title: 'Length' }, { key: 'restarts', title: 'Restarts' }];

    const fetchTrials = () => api(`/api/v1/experiments/${id}/trials?offset=${sort.offset}&limit=${PAGE}` +
      `&sortBy=${encodeURIComponent(sort.by)}&orderBy=${sort.desc ? 'ORDER_BY_DESC' : 'ORDER_BY_ASC'}`);
    const renderTrials = async (mine, pending) => {
      const j = await (pending || fetchTrials());
      if (mine !== generation) return;
      const head = h('tr', {}, columns().map((c) => h('th', { scope: 'col',
        'aria-sort': sort.by === c.key ? (sort.desc ? 'descending' : 'ascending') : 'none' },
        h('button', { type: 'button', onclick: () => {
          if (sort.by === c.key) sort.desc = !sort.desc; else { sort.by = c.key; sort.desc = false; }
          sort.offset = 0; renderTrials(generation);
        } }, c.title))));
      const metricOf = (w) => (w ? Object.values(w.metrics.avgMetrics)[0] : null);
      const rows = j.trials.map((t) => h('tr', { 'data-trial': t.trialNumber, class: experiment && t.id === experiment.bestTrialId ? 'highlight' : '' },
        h('td', {}, t.id === null ? `#${t.trialNumber}` : h('a', { href: `#/trials/${t.id}` }, String(t.id))),
        h('td', {}, badge(t.state), t.exitReason ? ` ${t.exitReason}` : ''),
        hparams.map((hp) => h('td', {}, fmt(t.hparams[hp.name] === undefined ? null
          : typeof t.hparams[hp.name] === 'object' ? JSON.stringify(t.hparams[hp.name]) : t.hparams[hp.name]))),
        h('td', {}, fmt(metricOf(t.bestValidation))), h('td', {}, fmt(metricOf(t.latestValidation))),
        h('td', {}, String(t.totalBatchesProcessed)), h('td', {}, String(t.restarts))));
      const total = j.pagination.total;
      const pager = h('div', { class: 'pager' },
        h('button', { type: 'button', disabled: sort.offset === 0, onclick: () => { sort.offset = Math.max(0, sort.offset - PAGE); renderTrials(generation); } }, '‹ previous'),
        `${total ? sort.offset + 1 : 0}–${Math.min(total, sort.offset + PAGE)} of ${total}`,
        h('button', { type: 'button', disabled: sort.offset + PAGE >= total, onclick: () => { sort.offset += PAGE; renderTrials(generation); } }, 'next ›'));
      trialsCard.replaceChildren(h('table', { 'aria-label': 'trials' }, h('thead', {}, head), h('tbody', {}, rows)), pager);
    };

    poll(async (mine) => {
      // The first time, the three answers are asked for at once; after that, the trials and
      // the header only when the experiment changed (the header every 5th poll too: its state).
      const first = version === null;
      const chartsAnswer = api(`/api/v1/experiments/${id}/charts${first ? '' : `?since=${version}`}`);
      const trialsAnswer = first ? fetchTrials() : null;
      const headerAnswer = first || tick % 5 === 0 ? api(`/api/v1/experiments/${id}`) : null;
      const c = await chartsAnswer;
      if (mine !== generation) return;
      const changed = !c.unchanged;
      if (changed) {
        version = c.version;
        hparams = c.hparams;
      }
      if (headerAnswer || changed) {
        const e = await (headerAnswer || api(`/api/v1/experiments/${id}`));
        if (mine !== generation) return;
        renderHeader(e);
      }
      if (changed) {
        await renderTrials(mine, trialsAnswer);
        if (mine !== generation) return;
        renderCharts(c);
      }
      tick++;
    });
  }

  // ----- a trial -----

  function trialPage(id) {
    const header = h('div', { class: 'card' });
    const hp = h('div'), metrics = h('div', { class: 'grid' }), checkpoints = h('div'), logs = h('pre', { class: 'logs', 'aria-label': 'logs' });
    setMain(header, h('div', { class: 'grid' },
      h('section', { class: 'card' }, h('h2', {}, 'Hyperparameters'), hp),
      h('section', { class: 'card' }, h('h2', {}, 'Checkpoints'), checkpoints)),
    h('section', { class: 'card' }, h('h2', {}, 'Metrics by group'), metrics),
    h('section', { class: 'card' }, h('h2', {}, 'Logs'), logs));
    let logOffset = 0, shown = null;
    poll(async (mine) => {
      const t = (await api(`/api/v1/trials/${id}`)).trial;
      if (mine !== generation) return;
      crumbs(h('a', { href: '#/' }, 'experiments'), h('a', { href: `#/experiments/${t.experimentId}` }, `experiment ${t.experimentId}`),
        h('span', {}, `trial ${id}`));
      const key = JSON.stringify([t.state, t.validations.length, t.numCheckpoints, t.restarts]);
      if (key !== shown) {
        shown = key;
        header.replaceChildren(h('h1', {}, `Trial ${id} `, badge(t.state)),
          h('div', { class: 'meta' },
            h('span', {}, 'experiment ', h('a', { href: `#/experiments/${t.experimentId}` }, String(t.experimentId))),
            h('span', {}, 'request ', h('b', {}, t.requestId)),
            h('span', {}, 'length trained ', h('b', {}, String(t.totalBatchesProcessed))),
            h('span', {}, 'restarts ', h('b', {}, String(t.restarts))),
            t.exitReason ? h('span', {}, 'exited ', h('b', {}, t.exitReason)) : null,
            h('span', {}, `best ${t.searcherMetric} `, h('b', {}, fmt(t.bestValidation ? Object.values(t.bestValidation.metrics.avgMetrics)[0] : null)))));
        hp.replaceChildren(h('table', { 'aria-label': 'hyperparameters' }, h('tbody', {},
          Object.entries(t.hparams).map(([k, v]) => h('tr', {}, h('th', { scope: 'row' }, k), h('td', {}, typeof v === 'object' ? JSON.stringify(v) : fmt(v)))))));
        const m = (await api(`/api/v1/trials/${id}/metrics`)).metrics;
        const cps = (await api(`/api/v1/trials/${id}/checkpoints`)).checkpoints;
        if (mine !== generation) return;
        checkpoints.replaceChildren(cps.length ? h('table', { 'aria-label': 'checkpoints' },
          h('thead', {}, h('tr', {}, ['UUID', 'Length'].map((c) => h('th', {}, c)))),
          h('tbody', {}, cps.map((c) => h('tr', {}, h('td', {}, c.uuid || c.path), h('td', {}, String(c.totalBatches))))))
          : h('p', { class: 'note' }, t.simulation ? 'a simulated trial has no checkpoints' : 'none kept'));
        const groups = {};
        for (const r of m) {
          for (const [name, v] of Object.entries(r.metrics)) {
            if (typeof v !== 'number') continue;
            ((groups[r.group] ||= {})[name] ||= []).push([r.totalBatches, v]);
          }
        }
        metrics.replaceChildren(...Object.entries(groups).map(([g, series]) => {
          const box = h('div');
          Charts.lines(box, { label: `${g} metrics`, xLabel: 'steps completed', yLabel: g, dots: true,
            series: Object.entries(series).map(([name, points]) => ({ name, points })) });
          const legend = h('div', { class: 'legend' }, Object.keys(series).map((name, i) => {
            const sw = h('span', { class: 'swatch' }); sw.style.background = Charts.PALETTE[i % Charts.PALETTE.length];
            return h('span', {}, sw, name);
          }));
          return h('div', {}, h('h2', {}, g), box, legend);
        }));
        if (!Object.keys(groups).length) metrics.replaceChildren(h('p', { class: 'note' }, 'no metrics reported yet'));
      }
      if (!t.simulation) {
        // Logs follow: each poll asks from where the last one ended.
        for (let more = true; more && mine === generation;) {
          const l = await api(`/api/v1/trials/${id}/logs?offset=${logOffset}`);
          if (mine !== generation) return;
          logs.append(l.logs);
          more = l.nextOffset > logOffset && l.logs.length >= 256 * 1024;
          logOffset = l.nextOffset;
        }
      } else if (!logs.textContent) {
        logs.textContent = '(a simulated trial has no output)';
      }
    });
  }

  function route() {
    generation++;
    clearTimeout(timer);
    const path = location.hash.replace(/^#/, '') || '/';
    let m;
    if ((m = path.match(/^\/experiments\/(\d+)$/))) experimentPage(Number(m[1]));
    else if ((m = path.match(/^\/trials\/(\d+)$/))) trialPage(Number(m[1]));
    else listPage();
  }
  window.addEventListener('hashchange', route);
  route();
})();
