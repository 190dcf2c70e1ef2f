// "Your turn" that reaches a player reading another tab: when the room starts awaiting
// you, the tab's title and icon change, a short sound plays (unless turned off) and,
// while the page is hidden and the player allowed it, a browser notification shows.
// The clock's last seconds show in the title too. The choices are kept per player
// name in localStorage (rollhouse.alerts.<name>).

import { t } from "./i18n.js";

const TURN_ICON =
  "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'%3E%3Ccircle cx='8' cy='8' r='7' fill='%23ef4444'/%3E%3Ctext x='8' y='12' font-size='11' text-anchor='middle' fill='white' font-family='sans-serif' font-weight='bold'%3E!%3C/text%3E%3C/svg%3E";

function storageKey() {
  let name = "";
  try {
    name = (localStorage.getItem("rollhouse.name") || "").trim();
  } catch (_) {
    /* no storage */
  }
  return `rollhouse.alerts.${name || "-"}`;
}

/** The player's choices: {sound, notify} (sound on, notifications off by default). */
export function alertSettings() {
  try {
    const saved = JSON.parse(localStorage.getItem(storageKey()) || "{}");
    return { sound: saved.sound !== false, notify: saved.notify === true };
  } catch (_) {
    return { sound: true, notify: false };
  }
}

function saveSettings(settings) {
  try {
    localStorage.setItem(storageKey(), JSON.stringify(settings));
  } catch (_) {
    /* the choice lasts as long as the page */
  }
}

let audio = null;
/** A short two-note chime (WebAudio: no file to load). */
function chime(urgent = false) {
  try {
    audio ||= new AudioContext();
    const now = audio.currentTime;
    const notes = urgent ? [880, 880] : [660, 880];
    notes.forEach((freq, i) => {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.0001, now + i * 0.16);
      gain.gain.exponentialRampToValueAtTime(0.2, now + i * 0.16 + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, now + i * 0.16 + 0.15);
      osc.connect(gain).connect(audio.destination);
      osc.start(now + i * 0.16);
      osc.stop(now + i * 0.16 + 0.16);
    });
  } catch (_) {
    /* no audio here */
  }
}

/**
 * Watches the room for "it is your turn". update(state) on every redraw, with
 * {yours: bool, title: "the page's own title", prompt: text, deadline: unix s or null,
 * now: unix s}. Exposes what it did as window.rollhouseTurn (tests read it).
 */
export class TurnAlert {
  constructor() {
    this.yours = false;
    this.icon = /** @type {HTMLLinkElement | null} */ (document.querySelector("link[rel=icon]"));
    this.plainIcon = this.icon?.href || "";
    this.notification = null;
    this.warned = false;
    this.state = { yours: false, title: document.title, prompt: "", deadline: null, now: 0 };
    window.rollhouseTurn = { yours: false, chimes: 0, notified: 0 };
    document.addEventListener("visibilitychange", () => {
      if (!document.hidden) this.notification?.close();
    });
  }

  update(state) {
    this.state = state;
    const started = state.yours && !this.yours;
    this.yours = state.yours;
    if (started) {
      this.warned = false;
      const settings = alertSettings();
      if (settings.sound) this.play(false);
      if (settings.notify && document.hidden && "Notification" in window && Notification.permission === "granted") {
        try {
          this.notification = new Notification(t("turn.notify_title"), /** @type {NotificationOptions & {renotify: boolean}} */ ({ body: state.prompt || t("turn.title"), tag: "rollhouse-turn", renotify: true }));
          this.notification.onclick = () => (window.focus(), this.notification.close());
          window.rollhouseTurn.notified++;
        } catch (_) {
          /* notifications from pages need a service worker on some phones */
        }
      }
    }
    if (!state.yours) this.notification?.close();
    this.tick(state.now);
  }

  play(urgent) {
    chime(urgent);
    window.rollhouseTurn.chimes++;
  }

  /** Title and icon (called every clock tick, so the last seconds count down there). */
  tick(now) {
    const { yours, title, deadline } = this.state;
    let shown = title;
    const left = deadline ? Math.max(0, Math.ceil(deadline - now)) : null;
    if (yours && left !== null && left <= 10) {
      shown = `${t("turn.title_hurry", { s: left })} · ${title}`;
      if (left <= 5 && !this.warned) {
        this.warned = true;
        if (alertSettings().sound) this.play(true);
      }
    } else if (yours) shown = `${t("turn.title")} · ${title}`;
    if (document.title !== shown) document.title = shown;
    if (this.icon) {
      const href = yours ? TURN_ICON : this.plainIcon;
      if (this.icon.getAttribute("href") !== href) this.icon.setAttribute("href", href);
    }
    document.body.classList.toggle("your-turn-now", yours);
    document.body.classList.toggle("hurry", yours && left !== null && left <= 5);
    window.rollhouseTurn.yours = yours;
  }
}

/** The "alerts" menu of the top bar: sound on/off, notifications (asks permission). */
/**
 * @param {HTMLElement | null} box where the menu goes (nothing without one)
 * @returns {(() => void) | undefined} redraws the menu (a language switch)
 */
export function mountAlertsMenu(box) {
  if (!box) return undefined;
  const draw = () => {
    const settings = alertSettings();
    const summary = document.createElement("summary");
    summary.className = "btn ghost";
    summary.dataset.testid = "alerts-button";
    summary.innerHTML =
      '<svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true"><path fill="currentColor" d="M12 22a2.5 2.5 0 0 0 2.45-2h-4.9A2.5 2.5 0 0 0 12 22zm7-6V11a7 7 0 0 0-5.5-6.84V3a1.5 1.5 0 0 0-3 0v1.16A7 7 0 0 0 5 11v5l-2 2v1h18v-1z"/></svg>';
    summary.setAttribute("aria-label", t("turn.menu"));
    summary.title = t("turn.menu");
    const panel = document.createElement("div");
    panel.className = "alerts-panel";
    const toggle = (testid, label, checked, onChange) => {
      const l = document.createElement("label");
      const input = document.createElement("input");
      input.type = "checkbox";
      input.checked = checked;
      input.dataset.testid = testid;
      input.addEventListener("change", () => onChange(input));
      l.append(input, " ", label);
      return l;
    };
    panel.append(
      toggle("alert-sound", t("turn.sound"), settings.sound, (input) => {
        saveSettings({ ...alertSettings(), sound: input.checked });
        if (input.checked) chime(false); // a sample (and the click unlocks audio)
      }),
      toggle("alert-notify", t("turn.notify"), settings.notify, async (input) => {
        const wanted = input.checked;
        let ok = wanted && "Notification" in window;
        if (ok && Notification.permission !== "granted") {
          ok = (await Notification.requestPermission().catch(() => "denied")) === "granted";
        }
        input.checked = ok;
        saveSettings({ ...alertSettings(), notify: ok });
        note.textContent = wanted && !ok ? t("turn.notify_denied") : "";
      }),
    );
    const note = document.createElement("p");
    note.className = "muted small";
    panel.append(note);
    box.replaceChildren(summary, panel);
  };
  draw();
  return draw;
}
