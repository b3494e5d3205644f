// The delay queues dashboard: reads /actuator/delayqueues every few seconds and acts through its
// write operations. Plain script, no dependencies; every value from the server is set as text.
(function () {
  'use strict';

  const body = document.body;
  const endpoint = body.dataset.endpoint;
  const writable = body.dataset.writable === 'true';
  const refreshMillis = Math.max(500, Number(body.dataset.refreshMillis) || 2000);
  const HISTORY_MILLIS = 10 * 60 * 1000;
  const HISTORY_KEY = 'delay-dashboard-history:' + endpoint;

  let selected = new URLSearchParams(location.search).get('queue');
  let history = loadHistory();
  let previous = null; // the last sample, for rates
  const DEAD_PAGE = 50;
  let deadCursors = []; // the 'after' cursors of the dead pages passed, the last one that of the page shown

  function loadHistory() {
    try {
      const saved = JSON.parse(sessionStorage.getItem(HISTORY_KEY) || '[]');
      return Array.isArray(saved) ? saved : [];
    } catch (e) {
      return [];
    }
  }

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    Object.entries(attrs || {}).forEach(([k, v]) => {
      if (k === 'class') node.className = v;
      else if (k.startsWith('data-')) node.setAttribute(k, v);
      else node[k] = v;
    });
    children.forEach(c => node.append(c instanceof Node ? c : document.createTextNode(String(c))));
    return node;
  }

  function duration(ms) {
    if (ms < 1000) return ms + ' ms';
    if (ms < 60000) return (ms / 1000).toFixed(1) + ' s';
    if (ms < 3600000) return (ms / 60000).toFixed(1) + ' min';
    return (ms / 3600000).toFixed(1) + ' h';
  }

  function show(id, text, kind) {
    const node = document.getElementById(id);
    node.textContent = text;
    node.hidden = !text;
    if (kind) node.dataset.kind = kind;
  }

  async function read(path) {
    const response = await fetch(endpoint + path, { headers: { Accept: 'application/json' }, credentials: 'same-origin' });
    if (!response.ok) throw new Error('GET ' + endpoint + path + ' answered ' + response.status);
    return response.json();
  }

  async function act(queue, action, payload) {
    const response = await fetch(endpoint + '/' + encodeURIComponent(queue) + '/' + action, {
      method: 'POST', credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify(payload || {})
    });
    let answer = null;
    try { answer = await response.json(); } catch (e) { /* no body */ }
    if (!response.ok) {
      const detail = answer && (answer.detail || answer.message || answer.error);
      throw new Error(action + ' on ' + queue + ' failed (' + response.status + ')' + (detail ? ': ' + detail : ''));
    }
    return answer;
  }

  async function run(queue, action, payload, done) {
    try {
      const answer = await act(queue, action, payload);
      show('message', done(answer), 'ok');
    } catch (e) {
      show('message', e.message, 'error');
    }
    refresh();
  }

  function button(label, action, onClick) {
    const b = el('button', { type: 'button', 'data-action': action }, label);
    b.disabled = !writable;
    b.addEventListener('click', onClick);
    return b;
  }

  function record(queues) {
    const now = Date.now();
    const sample = { t: now, q: {} };
    Object.entries(queues).forEach(([name, v]) => {
      const completed = v.totals.completed || 0;
      let rate = null;
      if (previous && previous.q[name] && now > previous.t) {
        rate = Math.max(0, (completed - previous.q[name].completed) * 1000 / (now - previous.t));
      }
      sample.q[name] = { completed: completed, rate: rate, overdue: v.oldestOverdueMillis };
    });
    previous = sample;
    history.push(sample);
    history = history.filter(s => now - s.t <= HISTORY_MILLIS);
    try { sessionStorage.setItem(HISTORY_KEY, JSON.stringify(history)); } catch (e) { /* full: keep it in memory */ }
    return sample;
  }

  // Rows are kept and updated in place, keyed by queue or job id: a refresh never replaces the
  // element a user is about to click.
  function keepRows(tbody, attribute, keys, create) {
    const existing = new Map([...tbody.children].map(row => [row.getAttribute(attribute), row]));
    const rows = keys.map(key => existing.get(key) || create(key));
    existing.forEach((row, key) => { if (!keys.includes(key)) row.remove(); });
    rows.forEach(row => tbody.append(row)); // appending a row already there moves it into order
    return rows;
  }

  function queueRow(name) {
    const link = el('a', { href: '?queue=' + encodeURIComponent(name) }, name);
    link.addEventListener('click', e => { e.preventDefault(); select(name); });
    const toggle = button('Pause', 'pause', () => {
      const action = toggle.dataset.action;
      run(name, action, {}, () => name + (action === 'pause' ? ' paused' : ' resumed'));
    });
    const cells = ['state', 'delayed', 'ready', 'running', 'dead', 'consumers', 'overdue', 'rate', 'rate-limit']
      .map(field => el('td', { 'data-field': field, class: field === 'state' || field === 'rate-limit' ? '' : 'num' }));
    return el('tr', { 'data-queue': name }, el('td', {}, link), ...cells, el('td', {}, toggle));
  }

  function renderQueues(queues, sample) {
    const tbody = document.querySelector('#queues tbody');
    const names = Object.keys(queues);
    document.getElementById('empty').hidden = names.length > 0;
    keepRows(tbody, 'data-queue', names, queueRow).forEach(row => {
      const name = row.getAttribute('data-queue');
      const v = queues[name];
      const rate = sample.q[name].rate;
      const workers = v.consumers.reduce((sum, c) => sum + c.workers, 0);
      const prefetched = v.consumers.reduce((sum, c) => sum + c.prefetched, 0);
      const state = v.paused ? 'paused' : (v.consumers.length ? 'consuming' : 'no consumer');
      const text = {
        delayed: v.delayed, ready: v.ready, running: v.running, dead: v.dead, consumers: v.consumers.length,
        overdue: duration(v.oldestOverdueMillis), rate: rate === null ? '–' : rate.toFixed(1),
        'rate-limit': v.rateLimit ? v.rateLimit + (v.rateLimitSetAtRuntime ? ' (runtime)' : '') : 'none'
      };
      Object.entries(text).forEach(([field, value]) => {
        row.querySelector('[data-field="' + field + '"]').textContent = String(value);
      });
      row.querySelector('[data-field="consumers"]').title = workers + ' workers, ' + prefetched + ' jobs prefetched';
      row.querySelector('[data-field="ready"]').title = prefetched + ' of them prefetched by consumers, not started yet';
      row.querySelector('[data-field="state"]').replaceChildren(el('span', { class: 'badge ' + state.replace(' ', '-') }, state));
      row.className = name === selected ? 'selected' : '';
      const toggle = row.querySelector('button');
      toggle.dataset.action = v.paused ? 'resume' : 'pause';
      toggle.textContent = v.paused ? 'Resume' : 'Pause';
    });
  }

  function chart(svgId, points, max) {
    const svg = document.getElementById(svgId);
    const now = Date.now();
    // the time the samples cover, at least a minute, at most the history kept
    const span = Math.min(HISTORY_MILLIS, Math.max(60000, points.length ? now - points[0].t : 0));
    const top = max > 0 ? max : 1;
    const coords = points.map(p => ((300 * (1 - (now - p.t) / span)).toFixed(1) + ',' + (78 - 74 * p.v / top).toFixed(1)));
    const line = document.createElementNS('http://www.w3.org/2000/svg', 'polyline');
    line.setAttribute('points', coords.join(' '));
    line.setAttribute('class', 'line');
    const axis = document.createElementNS('http://www.w3.org/2000/svg', 'line');
    Object.entries({ x1: 0, y1: 78, x2: 300, y2: 78, class: 'axis' }).forEach(([k, v]) => axis.setAttribute(k, v));
    svg.replaceChildren(axis, line);
  }

  function renderCharts(name) {
    const rates = history.filter(s => s.q[name] && s.q[name].rate !== null).map(s => ({ t: s.t, v: s.q[name].rate }));
    const overdue = history.filter(s => s.q[name]).map(s => ({ t: s.t, v: s.q[name].overdue }));
    const maxRate = Math.max(0, ...rates.map(p => p.v));
    const maxOverdue = Math.max(0, ...overdue.map(p => p.v));
    chart('chart-rate', rates, maxRate);
    chart('chart-overdue', overdue, maxOverdue);
    document.querySelector('[data-chart-max="rate"]').textContent = 'peak ' + maxRate.toFixed(1) + '/s';
    document.querySelector('[data-chart-max="overdue"]').textContent = 'peak ' + duration(maxOverdue);
    const first = history.length ? history[0].t : Date.now();
    document.getElementById('chart-span').textContent = 'Last ' + duration(Date.now() - first)
      + ' as this browser saw it (up to 10 min), one point every ' + duration(refreshMillis) + '.';
  }

  async function renderDetail(queues) {
    const section = document.getElementById('detail');
    if (!selected || !queues[selected]) {
      section.hidden = true;
      return;
    }
    const name = selected;
    section.hidden = false;
    document.getElementById('detail-name').textContent = name;
    renderCharts(name);
    await renderSchedules(name);
    const deadRows = document.querySelector('#dead tbody');
    if (deadRows.dataset.queue !== name) {
      deadRows.replaceChildren(); // another queue's jobs, and buttons bound to it
      deadRows.dataset.queue = name;
      deadCursors = [];
    }
    const cursor = deadCursors.length ? deadCursors[deadCursors.length - 1] : null;
    const report = await read('/' + encodeURIComponent(name) + '?size=' + DEAD_PAGE
      + (cursor ? '&after=' + encodeURIComponent(cursor) : ''));
    if (name !== selected || cursor !== (deadCursors.length ? deadCursors[deadCursors.length - 1] : null)) {
      return; // another queue or page was chosen while this one was read: the next refresh shows it
    }
    renderGroups(report.stats);
    document.getElementById('dead-total').textContent = '(' + report.dead.total + ')';
    renderDeadPaging(report.dead);
    const jobs = new Map(report.dead.jobs.map(job => [job.id, job]));
    keepRows(deadRows, 'data-job', [...jobs.keys()], id => el('tr', { 'data-job': id },
      el('td', { class: 'id' }, id),
      el('td', { class: 'num', 'data-field': 'version' }),
      el('td', { class: 'num', 'data-field': 'attempts' }),
      el('td', { 'data-field': 'died' }),
      el('td', { class: 'error', 'data-field': 'error' }),
      el('td', {},
        button('Requeue', 'requeue-dead', () => run(name, 'requeue-dead', { id: id }, () => id + ' requeued')),
        button('Delete', 'delete-dead', () => run(name, 'delete-dead', { id: id }, () => id + ' deleted')))))
      .forEach(row => {
        const job = jobs.get(row.getAttribute('data-job'));
        const version = row.querySelector('[data-field="version"]');
        // null: the page read no record for it (past the endpoint's byte budget per page)
        version.textContent = job.payloadVersion === null || job.payloadVersion === undefined ? '?' : String(job.payloadVersion);
        version.title = version.textContent === '?' ? 'not read: the page reads a bounded amount of records' : '';
        row.querySelector('[data-field="attempts"]').textContent = String(job.attempts);
        row.querySelector('[data-field="died"]').textContent = new Date(job.diedAt).toLocaleString();
        row.querySelector('[data-field="error"]').textContent = job.lastError || '';
      });
  }

  // Pages of dead jobs by the endpoint's cursor: "Older" goes on after the last job shown, "Newer"
  // back to the page before (the cursors passed are kept), as deep as the dead set goes.
  function renderDeadPaging(dead) {
    const first = deadCursors.length * DEAD_PAGE;
    document.getElementById('dead-position').textContent = dead.jobs.length
      ? 'jobs ' + (first + 1) + '–' + (first + dead.jobs.length) + ' of ' + dead.total
      : (deadCursors.length ? 'no older dead jobs' : '');
    const older = document.getElementById('dead-older');
    older.disabled = !dead.next;
    older.dataset.next = dead.next || '';
    document.getElementById('dead-newer').disabled = deadCursors.length === 0;
  }

  // The queue's schedules (the first page of 100): name, spec, next tick, last outcome, state. The
  // endpoint answers 404 when the application has no schedules bean: the part stays hidden.
  async function renderSchedules(name) {
    const part = document.getElementById('schedules-part');
    let page;
    try {
      page = await read('/' + encodeURIComponent(name) + '/schedules?size=100');
    } catch (e) {
      part.hidden = true;
      return;
    }
    part.hidden = page.schedules.length === 0;
    document.getElementById('schedules-more').hidden = page.next === '0';
    const schedules = new Map(page.schedules.map(s => [s.name, s]));
    const rows = document.querySelector('#schedules tbody');
    if (rows.dataset.queue !== name) {
      rows.replaceChildren();
      rows.dataset.queue = name;
    }
    keepRows(rows, 'data-schedule', [...schedules.keys()], id => el('tr', { 'data-schedule': id },
      el('td', { class: 'id' }, id),
      el('td', { 'data-field': 'spec' }),
      el('td', { 'data-field': 'next' }),
      el('td', { 'data-field': 'outcome' }),
      el('td', { 'data-field': 'state' }),
      el('td', {}, button('Remove', 'remove-schedule', () => {
        if (window.confirm('Remove schedule ' + id + ' of ' + name + '? Its published ticks stay jobs.')) {
          run(name, 'remove-schedule', { id: id }, a => a.affected ? id + ' removed' : id + ' was gone already');
        }
      }))))
      .forEach(row => {
        const s = schedules.get(row.getAttribute('data-schedule'));
        const o = s.lastOutcome;
        row.querySelector('[data-field="spec"]').textContent = s.spec || 'unreadable by this release (parked)';
        row.querySelector('[data-field="next"]').textContent = s.nextTick ? new Date(s.nextTick).toLocaleString() : '–';
        row.querySelector('[data-field="outcome"]').textContent = o
          ? o.outcome + ' at ' + new Date(o.at).toLocaleString() + ' (tick ' + new Date(o.tick).toLocaleString() + ')' : '–';
        const state = s.undeclared ? 'undeclared' : (s.paused ? 'paused' : (s.spec ? 'ticking' : 'parked'));
        row.querySelector('[data-field="state"]').replaceChildren(el('span', { class: 'badge ' + state }, state));
        if (s.undeclared) {
          row.querySelector('[data-field="state"]').title = 'Declared with @Recurring by no running application since '
            + new Date(s.lastDeclared).toLocaleString() + '; it ticks until removed';
        }
      });
  }

  // The queue's groups: how many have ready jobs, and the largest (no buttons: rows are rebuilt).
  function renderGroups(view) {
    const groups = view.groups || 0;
    document.getElementById('groups').hidden = groups === 0;
    document.getElementById('groups-total').textContent = '(' + groups + ')';
    document.querySelector('#largest-groups tbody').replaceChildren(...(view.largestGroups || []).map(group =>
      el('tr', { 'data-group': group.group }, el('td', { class: 'id' }, group.group), el('td', { class: 'num' }, group.ready))));
  }

  function select(name) {
    selected = name;
    history.length && renderCharts(name);
    const url = new URL(location.href);
    url.searchParams.set('queue', name);
    window.history.replaceState(null, '', url);
    refresh();
  }

  let inFlight = false;
  async function refresh() {
    if (inFlight) return;
    inFlight = true;
    try {
      const report = await read('');
      const sample = record(report.queues);
      renderQueues(report.queues, sample);
      await renderDetail(report.queues);
      document.getElementById('refreshed').textContent = 'updated ' + new Date().toLocaleTimeString();
      document.getElementById('refreshed').dataset.kind = 'ok';
    } catch (e) {
      document.getElementById('refreshed').textContent = e.message;
      document.getElementById('refreshed').dataset.kind = 'error';
    } finally {
      inFlight = false;
    }
  }

  function wireForms() {
    document.querySelectorAll('[data-write]').forEach(b => { b.disabled = !writable; });
    document.getElementById('rate-form').addEventListener('submit', e => {
      e.preventDefault();
      const limit = document.getElementById('rate-input').value.trim();
      run(selected, 'rate-limit', { limit: limit }, () => selected + ': rate limit ' + limit);
    });
    document.getElementById('rate-clear').addEventListener('click', () =>
      run(selected, 'rate-limit', { limit: 'none' }, () => selected + ': runtime rate limit cleared'));
    document.getElementById('cancel-form').addEventListener('submit', e => {
      e.preventDefault();
      const id = document.getElementById('cancel-input').value.trim();
      run(selected, 'cancel', { id: id }, a => a.affected ? id + ' cancelled' : id + ' was not waiting (running, done, dead or unknown)');
    });
    document.getElementById('dead-older').addEventListener('click', e => {
      if (!e.target.dataset.next) return;
      deadCursors.push(e.target.dataset.next);
      e.target.disabled = true;
      refresh();
    });
    document.getElementById('dead-newer').addEventListener('click', e => {
      deadCursors.pop();
      e.target.disabled = deadCursors.length === 0;
      refresh();
    });
    document.getElementById('requeue-all').addEventListener('click', () =>
      run(selected, 'requeue-dead', { all: true }, a => a.affected + ' dead jobs requeued'));
    document.getElementById('delete-all').addEventListener('click', () => {
      if (window.confirm('Delete every dead job of ' + selected + '?')) {
        run(selected, 'delete-dead', { all: true }, a => a.affected + ' dead jobs deleted');
      }
    });
  }

  if (!endpoint) {
    show('notice', 'The delayqueues endpoint is not exposed over HTTP, and the dashboard reads everything through it: '
      + 'add delayqueues to management.endpoints.web.exposure.include.', 'error');
    document.getElementById('refreshed').textContent = '';
    return;
  }
  if (!writable) {
    show('notice', 'Read-only: the delayqueues endpoint takes no writes, so pausing, rate limits, requeueing, deleting and '
      + 'cancelling are off. Set management.endpoint.delayqueues.access=unrestricted (and secure the endpoint) to allow them.');
  }
  wireForms();
  refresh();
  setInterval(refresh, refreshMillis);
})();
