// Every UI string in English and Brazilian Portuguese.
// t(key, params) interpolates {name} placeholders; the language is chosen once from
// localStorage, else navigator.language, and switched with setLang() (remembered).

import errorStrings from "./i18n/errors.js";

const STORAGE_KEY = "rollhouse.lang";
export const LANGS = ["en", "pt-BR"];

/** @typedef {{[key: string]: string}} Strings one language's strings by key */

/** @type {Strings} */
const en = {
  "app.name": "Rollhouse",
  "app.tagline": "Live dice games with friends",
  "lang.label": "Language",
  "lang.en": "English",
  "lang.pt-BR": "Português",
  "rules.open": "Rules",
  "rules.open_game": "Rules of {game}",
  "rules.title": "Rules of {game}",
  "rules.loading": "Loading the rules…",
  "rules.failed": "The rules could not be loaded.",
  "common.close": "Close",
  "common.seat": "Seat {n}",
  "common.you": "you",
  "common.bot": "bot",

  "conn.connecting": "Connecting…",
  "conn.connected": "Connected",
  "conn.reconnecting": "Connection lost — reconnecting in {s} s…",
  "conn.reconnecting_now": "Reconnecting…",
  "conn.closed": "Disconnected",

  "lobby.title": "Game rooms",
  "lobby.refresh_note": "The list refreshes every few seconds.",
  "lobby.name": "Your name",
  "lobby.name_placeholder": "How the table calls you",
  "lobby.col.room": "Room",
  "lobby.col.game": "Game",
  "lobby.col.status": "Status",
  "lobby.col.seats": "Seats",
  "lobby.col.bots": "Bots",
  "lobby.col.connected": "Players online",
  "lobby.col.spectators": "Spectators",
  "lobby.col.actions": "Actions",
  "lobby.join": "Join",
  "lobby.join_label": "Join room {room} as a player",
  "lobby.resume": "Resume",
  "lobby.resume_label": "Go back to your seat in room {room}",
  "lobby.watch": "Watch",
  "lobby.watch_label": "Watch room {room} as a spectator",
  "lobby.empty": "No rooms yet. Create one!",
  "lobby.load_failed": "Could not load the rooms ({message}).",
  "lobby.create.title": "New room",
  "lobby.games": "Games",
  "lobby.players_range": "{min}–{max} players",
  "lobby.players_exact": "{n} players",
  "lobby.new_room_of": "New room",
  "lobby.create.game": "Game",
  "lobby.create.seats": "Seats",
  "lobby.create.options": "Game options",
  "lobby.create.clock": "Clock (seconds per decision, 0 = none)",
  "lobby.create.bots": "Hosted bots",
  "lobby.create.takeover": "A bot plays for an absent player after (seconds, empty = never)",
  "lobby.create.submit": "Create and join",
  "lobby.create.failed": "Could not create the room: {message}",
  "status.waiting": "Waiting for players",
  "status.playing": "Playing",
  "status.finished": "Finished",

  "option.rounds": "Rounds",
  "option.bills_per_value": "Bills per value",
  "option.priority": "Priority (arrival or turn)",

  "table.back": "← Lobby",
  "table.room": "Room {room}",
  "table.you_are": "You play seat {n}",
  "table.spectating": "Watching as a spectator",
  "table.spectators": "{n} watching",
  "table.no_room": "No room given. Go back to the lobby and pick one.",
  "table.waiting": "Waiting for players: {taken} of {seats} seats taken.",
  "table.share": "Share this page's address to invite someone.",
  "table.raw_view": "There is no board for this game yet; this is the raw table view.",
  "table.log": "What happened",
  "table.rejected": "Not allowed: {message}",
  "table.full_now_watching": "Every seat is taken — you are watching as a spectator.",
  "table.rejoin": "Open this room again",
  "table.to_lobby": "Back to the lobby",
  "table.fatal": "{message}",
  "table.clock": "{s} s",
  "table.clock_label": "Time left for {name}",

  "err.rollie/not_your_turn": "Only the First player rolls the dice.",
  "err.rollie/not_rolling_phase": "The dice are already rolled: take a bill or secure.",
  "err.rollie/not_deciding_phase": "Wait for the roll before you decide.",
  "err.rollie/already_decided": "Your decision for this roll is final.",
  "err.rollie/not_in_play": "You secured this round; wait for the next one.",
  "err.rollie/unknown_value": "No bill has that value.",
  "err.rollie/value_not_rolled": "That value is not on the dice.",
  "err.rollie/pile_empty": "That pile is empty — someone took the last bill. Choose again.",
  "err.game/over": "The game is over.",
  "err.room/read_only": "Spectators cannot play.",
  "err.room/not_started": "The game starts when every seat is taken.",
  "err.room/rate_limited": "Too many clicks — slow down a little.",
  "err.room/full": "Every seat of this room is taken.",
  "err.room/not_found": "This room does not exist.",
  "err.room/bad_seat_token": "Your seat in this room could not be found.",
  "err.room/replaced": "You opened this seat in another tab or window; this one stopped.",
  "err.room/unavailable": "The room is unavailable for a moment; reconnecting.",
  "err.room/slow_consumer": "Your connection fell behind; reconnecting.",
  "err.room/origin_forbidden": "This page may not connect to the server.",
  "err.room/bad_options": "The server does not accept these seats or options",
  "err.room/unknown_game": "The server does not have this game",

  "rollie.bank": "Bank",
  "rollie.exhausted": "ran out",
  "rollie.bonus_label": "Bonus tokens at the end: 1st, 2nd, 3rd place",
  "rollie.pile_label": "{count} bills of {value} left",
  "rollie.tokens": "Start tokens",
  "rollie.face_down": "{n} face down",
  "rollie.face_down_one": "1 face down",
  "rollie.why.not_on_dice": "{value} is not on the dice: take a value the dice show, or secure.",
  "rollie.why.cannot_take": "You cannot take a bill now.",
  "rollie.no_face_up": "none face up",
  "rollie.dice": "Dice",
  "rollie.not_rolled": "Not rolled yet",
  "rollie.roll": "Roll the dice",
  "rollie.secure": "Secure my Bet",
  "rollie.secure_hint": "Secure: your Bet goes to your Wallet for good.",
  "rollie.take_hint": "Click a die to take a bill of its value.",
  "rollie.keys": "Keys: R roll · S secure · 1–5 take −5, 0, 2, 5, 10",
  "rollie.take_label": "Take a bill of {value}",
  "rollie.die_label": "Die showing {face}",
  "rollie.choose": "R: choose any bill",
  "rollie.choose_cancel": "Cancel",
  "rollie.round": "Round {n} of {total}",
  "rollie.final_round": "Final round",
  "rollie.bet": "Bet",
  "rollie.wallet": "Wallet",
  "rollie.start_tokens": "Start tokens",
  "rollie.in_play": "In play",
  "rollie.secured": "Secured",
  "rollie.decided": "Decided",
  "rollie.deciding": "Deciding…",
  "rollie.first_player": "First player",
  "rollie.offline": "offline",
  "rollie.prompt.you_roll": "Your turn: roll the dice!",
  "rollie.prompt.rolling": "{name} is about to roll.",
  "rollie.prompt.you_decide": "Take a bill or secure your Bet.",
  "rollie.prompt.decided": "Your decision is in. Waiting for {names}.",
  "rollie.prompt.out": "You secured this round. Waiting for {names}.",
  "rollie.prompt.deciding": "Waiting for {names} to decide.",
  "rollie.prompt.over": "The game is over.",
  "rollie.prompt.waiting": "The game starts when every seat is taken.",
  "rollie.ev.rolled": "{name} rolled {a} and {b}.",
  "rollie.ev.took": "{name} took a {value}.",
  "rollie.ev.secured": "{name} secured {amount}.",
  "rollie.ev.secured_token": "{name} secured {amount} and Start token {token}.",
  "rollie.ev.rollie": "Rollie! Double {face}!",
  "rollie.ev.crash": "{names} crashed: the Bet goes back to the Bank!",
  "rollie.ev.crash_one": "Crash! {names} loses the Bet.",
  "rollie.ev.crash_empty": "No pile left for these dice: {names} loses the Bet.",
  "rollie.ev.claim_undone": "An earlier player wanted it too: {name} puts it back and chooses again.",
  "rollie.ev.dice_passed": "The dice pass to {name}.",
  "rollie.ev.round_ended": "Round {n} is over.",
  "rollie.ev.round_started": "Round {n} begins: Start token {token} is turned up.",
  "rollie.ev.game_over": "Game over!",
  "rollie.final.title": "Final scores",
  "rollie.final.player": "Player",
  "rollie.final.bills_of": "Bills of {value}",
  "rollie.final.bills": "Bills",
  "rollie.final.start_tokens": "Start tokens",
  "rollie.final.bonus_tokens": "Bonus tokens",
  "rollie.final.bonus": "Bonus",
  "rollie.final.total": "Total",
  "rollie.final.winner": "Winner",
  "rollie.final.wins": "{names} wins!",
  "rollie.final.win_shared": "{names} share the victory!",
  "rollie.final.place": "{place} {value}: +{amount}",
  "rollie.ord.1": "1st",
  "rollie.ord.2": "2nd",
  "rollie.ord.3": "3rd",
  "rollie.final.none": "—",
};

/** @type {Strings} */
const pt = {
  "app.name": "Rollhouse",
  "app.tagline": "Jogos de dados ao vivo com os amigos",
  "lang.label": "Idioma",
  "lang.en": "English",
  "lang.pt-BR": "Português",
  "rules.open": "Regras",
  "rules.open_game": "Regras de {game}",
  "rules.title": "Regras de {game}",
  "rules.loading": "Carregando as regras…",
  "rules.failed": "Não foi possível carregar as regras.",
  "common.close": "Fechar",
  "common.seat": "Lugar {n}",
  "common.you": "você",
  "common.bot": "robô",

  "conn.connecting": "Conectando…",
  "conn.connected": "Conectado",
  "conn.reconnecting": "Conexão perdida — reconectando em {s} s…",
  "conn.reconnecting_now": "Reconectando…",
  "conn.closed": "Desconectado",

  "lobby.title": "Mesas de jogo",
  "lobby.refresh_note": "A lista se atualiza a cada poucos segundos.",
  "lobby.name": "Seu nome",
  "lobby.name_placeholder": "Como a mesa vai te chamar",
  "lobby.col.room": "Mesa",
  "lobby.col.game": "Jogo",
  "lobby.col.status": "Situação",
  "lobby.col.seats": "Lugares",
  "lobby.col.bots": "Robôs",
  "lobby.col.connected": "Jogadores on-line",
  "lobby.col.spectators": "Espectadores",
  "lobby.col.actions": "Ações",
  "lobby.join": "Entrar",
  "lobby.join_label": "Entrar na mesa {room} como jogador",
  "lobby.resume": "Voltar",
  "lobby.resume_label": "Voltar ao seu lugar na mesa {room}",
  "lobby.watch": "Assistir",
  "lobby.watch_label": "Assistir à mesa {room} como espectador",
  "lobby.empty": "Nenhuma mesa ainda. Crie uma!",
  "lobby.load_failed": "Não foi possível carregar as mesas ({message}).",
  "lobby.create.title": "Nova mesa",
  "lobby.games": "Jogos",
  "lobby.players_range": "{min} a {max} jogadores",
  "lobby.players_exact": "{n} jogadores",
  "lobby.new_room_of": "Nova mesa",
  "lobby.create.game": "Jogo",
  "lobby.create.seats": "Lugares",
  "lobby.create.options": "Opções do jogo",
  "lobby.create.clock": "Relógio (segundos por decisão, 0 = sem relógio)",
  "lobby.create.bots": "Robôs na mesa",
  "lobby.create.takeover": "Um robô joga por quem se ausentar após (segundos, vazio = nunca)",
  "lobby.create.submit": "Criar e entrar",
  "lobby.create.failed": "Não foi possível criar a mesa: {message}",
  "status.waiting": "Aguardando jogadores",
  "status.playing": "Em jogo",
  "status.finished": "Encerrada",

  "option.rounds": "Rodadas",
  "option.bills_per_value": "Notas por valor",
  "option.priority": "Prioridade (arrival: chegada, turn: ordem de turno)",

  "table.back": "← Mesas",
  "table.room": "Mesa {room}",
  "table.you_are": "Você joga no lugar {n}",
  "table.spectating": "Assistindo como espectador",
  "table.spectators": "{n} assistindo",
  "table.no_room": "Nenhuma mesa indicada. Volte à lista e escolha uma.",
  "table.waiting": "Aguardando jogadores: {taken} de {seats} lugares ocupados.",
  "table.share": "Compartilhe o endereço desta página para convidar alguém.",
  "table.raw_view": "Ainda não há tabuleiro para este jogo; esta é a visão bruta da mesa.",
  "table.log": "O que aconteceu",
  "table.rejected": "Não permitido: {message}",
  "table.full_now_watching": "Todos os lugares estão ocupados — você está assistindo como espectador.",
  "table.rejoin": "Abrir esta mesa de novo",
  "table.to_lobby": "Voltar às mesas",
  "table.fatal": "{message}",
  "table.clock": "{s} s",
  "table.clock_label": "Tempo restante de {name}",

  "err.rollie/not_your_turn": "Só o Primeiro jogador rola os dados.",
  "err.rollie/not_rolling_phase": "Os dados já foram rolados: pegue uma nota ou garanta.",
  "err.rollie/not_deciding_phase": "Espere a rolagem antes de decidir.",
  "err.rollie/already_decided": "Sua decisão nesta rolagem é definitiva.",
  "err.rollie/not_in_play": "Você garantiu nesta rodada; espere a próxima.",
  "err.rollie/unknown_value": "Nenhuma nota tem esse valor.",
  "err.rollie/value_not_rolled": "Esse valor não está nos dados.",
  "err.rollie/pile_empty": "Essa pilha está vazia — alguém pegou a última nota. Escolha de novo.",
  "err.game/over": "O jogo acabou.",
  "err.room/read_only": "Espectadores não podem jogar.",
  "err.room/not_started": "O jogo começa quando todos os lugares estiverem ocupados.",
  "err.room/rate_limited": "Cliques demais — vá com calma.",
  "err.room/full": "Todos os lugares desta mesa estão ocupados.",
  "err.room/not_found": "Esta mesa não existe.",
  "err.room/bad_seat_token": "Seu lugar nesta mesa não foi encontrado.",
  "err.room/replaced": "Você abriu este lugar em outra aba ou janela; esta parou.",
  "err.room/unavailable": "A mesa está indisponível por um instante; reconectando.",
  "err.room/slow_consumer": "Sua conexão ficou para trás; reconectando.",
  "err.room/origin_forbidden": "Esta página não pode se conectar ao servidor.",
  "err.room/bad_options": "O servidor não aceita esses lugares ou opções",
  "err.room/unknown_game": "O servidor não tem este jogo",

  "rollie.bank": "Banco",
  "rollie.exhausted": "esgotou",
  "rollie.bonus_label": "Fichas de bônus no fim: 1º, 2º e 3º lugar",
  "rollie.pile_label": "Restam {count} notas de {value}",
  "rollie.tokens": "Fichas de Início",
  "rollie.face_down": "{n} viradas para baixo",
  "rollie.face_down_one": "1 virada para baixo",
  "rollie.why.not_on_dice": "{value} não está nos dados: pegue um valor que os dados mostram, ou garanta.",
  "rollie.why.cannot_take": "Você não pode pegar uma nota agora.",
  "rollie.no_face_up": "nenhuma aberta",
  "rollie.dice": "Dados",
  "rollie.not_rolled": "Ainda não rolados",
  "rollie.roll": "Rolar os dados",
  "rollie.secure": "Garantir minha Aposta",
  "rollie.secure_hint": "Garantir: sua Aposta vai para a Carteira de vez.",
  "rollie.take_hint": "Clique num dado para pegar uma nota desse valor.",
  "rollie.keys": "Teclas: R rolar · S garantir · 1–5 pegar −5, 0, 2, 5, 10",
  "rollie.take_label": "Pegar uma nota de {value}",
  "rollie.die_label": "Dado mostrando {face}",
  "rollie.choose": "R: escolha qualquer nota",
  "rollie.choose_cancel": "Cancelar",
  "rollie.round": "Rodada {n} de {total}",
  "rollie.final_round": "Última rodada",
  "rollie.bet": "Aposta",
  "rollie.wallet": "Carteira",
  "rollie.start_tokens": "Fichas de Início",
  "rollie.in_play": "Em jogo",
  "rollie.secured": "Garantiu",
  "rollie.decided": "Decidiu",
  "rollie.deciding": "Decidindo…",
  "rollie.first_player": "Primeiro jogador",
  "rollie.offline": "desconectado",
  "rollie.prompt.you_roll": "Sua vez: role os dados!",
  "rollie.prompt.rolling": "{name} vai rolar os dados.",
  "rollie.prompt.you_decide": "Pegue uma nota ou garanta sua Aposta.",
  "rollie.prompt.decided": "Sua decisão foi feita. Aguardando {names}.",
  "rollie.prompt.out": "Você garantiu nesta rodada. Aguardando {names}.",
  "rollie.prompt.deciding": "Aguardando a decisão de {names}.",
  "rollie.prompt.over": "O jogo acabou.",
  "rollie.prompt.waiting": "O jogo começa quando todos os lugares estiverem ocupados.",
  "rollie.ev.rolled": "{name} rolou {a} e {b}.",
  "rollie.ev.took": "{name} pegou uma nota de {value}.",
  "rollie.ev.secured": "{name} garantiu {amount}.",
  "rollie.ev.secured_token": "{name} garantiu {amount} e a ficha de Início {token}.",
  "rollie.ev.rollie": "Rollie! Dois {face}!",
  "rollie.ev.crash": "{names} quebraram: a Aposta volta ao Banco!",
  "rollie.ev.crash_one": "Quebrou! {names} perde a Aposta.",
  "rollie.ev.crash_empty": "Nenhuma pilha para estes dados: {names} perde a Aposta.",
  "rollie.ev.claim_undone": "Um jogador anterior também queria: {name} devolve e escolhe de novo.",
  "rollie.ev.dice_passed": "Os dados passam para {name}.",
  "rollie.ev.round_ended": "Fim da rodada {n}.",
  "rollie.ev.round_started": "Começa a rodada {n}: a ficha de Início {token} é aberta.",
  "rollie.ev.game_over": "Fim de jogo!",
  "rollie.final.title": "Pontuação final",
  "rollie.final.player": "Jogador",
  "rollie.final.bills_of": "Notas de {value}",
  "rollie.final.bills": "Notas",
  "rollie.final.start_tokens": "Fichas de Início",
  "rollie.final.bonus_tokens": "Fichas de bônus",
  "rollie.final.bonus": "Bônus",
  "rollie.final.total": "Total",
  "rollie.final.winner": "Vencedor",
  "rollie.final.wins": "{names} venceu!",
  "rollie.final.win_shared": "{names} dividem a vitória!",
  "rollie.final.place": "{place} {value}: +{amount}",
  "rollie.ord.1": "1º",
  "rollie.ord.2": "2º",
  "rollie.ord.3": "3º",
  "rollie.final.none": "—",
};

/** @type {{[lang: string]: Strings}} every string of every language */
export const DICTIONARIES = { en, "pt-BR": pt };

/**
 * Add a game's own strings (``js/i18n/<game>.js`` exports ``{en: {...}, "pt-BR": {...}}``);
 * a game module calls this when it loads, so games keep their strings beside them.
 * @param {{[lang: string]: Strings}} more strings per language
 */
export function addStrings(more) {
  for (const code of LANGS) Object.assign(DICTIONARIES[code], more[code] || {});
}

/** @returns {string} the language kept from before, else the browser's */
function detect() {
  try {
    const saved = localStorage.getItem(STORAGE_KEY);
    if (saved !== null && LANGS.includes(saved)) return saved;
  } catch (_) {
    /* storage may be unavailable */
  }
  return fromNavigator(typeof navigator === "undefined" ? null : navigator); // none in Node's tests
}

/**
 * The language a browser asks for: Portuguese for any pt-*, else English.
 * @param {{languages?: readonly string[], language?: string} | null} nav the browser's navigator
 * @returns {string} a code of LANGS
 */
export function fromNavigator(nav) {
  const wanted = nav?.languages?.[0] || nav?.language || "en";
  return wanted.toLowerCase().startsWith("pt") ? "pt-BR" : "en";
}

let current = detect();
addStrings(errorStrings);
/** @type {Set<(code: string) => void>} */
const listeners = new Set();

/** @returns {string} the current language's code */
export function lang() {
  return current;
}

/** @param {string} code a code of LANGS (anything else changes nothing) */
export function setLang(code) {
  if (!LANGS.includes(code) || code === current) return;
  current = code;
  try {
    localStorage.setItem(STORAGE_KEY, code);
  } catch (_) {
    /* ignore */
  }
  document.documentElement.lang = code;
  translatePage();
  for (const fn of listeners) fn(code);
}

/** @param {(code: string) => void} fn called after each switch, with the new code */
export function onLangChange(fn) {
  listeners.add(fn);
}

/**
 * @param {string} key a string's key
 * @returns {boolean} the current language, or English, has it
 */
export function has(key) {
  return key in DICTIONARIES[current] || key in en;
}

/** The string `key` in the current language, `{name}` filled from params. A param may
 * itself be `{key, params, fallback}` (a game's log keeps names that way, so a line
 * re-translates when the language changes): it is translated too.
 * @param {string} key the string's key
 * @param {{[name: string]: unknown}} [params] what fills its {placeholders}
 * @returns {string} the text
 */
export function t(key, params = {}) {
  const text = DICTIONARIES[current][key] ?? en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (/** @type {string} */ m, /** @type {string} */ name) => (params && name in params ? param(params[name]) : m));
}

/**
 * @param {unknown} value a param: shown as text, or a {key, params, fallback} translated
 * @returns {string} its text
 */
function param(value) {
  if (value && typeof value === "object" && "key" in value) {
    const { key, params, fallback } = /** @type {{key: string, params?: {[name: string]: unknown}, fallback?: unknown}} */ (value);
    return has(key) ? t(key, params) : String(fallback ?? key);
  }
  return String(value);
}

/**
 * A rejection or error code as a sentence in the current language (server text otherwise).
 * @param {string} code the error code
 * @param {string | null} [fallback] the server's message
 * @returns {string} the sentence
 */
export function errorText(code, fallback) {
  const key = `err.${code}`;
  if (has(key)) return t(key);
  // an unknown code: its family's sentence, else the server's words (English only)
  const family = `err.${String(code).split("/")[0]}/rejected`;
  if (has(family)) return t(family);
  return current === "en" && fallback ? fallback : t("err.generic");
}

/**
 * @param {ParentNode} root where to look
 * @param {string} selector a CSS selector
 * @returns {NodeListOf<HTMLElement>} the elements (every match in a page is an HTML element)
 */
function htmlElements(root, selector) {
  return root.querySelectorAll(selector);
}

/**
 * Fill every [data-i18n] (text), [data-i18n-aria] (aria-label), [data-i18n-placeholder].
 * @param {ParentNode} [root] where to look
 */
export function translatePage(root = document) {
  for (const el of htmlElements(root, "[data-i18n]")) el.textContent = t(el.dataset.i18n ?? "");
  for (const el of htmlElements(root, "[data-i18n-aria]"))
    el.setAttribute("aria-label", t(el.dataset.i18nAria ?? ""));
  for (const el of htmlElements(root, "[data-i18n-placeholder]"))
    el.setAttribute("placeholder", t(el.dataset.i18nPlaceholder ?? ""));
  for (const el of htmlElements(root, "[data-lang]"))
    el.setAttribute("aria-pressed", String(el.dataset.lang === current));
}

/** Wire the EN / PT buttons of a page (any element with data-lang). */
/** @param {ParentNode} [root] where the buttons are */
export function mountLangSwitch(root = document) {
  document.documentElement.lang = current;
  for (const el of htmlElements(root, "[data-lang]")) {
    el.addEventListener("click", () => setLang(el.dataset.lang ?? ""));
  }
  translatePage(root);
}
