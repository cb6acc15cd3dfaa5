// The sandbox page: renders what the stand-in holds for the chosen person (channels, threads,
// ephemerals, App Home, modals, Block Kit) and sends what they do back to the sandbox server,
// which turns it into the signed request Slack would send to the bot. Plain JS, no build step.
"use strict";

const $ = (sel) => document.querySelector(sel);
// A drawn lock (no emoji font needed) for private channels.
const LOCK = '<svg class="lock" width="11" height="12" viewBox="0 0 11 12" aria-label="private"><rect x="1" y="5" width="9" height="7" rx="1.5" fill="currentColor"/><path d="M3 5V3.5a2.5 2.5 0 0 1 5 0V5" stroke="currentColor" fill="none" stroke-width="1.6"/></svg>';
const ui = {
  me: localStorage.getItem("opsmemory.sandbox.user") || "",
  channel: localStorage.getItem("opsmemory.sandbox.channel") || "",
  thread: null,
  home: false,
  state: null,
  modalKey: "",
  fetching: false,
  dirty: false,
};

// ---- server ---------------------------------------------------------------------------------
async function api(name, body) {
  const r = await fetch(`/api/${name}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ user: ui.me, ...body }),
  });
  let out = {};
  try { out = await r.json(); } catch (e) { out = { error: `HTTP ${r.status}` }; }
  if (!r.ok || out.error) toast(out.error || `HTTP ${r.status}`);
  return out;
}

async function refresh() {
  if (ui.fetching) { ui.dirty = true; return; }
  ui.fetching = true;
  try {
    const asked = ui.me;
    const r = await fetch(`/api/state?user=${encodeURIComponent(asked)}`);
    const state = await r.json();
    // The person switched users while this was in flight: it is someone else's view, so
    // drop it and fetch again rather than snap the picker back to the old user.
    if (asked !== ui.me) { ui.dirty = true; return; }
    ui.state = state;
    ui.me = state.me;
    render();
  } finally {
    ui.fetching = false;
    if (ui.dirty) { ui.dirty = false; refresh(); }
  }
}

function listen() {
  const source = new EventSource("/api/events");
  source.onmessage = () => refresh();
  source.onerror = () => { /* EventSource reconnects by itself */ };
}

function toast(text) {
  const t = $("#toast");
  t.textContent = text;
  t.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { t.hidden = true; }, 6000);
}

// ---- mrkdwn ---------------------------------------------------------------------------------
function esc(s) {
  return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}
function unesc(s) {
  return String(s).replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
}
function userName(id) {
  const st = ui.state;
  if (st && id === st.bot.id) return "opsmemory";
  const u = st && st.users.find((x) => x.id === id);
  return u ? u.name : id;
}
function channelName(id) {
  const c = ui.state && ui.state.channels.find((x) => x.id === id);
  return c ? c.name : id;
}
function safeUrl(url) {
  return /^(https?:|mailto:)/i.test(url) ? url : null;
}

// Slack's mrkdwn: text arrives with &, < and > already escaped; <...> are links and mentions.
function mrkdwn(text) {
  const saved = [];
  const keep = (html) => { saved.push(html); return `\u0000${saved.length - 1}\u0000`; };
  let s = String(text || "");
  s = s.replace(/```([\s\S]*?)```/g, (_, code) => keep(`<pre>${esc(unesc(code))}</pre>`));
  s = s.replace(/`([^`\n]+)`/g, (_, code) => keep(`<code>${esc(unesc(code))}</code>`));
  s = s.replace(/<([^<>\n]+)>/g, (_, inner) => {
    const [target, label] = inner.split("|", 2);
    if (target.startsWith("@")) return keep(`<span class="mention">@${esc(userName(target.slice(1)))}</span>`);
    if (target.startsWith("#")) return keep(`<span class="mention">#${esc(label || channelName(target.slice(1)))}</span>`);
    if (target.startsWith("!")) return keep(`<span class="mention">@${esc(label || target.slice(1).split("^")[0])}</span>`);
    const url = safeUrl(unesc(target));
    const shown = esc(unesc(label || target));
    return keep(url ? `<a href="${esc(url)}" target="_blank" rel="noopener noreferrer">${shown}</a>` : shown);
  });
  s = s.replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/&(?![a-z]+;|#\d+;)/gi, "&amp;");
  s = s.replace(/(^|[\s(\u0000])\*([^*\n]+?)\*(?=$|[\s.,;:!?)\u0000])/g, "$1<b>$2</b>");
  s = s.replace(/(^|[\s(\u0000])_([^_\n]+?)_(?=$|[\s.,;:!?)\u0000])/g, "$1<i>$2</i>");
  s = s.replace(/(^|[\s(\u0000])~([^~\n]+?)~(?=$|[\s.,;:!?)\u0000])/g, "$1<s>$2</s>");
  s = s.split("\n").map((line) => (line.startsWith("&gt; ") || line === "&gt;"
    ? `<blockquote>${line.replace(/^&gt; ?/, "")}</blockquote>` : line)).join("\n");
  s = s.replace(/\n/g, "<br>").replace(/<\/blockquote><br>/g, "</blockquote>");
  return s.replace(/\u0000(\d+)\u0000/g, (_, i) => saved[Number(i)]);
}

function textObj(t) {
  if (!t) return "";
  return t.type === "mrkdwn" ? mrkdwn(t.text) : esc(t.text).replace(/\n/g, "<br>");
}

// ---- Block Kit ------------------------------------------------------------------------------
// `where` says where a click goes: {channel, message_ts} for a message, {view_id} for a view.
function el(tag, cls, html) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (html !== undefined) e.innerHTML = html;
  return e;
}

function buttonEl(b, blockId, where) {
  const btn = el("button", `bk-button ${b.style || ""}`.trim());
  btn.type = "button";
  btn.textContent = (b.text && b.text.text) || b.action_id;
  btn.dataset.actionId = b.action_id || "";
  btn.onclick = async () => {
    if (b.confirm && !(await confirmDialog(b.confirm))) return;
    if (b.url && safeUrl(b.url)) window.open(b.url, "_blank", "noopener");
    btn.disabled = true;
    try {
      await api("click", {
        ...where,
        action_id: b.action_id,
        value: b.value || "",
        block_id: blockId || "",
        label: btn.textContent,
      });
    } finally { btn.disabled = false; }
  };
  return btn;
}

function elementEl(e, blockId, where) {
  if (e.type === "button") return buttonEl(e, blockId, where);
  if (e.type === "image") return el("span", "bk-image", `[image: ${esc(e.alt_text || "")}]`);
  if (e.type === "mrkdwn" || e.type === "plain_text") return el("span", "", textObj(e));
  return el("span", "bk-unsupported", `[${esc(e.type)} not shown in the sandbox]`);
}

function inputEl(block) {
  const wrap = el("div", "bk-input");
  wrap.dataset.blockId = block.block_id || "";
  const label = el("label", "", textObj(block.label));
  wrap.appendChild(label);
  const e = block.element || {};
  if (e.type === "plain_text_input") {
    const field = document.createElement(e.multiline ? "textarea" : "input");
    field.dataset.actionId = e.action_id || "";
    field.value = e.initial_value || "";
    if (e.placeholder) field.placeholder = e.placeholder.text;
    if (e.max_length) field.maxLength = e.max_length;
    if (e.multiline) field.rows = 5;
    label.htmlFor = field.id = `in-${block.block_id}-${e.action_id}`;
    wrap.appendChild(field);
  } else if (e.type === "static_select" || e.type === "radio_buttons") {
    // Options as a <select>; submitted as Slack shapes the state ({type, selected_option}).
    const field = document.createElement("select");
    field.dataset.actionId = e.action_id || "";
    field.dataset.kind = e.type;
    const options = e.options || (e.option_groups || []).flatMap((g) => g.options || []);
    field.appendChild(new Option("Choose…", ""));
    options.forEach((o, i) => {
      const opt = new Option(o.text.text, String(i));
      opt.dataset.option = JSON.stringify(o);
      if (e.initial_option && e.initial_option.value === o.value) opt.selected = true;
      field.appendChild(opt);
    });
    label.htmlFor = field.id = `in-${block.block_id}-${e.action_id}`;
    wrap.appendChild(field);
  } else {
    wrap.appendChild(el("span", "bk-unsupported", `[${esc(e.type)} input not shown in the sandbox]`));
  }
  if (block.hint) wrap.appendChild(el("div", "bk-hint", textObj(block.hint)));
  wrap.appendChild(el("div", "bk-error"));
  return wrap;
}

function richText(block) {
  const parts = [];
  for (const sec of block.elements || []) {
    const inner = (sec.elements || []).map((x) => {
      if (x.type === "text") return esc(x.text).replace(/\n/g, "<br>");
      if (x.type === "link") return safeUrl(x.url) ? `<a href="${esc(x.url)}" target="_blank" rel="noopener noreferrer">${esc(x.text || x.url)}</a>` : esc(x.text || x.url);
      if (x.type === "user") return `<span class="mention">@${esc(userName(x.user_id))}</span>`;
      if (x.type === "channel") return `<span class="mention">#${esc(channelName(x.channel_id))}</span>`;
      return "";
    }).join("");
    parts.push(sec.type === "rich_text_preformatted" ? `<pre>${inner}</pre>` : `<div>${inner}</div>`);
  }
  return parts.join("");
}

function blocksEl(blocks, where) {
  const out = el("div", "blocks");
  for (const b of blocks || []) {
    let node;
    switch (b.type) {
      case "section": {
        node = el("div", "bk-section");
        const body = el("div", "bk-section-body");
        if (b.text) body.appendChild(el("div", "bk-text", textObj(b.text)));
        if (b.fields) {
          const grid = el("div", "bk-fields");
          for (const f of b.fields) grid.appendChild(el("div", "", textObj(f)));
          body.appendChild(grid);
        }
        node.appendChild(body);
        if (b.accessory) node.appendChild(elementEl(b.accessory, b.block_id, where));
        break;
      }
      case "context":
        node = el("div", "bk-context");
        for (const e of b.elements || []) node.appendChild(elementEl(e, b.block_id, where));
        break;
      case "divider": node = el("hr", "bk-divider"); break;
      case "header": node = el("h3", "bk-header", textObj(b.text)); break;
      case "actions":
        node = el("div", "bk-actions");
        for (const e of b.elements || []) node.appendChild(elementEl(e, b.block_id, where));
        break;
      case "input": node = inputEl(b); break;
      case "image": node = el("div", "bk-image", `[image: ${esc(b.alt_text || "")}]`); break;
      case "rich_text": node = el("div", "bk-text", richText(b)); break;
      default: node = el("div", "bk-unsupported", `[${esc(b.type)} block not shown in the sandbox]`);
    }
    if (b.block_id) node.dataset.blockId = b.block_id;
    out.appendChild(node);
  }
  return out;
}

function confirmDialog(c) {
  return new Promise((resolve) => {
    const root = $("#modal-root");
    const box = el("div", "overlay confirm");
    box.innerHTML = `<div class="modal" role="dialog"><h2>${textObj(c.title) || "Are you sure?"}</h2>
      <div class="modal-body">${textObj(c.text)}</div>
      <footer><button type="button" class="cancel">${textObj(c.deny) || "Cancel"}</button>
      <button type="button" class="submit ${c.style || "primary"}">${textObj(c.confirm) || "Yes"}</button></footer></div>`;
    box.querySelector(".cancel").onclick = () => { box.remove(); resolve(false); };
    box.querySelector(".submit").onclick = () => { box.remove(); resolve(true); };
    root.appendChild(box);
  });
}

// ---- messages -------------------------------------------------------------------------------
function timeOf(ts) {
  const d = new Date(Number(String(ts).split(".")[0]) * 1000);
  return d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
}

// An alerting app's legacy attachment (Alertmanager's Slack receiver): colour bar, title, text, fields.
function attachmentEl(a) {
  const tone = a.color === "danger" || a.color === "good" || a.color === "warning" ? ` ${a.color}` : "";
  const box = el("div", `attachment${tone}`);
  if (a.title) box.appendChild(el("div", "attachment-title", mrkdwn(a.title)));
  if (a.text) box.appendChild(el("div", "bk-text", mrkdwn(a.text)));
  for (const f of Array.isArray(a.fields) ? a.fields : []) {
    if (!f || typeof f !== "object") continue;
    box.appendChild(el("div", "bk-text", `<b>${esc(f.title || "")}</b> ${mrkdwn(f.value || "")}`));
  }
  if (!a.title && !a.text && a.fallback) box.appendChild(el("div", "bk-text", mrkdwn(a.fallback)));
  return box;
}

function messageEl(m, channelId, { inThread = false, replies = [] } = {}) {
  const row = el("article", `msg${m.bot ? " bot" : ""}${m.ephemeral ? " ephemeral" : ""}`);
  row.dataset.ts = m.ts;
  const who = m.ephemeral ? "opsmemory" : m.name;
  const head = el("div", "msg-head");
  head.innerHTML = `<span class="author">${esc(who)}</span>${m.bot || m.ephemeral ? '<span class="app">APP</span>' : ""}
    <span class="time">${timeOf(m.ts)}</span>${m.edited ? '<span class="muted">(edited)</span>' : ""}
    ${m.ephemeral ? '<span class="only-you">Only visible to you</span>' : ""}`;
  row.appendChild(head);
  const where = { channel: channelId, message_ts: m.ts };
  if (m.blocks && m.blocks.length) row.appendChild(blocksEl(m.blocks, where));
  else if (m.text || !Array.isArray(m.attachments) || !m.attachments.length) row.appendChild(el("div", "bk-text", mrkdwn(m.text)));
  const attachments = Array.isArray(m.attachments) ? m.attachments : [];
  for (const a of attachments) if (a && typeof a === "object") row.appendChild(attachmentEl(a));
  if (!m.ephemeral) {
    const tools = el("div", "msg-tools");
    if (!inThread) {
      const reply = el("button", "tool", "Reply in thread");
      reply.type = "button";
      reply.onclick = () => openThread(m.ts);
      tools.appendChild(reply);
    }
    const save = el("button", "tool save-shortcut", "Save to incident memory");
    save.type = "button";
    save.title = "Message shortcut";
    save.onclick = () => api("shortcut", { channel: channelId, message_ts: m.ts });
    tools.appendChild(save);
    row.appendChild(tools);
  }
  if (!inThread && replies.length) {
    const link = el("button", "replies", `${replies.length} repl${replies.length === 1 ? "y" : "ies"}`);
    link.type = "button";
    link.onclick = () => openThread(m.ts);
    row.appendChild(link);
  }
  return row;
}

function currentChannel() {
  const st = ui.state;
  return st.channels.find((c) => c.id === ui.channel) || st.channels[0];
}

function ephemeralsIn(channelId, threadTs) {
  return ui.state.ephemerals
    .filter((e) => e.channel === channelId && (e.thread_ts || null) === (threadTs || null))
    .map((e) => ({ ...e, ephemeral: true, name: "opsmemory" }));
}

function byTs(a, b) { return Number(a.ts) - Number(b.ts); }

function keepScroll(box, fill) {
  const atBottom = box.scrollHeight - box.scrollTop - box.clientHeight < 40;
  const top = box.scrollTop;
  fill();
  box.scrollTop = atBottom ? box.scrollHeight : top;
}

function renderChannel() {
  const chan = currentChannel();
  if (!chan) return;
  ui.channel = chan.id;
  $("#channel-header").innerHTML = `<h1>${chan.private ? LOCK : "#"} ${esc(chan.name)}</h1>`;
  $("#composer-input").placeholder = `Message ${chan.private ? "" : "#"}${chan.name}  —  try "@opsmemory …" or "/incident help"`;
  const box = $("#messages");
  keepScroll(box, () => {
    box.innerHTML = "";
    const top = chan.messages.filter((m) => !m.thread_ts || m.thread_ts === m.ts);
    const items = [...top, ...ephemeralsIn(chan.id, null)].sort(byTs);
    for (const m of items) {
      const replies = chan.messages.filter((r) => r.thread_ts === m.ts && r.ts !== m.ts);
      box.appendChild(messageEl(m, chan.id, { replies }));
    }
    if (!items.length) box.appendChild(el("div", "empty", "No messages yet."));
  });
}

function renderThread() {
  const pane = $("#thread");
  const chan = currentChannel();
  const root = ui.thread && chan && chan.messages.find((m) => m.ts === ui.thread);
  pane.hidden = !root || ui.home;
  if (pane.hidden) return;
  const box = $("#thread-messages");
  keepScroll(box, () => {
    box.innerHTML = "";
    box.appendChild(messageEl(root, chan.id, { inThread: true }));
    const replies = chan.messages.filter((m) => m.thread_ts === root.ts && m.ts !== root.ts);
    const items = [...replies, ...ephemeralsIn(chan.id, root.ts)].sort(byTs);
    box.appendChild(el("div", "thread-count", `${replies.length} repl${replies.length === 1 ? "y" : "ies"}`));
    for (const m of items) box.appendChild(messageEl(m, chan.id, { inThread: true }));
  });
}

function renderHome() {
  const box = $("#home");
  box.hidden = !ui.home;
  $("#messages").hidden = ui.home;
  $("#composer").hidden = ui.home;
  $("#home-link").classList.toggle("active", ui.home);
  if (!ui.home) return;
  $("#channel-header").innerHTML = "<h1>◆ opsmemory <span class=\"muted\">Home</span></h1>";
  const view = ui.state.home;
  box.innerHTML = "";
  box.appendChild(view ? blocksEl(view.blocks, { view_id: view.id }) : el("div", "empty", "Opening App Home…"));
  if (ui.state.dm.length) { // what the bot sent this person directly (an export, for instance)
    box.appendChild(el("h3", "dm-title", "Messages from opsmemory"));
    for (const m of ui.state.dm) box.appendChild(messageEl({ ...m, ephemeral: false }, `D${ui.me}`, { inThread: true }));
  }
}

function renderModal() {
  const root = $("#modal-root");
  const stack = ui.state.modals || [];
  const top = stack[stack.length - 1];
  const key = top ? `${top.id}:${JSON.stringify(top.blocks)}` : "";
  if (key === ui.modalKey) return; // keep what the person is typing
  ui.modalKey = key;
  root.querySelectorAll(".overlay.view").forEach((n) => n.remove());
  if (!top) return;
  const box = el("div", "overlay view");
  const modal = el("div", "modal");
  modal.setAttribute("role", "dialog");
  modal.dataset.viewId = top.id;
  modal.appendChild(el("h2", "", textObj(top.title)));
  const body = el("div", "modal-body");
  body.appendChild(blocksEl(top.blocks, { view_id: top.id }));
  modal.appendChild(body);
  const foot = el("footer");
  const close = el("button", "cancel", textObj(top.close) || "Cancel");
  close.type = "button";
  close.onclick = () => { ui.modalKey = ""; api("close", {}); };
  foot.appendChild(close);
  if (top.submit) {
    const submit = el("button", "submit primary", textObj(top.submit));
    submit.type = "button";
    submit.onclick = () => submitModal(top, modal);
    foot.appendChild(submit);
  }
  modal.appendChild(foot);
  box.appendChild(modal);
  root.appendChild(box);
}

async function submitModal(view, modal) {
  const values = {};
  modal.querySelectorAll(".bk-input").forEach((wrap) => {
    const field = wrap.querySelector("[data-action-id]");
    if (!field) return;
    let value = field.value;
    if (field.tagName === "SELECT") {
      const chosen = field.selectedOptions[0];
      const option = chosen && chosen.dataset.option ? JSON.parse(chosen.dataset.option) : null;
      value = { type: field.dataset.kind, selected_option: option };
    }
    (values[wrap.dataset.blockId] ||= {})[field.dataset.actionId] = value;
  });
  modal.querySelectorAll(".bk-error").forEach((e) => { e.textContent = ""; });
  const out = await api("submit", { view_id: view.id, values });
  if (out.errors) {
    for (const [blockId, message] of Object.entries(out.errors)) {
      const wrap = modal.querySelector(`.bk-input[data-block-id="${CSS.escape(blockId)}"] .bk-error`);
      if (wrap) wrap.textContent = message;
      else toast(message);
    }
  }
}

function renderSidebar() {
  const st = ui.state;
  const select = $("#user-select");
  if (select.options.length !== st.users.length) {
    select.innerHTML = st.users.map((u) => `<option value="${esc(u.id)}">${esc(u.real_name)} (@${esc(u.name)})</option>`).join("");
  }
  select.value = st.me;
  const me = st.users.find((u) => u.id === st.me);
  $("#user-role").textContent = me ? [me.role, me.approver ? "listed in OPSMEMORY_APPROVERS" : "", me.guest ? "guest account" : ""].filter(Boolean).join(" · ") : "";
  const list = $("#channel-list");
  list.innerHTML = "";
  for (const c of st.channels) {
    const li = el("li");
    const a = el("a", `chan${c.id === ui.channel && !ui.home ? " active" : ""}`, `<span class="icon">${c.private ? LOCK : "#"}</span>${esc(c.name)}`);
    a.href = "#";
    a.dataset.channel = c.id;
    a.onclick = (ev) => { ev.preventDefault(); selectChannel(c.id); };
    li.appendChild(a);
    list.appendChild(li);
  }
  const banner = $("#banner");
  banner.hidden = st.ready;
  banner.textContent = st.ready ? "" : "Setting up the sandbox: playing the seeded scenario through the bot…";
}

const HINTS = [
  "@opsmemory p99 latency is up since the deploy, what should I check first?",
  "/incident runbook db connection pool",
  "/incident note rolled back v2.31 on 2 of 6 pods",
  "/incident help",
];

function renderHints() {
  const box = $("#hints");
  if (box.childElementCount) return;
  for (const h of HINTS) {
    const chip = el("button", "hint");
    chip.type = "button";
    chip.textContent = h;
    chip.onclick = () => { const i = $("#composer-input"); i.value = h; i.focus(); };
    box.appendChild(chip);
  }
}

function render() {
  if (!ui.state) return;
  document.body.dataset.viewer = ui.state.me;  // whose view is on screen
  if (!ui.state.channels.some((c) => c.id === ui.channel)) {
    const firstIncident = ui.state.channels.find((c) => /^inc-/.test(c.name) && !c.private);
    ui.channel = (firstIncident || ui.state.channels[0] || {}).id;
    ui.thread = null;
  }
  renderSidebar();
  renderHints();
  if (!ui.home) renderChannel();
  renderHome();
  renderThread();
  renderModal();
}

// ---- actions --------------------------------------------------------------------------------
function selectChannel(id) {
  ui.channel = id;
  ui.thread = null;
  ui.home = false;
  localStorage.setItem("opsmemory.sandbox.channel", id);
  render();
}

function openThread(ts) {
  ui.thread = ts;
  render();
  $("#thread-input").focus();
}

async function send(input, threadTs) {
  const text = input.value.trim();
  if (!text) return;
  input.value = "";
  const out = await api("post", { channel: ui.channel, text, thread_ts: threadTs || null });
  if (out.error) { input.value = text; return; }
  // A question to the bot is answered in its thread: open it, as a person would.
  if (!threadTs && out.ts && /@opsmemory\b/i.test(text)) openThread(out.ts);
}

function wireComposer(form, input, threadOf) {
  form.onsubmit = (ev) => { ev.preventDefault(); send(input, threadOf()); };
  input.onkeydown = (ev) => {
    if (ev.key === "Enter" && !ev.shiftKey) { ev.preventDefault(); send(input, threadOf()); }
  };
}

function start() {
  wireComposer($("#composer"), $("#composer-input"), () => null);
  wireComposer($("#thread-composer"), $("#thread-input"), () => ui.thread);
  $("#close-thread").onclick = () => { ui.thread = null; render(); };
  $("#user-select").onchange = (ev) => {
    ui.me = ev.target.value;
    localStorage.setItem("opsmemory.sandbox.user", ui.me);
    ui.modalKey = "";
    refresh();
    if (ui.home) api("home", {});
  };
  $("#home-link").onclick = (ev) => {
    ev.preventDefault();
    ui.home = true;
    ui.thread = null;
    render();
    api("home", {});
  };
  $("#run-jobs").onclick = async () => {
    const out = await api("jobs", {});
    if (out.ok) toast(`Rolled up ${out.rolled_up} thread(s); digest ${out.digest_posted ? "posted to #general" : "had nothing new to post"}.`);
  };
  $("#reset").onclick = async () => {
    if (!(await confirmDialog({ title: { type: "plain_text", text: "Reset the sandbox?" }, text: { type: "plain_text", text: "Everything you did here is deleted and the seeded scenario is played again." }, confirm: { type: "plain_text", text: "Reset" }, style: "danger" }))) return;
    $("#banner").hidden = false;
    $("#banner").textContent = "Resetting: playing the seeded scenario again…";
    const out = await api("reset", {});
    if (out.ok) { ui.thread = null; ui.home = false; ui.channel = ""; toast("The sandbox is back to its seeded scenario."); refresh(); }
  };
  listen();
  refresh();
}

start();
