// The rules of a game, from /rules/<game>.md, in the chosen language.
// The md files hold the English text first, then a "## Português (pt-BR)" section.
// A tiny markdown renderer: headings, paragraphs, (nested) lists, tables, **bold**, *italic*.

import { lang, onLangChange, t } from "./i18n.js";

const cache = new Map();

function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

function inline(text) {
  return escapeHtml(text)
    .replace(/\*\*(.+?)\*\*/g, "<strong>$1</strong>")
    .replace(/(^|[^*])\*([^*\s][^*]*?)\*(?!\*)/g, "$1<em>$2</em>")
    .replace(/`([^`]+)`/g, "<code>$1</code>");
}

/** Split a rules file into {en, pt} markdown parts. */
export function splitLanguages(md) {
  const lines = md.split(/\r?\n/);
  const at = lines.findIndex((l) => /^#{1,3}\s.*(Portugu[eê]s|pt-BR)/i.test(l));
  if (at < 0) return { en: md, pt: null };
  const en = lines.slice(0, at).join("\n").replace(/\n-{3,}\s*$/m, "").trim();
  const pt = lines.slice(at + 1).join("\n").trim();
  return { en, pt };
}

/** Markdown (the small subset our rules use) to HTML. */
export function renderMarkdown(md) {
  const lines = md.split(/\r?\n/);
  const out = [];
  let para = [];
  const stack = []; // open lists: {type, indent}
  let i = 0;
  let afterBlank = false;

  const flushPara = () => {
    if (para.length) out.push(`<p>${inline(para.join(" "))}</p>`);
    para = [];
  };
  const closeLists = (indent = -1) => {
    while (stack.length && stack[stack.length - 1].indent > indent) {
      out.push(`</li></${stack.pop().type}>`);
    }
  };

  while (i < lines.length) {
    const line = lines[i];
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    const item = /^(\s*)([-*]|\d+\.)\s+(.*)$/.exec(line);
    if (!line.trim()) {
      flushPara();
      afterBlank = true;
      i += 1;
      continue;
    }
    const wasBlank = afterBlank;
    afterBlank = false;
    if (/^\s*-{3,}\s*$/.test(line)) {
      flushPara();
      closeLists();
      out.push("<hr>");
      i += 1;
      continue;
    }
    if (heading) {
      flushPara();
      closeLists();
      const level = Math.min(6, heading[1].length + 1); // the page has its own h1
      out.push(`<h${level}>${inline(heading[2])}</h${level}>`);
      i += 1;
      continue;
    }
    if (/^\s*\|/.test(line)) {
      flushPara();
      closeLists();
      const rows = [];
      while (i < lines.length && /^\s*\|/.test(lines[i])) {
        rows.push(lines[i].trim().replace(/^\||\|$/g, "").split("|").map((c) => c.trim()));
        i += 1;
      }
      const body = rows.filter((r) => !r.every((c) => /^:?-{2,}:?$/.test(c)));
      const [head, ...rest] = body;
      out.push(
        `<table><thead><tr>${head.map((c) => `<th>${inline(c)}</th>`).join("")}</tr></thead><tbody>` +
          rest.map((r) => `<tr>${r.map((c) => `<td>${inline(c)}</td>`).join("")}</tr>`).join("") +
          "</tbody></table>",
      );
      continue;
    }
    if (item) {
      flushPara();
      const indent = item[1].length;
      const type = /\d/.test(item[2]) ? "ol" : "ul";
      const top = stack[stack.length - 1];
      if (!top || indent > top.indent) {
        out.push(`<${type}><li>`);
        stack.push({ type, indent });
      } else {
        closeLists(indent);
        const now = stack[stack.length - 1];
        if (now && now.indent === indent && now.type === type) out.push("</li><li>");
        else {
          if (now && now.indent === indent) out.push(`</li></${stack.pop().type}>`);
          out.push(`<${type}><li>`);
          stack.push({ type, indent });
        }
      }
      out.push(inline(item[3]));
      i += 1;
      continue;
    }
    // a continuation line of a list item, or a paragraph line
    const indent = /^\s*/.exec(line)[0].length;
    if (stack.length && indent > 0) {
      // it belongs to the innermost item whose marker sits left of it
      closeLists(indent - 1);
      out.push(wasBlank ? `<p>${inline(line.trim())}` : " " + inline(line.trim()));
    } else {
      closeLists();
      para.push(line.trim());
    }
    i += 1;
  }
  flushPara();
  closeLists();
  return out.join("\n");
}

async function fetchRules(game) {
  if (!cache.has(game)) {
    cache.set(
      game,
      fetch(`/rules/${encodeURIComponent(game)}.md`).then((r) => {
        if (!r.ok) throw new Error(`HTTP ${r.status}`);
        return r.text();
      }),
    );
  }
  try {
    return await cache.get(game);
  } catch (err) {
    cache.delete(game);
    throw err;
  }
}

let dialog = null;
let shownGame = null;

function ensureDialog() {
  if (dialog) return dialog;
  dialog = document.createElement("dialog");
  dialog.className = "rules-dialog";
  dialog.dataset.testid = "rules-panel";
  dialog.setAttribute("aria-labelledby", "rules-title");
  dialog.innerHTML = `
    <header class="rules-head">
      <h1 id="rules-title"></h1>
      <button type="button" class="btn ghost" data-testid="rules-close"></button>
    </header>
    <article class="rules-body" data-testid="rules-body"></article>`;
  dialog.querySelector("[data-testid=rules-close]").addEventListener("click", () => dialog.close());
  document.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape" && dialog.open) dialog.close();
  });
  document.body.append(dialog);
  onLangChange(() => {
    if (dialog.open && shownGame) fill(shownGame.game, shownGame.title, shownGame.page);
  });
  return dialog;
}

async function fill(game, title, page = false) {
  const d = ensureDialog();
  d.querySelector("#rules-title").textContent = page ? title : t("rules.title", { game: title });
  d.querySelector("[data-testid=rules-close]").textContent = t("common.close");
  const body = d.querySelector(".rules-body");
  body.textContent = t("rules.loading");
  try {
    const md = await fetchRules(game);
    const parts = splitLanguages(md);
    // the dialog's own heading names the game: drop the file's leading "# Title"
    const text = (lang() === "pt-BR" && parts.pt ? parts.pt : parts.en).replace(/^#\s[^\n]*\n/, "");
    body.innerHTML = renderMarkdown(text);
    body.lang = lang() === "pt-BR" && parts.pt ? "pt-BR" : "en";
  } catch (_) {
    body.textContent = t("rules.failed");
  }
}

/** Open the rules dialog for `game` (its title shown in the heading; `page`: another
 * page of rules/, e.g. "fairness", with `title` as its heading). */
export function showRules(game, title = game, page = false) {
  const d = ensureDialog();
  shownGame = { game, title, page };
  fill(game, title, page);
  // a drawer, not a modal: the table stays live and usable beside the rules
  if (!d.open) d.show();
  d.querySelector("[data-testid=rules-close]").focus();
}
