// The cookie picker's page: plain HTML, CSS and JS served from the daemon itself (no framework, nothing fetched elsewhere).
// The script builds the DOM with textContent only, so a domain or profile name can never become markup.

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/** Escaped text with `backticks` shown as code. */
const prose = (s: string) => escapeHtml(s).replace(/`([^`]+)`/g, '<code>$1</code>');

/** A small page for the expired-link, not-signed-in and cross-site hop cases; `refreshTo` makes it a same-origin hop. */
export function noticeHtml(title: string, text: string, next: string, refreshTo?: string): string {
  const refresh = refreshTo ? `<meta http-equiv="refresh" content="0;url=${escapeHtml(refreshTo)}">` : '';
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">${refresh}<title>${escapeHtml(title)}</title><link rel="icon" href="data:,"><link rel="stylesheet" href="/cookie-picker/app.css"></head>
<body class="notice"><main><h1>${escapeHtml(title)}</h1><p>${prose(text)}</p>${next ? `<p>${prose(next)}</p>` : ''}</main></body></html>`;
}

export function pickerHtml(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width">
<title>Cookie picker · browse</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/cookie-picker/app.css">
<script src="/cookie-picker/app.js" defer></script>
</head>
<body>
<header>
  <h1>Import cookies into browse</h1>
  <p>Choose the sites whose cookies the browse session may use. Cookie values are never shown here.</p>
</header>
<div id="status" role="status" aria-live="polite"></div>
<main>
  <section id="source" aria-labelledby="source-title">
    <h2 id="source-title">From your browser</h2>
    <div class="pickers">
      <label>Browser <select id="browser" disabled></select></label>
      <label>Profile <select id="profile" disabled></select></label>
    </div>
    <input id="search" type="search" placeholder="Filter domains" aria-label="Filter domains" autocomplete="off" spellcheck="false">
    <div class="toolbar">
      <label><input type="checkbox" id="select-all"> All shown</label>
      <button id="import-selected" type="button" disabled>Import selected</button>
      <span id="source-info" class="muted"></span>
    </div>
    <ul id="domains" class="list" aria-label="Domains with cookies"></ul>
    <p id="more" class="muted" hidden></p>
  </section>
  <section id="imported" aria-labelledby="imported-title">
    <h2 id="imported-title">In the browse session</h2>
    <ul id="imported-list" class="list" aria-label="Imported domains"></ul>
    <p id="imported-empty" class="muted">Nothing imported yet.</p>
  </section>
</main>
</body>
</html>`;
}

export const PICKER_CSS = `
:root { color-scheme: light dark; --line: #8884; --accent: #2563eb; --ok: #15803d; --bad: #b91c1c; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, sans-serif; }
header { padding: 16px 24px 4px; }
h1 { font-size: 20px; margin: 0 0 4px; }
h2 { font-size: 15px; margin: 0 0 10px; }
header p, .muted { color: #888; margin: 0; }
main { display: grid; grid-template-columns: 3fr 2fr; gap: 24px; padding: 12px 24px 24px; }
@media (max-width: 760px) { main { grid-template-columns: 1fr; } }
section { border: 1px solid var(--line); border-radius: 8px; padding: 14px; min-width: 0; }
.pickers { display: flex; gap: 12px; flex-wrap: wrap; margin-bottom: 10px; }
.pickers label { display: flex; flex-direction: column; gap: 2px; flex: 1 1 160px; }
select, input[type=search], button { font: inherit; }
select, input[type=search] { padding: 5px 6px; border: 1px solid var(--line); border-radius: 5px; width: 100%; }
.toolbar { display: flex; align-items: center; gap: 12px; margin: 10px 0 6px; flex-wrap: wrap; }
button { padding: 3px 10px; border: 1px solid var(--line); border-radius: 5px; cursor: pointer; background: transparent; }
button:not(:disabled):hover { border-color: var(--accent); }
button:disabled { opacity: .5; cursor: default; }
.list { list-style: none; margin: 0; padding: 0; max-height: 65vh; overflow: auto; }
.list li { display: flex; align-items: center; gap: 8px; padding: 5px 2px; border-top: 1px solid var(--line); }
.list li:first-child { border-top: 0; }
.domain { flex: 1; overflow-wrap: anywhere; }
.count { color: #888; font-variant-numeric: tabular-nums; }
.tag { font-size: 12px; color: var(--ok); }
#status { margin: 8px 24px 0; padding: 0; min-height: 1.45em; overflow-wrap: anywhere; }
#status.ok { color: var(--ok); }
#status.error { color: var(--bad); }
#status .hint { display: block; color: #888; }
body.notice main { display: block; max-width: 560px; }
code { font: 13px ui-monospace, monospace; }
`;

// Runs in the user's browser. Plain ES2017, one file, same-origin fetches only.
export const PICKER_JS = `'use strict';
(function () {
  var RENDER_LIMIT = 500;
  var $ = function (id) { return document.getElementById(id); };
  var state = { browsers: [], domains: [], domainsFailed: false, imported: [], selected: new Set(), busy: false };

  function el(tag, props, children) {
    var node = document.createElement(tag);
    Object.keys(props || {}).forEach(function (k) {
      if (k === 'text') node.textContent = props[k];
      else if (k === 'onclick') node.addEventListener('click', props[k]);
      else if (k in node && k !== 'dataset') node[k] = props[k];
      else node.setAttribute(k, props[k]);
    });
    (children || []).forEach(function (c) { node.appendChild(c); });
    return node;
  }

  function showStatus(kind, text, hint) {
    var s = $('status');
    s.className = kind;
    s.textContent = text;
    if (hint) s.appendChild(el('span', { className: 'hint', text: hint }));
  }

  function call(method, path, body) {
    var init = { method: method, credentials: 'same-origin', headers: {} };
    if (body !== undefined) { init.headers['content-type'] = 'application/json'; init.body = JSON.stringify(body); }
    return fetch('/cookie-picker/api/' + path, init).then(function (r) {
      return r.json().catch(function () { return { error: 'The daemon sent an unreadable reply (HTTP ' + r.status + ').' }; }).then(function (data) {
        if (!r.ok || data.error) { var e = new Error(data.error || 'HTTP ' + r.status); e.hint = data.hint; throw e; }
        return data;
      });
    }, function () {
      var e = new Error('The browse daemon is not answering.');
      e.hint = 'It may have stopped: run cookie-import-browser again for a new link.';
      throw e;
    });
  }

  function fail(e) { showStatus('error', e.message, e.hint); }

  function setBusy(busy) {
    state.busy = busy;
    document.querySelectorAll('button').forEach(function (b) { b.disabled = busy; });
    $('browser').disabled = busy || !state.browsers.length;
    $('profile').disabled = busy || !state.browsers.length;
    if (!busy) updateSelection();
  }

  function currentBrowser() {
    var id = $('browser').value;
    return state.browsers.filter(function (b) { return b.id === id; })[0];
  }

  function fillProfiles(wanted) {
    var b = currentBrowser();
    var sel = $('profile');
    sel.textContent = '';
    (b ? b.profiles : []).forEach(function (p) {
      sel.appendChild(el('option', { value: p.dir, text: p.displayName === p.dir ? p.dir : p.displayName + ' (' + p.dir + ')' }));
    });
    var match = b && b.profiles.filter(function (p) { return wanted && (p.dir.toLowerCase() === wanted.toLowerCase() || p.displayName.toLowerCase() === wanted.toLowerCase()); })[0];
    var fallback = b && (b.profiles.filter(function (p) { return p.dir === 'Default'; })[0] || b.profiles[0]);
    if (match || fallback) sel.value = (match || fallback).dir;
  }

  function importedSet() {
    var set = new Set();
    state.imported.forEach(function (d) { set.add(d.domain); });
    return set;
  }

  function shownDomains() {
    var q = $('search').value.trim().toLowerCase();
    return state.domains.filter(function (d) { return !q || d.domain.indexOf(q) !== -1; });
  }

  function renderDomains() {
    var list = $('domains');
    var shown = shownDomains();
    var done = importedSet();
    list.textContent = '';
    shown.slice(0, RENDER_LIMIT).forEach(function (d) {
      var box = el('input', { type: 'checkbox', checked: state.selected.has(d.domain), 'aria-label': 'Select ' + d.domain });
      box.addEventListener('change', function () {
        if (box.checked) state.selected.add(d.domain); else state.selected.delete(d.domain);
        updateSelection();
      });
      var children = [box, el('span', { className: 'domain', text: d.domain }), el('span', { className: 'count', text: String(d.count) })];
      if (done.has(d.domain)) children.push(el('span', { className: 'tag', text: 'imported' }));
      children.push(el('button', { type: 'button', text: 'Import', disabled: state.busy, 'aria-label': 'Import ' + d.domain, onclick: function () { importDomains([d.domain]); } }));
      list.appendChild(el('li', { 'data-domain': d.domain }, children));
    });
    var more = $('more');
    more.hidden = shown.length <= RENDER_LIMIT;
    more.textContent = (shown.length - RENDER_LIMIT) + ' more domains: type in the filter to narrow the list.';
    if (state.domainsFailed) list.appendChild(el('li', { className: 'muted', text: 'Could not read this profile (see the message above).' }));
    else if (!state.domains.length) list.appendChild(el('li', { className: 'muted', text: 'No cookies in this profile.' }));
    else if (!shown.length) list.appendChild(el('li', { className: 'muted', text: 'No domain matches the filter.' }));
    updateSelection();
  }

  function updateSelection() {
    var shown = shownDomains().slice(0, RENDER_LIMIT);
    var n = state.selected.size;
    $('import-selected').disabled = state.busy || n === 0;
    $('import-selected').textContent = n ? 'Import selected (' + n + ')' : 'Import selected';
    var all = $('select-all');
    all.checked = shown.length > 0 && shown.every(function (d) { return state.selected.has(d.domain); });
    all.disabled = state.busy || shown.length === 0;
  }

  function renderImported() {
    var list = $('imported-list');
    list.textContent = '';
    state.imported.forEach(function (d) {
      list.appendChild(el('li', { 'data-domain': d.domain }, [
        el('span', { className: 'domain', text: d.domain }),
        el('span', { className: 'count', text: String(d.count) }),
        el('button', { type: 'button', text: 'Remove', disabled: state.busy, 'aria-label': 'Remove ' + d.domain, onclick: function () { removeDomain(d.domain); } }),
      ]));
    });
    $('imported-empty').hidden = state.imported.length > 0;
  }

  function loadDomains() {
    var b = currentBrowser();
    state.domains = [];
    state.domainsFailed = false;
    state.selected.clear();
    $('source-info').textContent = '';
    if (!b) { renderDomains(); return Promise.resolve(); }
    var q = 'browser=' + encodeURIComponent(b.id) + '&profile=' + encodeURIComponent($('profile').value);
    setBusy(true);
    return call('GET', 'domains?' + q).then(function (data) {
      state.domains = data.domains;
      $('source-info').textContent = data.source + ': ' + data.domains.length + (data.domains.length === 1 ? ' domain' : ' domains');
    }, function (e) { state.domainsFailed = true; fail(e); }).then(function () { setBusy(false); renderDomains(); });
  }

  function importDomains(domains) {
    var b = currentBrowser();
    if (!b || !domains.length) return;
    setBusy(true);
    showStatus('', 'Importing ' + domains.join(', ') + '…');
    call('POST', 'import', { browser: b.id, profile: $('profile').value, domains: domains }).then(function (data) {
      state.imported = data.imported;
      domains.forEach(function (d) { state.selected.delete(d); });
      showStatus('ok', data.text);
    }, fail).then(function () { setBusy(false); renderImported(); renderDomains(); });
  }

  function removeDomain(domain) {
    setBusy(true);
    call('POST', 'remove', { domain: domain }).then(function (data) {
      state.imported = data.imported;
      showStatus('ok', data.text);
    }, fail).then(function () { setBusy(false); renderImported(); renderDomains(); });
  }

  function start() {
    var params = new URLSearchParams(location.search);
    $('browser').addEventListener('change', function () { fillProfiles(); loadDomains(); });
    $('profile').addEventListener('change', loadDomains);
    $('search').addEventListener('input', renderDomains);
    $('select-all').addEventListener('change', function () {
      var on = $('select-all').checked;
      shownDomains().slice(0, RENDER_LIMIT).forEach(function (d) { if (on) state.selected.add(d.domain); else state.selected.delete(d.domain); });
      renderDomains();
    });
    $('import-selected').addEventListener('click', function () { importDomains(Array.from(state.selected)); });
    Promise.all([call('GET', 'browsers'), call('GET', 'imported')]).then(function (res) {
      state.browsers = res[0].browsers;
      state.imported = res[1].imported;
      renderImported();
      var sel = $('browser');
      state.browsers.forEach(function (b) { sel.appendChild(el('option', { value: b.id, text: b.name })); });
      if (!state.browsers.length) {
        showStatus('error', 'No Chromium-family browser with cookies was found for this user.', 'Log in to a site in Chrome, Chromium, Arc, Brave, Edge, Comet, Vivaldi or Opera first.');
        renderDomains();
        return;
      }
      var wanted = (params.get('browser') || '').toLowerCase();
      var pick = state.browsers.filter(function (b) { return b.id === wanted || b.name.toLowerCase() === wanted; })[0];
      sel.value = (pick || state.browsers[0]).id;
      fillProfiles(params.get('profile'));
      setBusy(false);
      return loadDomains();
    }).catch(fail);
  }

  start();
})();
`;
